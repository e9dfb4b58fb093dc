package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// --statement-timeout ends statements that run longer, on every engine,
// and counts them as errors of class timeout.
func TestStatementTimeoutEndsLongStatements(t *testing.T) {
	t.Parallel()
	slow := map[string]string{
		"postgres": "SELECT pg_sleep(3);\n",
		"mysql":    "SELECT SLEEP(3);\n",
		// A query that counts for long: only the client can end it.
		"sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n;\n",
	}
	for _, e := range testdb.Engines(t, "dbh_stmt_timeout") {
		t.Run(e.Name, func(t *testing.T) {
			home := t.TempDir()
			script := filepath.Join(home, "slow.sql")
			if err := os.WriteFile(script, []byte(slow[e.Name]), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(home, "run.json")
			r := dbh(t, home, "run", "-f", script, "-c", "2", "-t", "2", "--statement-timeout", "200ms",
				"--db", e.URL, "--no-save", "--collect", "none", "--json", out)
			var run struct {
				ErrorClasses map[string]int64 `json:"error_classes"`
				Config       struct {
					StatementTimeoutMs float64 `json:"statement_timeout_ms"`
				} `json:"config"`
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("exit %d, no JSON: %v\n%s", r.code, err, r.all())
			}
			if err := json.Unmarshal(b, &run); err != nil {
				t.Fatal(err)
			}
			if run.ErrorClasses["timeout"] != 4 || run.Config.StatementTimeoutMs != 200 {
				t.Errorf("error classes %v, statement timeout %g ms; want 4 timeouts of 200 ms\n%s", run.ErrorClasses, run.Config.StatementTimeoutMs, r.all())
			}
		})
	}
}

// A timed run in which every statement waits on a lock another session
// holds ends on time: the waits are cancelled and counted as such. On SQL
// Server the stop escalation ends them with KILL from another connection,
// then closes the socket (Babelfish does not confirm the driver's cancel).
func TestARunEndsOnTimeWhenEveryStatementWaitsOnALock(t *testing.T) {
	t.Parallel()
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_lockwait") {
		t.Run(e.Name, func(t *testing.T) {
			d, c := testdb.Connect(t, e.URL)
			ctx := context.Background()
			testdb.Exec(t, c, "CREATE TABLE held (id int PRIMARY KEY, v int)", "INSERT INTO held VALUES (1, 0)")
			// The lock: a row lock on the servers, the write lock on SQLite.
			begin := "BEGIN"
			if w := d.Caps().BeginWrite; w != "" {
				begin = w
			}
			testdb.Exec(t, c, begin, "UPDATE held SET v = v + 1 WHERE id = 1")
			defer c.Exec(ctx, "ROLLBACK")
			home := t.TempDir()
			script := filepath.Join(home, "wait.sql")
			if err := os.WriteFile(script, []byte("UPDATE held SET v = v + 1 WHERE id = 1;\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(home, "run.json")
			r := dbh(t, home, "run", "-f", script, "-c", "2", "-T", "1s", "--db", e.URL, "--no-save", "--collect", "none", "--json", out)
			var run struct {
				ErrorClasses map[string]int64 `json:"error_classes"`
				Summary      struct {
					Seconds float64 `json:"seconds"`
				} `json:"summary"`
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("exit %d, no JSON: %v\n%s", r.code, err, r.all())
			}
			if err := json.Unmarshal(b, &run); err != nil {
				t.Fatal(err)
			}
			if run.ErrorClasses["cancelled"] != 2 || run.Summary.Seconds > 10 { // before: the 30 s grace, or for ever
				t.Errorf("error classes %v, measured %.3fs: want the 2 waits cancelled soon after the deadline\n%s", run.ErrorClasses, run.Summary.Seconds, r.all())
			}
		})
	}
}
