package mysql

import (
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
)

func goodMy() myDoctorValues {
	return myDoctorValues{Version: "10.11.6-MariaDB", Vars: map[string]string{"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1",
		"log_bin": "ON", "innodb_buffer_pool_size": "8589934592", "max_connections": "151"}, InUse: 2, DataBytes: 1 << 30}
}

// TestMyChecksWarnOfWhatTheSharedServerCannotShow feeds the checks the
// global settings a test cannot change on the shared server.
func TestMyChecksWarnOfWhatTheSharedServerCannotShow(t *testing.T) {
	o := evidence.DoctorOptions{Clients: 8, Memory: &evidence.Memory{Total: 16 << 30, Available: 4 << 30}}
	for _, c := range myChecks(goodMy(), o) {
		if c.Status != evidence.StatusOK {
			t.Errorf("a well-set server: %+v", c)
		}
	}
	for _, tc := range []struct {
		change func(v *myDoctorValues, o *evidence.DoctorOptions)
		check  string
		want   string
	}{
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) { v.Vars["innodb_flush_log_at_trx_commit"] = "2" }, "innodb_flush_log_at_trx_commit", evidence.StatusWarn},
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) { v.Vars["innodb_flush_log_at_trx_commit"] = "0" }, "innodb_flush_log_at_trx_commit", evidence.StatusWarn},
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) { v.Vars["sync_binlog"] = "0" }, "sync_binlog", evidence.StatusWarn},
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) {
			v.Vars["sync_binlog"], v.Vars["log_bin"] = "0", "OFF"
		}, "sync_binlog", evidence.StatusOK},
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) { v.Vars["innodb_buffer_pool_size"] = "134217728" }, "innodb_buffer_pool_size", evidence.StatusWarn},
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) { v.Vars["innodb_buffer_pool_size"] = "15032385536" }, "innodb_buffer_pool_size", evidence.StatusWarn},
		{func(_ *myDoctorValues, o *evidence.DoctorOptions) { o.Memory = nil }, "innodb_buffer_pool_size", evidence.StatusInfo},
		// The OS page cache is no second cache for InnoDB.
		{func(v *myDoctorValues, _ *evidence.DoctorOptions) { v.DataBytes = 9 << 30 }, "data in memory", evidence.StatusWarn},
		{func(_ *myDoctorValues, o *evidence.DoctorOptions) { o.Clients = 148 }, "max_connections", evidence.StatusWarn},
		{func(_ *myDoctorValues, o *evidence.DoctorOptions) { o.Clients = 147 }, "max_connections", evidence.StatusOK},
	} {
		v, oo := goodMy(), o
		v.Vars = map[string]string{}
		for k, x := range goodMy().Vars {
			v.Vars[k] = x
		}
		tc.change(&v, &oo)
		var got string
		for _, c := range myChecks(v, oo) {
			if c.Name == tc.check {
				got = c.Status
			}
			if (c.Status == evidence.StatusWarn) != (c.Advice != "") {
				t.Errorf("a warning, and only a warning, says what to change: %+v", c)
			}
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.check, got, tc.want)
		}
	}
	if c := myChecks(goodMy(), o)[0]; c.Value != "MariaDB 10.11.6-MariaDB" {
		t.Errorf("version %q", c.Value)
	}
}
