package sqlserver

import (
	"maps"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
)

func goodMs() msDoctorValues {
	rcsi := false
	return msDoctorValues{Version: "Microsoft SQL Server 2022 (RTM-CU12) - 16.0.4120.1 (X64)", Database: "bench", DelayedDurability: "DISABLED", RCSI: &rcsi,
		Config:   map[string]int64{"max server memory (MB)": 12288, "max degree of parallelism": 0, "cost threshold for parallelism": 50, "user connections": 0},
		MaxConns: 32767, InUse: 3, DataBytes: 2 << 30}
}

// TestMsChecksWarnOfWhatTheTestServerCannotShow feeds the checks the
// settings Babelfish does not have (delayed durability, max server
// memory, the data's size) and the ones a test cannot change.
func TestMsChecksWarnOfWhatTheTestServerCannotShow(t *testing.T) {
	o := evidence.DoctorOptions{Clients: 8, Memory: &evidence.Memory{Total: 16 << 30, Available: 4 << 30}}
	for _, c := range msChecks(goodMs(), o) {
		if c.Status == evidence.StatusWarn {
			t.Errorf("a well-set server: %+v", c)
		}
	}
	for _, tc := range []struct {
		change func(v *msDoctorValues, o *evidence.DoctorOptions)
		check  string
		want   string
	}{
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.DelayedDurability = "FORCED" }, "delayed durability", evidence.StatusWarn},
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.DelayedDurability = "ALLOWED" }, "delayed durability", evidence.StatusOK},
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.DelayedDurability = "" }, "delayed durability", evidence.StatusInfo},
		// The default, unlimited, and anything above 80% of the host.
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.Config["max server memory (MB)"] = 2147483647 }, "max server memory", evidence.StatusWarn},
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.Config["max server memory (MB)"] = 14000 }, "max server memory", evidence.StatusWarn},
		{func(_ *msDoctorValues, o *evidence.DoctorOptions) { o.Memory = nil }, "max server memory", evidence.StatusInfo},
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { delete(v.Config, "max server memory (MB)") }, "max server memory", evidence.StatusInfo},
		// SQL Server reads through its buffer pool alone.
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.DataBytes = 13 << 30 }, "data in memory", evidence.StatusWarn},
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.DataBytes = -1 }, "data in memory", evidence.StatusInfo},
		// Unlimited memory caps the cache at the host's.
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) {
			v.Config["max server memory (MB)"], v.DataBytes = 2147483647, 17<<30
		}, "data in memory", evidence.StatusWarn},
		{func(_ *msDoctorValues, o *evidence.DoctorOptions) { o.Clients = 32763 }, "max connections", evidence.StatusWarn},
		{func(_ *msDoctorValues, o *evidence.DoctorOptions) { o.Clients = 32762 }, "max connections", evidence.StatusOK},
		// user connections, when set, is the limit.
		{func(v *msDoctorValues, _ *evidence.DoctorOptions) { v.Config["user connections"] = 10 }, "max connections", evidence.StatusWarn},
	} {
		v, oo := goodMs(), o
		v.Config = maps.Clone(goodMs().Config)
		tc.change(&v, &oo)
		var got string
		for _, c := range msChecks(v, oo) {
			if c.Name == tc.check {
				got = c.Status
			}
			if c.Status == evidence.StatusWarn && c.Advice == "" || c.Status == evidence.StatusOK && c.Advice != "" {
				t.Errorf("a warning, and never an OK, says what to change: %+v", c)
			}
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.check, got, tc.want)
		}
	}
}
