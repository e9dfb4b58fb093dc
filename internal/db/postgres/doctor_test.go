package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestServerChecksReadTheDatabasesOwnSettings runs the checks on the real
// server: synchronous_commit set off for the test's database warns, as
// the run's sessions would see it, and too many clients for
// max_connections warn.
func TestServerChecksReadTheDatabasesOwnSettings(t *testing.T) {
	ctx := context.Background()
	url := testdb.Postgres(t, "dbh_doctor")
	d, c := testdb.Connect(t, url)
	status := testdb.ServerChecks(t, d, 1)
	// The shared server is durable and holds a new database in memory.
	for _, name := range []string{"version", "fsync", "synchronous_commit", "full_page_writes", "max_connections", "data in memory"} {
		if status[name].Status != evidence.StatusOK {
			t.Errorf("%s: %+v", name, status[name])
		}
	}
	if status["shared_buffers"].Status != evidence.StatusInfo {
		t.Errorf("shared_buffers without the host's memory: %+v", status["shared_buffers"])
	}
	if err := c.Exec(ctx, "ALTER DATABASE "+url[strings.LastIndex(url, "/")+1:]+" SET synchronous_commit = off"); err != nil {
		t.Fatal(err)
	}
	for _, ch := range testdb.ServerChecks(t, d, 100000) {
		switch ch.Name {
		case "synchronous_commit", "max_connections":
			if ch.Status != evidence.StatusWarn || ch.Advice == "" {
				t.Errorf("%s: %+v", ch.Name, ch)
			}
		}
	}
}
