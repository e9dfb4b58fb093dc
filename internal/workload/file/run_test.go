package file

import (
	"context"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// runner is a file workload loaded on one database, with one worker.
type runner struct {
	w  *Workload
	d  db.DB
	wk workload.Worker
}

// loadAndPrepare inits src on url and prepares a worker for its
// transactions.
func loadAndPrepare(t *testing.T, url, src string) *runner {
	t.Helper()
	w := openFile(t, src)
	d := openDB(t, url)
	ctx := context.Background()
	env := &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}, Note: func(string) {}}
	if err := w.Init(ctx, env); err != nil {
		t.Fatal(err)
	}
	conn, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := w.Setup(ctx, env, conn); err != nil {
		t.Fatal(err)
	}
	wk, err := w.NewWorker(ctx, conn, 0)
	if err != nil {
		t.Fatal(err)
	}
	return &runner{w: w, d: d, wk: wk}
}

// run runs transaction name once and returns its error.
func (r *runner) run(t *testing.T, name string) error {
	t.Helper()
	for range 10000 {
		if op := r.wk.Next(); r.w.Ops()[op] == name {
			return r.wk.Do(context.Background(), op)
		}
	}
	t.Fatalf("transaction %s was never picked", name)
	return nil
}

// count runs a one-row, one-column query on the runner's database.
func (r *runner) count(t *testing.T, sql string) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := r.d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n, err := db.QueryInt64(ctx, conn, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

const counterFile = `tables:
  - name: counters
    rows: 10
    primary_key: [id]
    columns:
      - {name: id, type: bigint, gen: sequence}
      - {name: hits, type: int, gen: constant, value: 0}
transactions:
  - name: sneaky
    read_only: true
    statements:
      - SELECT hits FROM counters WHERE id = 1
      - UPDATE counters SET hits = hits + 1 WHERE id = 1
  - name: look
    read_only: true
    statements:
      - SELECT hits AS h FROM counters WHERE id = 1
      - SELECT count(*) FROM counters WHERE hits = :h
`

// read_only: true begins the engine's read-only transaction: a write in it
// fails on PostgreSQL and MariaDB, reads work everywhere. SQLite has no
// read-only transaction (documented in docs/workload-file.md): there the
// write goes through.
func TestAReadOnlyTransactionCannotWrite(t *testing.T) {
	for _, e := range testdb.Engines(t, "dbh_wf_readonly") {
		t.Run(e.Name, func(t *testing.T) {
			r := loadAndPrepare(t, e.URL, counterFile)
			if err := r.run(t, "look"); err != nil {
				t.Fatalf("a read-only transaction that only reads failed: %v", err)
			}
			err := r.run(t, "sneaky")
			hits := r.count(t, "SELECT hits FROM counters WHERE id = 1")
			switch e.Name {
			case "postgres", "mysql":
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), "read") {
					t.Fatalf("UPDATE in a read_only transaction: err %v, want a read-only error", err)
				}
				if hits != 0 {
					t.Errorf("the refused UPDATE left hits = %d", hits)
				}
			case "sqlite":
				if err != nil || hits != 1 {
					t.Fatalf("SQLite: err %v, hits %d; if SQLite now refuses the write, update docs/workload-file.md", err, hits)
				}
			}
		})
	}
}
