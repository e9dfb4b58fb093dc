package sqlserver_test

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestServerChecksOnTheTestServer runs the checks on the test Babelfish:
// they read, say what Babelfish leaves to its PostgreSQL side, and the
// connections warn for too many clients.
func TestServerChecksOnTheTestServer(t *testing.T) {
	t.Parallel()
	d := testdb.Open(t, testdb.SQLServer(t, "dbh_mssql_doctor"))
	for _, clients := range []int{1, 100000} {
		got := testdb.ServerChecks(t, d, clients)
		if c := got["version"]; c.Status != evidence.StatusOK || !strings.Contains(c.Value, "Babelfish") {
			t.Errorf("version: %+v", c)
		}
		for _, name := range []string{"delayed durability", "max server memory"} {
			if c := got[name]; c.Status != evidence.StatusInfo || !strings.Contains(c.Advice, "PostgreSQL side") {
				t.Errorf("%s on Babelfish: %+v", name, c)
			}
		}
		if c := got["read committed snapshot"]; c.Status != evidence.StatusInfo || !strings.Contains(c.Value, "dbh_mssql_doctor") {
			t.Errorf("read committed snapshot: %+v", c)
		}
		want := evidence.StatusOK
		if clients > 1 {
			want = evidence.StatusWarn
		}
		if c := got["max connections"]; c.Status != want {
			t.Errorf("%d clients: %+v", clients, c)
		}
	}
}
