package tpcb_test

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpcb"
)

func run(t *testing.T, d db.DB, mix string, cfg loadgen.Config, obs loadgen.Observer, stop <-chan struct{}) *loadgen.Result {
	t.Helper()
	ctx := context.Background()
	// No pre-run: the tests count the history rows their runs add.
	w := &tpcb.TPCB{Mix: tpcb.NewMix(mix), NoVacuum: true}
	env := &workload.Env{DB: d, Seed: 7, Progress: workload.NopProgress{}}
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Setup(ctx, env, c); err != nil {
		t.Fatal(err)
	}
	c.Close()
	res, err := loadgen.Run(ctx, d, w, cfg, obs, stop)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func check(t *testing.T, d db.DB) map[string]bool {
	t.Helper()
	res, err := (&tpcb.TPCB{}).Check(context.Background(), &workload.Env{DB: d, Progress: workload.NopProgress{}})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]bool{}
	for _, r := range res {
		m[r.Name] = r.Pass
		if !r.Pass {
			t.Logf("%s: %s", r.Name, r.Detail)
		}
	}
	return m
}

func counts(t *testing.T, d db.DB) string {
	t.Helper()
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := ""
	for _, q := range []string{
		"SELECT count(*) FROM pgbench_accounts", "SELECT sum(bid) FROM pgbench_accounts",
		"SELECT count(*) FROM pgbench_tellers", "SELECT sum(bid) FROM pgbench_tellers",
		"SELECT count(*) FROM pgbench_branches", "SELECT count(*) FROM pgbench_history",
	} {
		n, err := db.QueryInt64(ctx, c, q)
		if err != nil {
			t.Fatal(err)
		}
		s += fmt.Sprintf("%d/", n)
	}
	return s
}

func TestTPCBOnEveryEngine(t *testing.T) {
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_tpcb") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			init := &tpcb.TPCB{Scale: 2}
			if err := init.Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 3, Progress: workload.NopProgress{}}); err != nil {
				t.Fatal(err)
			}
			t.Run("init loads pgbench's rows, deterministically", func(t *testing.T) {
				// 200,000 accounts with bid 1 and 2 (100,000 each), 20
				// tellers with bid 1 and 2 (10 each), 2 branches.
				if got, want := counts(t, d), "200000/300000/20/30/2/0/"; got != want {
					t.Fatalf("row fingerprint %s, want %s", got, want)
				}
			})
			for i, driver := range drivers(e.Name) {
				if i > 0 {
					// simple-update left tellers and branches behind the
					// history: start again from a fresh load.
					if err := init.Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 3, Progress: workload.NopProgress{}}); err != nil {
						t.Fatal(err)
					}
				}
				// Fixed work: 3 clients x 20 transactions of each mix.
				cfg := loadgen.Config{Clients: 3, Transactions: 20, MaxTries: 5, Interval: 100 * time.Millisecond, Seed: 3,
					Driver: driver}
				t.Run("on the "+driver+" driver", func(t *testing.T) { runMixes(t, d, cfg) })
			}
			t.Run("check finds a broken invariant", func(t *testing.T) {
				c, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := c.Exec(ctx, "UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1"); err != nil {
					t.Fatal(err)
				}
				if check(t, d)["tellers = branches"] {
					t.Fatal("check passed with a branch balance off by one")
				}
				if err := c.Exec(ctx, "UPDATE pgbench_branches SET bbalance = bbalance - 1 WHERE bid = 1"); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("an emptied history is not checkable, not a failure", func(t *testing.T) {
				c, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				// Balances that agree (one transaction's delta of 5 on
				// each), then what a run's pre-run does (pgbench's,
				// skipped by -n): the history is emptied.
				for _, q := range []string{
					"UPDATE pgbench_accounts SET abalance = 0", "UPDATE pgbench_tellers SET tbalance = 0", "UPDATE pgbench_branches SET bbalance = 0",
					"UPDATE pgbench_accounts SET abalance = 5 WHERE aid = 1", "UPDATE pgbench_tellers SET tbalance = 5 WHERE tid = 1",
					"UPDATE pgbench_branches SET bbalance = 5 WHERE bid = 1", "DELETE FROM pgbench_history",
				} {
					if err := c.Exec(ctx, q); err != nil {
						t.Fatal(err)
					}
				}
				res, err := (&tpcb.TPCB{}).Check(ctx, &workload.Env{DB: d, Progress: workload.NopProgress{}})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res {
					switch {
					case r.Name == "accounts = history" && !r.Skipped:
						t.Errorf("%s: pass=%v, want skipped after the history was emptied (%s)", r.Name, r.Pass, r.Detail)
					case r.Name != "accounts = history" && !r.Pass:
						t.Errorf("%s does not hold: %s", r.Name, r.Detail)
					}
				}
			})
		})
	}
}

// drivers lists the drivers an engine runs on.
func drivers(engine string) []string {
	if engine == "postgres" {
		return []string{"goroutine", "loop"}
	}
	return []string{"goroutine"}
}

// runMixes runs the three mixes with cfg (fixed work) and checks what
// they leave: each transaction that writes adds one history row.
func runMixes(t *testing.T, d db.DB, cfg loadgen.Config) {
	want := int64(cfg.Clients) * cfg.Transactions
	t.Run("tpcb-like runs and keeps the invariant", func(t *testing.T) {
		history := historyRows(t, d)
		res := run(t, d, tpcb.MixTPCB, cfg, nil, nil)
		if res.Driver != cfg.Driver {
			t.Fatalf("ran on the %s driver, not the %s", res.Driver, cfg.Driver)
		}
		if n := res.Ops[0].Hist.TotalCount(); n != want || res.Ops[0].Errors != 0 {
			t.Errorf("%d transactions, %d errors (%v %v); want %d and none", n, res.Ops[0].Errors, res.ErrorClasses, res.ErrorSamples, want)
		}
		if n := historyRows(t, d) - history; n != want {
			t.Errorf("%d history rows added by %d transactions", n, want)
		}
		for name, ok := range check(t, d) {
			if !ok {
				t.Errorf("invariant %q does not hold", name)
			}
		}
	})
	t.Run("simple-update changes accounts and history together", func(t *testing.T) {
		history := historyRows(t, d)
		res := run(t, d, tpcb.MixSimpleUpdate, cfg, nil, nil)
		if res.Ops[0].Hist.TotalCount() != want || res.Ops[0].Name != "simple_update" {
			t.Fatalf("simple_update transactions: %+v, want %d", res.Ops[0], want)
		}
		if n := historyRows(t, d) - history; n != want {
			t.Errorf("%d history rows added by %d transactions", n, want)
		}
		if !check(t, d)["accounts = history"] {
			t.Error("accounts and history sums differ after simple-update")
		}
	})
	t.Run("select-only runs with no errors", func(t *testing.T) {
		history := historyRows(t, d)
		res := run(t, d, tpcb.MixSelectOnly, cfg, nil, nil)
		if res.Ops[0].Hist.TotalCount() != want || res.Ops[0].Errors != 0 {
			t.Fatalf("%d transactions, %d errors; want %d and none", res.Ops[0].Hist.TotalCount(), res.Ops[0].Errors, want)
		}
		if n := historyRows(t, d) - history; n != 0 {
			t.Errorf("select-only added %d history rows", n)
		}
	})
}

// historyRows counts pgbench_history.
func historyRows(t *testing.T, d db.DB) int64 {
	t.Helper()
	return testdb.QueryInt64(t, d, "SELECT count(*) FROM pgbench_history")
}

// killOthers ends every other session on the test database, as an
// administrator would.
func killOthers(t *testing.T, d db.DB, kind db.Kind) {
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	var q string
	switch kind {
	case db.Postgres:
		q = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'dbharness'"
	case db.MySQL:
		q = "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()"
	}
	rows, err := c.Query(ctx, q)
	if err != nil {
		t.Error(err)
		return
	}
	var ids []int64
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if kind == db.Postgres {
			_ = c.Exec(ctx, fmt.Sprintf("SELECT pg_terminate_backend(%d)", id))
		} else {
			_ = c.Exec(ctx, fmt.Sprintf("KILL %d", id))
		}
	}
	if len(ids) == 0 {
		t.Error("found no sessions to kill")
	}
}

func TestARunSurvivesItsConnectionsBeingKilled(t *testing.T) {
	for _, e := range []struct {
		name, driver string
		kind         db.Kind
		url          string
	}{
		{"postgres", "goroutine", db.Postgres, testdb.Postgres(t, "dbh_tpcb_kill")},
		{"postgres on the loop driver", "loop", db.Postgres, testdb.Postgres(t, "dbh_tpcb_kill_loop")},
		{"mysql", "goroutine", db.MySQL, testdb.MySQL(t, "dbh_tpcb_kill")},
	} {
		t.Run(e.name, func(t *testing.T) {
			d := testdb.Open(t, e.url)
			ctx := context.Background()
			if err := (&tpcb.TPCB{Scale: 1}).Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}}); err != nil {
				t.Fatal(err)
			}
			// The run is stopped as soon as the clients have worked again
			// after their sessions were killed; the duration is only a
			// deadline.
			cfg := loadgen.Config{Clients: 2, Duration: time.Minute, MaxTries: 1, Interval: 100 * time.Millisecond, Seed: 3,
				Driver: e.driver}
			// The sessions are killed once the clients have done some work.
			obs := testdb.NewReconnects(cfg.Clients, func() { killOthers(t, d, e.kind) })
			res := run(t, d, tpcb.MixTPCB, cfg, obs, obs.Stop())
			afterKill := obs.After()
			if res.Reconnects < int64(cfg.Clients) {
				t.Fatalf("%d reconnects after the sessions of %d clients were killed (errors %v)", res.Reconnects, cfg.Clients, res.ErrorClasses)
			}
			if res.Ops[0].Errors < 1 {
				t.Errorf("the killed transactions were not counted as errors")
			}
			if afterKill == 0 {
				t.Error("no transaction after the kill; the run should go on")
			}
			for name, ok := range check(t, d) {
				if !ok {
					t.Errorf("invariant %q does not hold after the kill", name)
				}
			}
		})
	}
}

// pgbench runs the real pgbench against a database URL.
func pgbench(t *testing.T, url string, args ...string) {
	t.Helper()
	out, err := exec.Command("pgbench", append(args, url)...).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %v: %v\n%s", args, err, out)
	}
}

func TestPgbenchAndDbharnessRunOnEachOthersDatabases(t *testing.T) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		t.Fatal("pgbench is not installed (Debian package postgresql-client); it is needed to test interoperation")
	}
	ctx := context.Background()
	t.Run("dbharness runs and checks a database pgbench loaded", func(t *testing.T) {
		url := testdb.Postgres(t, "dbh_tpcb_pgbench_i")
		pgbench(t, url, "-i", "-q", "-s", "1")
		d := testdb.Open(t, url)
		res := run(t, d, tpcb.MixTPCB, loadgen.Config{Clients: 2, Transactions: 100, MaxTries: 3, Interval: 100 * time.Millisecond, Seed: 1}, nil, nil)
		if res.Ops[0].Hist.TotalCount() != 200 || res.Ops[0].Errors > 0 {
			t.Fatalf("%d transactions, %d errors %v; want 200 and none", res.Ops[0].Hist.TotalCount(), res.Ops[0].Errors, res.ErrorSamples)
		}
		for name, ok := range check(t, d) {
			if !ok {
				t.Errorf("%s does not hold", name)
			}
		}
	})
	t.Run("pgbench runs on a database dbharness loaded", func(t *testing.T) {
		url := testdb.Postgres(t, "dbh_tpcb_dbh_i")
		d := testdb.Open(t, url)
		if err := (&tpcb.TPCB{Scale: 1}).Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}}); err != nil {
			t.Fatal(err)
		}
		pgbench(t, url, "-n", "-c", "2", "-t", "200")
		for name, ok := range check(t, d) {
			if !ok {
				t.Errorf("%s does not hold after pgbench", name)
			}
		}
	})
}
