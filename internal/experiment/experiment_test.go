package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

// fakeRun builds a completed run with n one-second intervals of throughput
// around tps (relative noise sd), one operation "op", p50 and p99 latency.
func fakeRun(id string, clients int, tps, noise float64, n int, p50, p99 float64, rng *rand.Rand) *results.Run {
	r := &results.Run{RunID: id, Status: results.StatusCompleted, Workload: "w",
		StartTime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(id)) * time.Second),
		Config:    results.Config{Clients: clients, IntervalSeconds: 1, WorkloadFlags: map[string]string{"scale": "1"}}}
	sum := 0.0
	for i := range n {
		v := tps * (1 + noise*rng.NormFloat64())
		sum += v
		r.Intervals = append(r.Intervals, results.Interval{Seq: i, Phase: "measure", Seconds: 1, TPS: v,
			Ops: []results.IntervalOp{{Name: "op", TPS: v}}})
	}
	mean := sum / float64(n)
	lat := results.Latency{"p50": p50, "p99": p99, "max": 2 * p99}
	r.Summary = results.Summary{TPS: mean, Seconds: float64(n), LatencyMs: lat}
	r.Ops = []results.Op{{Name: "op", TPS: mean, LatencyMs: lat}}
	return r
}

func uslX(lambda, sigma, kappa, n float64) float64 {
	return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
}

// fakeSweep makes a sweep over clients with repeat runs per point whose tps
// follows the USL with the given parameters (plus noise).
func fakeSweep(clients []int, repeat int, lambda, sigma, kappa, noise float64) (*results.Sweep, map[string]*results.Run) {
	rng := rand.New(rand.NewPCG(1, 2))
	sw := &results.Sweep{SweepID: "sw-test", Workload: "w", Clients: clients, Repeat: repeat}
	runs := map[string]*results.Run{}
	for round := 1; round <= repeat; round++ {
		for _, n := range clients {
			id := fmt.Sprintf("r%d-%d", round, n)
			x := uslX(lambda, sigma, kappa, float64(n))
			// Latency grows with the queue: N / X seconds per transaction.
			p50 := float64(n) / x * 1000
			r := fakeRun(id, n, x, noise, 20, p50, 3*p50, rng)
			runs[id] = r
			sw.Plan = append(sw.Plan, results.SweepRun{Seq: len(sw.Plan), Round: round, Clients: n, RunID: id, Status: r.Status})
			sw.RunIDs = append(sw.RunIDs, id)
		}
	}
	return sw, runs
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %v, want %v within %.0f%%", what, got, want, rel*100)
	}
}

func TestAnalyzeRecoversAKnownScalabilityCurve(t *testing.T) {
	const lambda, sigma, kappa = 1000.0, 0.05, 0.002
	sw, runs := fakeSweep([]int{1, 2, 4, 8, 16, 32}, 3, lambda, sigma, kappa, 0.005)
	Analyze(sw, runs)
	if sw.USL == nil {
		t.Fatalf("no USL fit: %s", sw.USLError)
	}
	within(t, "sigma", sw.USL.Sigma, sigma, 0.05)
	within(t, "kappa", sw.USL.Kappa, kappa, 0.05)
	wantPeak := math.Sqrt((1 - sigma) / kappa)
	if sw.USL.PeakClients == nil || sw.USL.PeakTPS == nil {
		t.Fatal("the fit has no peak")
	}
	within(t, "peak clients", *sw.USL.PeakClients, wantPeak, 0.05)
	within(t, "peak tps", *sw.USL.PeakTPS, uslX(lambda, sigma, kappa, wantPeak), 0.05)
	if sw.USL.R2 < 0.99 {
		t.Errorf("R2 = %v on near noise-free data", sw.USL.R2)
	}
	if sw.USL.Points != 18 {
		t.Errorf("fit used %d runs, want 18", sw.USL.Points)
	}
	if len(sw.Points) != 6 {
		t.Fatalf("%d points, want 6", len(sw.Points))
	}
	for _, p := range sw.Points {
		x := uslX(lambda, sigma, kappa, float64(p.Clients))
		within(t, fmt.Sprintf("tps median at %d", p.Clients), p.TPSMedian, x, 0.02)
		if p.CIMethod != CIRepeatsT || len(p.Runs) != 3 || len(p.TPS) != 3 {
			t.Errorf("point %d: method %s, %d runs", p.Clients, p.CIMethod, len(p.Runs))
		}
		if !(p.TPSCILow <= p.TPSMedian && p.TPSMedian <= p.TPSCIHigh) {
			t.Errorf("point %d: interval [%v, %v] misses the median %v", p.Clients, p.TPSCILow, p.TPSCIHigh, p.TPSMedian)
		}
		wantEff := x / (float64(p.Clients) * lambda)
		if p.Efficiency == nil {
			t.Fatalf("point %d has no efficiency", p.Clients)
		}
		within(t, fmt.Sprintf("efficiency at %d", p.Clients), *p.Efficiency, wantEff, 0.02)
		// Latency = N/X, so the inflation is N*lambda/X = 1/efficiency.
		if p.Ops[0].InflationP50 == nil {
			t.Fatalf("point %d has no inflation", p.Clients)
		}
		within(t, fmt.Sprintf("p50 inflation at %d", p.Clients), *p.Ops[0].InflationP50, 1/wantEff, 0.02)
	}
}

func TestAnalyzeRefusesAUSLFitUnderFourClientCounts(t *testing.T) {
	sw, runs := fakeSweep([]int{1, 2, 4}, 2, 1000, 0.1, 0.01, 0.01)
	Analyze(sw, runs)
	if sw.USL != nil {
		t.Fatalf("a fit from 3 client counts: %+v", sw.USL)
	}
	if !strings.Contains(sw.USLError, "at least 4 distinct client counts") || !strings.Contains(sw.USLError, "got 3") {
		t.Errorf("usl_error = %q", sw.USLError)
	}
	if len(sw.Points) != 3 {
		t.Errorf("%d points, want 3 (the rest of the analysis stands)", len(sw.Points))
	}
}

func TestAnalyzeUsesIntervalsForASingleRepeat(t *testing.T) {
	sw, runs := fakeSweep([]int{1, 2, 4, 8}, 1, 1000, 0.1, 0.001, 0.05)
	Analyze(sw, runs)
	for _, p := range sw.Points {
		if p.CIMethod != "intervals" {
			t.Errorf("point %d: method %s", p.Clients, p.CIMethod)
		}
		if !(p.TPSCILow < p.TPSMedian && p.TPSMedian < p.TPSCIHigh) {
			t.Errorf("point %d: interval [%v, %v] around %v is degenerate or misses it", p.Clients, p.TPSCILow, p.TPSCIHigh, p.TPSMedian)
		}
		// 5% noise over 20 intervals: the mean's standard error is ~1.1%,
		// so the 95% interval is a few percent wide, not 0 nor 50%.
		width := (p.TPSCIHigh - p.TPSCILow) / p.TPSMedian
		if width < 0.01 || width > 0.2 {
			t.Errorf("point %d: relative interval width %.3f", p.Clients, width)
		}
	}
}

func TestAnalyzeLeavesOutRunsThatDidNotComplete(t *testing.T) {
	sw, runs := fakeSweep([]int{1, 2, 4, 8}, 2, 1000, 0.1, 0.001, 0.01)
	runs["r2-8"].Status = results.StatusInterrupted
	sw.Plan = append(sw.Plan, results.SweepRun{Clients: 16}) // not made yet
	Analyze(sw, runs)
	last := sw.Points[len(sw.Points)-1]
	if last.Clients != 8 || len(last.Runs) != 1 || last.Runs[0] != "r1-8" {
		t.Errorf("last point = %d clients, runs %v; want 8 clients from r1-8 only", last.Clients, last.Runs)
	}
}

func TestAnalyzeFitsEachSeriesOfAVariedSweep(t *testing.T) {
	a, ra := fakeSweep([]int{1, 2, 4, 8}, 1, 1000, 0.05, 0.001, 0.001)
	b, rb := fakeSweep([]int{1, 2, 4, 8}, 1, 500, 0.3, 0.01, 0.001)
	sw := &results.Sweep{SweepID: "sw-v", Vary: []results.VaryFlag{{Flag: "batch", Values: []string{"10", "1"}}}}
	runs := map[string]*results.Run{}
	for _, p := range a.Plan {
		p.Vary = map[string]string{"batch": "1"}
		// The plan lists batch=1 first; the series follow the --vary order.
		sw.Plan = append(sw.Plan, p)
		runs[p.RunID] = ra[p.RunID]
	}
	for _, p := range b.Plan {
		p.RunID = "b" + p.RunID
		p.Vary = map[string]string{"batch": "10"}
		sw.Plan = append(sw.Plan, p)
		runs[p.RunID] = rb[strings.TrimPrefix(p.RunID, "b")]
	}
	Analyze(sw, runs)
	if len(sw.Points) != 8 || len(sw.Fits) != 2 {
		t.Fatalf("%d points and %d fits, want 8 and 2", len(sw.Points), len(sw.Fits))
	}
	if sw.USL != nil || !strings.Contains(sw.USLError, "--batch") {
		t.Errorf("top-level usl = %v, usl_error %q", sw.USL, sw.USLError)
	}
	if sw.Fits[0].Vary["batch"] != "10" || sw.Fits[0].USL == nil || sw.Fits[1].USL == nil {
		t.Fatalf("fits are not in the --vary order 10, 1: %+v", sw.Fits)
	}
	within(t, "sigma of batch=1", sw.Fits[1].USL.Sigma, 0.05, 0.05)
	within(t, "sigma of batch=10", sw.Fits[0].USL.Sigma, 0.3, 0.05)
	// Efficiency is relative to the same series' single client.
	if e := *sw.Points[4].Efficiency; sw.Points[4].Clients != 1 || math.Abs(e-1) > 1e-9 {
		t.Errorf("first point of the second series: %d clients, efficiency %v", sw.Points[4].Clients, e)
	}
}

func TestCompareARunWithItsTwinFindsNoSignificantDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := fakeRun("a", 4, 1000, 0.05, 30, 1, 3, rng)
	twin := *r
	twin.RunID = "twin"
	c := CompareRuns(r, &twin)
	if len(c.Ops) != 2 || c.Ops[0].Name != "op" || c.Ops[1].Name != Total {
		t.Fatalf("ops = %+v", c.Ops)
	}
	for _, o := range c.Ops {
		if o.Verdict != "no significant difference" {
			t.Errorf("%s: verdict %q", o.Name, o.Verdict)
		}
		if o.TPSDeltaPct == nil || *o.TPSDeltaPct != 0 || o.P99DeltaPct == nil || *o.P99DeltaPct != 0 {
			t.Errorf("%s: deltas %v %v", o.Name, o.TPSDeltaPct, o.P99DeltaPct)
		}
	}
	if len(c.ConfigDifferences) != 0 {
		t.Errorf("config differences of a run with its twin: %+v", c.ConfigDifferences)
	}
}

func TestCompareARunWithItselfSaysItIsTheSameRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := fakeRun("a", 4, 1000, 0.05, 30, 1, 3, rng)
	c := CompareRuns(r, r)
	for _, o := range c.Ops {
		if o.Verdict != results.VerdictSameRun || o.TPSCILowPct != nil || o.TPSCIHighPct != nil || *o.TPSDeltaPct != 0 {
			t.Errorf("%s: verdict %q, interval %v %v", o.Name, o.Verdict, o.TPSCILowPct, o.TPSCIHighPct)
		}
	}
	if len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "the same run") {
		t.Errorf("notes %q do not say it is the same run", c.Notes)
	}
}

func TestCompareSettlesSettingsByValueAndGroupsTheData(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	a := fakeRun("a", 1, 1000, 0.05, 10, 1, 3, rng)
	b := fakeRun("b", 1, 1000, 0.05, 10, 1, 3, rng)
	// Shown differently, the same amount: no difference.
	a.Engine.Settings = map[string]string{"work_mem": "4096kB", "shared_buffers": "128MB"}
	a.Engine.Normalized = map[string]results.Setting{"work_mem": {Value: 4 << 20, Unit: "bytes"}, "shared_buffers": {Value: 128 << 20, Unit: "bytes"}}
	b.Engine.Settings = map[string]string{"work_mem": "4MB", "shared_buffers": "256MB"}
	b.Engine.Normalized = map[string]results.Setting{"work_mem": {Value: 4 << 20, Unit: "bytes"}, "shared_buffers": {Value: 256 << 20, Unit: "bytes"}}
	a.Engine.Engine, b.Engine.Engine = "postgresql", "mariadb"
	a.Config.Seed, b.Config.Seed = 1, 2
	size := func(n int64) *int64 { return &n }
	a.Dataset = &results.Dataset{Params: map[string]any{"scale": int64(1)}, Tables: []results.DatasetTable{
		{Name: "pgbench_accounts", Rows: 100000, RowsExact: true, Bytes: size(13 << 20)},
		{Name: "pgbench_branches", Rows: 1, RowsExact: true, Bytes: size(40 << 10)}}}
	b.Dataset = &results.Dataset{Params: map[string]any{"scale": int64(5)}, Tables: []results.DatasetTable{
		{Name: "pgbench_accounts", Rows: 500000, RowsExact: true, Bytes: size(64 << 20)},
		// 5% bigger: the same data, a little bloat.
		{Name: "pgbench_branches", Rows: 1, RowsExact: true, Bytes: size(42 << 10)}}}
	c := CompareRuns(a, b)
	var got []string
	for _, d := range c.ConfigDifferences {
		got = append(got, d.Group+":"+d.Key+"="+d.A+">"+d.B)
	}
	want := "data:dataset.scale=1>5 data:dataset.tables.pgbench_accounts.bytes=13.0 MiB>64.0 MiB " +
		"data:dataset.tables.pgbench_accounts.rows=100000>500000 data:engine.name=postgresql>mariadb " +
		"config:engine.settings.shared_buffers=128MB>256MB expected:config.seed=1>2"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("differences:\n got %s\nwant %s", g, want)
	}
	if len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "engine changed: postgresql") {
		t.Errorf("notes %q do not lead with the engine change", c.Notes)
	}
}

func TestCompareRunsGivesVerdictsBeyondTheNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := fakeRun("a", 1, 1000, 0.05, 30, 1, 3, rng)
	b := fakeRun("b", 8, 1200, 0.05, 30, 1.5, 6, rng)
	same := fakeRun("c", 1, 1005, 0.05, 30, 1, 3, rng)
	if v := CompareRuns(a, b).Ops[1].Verdict; v != "faster" {
		t.Errorf("+20%% tps: verdict %q", v)
	}
	if v := CompareRuns(b, a).Ops[1].Verdict; v != "slower" {
		t.Errorf("-17%% tps: verdict %q", v)
	}
	if v := CompareRuns(a, same).Ops[1].Verdict; v != "no significant difference" {
		t.Errorf("+0.5%% tps in 5%% noise: verdict %q", v)
	}
	c := CompareRuns(a, b)
	o := c.Ops[1]
	within(t, "tps delta", *o.TPSDeltaPct, (b.Summary.TPS-a.Summary.TPS)/a.Summary.TPS*100, 0.01)
	if *o.P99DeltaPct != 100 || *o.P50DeltaPct != 50 || o.LatencyDeltaPct["max"] != 100 {
		t.Errorf("latency deltas p50 %v p99 %v max %v, want 50, 100, 100", *o.P50DeltaPct, *o.P99DeltaPct, o.LatencyDeltaPct["max"])
	}
	if !(*o.TPSCILowPct > 0 && *o.TPSCILowPct < *o.TPSCIHighPct) {
		t.Errorf("interval [%v, %v]", *o.TPSCILowPct, *o.TPSCIHighPct)
	}
	if len(c.ConfigDifferences) != 1 || c.ConfigDifferences[0] != (results.ConfigDiff{Key: "config.clients", A: "1", B: "8", Group: results.DiffGroupConfig}) {
		t.Errorf("config differences = %+v", c.ConfigDifferences)
	}
}

func TestCompareListsEveryConfigurationDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := fakeRun("a", 1, 1000, 0.05, 10, 1, 3, rng)
	b := fakeRun("b", 1, 1000, 0.05, 10, 1, 3, rng)
	a.Engine.Version, b.Engine.Version = "16.4", "17.1"
	a.Engine.Settings = map[string]string{"shared_buffers": "128MB"}
	b.Engine.Settings = map[string]string{"shared_buffers": "1GB", "jit": "off"}
	b.Config.WorkloadFlags = map[string]string{"scale": "10"}
	b.Host.Hostname = "other"
	b.Target = "postgres://x@h/db"
	a.Config.Percentiles, b.Config.Percentiles = []float64{50, 99}, []float64{50, 99, 99.9}
	b.Collect = &results.Collect{Enabled: []string{"os", "server"}}
	a.Config.Terminals, b.Config.Terminals, b.Config.KeyingThink = 100, 100, true
	var keys []string
	for _, d := range CompareRuns(a, b).ConfigDifferences {
		keys = append(keys, d.Key+"="+d.A+">"+d.B)
	}
	want := "engine.version=16.4>17.1 collect.enabled=none>os,server config.keying_think=false>true config.percentiles=50,99>50,99,99.9 " +
		"engine.settings.jit=(unset)>off engine.settings.shared_buffers=128MB>1GB " +
		"host.hostname=>other target=>postgres://x@h/db workload.scale=1>10"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("differences:\n got %s\nwant %s", got, want)
	}
}

func TestCompareNeedsEnoughIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	a := fakeRun("a", 1, 1000, 0.05, 7, 1, 3, rng)
	b := fakeRun("b", 8, 5000, 0.05, 30, 1, 3, rng)
	c := CompareRuns(a, b)
	if v := c.Ops[1].Verdict; v != "insufficient data" {
		t.Errorf("verdict from 7 intervals on one side: %q", v)
	}
	if len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "at least 8") {
		t.Errorf("notes = %v", c.Notes)
	}
}

func TestCompareSweepsPointByPointOverRepeats(t *testing.T) {
	for _, tc := range []struct {
		repeat int
		method string
	}{{5, MethodRepeats}, {2, MethodRepeatsT}} {
		t.Run(fmt.Sprintf("%d repeats", tc.repeat), func(t *testing.T) {
			compareSweepsOverRepeats(t, tc.repeat, tc.method)
		})
	}
}

func compareSweepsOverRepeats(t *testing.T, repeat int, method string) {
	a, ra := fakeSweep([]int{1, 2, 4}, repeat, 1000, 0.1, 0.01, 0.01)
	b, rb := fakeSweep([]int{1, 2, 4, 8}, repeat, 1300, 0.1, 0.01, 0.01)
	b.SweepID = "sw-b"
	runs := map[string]*results.Run{}
	for k, v := range ra {
		runs["a"+k] = v
	}
	for k, v := range rb {
		runs["b"+k] = v
	}
	for i := range a.Plan {
		a.Plan[i].RunID = "a" + a.Plan[i].RunID
	}
	for i := range b.Plan {
		b.Plan[i].RunID = "b" + b.Plan[i].RunID
	}
	c := CompareSweeps(a, b, runs)
	if c.Method != method {
		t.Errorf("method %s, want %s", c.Method, method)
	}
	if len(c.Ops) != 6 {
		t.Fatalf("%d ops, want 2 per shared point x 3", len(c.Ops))
	}
	for _, o := range c.Ops {
		if o.Verdict != "faster" {
			t.Errorf("clients %d %s: verdict %q for +30%%", o.Clients, o.Name, o.Verdict)
		}
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "clients=8 is only in B") {
		t.Errorf("notes = %v", c.Notes)
	}
	found := false
	for _, d := range c.ConfigDifferences {
		if d.Key == "sweep.clients" && d.A == "1,2,4" && d.B == "1,2,4,8" {
			found = true
		}
		if d.Key == "config.clients" {
			t.Errorf("per-run clients listed as a sweep difference: %+v", d)
		}
	}
	if !found {
		t.Errorf("sweep.clients difference missing: %+v", c.ConfigDifferences)
	}
}

// A sweep that varies two flags compares each series, at each client
// count, with the series that differs from it in one flag only, at that
// flag's first value, and finds the effect of each flag.
func TestAnalyzeComparesSeriesThatDifferInOneFlag(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sw := &results.Sweep{SweepID: "sw-s", Vary: []results.VaryFlag{
		{Flag: "set.synchronous_commit", Values: []string{"on", "off"}}, {Flag: "batch", Values: []string{"1", "10"}}}}
	runs := map[string]*results.Run{}
	for _, sc := range []string{"on", "off"} {
		for _, batch := range []string{"1", "10"} {
			for _, n := range []int{2, 4} {
				tps := 1000.0 * float64(n)
				if sc == "off" {
					tps *= 2
				}
				if batch == "10" {
					tps /= 2
				}
				id := fmt.Sprintf("r-%s-%s-%d", sc, batch, n)
				runs[id] = fakeRun(id, n, tps, 0.01, 20, 1, 2, rng)
				sw.Plan = append(sw.Plan, results.SweepRun{Seq: len(sw.Plan), Round: 1, Clients: n, RunID: id, Status: results.StatusCompleted,
					Vary: map[string]string{"set.synchronous_commit": sc, "batch": batch}})
			}
		}
	}
	Analyze(sw, runs)
	if len(sw.SeriesComparisons) != 8 {
		t.Fatalf("%d series comparisons, want 8 (2 flags x 2 series x 2 client counts): %+v", len(sw.SeriesComparisons), sw.SeriesComparisons)
	}
	for _, c := range sw.SeriesComparisons {
		other := map[string]string{"set.synchronous_commit": "batch", "batch": "set.synchronous_commit"}[c.Flag]
		if c.A[c.Flag] != map[string]string{"set.synchronous_commit": "on", "batch": "1"}[c.Flag] || c.A[c.Flag] == c.B[c.Flag] || c.A[other] != c.B[other] {
			t.Errorf("%d clients, flag %s: %v against %v do not differ in the flag alone, from its first value", c.Clients, c.Flag, c.B, c.A)
		}
		want := map[string]string{"set.synchronous_commit": "faster", "batch": "slower"}[c.Flag]
		total := c.Total()
		if c.Method != MethodIntervals || total == nil || total.Name != Total || total.Verdict != want || total.TPSDeltaPct == nil {
			t.Errorf("%d clients, %v against %v: method %s, total %+v; want %s", c.Clients, c.B, c.A, c.Method, total, want)
		}
	}
	// Nothing to compare without --vary.
	one, oneRuns := fakeSweep([]int{1, 2}, 1, 1000, 0.05, 0.001, 0.01)
	Analyze(one, oneRuns)
	if one.SeriesComparisons != nil {
		t.Errorf("a sweep without --vary has series comparisons: %+v", one.SeriesComparisons)
	}
}
