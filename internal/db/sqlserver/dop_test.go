package sqlserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlserver"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestWithMaxDOPHintsOneSelectOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT count(*) FROM t", "SELECT count(*) FROM t OPTION (MAXDOP 4)"},
		{"  select a FROM t WHERE b = @p1;  ", "select a FROM t WHERE b = @p1 OPTION (MAXDOP 4)"},
		{"WITH c AS (SELECT 1 AS x) SELECT x FROM c", "WITH c AS (SELECT 1 AS x) SELECT x FROM c OPTION (MAXDOP 4)"},
		{"SELECT a FROM t OPTION (RECOMPILE)", "SELECT a FROM t OPTION (RECOMPILE)"},
		{"UPDATE t SET a = 1", "UPDATE t SET a = 1"},
		{"SELECT 1; SELECT 2", "SELECT 1; SELECT 2"},
		{"EXEC p", "EXEC p"},
		{"BEGIN TRANSACTION", "BEGIN TRANSACTION"},
	} {
		if got := sqlserver.WithMaxDOP(tc.in, 4); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := sqlserver.WithMaxDOP("SELECT 1", 0); got != "SELECT 1" {
		t.Errorf("no --dop: %q", got)
	}
}

// TestDOPReachesBabelfish: --dop 3 is Babelfish's session
// max_parallel_workers_per_gather = 2, which its plans show; and the hint
// SetDOP gives SQL Server reaches the server in the query's text
// (Babelfish turns OPTION (MAXDOP n) into a pg_hint_plan comment, which it
// then ignores without pg_hint_plan).
func TestDOPReachesBabelfish(t *testing.T) {
	url := testdb.SQLServer(t, "dbh_sqlserver_dop")
	ctx := context.Background()
	d := testdb.Open(t, url)
	if err := db.SetDOP(ctx, d, 3); err != nil {
		t.Fatal(err)
	}
	info, err := d.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Settings["max_parallel_workers_per_gather"]; got != "2" {
		t.Errorf("max_parallel_workers_per_gather %q with --dop 3; want 2", got)
	}
	profile := func(d db.DB, q string) string {
		t.Helper()
		c, err := d.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		testdb.Exec(t, c, "SELECT set_config('parallel_setup_cost', '0', false), set_config('parallel_tuple_cost', '0', false), set_config('min_parallel_table_scan_size', '0', false)",
			"SET BABELFISH_STATISTICS PROFILE ON")
		r, err := c.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for r.Next() {
		}
		var plan []string
		for sqlserver.NextResultSet(r) {
			for r.Next() {
				var line string
				if err := r.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, line)
			}
		}
		return strings.Join(plan, "\n")
	}
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testdb.Exec(t, c, "CREATE TABLE dop_t (a int, b int)", "INSERT INTO dop_t SELECT value, value % 7 FROM generate_series(1, 2000) value")
	c.Close()
	const q = "SELECT b, count(*) FROM dop_t GROUP BY b"
	if plan := profile(d, q); !strings.Contains(plan, "Workers Planned: 2") {
		t.Errorf("--dop 3 on Babelfish: the plan plans no 2 workers:\n%s", plan)
	}
	h := testdb.Open(t, url)
	sqlserver.HintDOP(h, 2)
	if plan := profile(h, q); !strings.Contains(plan, "set(max_parallel_workers_per_gather 2)") {
		t.Errorf("the MAXDOP hint is not in the query's text as Babelfish ran it:\n%s", plan)
	}
	// An engine with no intra-query parallelism is refused.
	var de *db.DOPError
	if err := db.SetDOP(ctx, testdb.Open(t, testdb.SQLite(t)), 2); !errors.As(err, &de) || !strings.Contains(err.Error(), "no intra-query parallelism") {
		t.Errorf("--dop 2 on SQLite: %v", err)
	}
}
