package mysql_test

import (
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestServerChecksOnTheRealServer runs the checks on the shared server,
// whose global settings a test may not change: they read, the connections
// warn for too many clients, and a new database fits in the buffer pool.
func TestServerChecksOnTheRealServer(t *testing.T) {
	d := testdb.Open(t, testdb.MySQL(t, "dbh_doctor"))
	for _, clients := range []int{1, 100000} {
		got := testdb.ServerChecks(t, d, clients)
		if len(got) != 6 || got["version"].Value == "" || got["innodb_flush_log_at_trx_commit"].Value == "" || got["sync_binlog"].Value == "" {
			t.Errorf("checks %+v", got)
		}
		if c := got["data in memory"]; c.Status != evidence.StatusOK {
			t.Errorf("an empty database: %+v", c)
		}
		if c := got["innodb_buffer_pool_size"]; c.Status != evidence.StatusInfo {
			t.Errorf("without the host's memory: %+v", c)
		}
		want := evidence.StatusOK
		if clients > 1 {
			want = evidence.StatusWarn
		}
		if c := got["max_connections"]; c.Status != want {
			t.Errorf("%d clients: %+v", clients, c)
		}
	}
}
