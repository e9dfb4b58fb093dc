package inserts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/inserts"
)

func env(d db.DB) *workload.Env {
	return &workload.Env{DB: d, Seed: 5, Loaders: 3, Progress: workload.NopProgress{}}
}

// run drives w as `dbharness run` does: Setup, BeforeRun, the engine,
// AfterRun; it returns the result and the figures.
func run(t *testing.T, d db.DB, w *inserts.Inserts, cfg loadgen.Config) (*loadgen.Result, map[string]float64) {
	t.Helper()
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Setup(ctx, env(d), c); err != nil {
		t.Fatal(err)
	}
	if err := w.BeforeRun(ctx, env(d), c); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// The driver `dbharness run` picks: the event loop on PostgreSQL.
	if err := loadgen.ResolveDriver(d, &cfg); err != nil {
		t.Fatal(err)
	}
	res, err := loadgen.Run(ctx, d, w, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err = d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	commits := map[string]int64{}
	for _, o := range res.Ops {
		commits[o.Name] = o.Hist.TotalCount()
	}
	m, err := w.AfterRun(ctx, env(d), c, workload.Totals{Commits: commits, Seconds: res.Seconds(), ClientSeconds: res.ClientSeconds})
	if err != nil {
		t.Fatal(err)
	}
	return res, m
}

func check(t *testing.T, d db.DB) map[string]workload.CheckResult {
	t.Helper()
	res, err := inserts.New().Check(context.Background(), env(d))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]workload.CheckResult{}
	for _, r := range res {
		m[r.Name] = r
	}
	return m
}

func passes(t *testing.T, d db.DB) {
	t.Helper()
	for name, r := range check(t, d) {
		if !r.Pass {
			t.Errorf("check %q fails: %s", name, r.Detail)
		}
	}
}

func TestEveryKeyStrategyOnEveryEngine(t *testing.T) {
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_classic_inserts") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			for _, key := range inserts.Keys {
				t.Run(key, func(t *testing.T) {
					in := inserts.New()
					in.Key, in.Prefill, in.Pad = key, 3000, 300
					if refused := inserts.CheckKey(d.Caps(), d.Target().Kind, key); refused != nil {
						// A key the server makes, on an engine without
						// such a default: init says so in one sentence.
						err := in.Init(ctx, env(d))
						if err == nil || err.Error() != refused.Error() || strings.Contains(err.Error(), "\n") ||
							!strings.Contains(err.Error(), e.Name) || !strings.Contains(err.Error(), "--key "+key) {
							t.Fatalf("init --key %s on %s: %v", key, e.Name, err)
						}
						return
					}
					if err := in.Init(ctx, env(d)); err != nil {
						t.Fatal(err)
					}
					// Two runs with different shapes, then check: keys of a
					// second run must not collide with the first's. The
					// engine ends each after 3 clients x 20 commits (the
					// workload's own --rows-per-client is not set).
					for _, shape := range [][2]int{{1, 1}, {10, 3}} {
						w := inserts.New()
						w.Batch, w.RowsPerStmt = shape[0], shape[1]
						res, m := run(t, d, w, loadgen.Config{Clients: 3, Transactions: 20, MaxTries: 1, Interval: 100 * time.Millisecond})
						if res.Ops[0].Errors != 0 {
							t.Fatalf("batch %d x %d: %d errors: %v", shape[0], shape[1], res.Ops[0].Errors, res.ErrorSamples)
						}
						n := res.Ops[0].Hist.TotalCount()
						if n != 60 || m["rows_per_s"] <= 0 || m["commits_per_s"] <= 0 {
							t.Fatalf("%d commits, want 60; %v", n, m)
						}
						if got, want := m["rows_per_s"]/m["commits_per_s"], float64(shape[0]); got < want-1e-9 || got > want+1e-9 {
							t.Errorf("rows per commit %g, want %g", got, want)
						}
						if m["rows_committed"] < float64(n*int64(shape[0])) {
							t.Errorf("rows_committed %g below the measured %d commits of %d", m["rows_committed"], n, shape[0])
						}
						if d.Caps().WALBytes != "" && m["wal_bytes_per_row"] <= 0 {
							t.Errorf("no WAL bytes per row on an engine that has a WAL position: %v", m)
						}
					}
					passes(t, d)
				})
			}
		})
	}
}

func TestFixedWorkCheckAndConflicts(t *testing.T) {
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_classic_inserts_fw") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			in := inserts.New()
			in.Key, in.Prefill = inserts.KeyPartitioned, 1000
			if err := in.Init(ctx, env(d)); err != nil {
				t.Fatal(err)
			}
			t.Run("rows per client is fixed work per client", func(t *testing.T) {
				w := inserts.New()
				w.Batch, w.RowsPerStmt, w.RowsPerClient = 4, 2, 200
				tx, flag, err := w.FixedWork()
				if err != nil || tx != 50 || flag != "--rows-per-client" {
					t.Fatalf("FixedWork = %d %q %v, want 50 transactions", tx, flag, err)
				}
				res, m := run(t, d, w, loadgen.Config{Clients: 3, Transactions: tx, MaxTries: 1, Interval: 100 * time.Millisecond})
				if got := res.Ops[0].Hist.TotalCount(); got != 150 {
					t.Fatalf("%d commits, want 3 clients x 50", got)
				}
				if m["rows_committed"] != 600 {
					t.Errorf("rows_committed %g, want 600", m["rows_committed"])
				}
				if len(res.ClientSeconds) != 3 || m["elapsed_s"] <= 0 || m["client_spread_s"] < 0 || m["client_spread_s"] > m["elapsed_s"] {
					t.Errorf("client times %v, elapsed %g, spread %g", res.ClientSeconds, m["elapsed_s"], m["client_spread_s"])
				}
				c := testdb.Open(t, e.URL)
				conn, err := c.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				// Each client's own keys are 1..200 of its range.
				for id := int64(0); id < 3; id++ {
					base := id * datagen.PartitionStride
					n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM inserts WHERE c1 > $1 AND c1 <= $2", base, base+200)
					if err != nil || n != 200 {
						t.Errorf("client %d: %d keys in %d..%d (%v), want 200", id, n, base+1, base+200, err)
					}
				}
				passes(t, d)
			})
			t.Run("a second run goes on after the first one's keys", func(t *testing.T) {
				w := inserts.New()
				w.RowsPerClient = 10
				tx, _, _ := w.FixedWork()
				res, _ := run(t, d, w, loadgen.Config{Clients: 3, Transactions: tx, MaxTries: 1, Interval: 100 * time.Millisecond})
				if res.Ops[0].Errors != 0 {
					t.Fatalf("%d errors: %v", res.Ops[0].Errors, res.ErrorSamples)
				}
				passes(t, d)
			})
			t.Run("bad flags are refused with the flag's name", func(t *testing.T) {
				for _, c := range []struct {
					batch, rps int
					rpc        int64
					want       string
				}{{0, 1, 0, "--batch"}, {2, 3, 0, "--rows-per-statement"}, {3, 1, 10, "multiple of --batch"}, {1, 1, -1, "--rows-per-client"}} {
					w := inserts.New()
					w.Batch, w.RowsPerStmt, w.RowsPerClient = c.batch, c.rps, c.rpc
					if _, _, err := w.FixedWork(); err == nil || !strings.Contains(err.Error(), c.want) {
						t.Errorf("batch %d rps %d rpc %d: %v, want an error naming %s", c.batch, c.rps, c.rpc, err, c.want)
					}
				}
			})
			t.Run("a conflicting --key is refused", func(t *testing.T) {
				w := inserts.New()
				w.Key = inserts.KeySerial
				conn, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				err = w.Setup(ctx, env(d), conn)
				if err == nil || !strings.Contains(err.Error(), "created with --key partitioned") {
					t.Fatalf("Setup with --key serial on a partitioned table: %v", err)
				}
			})
			t.Run("check sees a lost row", func(t *testing.T) {
				conn, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if err := conn.Exec(ctx, "DELETE FROM inserts WHERE c1 = (SELECT min(c1) FROM (SELECT c1 FROM inserts) x)"); err != nil {
					t.Fatal(err)
				}
				if r := check(t, d)["rows = reported committed"]; r.Pass {
					t.Fatalf("check passed with a row missing: %s", r.Detail)
				}
			})
		})
	}
}

// TestPartitionedKeysAsTheWorkerUsesThem: a client's keys increase, stay in
// its own range below PrefillOffset, and carry on after its last stored key;
// prefill keys lie at or above PrefillOffset in their range.
func TestPartitionedKeysAsTheWorkerUsesThem(t *testing.T) {
	for id := int64(0); id < 4; id++ {
		base := id * datagen.PartitionStride
		g, err := datagen.NewPartitionedAfter(id, base+41)
		if err != nil {
			t.Fatal(err)
		}
		prev := base + 41
		for i := 0; i < 1000; i++ {
			k := g.Next()
			if k <= prev || k >= base+inserts.PrefillOffset {
				t.Fatalf("client %d: key %d after %d, range (%d, %d)", id, k, prev, base, base+inserts.PrefillOffset)
			}
			prev = k
		}
	}
	// A last key from another client's range is ignored.
	g, err := datagen.NewPartitionedAfter(2, 5*datagen.PartitionStride+7)
	if err != nil {
		t.Fatal(err)
	}
	if k := g.Next(); k != 2*datagen.PartitionStride+1 {
		t.Fatalf("first key %d, want %d", k, 2*datagen.PartitionStride+1)
	}
}

// --delayed-durability is refused, in one sentence, wherever the commit
// would not be delayed: on the engines without it (naming PostgreSQL's
// like), on Babelfish (which has none), and on a SQL Server database whose
// DELAYED_DURABILITY is DISABLED (where SQL Server ignores the commit's
// option). The refusal is the user's to fix (workload.Refused) and comes
// before the table is read.
func TestDelayedDurabilityIsRefusedWhereTheCommitWouldNotBeDelayed(t *testing.T) {
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_inserts_dd") {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			c, err := d.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			w := inserts.New()
			w.DelayedDurability = true
			err = w.Setup(ctx, env(d), c)
			var refused *workload.Refused
			if !errors.As(err, &refused) || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "--delayed-durability") {
				t.Fatalf("Setup: %v, want a one-sentence refusal of --delayed-durability", err)
			}
			want := "which the " + e.Name + " engine does not have (PostgreSQL's like is --set synchronous_commit=off)"
			if e.Name == "sqlserver" {
				info, err := d.Info(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want = "DELAYED_DURABILITY is DISABLED" // a SQL Server's default
				if info.Engine == "babelfish" {
					want = "this server has no delayed durability"
				}
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q, want it to say %q", err, want)
			}
			if !strings.Contains(w.MixName(), "delayed durability") {
				t.Errorf("mix %q does not record the option", w.MixName())
			}
		})
	}
}

// delayedDB is an engine whose delayed commit is COMMIT TRANSACTION (none
// of the test servers has SQL Server's): it counts the commits its
// connections run, so that the test sees the workload commit each batch
// with the statement the engine gave, even a batch of one row.
type delayedDB struct {
	db.DB
	commits *atomic.Int64
}

const delayedCommit = "COMMIT TRANSACTION"

func (d delayedDB) DelayedCommit(context.Context, db.Conn) (string, error) { return delayedCommit, nil }

func (d delayedDB) Connect(ctx context.Context) (db.Conn, error) {
	c, err := d.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, commits: d.commits}, nil
}

type countingConn struct {
	db.Conn
	commits *atomic.Int64
}

func (c countingConn) Exec(ctx context.Context, s string) error {
	if s == delayedCommit {
		c.commits.Add(1)
	}
	return c.Conn.Exec(ctx, s)
}

func TestDelayedDurabilityCommitsEachBatchWithTheEnginesCommit(t *testing.T) {
	t.Parallel()
	d := delayedDB{DB: testdb.Open(t, testdb.SQLite(t)), commits: &atomic.Int64{}}
	ctx := context.Background()
	in := inserts.New()
	in.Key = inserts.KeySerial
	if err := in.Init(ctx, env(d.DB)); err != nil {
		t.Fatal(err)
	}
	for _, shape := range [][2]int{{1, 1}, {4, 2}} {
		d.commits.Store(0)
		w := inserts.New()
		w.Batch, w.RowsPerStmt, w.DelayedDurability = shape[0], shape[1], true
		res, m := run(t, d, w, loadgen.Config{Clients: 2, Transactions: 5, MaxTries: 1, Interval: 100 * time.Millisecond})
		if res.Ops[0].Errors != 0 || res.Ops[0].Hist.TotalCount() != 10 {
			t.Fatalf("batch %v: %d commits, %d errors: %v", shape, res.Ops[0].Hist.TotalCount(), res.Ops[0].Errors, res.ErrorSamples)
		}
		if n := d.commits.Load(); n != 10 {
			t.Errorf("batch %v: %d commits with the engine's delayed commit, want 10", shape, n)
		}
		if m["rows_per_s"]/m["commits_per_s"] != float64(shape[0]) {
			t.Errorf("batch %v: figures %v", shape, m)
		}
		if w.MixName() != fmt.Sprintf("serial, batch %d, delayed durability", shape[0]) {
			t.Errorf("mix %q", w.MixName())
		}
	}
	passes(t, d.DB)
}
