package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// --statement-timeout ends statements that run longer, on every engine,
// and counts them as errors of class timeout.
func TestStatementTimeoutEndsLongStatements(t *testing.T) {
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
