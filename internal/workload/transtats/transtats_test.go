package transtats_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/transtats"
)

// withDOP opens d's database again with --dop n set on it (db.SetDOP), as
// the runner does; an engine without intra-query parallelism refuses it.
func withDOP(t *testing.T, d db.DB, n int) (db.DB, error) {
	t.Helper()
	d2, err := db.Open(d.Target())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d2.Close() })
	return d2, db.SetDOP(context.Background(), d2, n)
}

func run(t *testing.T, d db.DB, w *transtats.TransStats, notes *[]string) (*loadgen.Result, map[string]float64) {
	t.Helper()
	ctx := context.Background()
	env := &workload.Env{DB: d, Seed: 9, Progress: workload.NopProgress{}, Note: func(s string) { *notes = append(*notes, s) }, DOP: w.Parallel}
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := w.Setup(ctx, env, c); err != nil {
		t.Fatal(err)
	}
	// The driver `dbharness run` picks: the event loop on PostgreSQL. Fixed
	// work: 2 clients x 10 queries.
	cfg := loadgen.Config{Clients: 2, Transactions: 10, MaxTries: 1, Interval: 100 * time.Millisecond, Seed: 4}
	if err := loadgen.ResolveDriver(d, &cfg); err != nil {
		t.Fatal(err)
	}
	res, err := loadgen.Run(ctx, d, w, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	commits := map[string]int64{}
	for _, o := range res.Ops {
		commits[o.Name] = o.Hist.TotalCount()
	}
	m, err := w.AfterRun(ctx, env, c, workload.Totals{Commits: commits, Seconds: res.Seconds()})
	if err != nil {
		t.Fatal(err)
	}
	return res, m
}

func TestTransStatsOnEveryEngine(t *testing.T) {
	t.Parallel() // on databases of its own: SQL Server's (Babelfish) loads slowly
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_classic_transtats") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			// 10 rows: one window, and small dimensions (10 server
			// configs and thread names, so 36,000 rows in dimensions);
			// the unit tests cover larger sizes through the formulas.
			if err := (&transtats.TransStats{Rows: 10}).Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 3, Progress: workload.NopProgress{}}); err != nil {
				t.Fatal(err)
			}
			checks := func() map[string]workload.CheckResult {
				res, err := (&transtats.TransStats{}).Check(ctx, &workload.Env{DB: d, Progress: workload.NopProgress{}})
				if err != nil {
					t.Fatal(err)
				}
				m := map[string]workload.CheckResult{}
				for _, r := range res {
					m[r.Name] = r
				}
				return m
			}
			for name, r := range checks() {
				if !r.Pass {
					t.Errorf("check %q fails after init: %s", name, r.Detail)
				}
			}
			t.Run("mix runs with right results", func(t *testing.T) {
				var notes []string
				// --parallel 2 is --dop 2, which an engine without
				// intra-query parallelism refuses: it runs serially.
				intra := d.Caps().IntraQueryParallelism
				dd, err := withDOP(t, d, 2)
				var de *db.DOPError
				if intra != (err == nil) || !intra && !errors.As(err, &de) {
					t.Fatalf("intra-query parallelism %v, --dop 2: %v", intra, err)
				}
				w := &transtats.TransStats{Query: transtats.QueryMix, Parallel: 2}
				if !intra {
					w.Parallel = 0
				}
				res, m := run(t, dd, w, &notes)
				total := int64(0)
				for _, o := range res.Ops {
					total += o.Hist.TotalCount()
					if o.Hist.TotalCount() == 0 || o.Errors != 0 {
						t.Errorf("%s: %d queries, %d errors %v", o.Name, o.Hist.TotalCount(), o.Errors, res.ErrorSamples)
					}
				}
				if total != 20 {
					t.Errorf("%d queries, want 2 clients x 10", total)
				}
				// 10 rows: 10 star groups (fewer than the period) over 10 rows.
				if m["qph"] <= 0 || m["star_qph"] <= 0 || m["window_qph"] <= 0 || m["rows"] != 10 || m["star_groups"] != 10 || m["star_rows"] != 10 {
					t.Errorf("figures %v", m)
				}
				if want := map[bool]float64{true: 2, false: 0}[intra]; m["parallel"] != want || len(notes) != 0 {
					t.Errorf("parallel %g, want %g; notes %q", m["parallel"], want, notes)
				}
			})
			t.Run("both queries are described and explain on the clients' settings", func(t *testing.T) {
				if !d.Caps().IntraQueryParallelism {
					return // --dop is refused (above)
				}
				d, err := withDOP(t, d, 1)
				if err != nil {
					t.Fatal(err)
				}
				w := &transtats.TransStats{Query: transtats.QueryMix, Parallel: 1}
				c, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := w.Setup(ctx, &workload.Env{DB: d, Seed: 9, Progress: workload.NopProgress{}, Note: func(string) {}, DOP: 1}, c); err != nil {
					t.Fatal(err)
				}
				stmts := w.Statements()
				if len(stmts) != 2 || stmts[0].Name != "star" || stmts[1].Name != "window" || len(stmts[1].Params) != 2 {
					t.Fatalf("statements %+v", stmts)
				}
				// --dop is the engine's, on every connection: the
				// statements carry no setting of their own.
				if len(stmts[0].Session) != 0 || len(stmts[1].Session) != 0 {
					t.Errorf("session settings %q, %q", stmts[0].Session, stmts[1].Session)
				}
				if collect.CanExplain(ctx, d, c) != nil {
					return // no plans to read (Babelfish)
				}
				pc := &collect.PlanCheck{DB: d, Stmts: stmts, Seed: 1}
				for _, sp := range pc.Before(ctx, c) {
					if sp.Error != "" || len(sp.Plans) == 0 {
						t.Errorf("%s: %d plans, error %q", sp.Statement, len(sp.Plans), sp.Error)
					}
					for _, p := range sp.Plans {
						// --parallel 1 is serial: no Gather in any plan.
						if strings.Contains(p.Shape, "Gather") {
							t.Errorf("%s: a parallel plan with --parallel 1: %s", sp.Statement, p.Shape)
						}
					}
					if _, ok := d.(evidence.WorkerCounter); !ok {
						continue // SQL Server: no workers counted
					}
					if sp.Workers == nil || sp.Workers.NotMeasured != "" || sp.Workers.Planned != 0 || sp.Workers.Launched != 0 {
						t.Errorf("%s: workers %+v with --dop 1; want none planned", sp.Statement, sp.Workers)
					}
				}
			})
			t.Run("a changed row makes the queries wrong and check fail", func(t *testing.T) {
				c, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				// Row 5 moves to another server_config: the star groups
				// and the window's rows change.
				if err := c.Exec(ctx, "UPDATE tran_stats SET server_config = 'X580 G99', resultset_size = 0 WHERE tran_count = 5"); err != nil {
					t.Fatal(err)
				}
				var notes []string
				res, _ := run(t, d, &transtats.TransStats{Query: transtats.QueryStar}, &notes)
				if res.Ops[0].Errors == 0 || res.Ops[0].Hist.TotalCount() != 0 {
					t.Fatalf("star on a changed table: %d right, %d errors", res.Ops[0].Hist.TotalCount(), res.Ops[0].Errors)
				}
				found := false
				for _, s := range res.ErrorSamples {
					found = found || strings.Contains(s, "wrong result")
				}
				if !found {
					t.Errorf("error samples %v do not say the result is wrong", res.ErrorSamples)
				}
				if r := checks()["star query"]; r.Pass {
					t.Errorf("check passes the star query on a changed table")
				}
			})
		})
	}
}

// TestDOPOnBabelfish: transtats's --parallel is --dop (DOPFlag), and on
// Babelfish --dop n is the session's max_parallel_workers_per_gather =
// n-1, with which the queries run right.
func TestDOPOnBabelfish(t *testing.T) {
	t.Parallel() // on databases of its own: SQL Server's (Babelfish) loads slowly
	w := &transtats.TransStats{}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	w.Flags(workload.CmdRun, fs)
	if err := fs.Parse([]string{"--parallel", "3"}); err != nil {
		t.Fatal(err)
	}
	if n, flag := w.DOPFlag(); n != 3 || flag != "--parallel" {
		t.Fatalf("--parallel 3: DOPFlag %d %q", n, flag)
	}
	d := testdb.Open(t, testdb.SQLServer(t, "dbh_transtats_dop"))
	ctx := context.Background()
	if err := (&transtats.TransStats{Rows: 10}).Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}}); err != nil {
		t.Fatal(err)
	}
	dd, err := withDOP(t, d, 3)
	if err != nil {
		t.Fatal(err)
	}
	info, err := dd.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Settings["max_parallel_workers_per_gather"]; got != "2" {
		t.Errorf("the sessions' max_parallel_workers_per_gather is %q with --dop 3; want 2 (settings %v)", got, info.Settings)
	}
	var notes []string
	res, m := run(t, dd, &transtats.TransStats{Query: transtats.QueryMix, Parallel: 3}, &notes)
	for _, o := range res.Ops {
		if o.Hist.TotalCount() == 0 || o.Errors != 0 {
			t.Errorf("%s: %d queries, %d errors %v", o.Name, o.Hist.TotalCount(), o.Errors, res.ErrorSamples)
		}
	}
	if m["parallel"] != 3 || len(notes) != 0 {
		t.Errorf("parallel %g, notes %q; want 3 and none", m["parallel"], notes)
	}
	// --parallel that is not the run's --dop is refused.
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = (&transtats.TransStats{Query: transtats.QueryStar, Parallel: 2}).Setup(ctx, &workload.Env{DB: d, DOP: 3, Progress: workload.NopProgress{}}, c)
	if err == nil || !strings.Contains(err.Error(), "--parallel 2") {
		t.Errorf("--parallel 2 with --dop 3: %v", err)
	}
}
