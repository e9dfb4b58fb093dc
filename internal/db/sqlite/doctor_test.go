package sqlite_test

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestServerChecksReadTheConnectionsPragmas: dbharness's connections use
// WAL and synchronous=NORMAL, which hold; synchronous=OFF given in the
// URL, which the run's connections would take too, warns. (journal_mode
// in the URL does not replace dbharness's WAL: liteChecks' own test covers
// its warnings.)
func TestServerChecksReadTheConnectionsPragmas(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		query       string
		journal, sy string
	}{
		{"", evidence.StatusOK, evidence.StatusOK},
		{"?_pragma=synchronous(OFF)", evidence.StatusOK, evidence.StatusWarn},
		{"?_pragma=synchronous(FULL)", evidence.StatusOK, evidence.StatusOK},
	} {
		// A new file each: WAL, once set, stays with the file.
		d := testdb.Open(t, testdb.SQLite(t)+tc.query)
		cs, err := d.(evidence.ServerChecker).ServerChecks(ctx, evidence.DoctorOptions{Clients: 1, Memory: &evidence.Memory{Total: 1 << 30, Available: 1 << 29}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range cs {
			got[c.Name] = c.Status
		}
		if got["journal_mode"] != tc.journal || got["synchronous"] != tc.sy || got["data in memory"] != evidence.StatusOK || got["version"] != evidence.StatusOK {
			t.Errorf("%q: %+v", tc.query, cs)
		}
		d.Close()
	}
}
