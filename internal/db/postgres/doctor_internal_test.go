package postgres

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
)

// statusOf returns the status of the check named name, "" if absent.
func statusOf(cs []evidence.Check, name string) string {
	for _, c := range cs {
		if c.Name == name {
			return c.Status
		}
	}
	return ""
}

func goodPG() pgDoctorValues {
	return pgDoctorValues{Version: "16.1", Settings: map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"},
		SharedBuffers: 4 << 30, MaxConns: 100, Reserved: 3, InUse: 1, DataBytes: 1 << 30}
}

// TestPgChecksWarnOfWhatTheSharedServerCannotShow feeds the checks the
// settings that cannot be changed on a shared server (fsync,
// full_page_writes need a reload of the whole server).
func TestPgChecksWarnOfWhatTheSharedServerCannotShow(t *testing.T) {
	mem := &evidence.Memory{Total: 16 << 30, Available: 8 << 30}
	o := evidence.DoctorOptions{Clients: 8, Memory: mem}
	good := pgChecks(goodPG(), o)
	for _, c := range good {
		if c.Status != evidence.StatusOK {
			t.Errorf("a well-set server: %+v", c)
		}
	}
	want := "version,fsync,synchronous_commit,full_page_writes,shared_buffers,max_connections,data in memory,autovacuum"
	var names []string
	for _, c := range good {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != want {
		t.Errorf("checks %s, want %s", got, want)
	}
	for _, tc := range []struct {
		change func(v *pgDoctorValues, o *evidence.DoctorOptions)
		check  string
		want   string
	}{
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.Settings["fsync"] = "off" }, "fsync", evidence.StatusWarn},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.Settings["full_page_writes"] = "off" }, "full_page_writes", evidence.StatusWarn},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.Settings["synchronous_commit"] = "off" }, "synchronous_commit", evidence.StatusWarn},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.Settings["synchronous_commit"] = "local" }, "synchronous_commit", evidence.StatusOK},
		// 128MB on 16GB with 1GB of data: below 1/8 and smaller than the data.
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.SharedBuffers = 128 << 20 }, "shared_buffers", evidence.StatusWarn},
		// 128MB that holds the data is enough.
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.SharedBuffers, v.DataBytes = 128<<20, 10<<20 }, "shared_buffers", evidence.StatusOK},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.SharedBuffers = 10 << 30 }, "shared_buffers", evidence.StatusWarn},
		{func(_ *pgDoctorValues, o *evidence.DoctorOptions) { o.Memory = nil }, "shared_buffers", evidence.StatusInfo},
		{func(_ *pgDoctorValues, o *evidence.DoctorOptions) { o.Clients = 95 }, "max_connections", evidence.StatusWarn},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.DataBytes = 20 << 30 }, "data in memory", evidence.StatusWarn},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.DataBytes = 10 << 30 }, "data in memory", evidence.StatusOK},
		{func(v *pgDoctorValues, _ *evidence.DoctorOptions) { v.Autovacuum = []string{"VACUUM public.t"} }, "autovacuum", evidence.StatusWarn},
	} {
		v, oo := goodPG(), o
		tc.change(&v, &oo)
		cs := pgChecks(v, oo)
		if got := statusOf(cs, tc.check); got != tc.want {
			t.Errorf("%s: %s, want %s: %+v", tc.check, got, tc.want, cs)
		}
		for _, c := range cs {
			if (c.Status == evidence.StatusWarn) != (c.Advice != "") {
				t.Errorf("a warning, and only a warning, says what to change: %+v", c)
			}
		}
	}
}
