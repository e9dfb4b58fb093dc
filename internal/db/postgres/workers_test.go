package postgres_test

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/postgres"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestCountWorkersSumsTheGatherNodes(t *testing.T) {
	doc := `[{"Plan": {"Node Type": "Hash Join", "Plans": [
		{"Node Type": "Gather", "Workers Planned": 3, "Workers Launched": 2, "Plans": [{"Node Type": "Seq Scan"}]},
		{"Node Type": "Hash", "Plans": [{"Node Type": "Gather Merge", "Workers Planned": 1, "Workers Launched": 1}]}]}}]`
	w, err := postgres.CountWorkers([]byte(doc))
	if err != nil || w.Planned != 4 || w.Launched != 3 {
		t.Errorf("workers %+v, %v; want 4 planned, 3 launched", w, err)
	}
	if w, err := postgres.CountWorkers([]byte(`[{"Plan": {"Node Type": "Seq Scan"}}]`)); err != nil || w.Planned != 0 || w.Launched != 0 {
		t.Errorf("a serial plan: %+v, %v", w, err)
	}
	if _, err := postgres.CountWorkers([]byte(`{}`)); err == nil {
		t.Error("no error for a document that is not EXPLAIN's")
	}
}

// TestWorkersRunsReadsAndNotWrites: --dop 2 with costs that favour a
// parallel plan plans a worker for a scan, which the count measures; a
// write is not run, and says why; the session is left as it was.
func TestWorkersRunsReadsAndNotWrites(t *testing.T) {
	d, c := testdb.Connect(t, testdb.Postgres(t, "dbh_pg_workers"))
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE w (a int)", "INSERT INTO w SELECT generate_series(1, 1000)", "ANALYZE w",
		"SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0", "SET max_parallel_workers_per_gather = 1")
	wc := d.(evidence.WorkerCounter)
	w, err := wc.Workers(ctx, c, "SELECT count(*) FROM w WHERE a > $1", []any{10})
	if err != nil || w.NotMeasured != "" || w.Planned != 1 || w.Launched > 1 {
		t.Errorf("a parallel scan: %+v, %v; want 1 planned", w, err)
	}
	w, err = wc.Workers(ctx, c, "UPDATE w SET a = a + 1", nil)
	if err != nil || w.NotMeasured == "" {
		t.Errorf("a write: %+v, %v; want not measured", w, err)
	}
	if n := testdb.QueryInt64(t, d, "SELECT sum(a) FROM w"); n != 500500 {
		t.Errorf("the write changed the table: sum %d", n)
	}
	if v, err := db.QueryString(ctx, c, "SHOW max_parallel_workers_per_gather"); err != nil || v != "1" {
		t.Errorf("the session's setting is %q, %v after the count", v, err)
	}
}
