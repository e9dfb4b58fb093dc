package tpch_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpch"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

const testSF = 0.01

func runEnv(d db.DB, seed uint64) *workload.Env {
	return &workload.Env{DB: d, Seed: seed, Loaders: 2, Progress: workload.NopProgress{}}
}

// loaded is one engine's database loaded at sf.
type loaded struct {
	name string
	d    db.DB
	sf   float64
}

// loadAll loads testSF on every engine at once.
func loadAll(t *testing.T, name string) []loaded {
	t.Helper()
	var out []loaded
	for _, e := range testdb.Engines(t, name) {
		out = append(out, loaded{e.Name, testdb.Open(t, e.URL), testSF})
	}
	var wg sync.WaitGroup
	for _, l := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := testdb.Workload(t, "tpch", workload.CmdInit, "--scale", strconv.FormatFloat(l.sf, 'g', -1, 64)).(*tpch.TPCH)
			if err := w.Init(context.Background(), runEnv(l.d, 1)); err != nil {
				t.Errorf("%s: init: %v", l.name, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// runWorkload runs w on d as `run tpch` does: its clients, each running
// its script to the end.
func runWorkload(t *testing.T, d db.DB, w *tpch.TPCH, seed uint64) (*loadgen.Result, map[string]float64, error) {
	t.Helper()
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	env := runEnv(d, seed)
	if err := w.Setup(ctx, env, c); err != nil {
		t.Fatal(err)
	}
	n, _, err := w.FixedWork()
	if err != nil {
		t.Fatal(err)
	}
	cfg := loadgen.Config{Clients: w.Clients(), Transactions: n, MaxTries: 1, Interval: time.Second, Seed: seed}
	if err := loadgen.ResolveDriver(d, &cfg); err != nil {
		t.Fatal(err)
	}
	res, err := loadgen.Run(ctx, d, w, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	figs, ferr := w.AfterRun(ctx, env, c, workload.Totals{})
	return res, figs, ferr
}

func counts(t *testing.T, d db.DB) (orders, lines int64) {
	return testdb.QueryInt64(t, d, "SELECT count(*) FROM orders"), testdb.QueryInt64(t, d, "SELECT count(*) FROM lineitem")
}

// TestTheQueriesAnswerAlikeAndThePowerAndThroughputTestsRunOnEveryEngine
// loads SF 0.01 on PostgreSQL, MariaDB and SQLite (init --scale 0.01), and
// checks the load (checkTheLoad: one load per engine serves the whole
// test, as loading takes most of its time). The 22 queries with the
// qualification parameters and with a stream's drawn parameters return
// the same rows on the three, within clause 2.1.3.5's rounding. Then each
// runs the power test and a throughput test of 2 streams, which end by
// themselves: every query ran 3 times and each refresh function 3 times
// (once in the power test, once per pair of the refresh stream), the
// figures of clause 5.4 are there, ORDERS is back to its count and
// LINEITEM moved by what the update sets inserted and deleted, and the
// row-count check passes. A further run takes the next update set, and a
// batch of line items deleted fails the check.
func TestTheQueriesAnswerAlikeAndThePowerAndThroughputTestsRunOnEveryEngine(t *testing.T) {
	t.Parallel()
	dbs := loadAll(t, "tpch_run")
	for _, l := range dbs {
		t.Run("init loads dbgen's data on "+l.name, func(t *testing.T) { checkTheLoad(t, l) })
	}

	t.Run("the 22 queries return the same rows on every engine", func(t *testing.T) {
		sets := []string{"qualification", "stream 3"}
		for _, set := range sets {
			draw := func(q int, sf float64) tpch.Draw {
				if set == "qualification" {
					return tpch.Qualification(q, sf)
				}
				return tpch.DrawParams(q, 3, 42, sf)
			}
			answers := make([][23]tpch.Answer, len(dbs))
			var wg sync.WaitGroup
			for i, l := range dbs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					c, err := l.d.Connect(ctx)
					if err != nil {
						t.Error(err)
						return
					}
					defer c.Close()
					for q := 1; q <= 22; q++ {
						a, err := tpch.RunAnswer(ctx, c, l.d.Caps(), draw(q, l.sf))
						if err != nil {
							t.Errorf("%s, %s parameters: %v", l.name, set, err)
							continue
						}
						answers[i][q] = a
					}
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			// Each database is compared with the first of its scale.
			for i, l := range dbs {
				first := slices.IndexFunc(dbs, func(o loaded) bool { return o.sf == l.sf })
				empty := 0
				for q := 1; q <= 22; q++ {
					if len(answers[i][q]) == 0 {
						empty++
					}
					if first == i {
						continue
					}
					if err := tpch.CompareAnswers(q, answers[first][q], answers[i][q]); err != nil {
						t.Errorf("SF %v, %s parameters %s: %s against %s: %v", l.sf, set, draw(q, l.sf), dbs[first].name, l.name, err)
					}
				}
				if slices.IndexFunc(dbs[i+1:], func(o loaded) bool { return o.sf == l.sf }) < 0 && first == i {
					t.Errorf("%s has no other database of SF %v to compare with", l.name, l.sf)
				}
				// Answers that are all empty would agree without saying
				// anything: at SF 0.01 few queries find no row.
				if l.sf == testSF && empty > 4 {
					t.Errorf("%s parameters: %d of the 22 queries returned no row on %s", set, empty, l.name)
				}
				t.Logf("%s, %s parameters: %d of 22 queries returned no row", l.name, set, empty)
			}
			if set == "qualification" {
				answerFiles(t, dbs, answers)
			}
		}
	})

	for _, l := range dbs {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			g, err := dbgen.New(l.sf)
			if err != nil {
				t.Fatal(err)
			}
			orders0, lines0 := counts(t, l.d)
			w := &tpch.TPCH{}
			setFlags(t, w, "--streams", "2")
			res, figs, err := runWorkload(t, l.d, w, 7)
			if err != nil {
				t.Fatalf("figures: %v", err)
			}
			for _, op := range res.Ops {
				if n := op.Hist.TotalCount(); n != 3 || op.Errors != 0 {
					t.Errorf("%s ran %d times with %d errors, want 3 (power test, 2 streams or 2 refresh pairs) and none", op.Name, n, op.Errors)
				}
			}
			if len(res.Ops) != 24 {
				t.Errorf("%d transaction types, want Q1..Q22, RF1, RF2", len(res.Ops))
			}
			for _, k := range []string{tpch.MetricPower, tpch.MetricThroughput, tpch.MetricQphH, tpch.MetricGeoMean} {
				if figs[k] <= 0 {
					t.Errorf("figure %s = %v, want a positive number", k, figs[k])
				}
			}
			if p, tp, q := figs[tpch.MetricPower], figs[tpch.MetricThroughput], figs[tpch.MetricQphH]; math.Abs(q-math.Sqrt(p*tp)) > 0.01*q {
				t.Errorf("QphH@Size %v is not the geometric mean of Power@Size %v and Throughput@Size %v", q, p, tp)
			}

			// Update sets 1..3 were used: RF1 inserted their new orders,
			// RF2 deleted their old ones.
			var inserted, deleted int64
			n := g.RefreshSize()
			for k := 1; k <= 3; k++ {
				for _, o := range g.RF1(k, nil) {
					inserted += int64(len(o.Lines))
				}
				deleted += g.LineCount(int64(k-1)*n+1, n)
			}
			orders1, lines1 := counts(t, l.d)
			if orders1 != orders0 || lines1 != lines0+inserted-deleted {
				t.Errorf("after 3 refresh pairs: %d orders and %d line items, want %d and %d (+%d -%d)", orders1, lines1, orders0, lines0+inserted-deleted, inserted, deleted)
			}
			var gone []int64
			if n > 0 {
				gone = []int64{g.RF2(1)[0], g.RF2(3)[n-1]}
			}
			for _, k := range gone {
				if testdb.QueryInt64(t, l.d, "SELECT count(*) FROM lineitem WHERE l_orderkey = "+strconv.FormatInt(k, 10)) != 0 {
					t.Errorf("old order %d still has line items after RF2", k)
				}
			}
			res2, err := (&tpch.TPCH{}).Check(context.Background(), runEnv(l.d, 0))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res2 {
				if !r.Pass {
					t.Errorf("after the run, %s fails: %s", r.Name, r.Detail)
				}
			}

			// The next run on this database starts at update set 4.
			next := &tpch.TPCH{}
			ctx := context.Background()
			c, err := l.d.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := next.Setup(ctx, runEnv(l.d, 8), c); err != nil {
				t.Fatal(err)
			}
			params, _, err := next.Dataset(ctx, runEnv(l.d, 8), c)
			if err != nil {
				t.Fatal(err)
			}
			if params["update_sets"] != "4-4" {
				t.Errorf("the next run uses update sets %v, want 4-4", params["update_sets"])
			}
			// check --answers after the run: the 3 refresh pairs changed
			// the data the answers count, and it says so (the directory
			// is not read).
			res3, err := (&tpch.TPCH{Answers: t.TempDir()}).Check(ctx, runEnv(l.d, 0))
			if err != nil {
				t.Fatal(err)
			}
			if last := res3[len(res3)-1]; !last.Skipped || !strings.Contains(last.Detail, "3 refresh pairs have changed the data") {
				t.Errorf("check --answers after 3 refresh pairs: %+v", last)
			}
			aMissingBatchFails(t, l)
		})
	}
}

func setFlags(t *testing.T, w *tpch.TPCH, args ...string) {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	w.Flags(workload.CmdRun, fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(workload.CmdRun); err != nil {
		t.Fatal(err)
	}
}

// A stream count below 1, or not a number, is refused with a sentence
// naming the flag.
func TestStreamsBelowOneOrNotANumberAreRefused(t *testing.T) {
	for _, v := range []string{"0", "-2", "abc", "1.5"} {
		w := &tpch.TPCH{}
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		w.Flags(workload.CmdRun, fs)
		err := fs.Parse([]string{"--streams", v})
		if err == nil {
			err = w.Validate(workload.CmdRun)
		}
		if err == nil || !strings.Contains(err.Error(), "streams") {
			t.Errorf("--streams %s: error %v, want one naming --streams", v, err)
		}
	}
	w := &tpch.TPCH{}
	setFlags(t, w, "--streams", "3")
	if w.Clients() != 4 {
		t.Errorf("--streams 3 runs %d clients, want 3 query streams and the refresh stream", w.Clients())
	}
}

// answerFiles checks check tpch --answers's reading and comparison: the
// qualification answers of the last engine (SQLite) are written in
// dbgen's answer-file layout (a header line, values padded, '|' between)
// and compared with the second engine's (MariaDB's) live results of the
// same queries; all pass. Then one count in q1.out is changed, and Q1
// fails, naming the row and column, while the others still pass. Check
// itself at SF 0.01 says the answers are SF 1's.
func answerFiles(t *testing.T, dbs []loaded, answers [][23]tpch.Answer) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	src := len(dbs) - 1
	write := func(q int, a tpch.Answer) {
		var b strings.Builder
		cols := len(a[0])
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteString("|")
			}
			fmt.Fprintf(&b, "col%-20d", c+1)
		}
		b.WriteString("\n")
		for _, row := range a {
			for c, v := range row {
				if c > 0 {
					b.WriteString("|")
				}
				fmt.Fprintf(&b, "%20s", v)
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("q%d.out", q)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for q := 1; q <= 22; q++ {
		if len(answers[src][q]) == 0 {
			t.Fatalf("Q%d returned no row on %s: no answer file to write", q, dbs[src].name)
		}
		write(q, answers[src][q])
	}
	if err := tpch.CheckAnswersDir(dir); err != nil {
		t.Fatal(err)
	}
	other := dbs[1]
	c, err := other.d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := tpch.AnswerFileChecks(ctx, c, other.d.Caps(), other.sf, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 22 {
		t.Fatalf("%d results, want one per query", len(res))
	}
	for _, r := range res {
		if !r.Pass {
			t.Errorf("%s's answers against %s's files: %s: %s", other.name, dbs[src].name, r.Name, r.Detail)
		}
	}

	// Q1's count_order (the last column) of its first row, one more.
	q1 := slices.Clone(answers[src][1])
	q1[0] = slices.Clone(q1[0])
	n, err := strconv.ParseInt(q1[0][len(q1[0])-1], 10, 64)
	if err != nil {
		t.Fatalf("Q1's count_order %q: %v", q1[0][len(q1[0])-1], err)
	}
	q1[0][len(q1[0])-1] = strconv.FormatInt(n+1, 10)
	write(1, q1)
	res, err = tpch.AnswerFileChecks(ctx, c, other.d.Caps(), other.sf, dir)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Pass || !strings.Contains(res[0].Detail, "row 1 column 10") || !strings.Contains(res[0].Detail, strconv.FormatInt(n+1, 10)) {
		t.Errorf("a changed count in q1.out: %+v", res[0])
	}
	for _, r := range res[1:] {
		if !r.Pass {
			t.Errorf("after changing q1.out only: %s: %s", r.Name, r.Detail)
		}
	}

	// check --answers on SF 0.01: one result, skipped, saying why.
	w := &tpch.TPCH{Answers: dir}
	if err := w.Validate(workload.CmdCheck); err != nil {
		t.Fatal(err)
	}
	all, err := w.Check(ctx, runEnv(other.d, 0))
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1]
	if !last.Skipped || !strings.Contains(last.Detail, "scale factor 1's") {
		t.Errorf("check --answers at SF %v: %+v", other.sf, last)
	}
}

// TestCheckRefusesABadAnswersDirectory: --answers that is not there, a
// file, or a directory without every qN.out is refused in one sentence
// before anything runs.
func TestCheckRefusesABadAnswersDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "q1.out")
	if err := os.WriteFile(file, []byte("a|b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "nothere"), "no such directory"},
		{file, "is a file"},
		{dir, "lacks q2.out, q3.out"},
	} {
		err := (&tpch.TPCH{Answers: c.dir}).Validate(workload.CmdCheck)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--answers %s: %v, want one sentence with %q", c.dir, err, c.want)
		}
	}
	// A file whose columns are not the query's is not taken for its answer.
	if _, err := tpch.ReadAnswerFile(file, 1); err == nil || !strings.Contains(err.Error(), "not dbgen's answer file for Q1") {
		t.Errorf("a 2-column q1.out: %v", err)
	}
}
