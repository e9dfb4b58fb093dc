package file

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// runner is a file workload loaded on one database, with one worker.
type runner struct {
	w  *Workload
	d  db.DB
	wk workload.Worker
}

// engines returns a fresh database on every engine, and PostgreSQL again
// for the event-loop driver's connections ("postgres-loop").
func engines(t *testing.T, name string) []testdb.Engine {
	return append(testdb.EnginesAndSQLServer(t, name), testdb.Engine{Name: "postgres-loop", URL: testdb.Postgres(t, name+"_loop")})
}

// loadAndPrepareOn is loadAndPrepare on an engine of engines: the worker
// of "postgres-loop" runs on an event-loop connection (used from this
// goroutine, its waits in poll(2)).
func loadAndPrepareOn(t *testing.T, e testdb.Engine, src string) *runner {
	t.Helper()
	return loadAndPrepareLoop(t, e.URL, src, e.Name == "postgres-loop")
}

// loadAndPrepare inits src on url and prepares a worker for its
// transactions.
func loadAndPrepare(t *testing.T, url, src string) *runner {
	t.Helper()
	return loadAndPrepareLoop(t, url, src, false)
}

func loadAndPrepareLoop(t *testing.T, url, src string, loop bool) *runner {
	t.Helper()
	w := openFile(t, src)
	d := testdb.Open(t, url)
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
	if loop {
		lc, err := d.(db.LoopDB).ConnectLoop(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lc.Close() })
		conn = lc
	}
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
	return testdb.QueryInt64(t, r.d, sql)
}

const accountsFile = `tables:
  - name: accounts
    rows: 100
    primary_key: [n]
    columns:
      - {name: n, type: int, gen: sequence}
      - {name: id, type: uuid, gen: uuid}
      - {name: code, type: varchar(10), gen: choice, values: ["73"]}
      - {name: hits, type: int, gen: constant, value: 0}
transactions:
  - name: sneaky
    read_only: true
    statements:
      - SELECT hits FROM accounts WHERE n = 1
      - UPDATE accounts SET hits = hits + 1 WHERE n = 1
  - name: look
    read_only: true
    statements:
      - SELECT hits AS h FROM accounts WHERE n = 1
      - SELECT count(*) FROM accounts WHERE hits = :h
  - name: int_to_varchar
    params:
      c: {gen: constant, value: 73}
    statements:
      - UPDATE accounts SET hits = hits + 1 WHERE code = :c AND n = 1
  - name: text_to_int
    statements:
      - SELECT code AS s FROM accounts WHERE n = 2
      - UPDATE accounts SET hits = hits + 1 WHERE n = :s
`

// read_only: true begins the engine's read-only transaction: a write in it
// fails on PostgreSQL and MariaDB, reads work everywhere. SQLite has no
// read-only transaction (documented in docs/workload-file.md): there the
// write goes through.
func TestAReadOnlyTransactionCannotWrite(t *testing.T) {
	for _, e := range engines(t, "dbh_wf_readonly") {
		t.Run(e.Name, func(t *testing.T) {
			r := loadAndPrepareOn(t, e, accountsFile)
			if err := r.run(t, "look"); err != nil {
				t.Fatalf("a read-only transaction that only reads failed: %v", err)
			}
			err := r.run(t, "sneaky")
			hits := r.count(t, "SELECT hits FROM accounts WHERE n = 1")
			switch e.Name {
			case "postgres", "postgres-loop", "mysql":
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), "read") {
					t.Fatalf("UPDATE in a read_only transaction: err %v, want a read-only error", err)
				}
				if hits != 0 {
					t.Errorf("the refused UPDATE left hits = %d", hits)
				}
			case "sqlite", "sqlserver":
				// Neither has read-only transactions.
				if err != nil || hits != 1 {
					t.Fatalf("%s: err %v, hits %d; if it now refuses the write, update docs/workload-file.md", e.Name, err, hits)
				}
			}
		})
	}
}

// A parameter whose value is not of the parameter's type works on every
// engine: an integer compared with a varchar column, text used as an
// integer (PostgreSQL gets both as text, as pgbench sends them).
func TestParametersOfAnotherTypeWorkOnEveryEngine(t *testing.T) {
	for _, e := range engines(t, "dbh_wf_types") {
		t.Run(e.Name, func(t *testing.T) {
			r := loadAndPrepareOn(t, e, accountsFile)
			for _, x := range []string{"int_to_varchar", "text_to_int"} {
				if err := r.run(t, x); err != nil {
					t.Fatalf("%s: %v", x, err)
				}
			}
			if n := r.count(t, "SELECT count(*) FROM accounts WHERE hits = 1 AND n IN (1, 73)"); n != 2 {
				t.Errorf("%d of rows 1 and 73 updated, want 2", n)
			}
		})
	}
}

// On PostgreSQL a uuid returned by one statement (pgx gives [16]byte) is
// used as text, and the plan check explains a statement whose integer
// parameter is compared with a varchar column.
func TestAUUIDReturnedByAStatementIsUsableAsTextOnPostgreSQL(t *testing.T) {
	src := accountsFile + `  - name: uuid_as_text
    statements:
      - SELECT id AS cu FROM accounts WHERE n = 5
      - UPDATE accounts SET hits = hits + 1 WHERE id::text = :cu::text
`
	// On the event-loop driver's connections too.
	rl := loadAndPrepareLoop(t, testdb.Postgres(t, "dbh_wf_uuidtext_loop"), src, true)
	r := loadAndPrepare(t, testdb.Postgres(t, "dbh_wf_uuidtext"), src)
	for _, r := range []*runner{rl, r} {
		if err := r.run(t, "uuid_as_text"); err != nil {
			t.Fatal(err)
		}
		if n := r.count(t, "SELECT count(*) FROM accounts WHERE hits = 1 AND n = 5"); n != 1 {
			t.Errorf("the row whose uuid was passed as text was not updated")
		}
	}
	ctx := context.Background()
	conn, err := r.d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rep := (&collect.PlanCheck{DB: r.d, Stmts: r.w.Statements(), Seed: 1}).Before(ctx, conn)
	i := slices.IndexFunc(rep, func(p results.StatementPlans) bool { return p.Statement == "int_to_varchar.1" })
	if i < 0 || rep[i].Error != "" || len(rep[i].Plans) == 0 {
		t.Errorf("the plan check of int_to_varchar.1: %+v", rep)
	}
}

const ordersTimeFile = `tables:
  - name: orders
    rows: 1000
    columns:
      - {name: id, type: bigint, gen: sequence}
      - {name: placed_at, type: timestamp, gen: timestamp, from: 2023-01-01, to: 2023-12-31, resolution: 1ms}
      - {name: due, type: date, gen: timestamp, from: 2023-01-01, to: 2023-12-31, resolution: 24h}
transactions:
  - name: place
    params:
      at: {gen: timestamp, from: 2024-01-01, to: 2024-12-31}
    statements:
      - INSERT INTO orders (id, placed_at, due) VALUES (0, :at, :at)
  - name: same_time
    statements:
      - SELECT placed_at AS p FROM orders WHERE id = 5
      - UPDATE orders SET id = -5 WHERE placed_at = :p
`

// SQLite stores timestamps in its own format, which its date and time
// functions read: loaded and inserted values alike, and a time read back
// finds its row again.
func TestSQLiteStoresTimesItsDateFunctionsRead(t *testing.T) {
	r := loadAndPrepare(t, testdb.SQLite(t), ordersTimeFile)
	for _, x := range []string{"place", "same_time"} {
		if err := r.run(t, x); err != nil {
			t.Fatalf("%s: %v", x, err)
		}
	}
	if n := r.count(t, "SELECT count(*) FROM orders WHERE datetime(placed_at) IS NULL OR date(due) IS NULL"); n != 0 {
		t.Errorf("%d rows whose time SQLite cannot read", n)
	}
	if n := r.count(t, "SELECT count(*) FROM orders WHERE id = 0 AND datetime(placed_at) >= '2024-01-01'"); n != 1 {
		t.Errorf("the inserted time is not in 2024 for datetime(): %d rows", n)
	}
	if n := r.count(t, "SELECT count(*) FROM orders WHERE id = -5"); n != 1 {
		t.Errorf("the time read back from row 5 found %d rows, want 1", n)
	}
	// Ordered as times, also against SQLite's own CURRENT_TIMESTAMP.
	if n := r.count(t, "SELECT count(*) FROM orders WHERE placed_at >= CURRENT_TIMESTAMP"); n != 0 {
		t.Errorf("%d times of 2023 and 2024 compare after now", n)
	}
}

// A numeric(P,S) column holds the same values on every engine: generated
// floats are rounded to the scale, as PostgreSQL and MySQL would, before
// SQLite (which would keep them) gets them; also at run time.
func TestANumericColumnHasTheSameValuesOnEveryEngine(t *testing.T) {
	src := `tables:
  - name: payments
    rows: 20000
    columns:
      - {name: id, type: bigint, gen: sequence}
      - {name: amount, type: "numeric(10,2)", gen: gaussian, min: 1, max: 2000, mean: 80, stddev: 60}
transactions:
  - name: pay
    params:
      amt: {type: "numeric(10,2)", gen: uniform, min: 0, max: 100}
    statements:
      - INSERT INTO payments (id, amount) VALUES (0, :amt)
`
	distinct := map[string]int64{}
	for _, e := range engines(t, "dbh_wf_numeric") {
		r := loadAndPrepareOn(t, e, src)
		distinct[e.Name] = r.count(t, "SELECT count(DISTINCT amount) FROM payments")
		for range 50 {
			if err := r.run(t, "pay"); err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
		}
		if n := r.count(t, "SELECT count(*) FROM payments WHERE amount <> round(amount, 2)"); n != 0 {
			t.Errorf("%s: %d amounts with more than 2 decimals", e.Name, n)
		}
	}
	if distinct["sqlite"] != distinct["postgres"] || distinct["mysql"] != distinct["postgres"] ||
		distinct["postgres-loop"] != distinct["postgres"] || distinct["postgres"] < 1000 {
		t.Errorf("distinct amounts differ: %v", distinct)
	}
}

// A parameter taken from an earlier statement that found no row names that
// statement; one that no statement returned says so.
func TestAParameterFromAStatementThatFoundNoRowNamesTheStatement(t *testing.T) {
	src := accountsFile + `  - name: lost
    statements:
      - SELECT id AS cu, code FROM accounts WHERE n = -1
      - SELECT count(*) AS k FROM accounts
      - UPDATE accounts SET hits = hits + 1 WHERE id = :cu
  - name: unnamed
    statements:
      - SELECT * FROM accounts WHERE n = 1
      - UPDATE accounts SET hits = hits + 1 WHERE n = :nope
`
	r := loadAndPrepare(t, testdb.SQLite(t), src)
	err := r.run(t, "lost")
	if want := "lost: statement 1 returned no row, so :cu has no value in statement 3"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	err = r.run(t, "unnamed")
	if want := "unnamed: statement 2: parameter :nope was not returned by an earlier statement"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// The data profile reads the most common values with the engine's own
// clause for the first rows (SQL Server has no LIMIT).
func TestTheDataProfileRunsOnSQLServer(t *testing.T) {
	p := initAndProfile(t, testdb.SQLServer(t, "dbh_wf_profile"), openFile(t, accountsFile))
	code := col(p, "code")
	if code == nil || code.Distinct != 1 || code.TopShare != 1 || col(p, "n").Distinct != 100 {
		t.Fatalf("profile of accounts: %+v", p.Tables[0].Columns)
	}
}
