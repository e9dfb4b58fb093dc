package transtats_test

import (
	"context"
	"fmt"
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

func run(t *testing.T, d db.DB, w *transtats.TransStats, notes *[]string) (*loadgen.Result, map[string]float64) {
	t.Helper()
	ctx := context.Background()
	env := &workload.Env{DB: d, Seed: 9, Progress: workload.NopProgress{}, Note: func(s string) { *notes = append(*notes, s) }}
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
				res, m := run(t, d, &transtats.TransStats{Query: transtats.QueryMix, Parallel: 2}, &notes)
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
				intra := d.Caps().IntraQueryParallelism
				if intra != (len(notes) == 0) {
					t.Errorf("intra-query parallelism %v, notes %q", intra, notes)
				}
				if want := map[bool]float64{true: 2, false: 1}[intra]; m["parallel"] != want {
					t.Errorf("parallel %g, want %g", m["parallel"], want)
				}
			})
			t.Run("both queries are described and explain on the clients' settings", func(t *testing.T) {
				w := &transtats.TransStats{Query: transtats.QueryMix, Parallel: 1}
				c, err := d.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := w.Setup(ctx, &workload.Env{DB: d, Seed: 9, Progress: workload.NopProgress{}, Note: func(string) {}}, c); err != nil {
					t.Fatal(err)
				}
				stmts := w.Statements()
				if len(stmts) != 2 || stmts[0].Name != "star" || stmts[1].Name != "window" || len(stmts[1].Params) != 2 {
					t.Fatalf("statements %+v", stmts)
				}
				// --parallel 1 as the session's setting, or as the query's
				// hint (SQL Server's OPTION (MAXDOP 1)).
				caps := d.Caps()
				hinted := caps.ParallelHint != "" && strings.HasSuffix(stmts[0].SQL, fmt.Sprintf(caps.ParallelHint, 1)) &&
					strings.HasSuffix(stmts[1].SQL, fmt.Sprintf(caps.ParallelHint, 1))
				if intra := caps.IntraQueryParallelism; intra != (len(stmts[0].Session) == 1 || hinted) {
					t.Errorf("intra-query parallelism %v, session settings %q, statements %q, %q", intra, stmts[0].Session, stmts[0].SQL, stmts[1].SQL)
				}
				if _, ok := d.(evidence.Explainer); !ok {
					return // no plans to read (SQL Server)
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

// TestDopIsParallel: --dop is another name for --parallel, and on SQL
// Server each query carries it as OPTION (MAXDOP n), which the server
// accepts.
func TestDopIsParallel(t *testing.T) {
	t.Parallel() // on databases of its own: SQL Server's (Babelfish) loads slowly
	w := &transtats.TransStats{}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	w.Flags(workload.CmdRun, fs)
	if err := fs.Parse([]string{"--dop", "3"}); err != nil || w.Parallel != 3 {
		t.Fatalf("--dop 3: parallel %d, %v", w.Parallel, err)
	}
	d := testdb.Open(t, testdb.SQLServer(t, "dbh_transtats_dop"))
	ctx := context.Background()
	if err := (&transtats.TransStats{Rows: 10}).Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}}); err != nil {
		t.Fatal(err)
	}
	var notes []string
	w = &transtats.TransStats{Query: transtats.QueryMix, Parallel: 3}
	res, m := run(t, d, w, &notes)
	for _, o := range res.Ops {
		if o.Hist.TotalCount() == 0 || o.Errors != 0 {
			t.Errorf("%s: %d queries, %d errors %v", o.Name, o.Hist.TotalCount(), o.Errors, res.ErrorSamples)
		}
	}
	if m["parallel"] != 3 || len(notes) != 0 {
		t.Errorf("parallel %g, notes %q; want 3 and none", m["parallel"], notes)
	}
	for _, st := range w.Statements() {
		if !strings.HasSuffix(st.SQL, " OPTION (MAXDOP 3)") || len(st.Session) != 0 {
			t.Errorf("%s: %q, session %q; want the query hint OPTION (MAXDOP 3)", st.Name, st.SQL, st.Session)
		}
	}
}
