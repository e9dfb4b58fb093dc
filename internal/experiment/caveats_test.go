package experiment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

// injected is one run of an injected sweep: its round, client count, tps
// and the standard deviation of its per-interval tps.
type injected struct {
	round, clients int
	tps, sd        float64
}

// injectedSweep builds a sweep from fixed runs: each has 10 one-second
// measured intervals alternating tps+sd and tps-sd, so its tps is exactly
// tps and its intervals vary by about sd. Run ids are "rROUND-cCLIENTS".
func injectedSweep(runs []injected) (*results.Sweep, map[string]*results.Run) {
	sw := &results.Sweep{SweepID: "sw-injected", Workload: "w", Status: results.StatusCompleted}
	out := map[string]*results.Run{}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, in := range runs {
		id := fmt.Sprintf("r%d-c%d", in.round, in.clients)
		r := &results.Run{RunID: id, Status: results.StatusCompleted, Workload: "w", StartTime: start.Add(time.Duration(i) * time.Minute),
			Config: results.Config{Clients: in.clients, IntervalSeconds: 1}}
		for j := range 10 {
			v := in.tps + in.sd
			if j%2 == 1 {
				v = in.tps - in.sd
			}
			r.Intervals = append(r.Intervals, results.Interval{Seq: j, Phase: "measure", Seconds: 1, TPS: v,
				Ops: []results.IntervalOp{{Name: "op", TPS: v}}})
		}
		lat := results.Latency{"p50": 1, "p99": 3}
		r.Summary = results.Summary{TPS: in.tps, Seconds: 10, LatencyMs: lat}
		r.Ops = []results.Op{{Name: "op", TPS: in.tps, LatencyMs: lat}}
		out[id] = r
		sw.Plan = append(sw.Plan, results.SweepRun{Seq: i, Round: in.round, Clients: in.clients, RunID: id, Status: results.StatusCompleted})
		sw.RunIDs = append(sw.RunIDs, id)
		sw.Repeat = max(sw.Repeat, in.round)
		if !slices.Contains(sw.Clients, in.clients) {
			sw.Clients = append(sw.Clients, in.clients)
		}
	}
	slices.Sort(sw.Clients)
	return sw, out
}

// cleanRuns follows a USL curve with a peak at 10 clients inside the
// clients measured (1 to 32), 2 rounds that differ by ±0.5% in
// alternation, and steady intervals.
func cleanRuns() []injected {
	var in []injected
	for round := 1; round <= 2; round++ {
		for i, n := range []int{1, 2, 4, 8, 16, 32} {
			x := uslX(1000, 0.05, 0.0095, float64(n))
			if (i+round)%2 == 0 {
				x *= 1.005
			} else {
				x *= 0.995
			}
			in = append(in, injected{round, n, x, 0.02 * x})
		}
	}
	return in
}

// poorSweep is like the sweep of issue 38 whose headline said "USL PEAK
// 31961 tps at 15 clients" with R² 0.49: 2 repeats that scatter, a fit
// with a peak and a poor R².
func poorSweep(t *testing.T) *results.Sweep {
	tps := map[int][2]float64{1: {12000, 9000}, 2: {26000, 12000}, 4: {14000, 30000}, 8: {31000, 15000}, 16: {17000, 30000}}
	var in []injected
	for round := 1; round <= 2; round++ {
		for _, n := range []int{1, 2, 4, 8, 16} {
			in = append(in, injected{round, n, tps[n][round-1], 500})
		}
	}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	if sw.USL == nil || !sw.USL.PoorFit || sw.USL.PeakClients == nil {
		t.Fatalf("the injected sweep is not a poor fit with a peak: %+v", sw.USL)
	}
	return sw
}

func kinds(cs []results.SweepCaveat) []string {
	var k []string
	for _, c := range cs {
		k = append(k, c.Kind)
	}
	return k
}

func caveatOf(t *testing.T, sw *results.Sweep, kind string) results.SweepCaveat {
	t.Helper()
	for _, c := range sw.Caveats {
		if c.Kind == kind {
			return c
		}
	}
	t.Fatalf("no %s caveat; caveats: %v", kind, kinds(sw.Caveats))
	return results.SweepCaveat{}
}

func TestAnalyzeStatesThePeakOfACleanSweepAndFindsNoCaveat(t *testing.T) {
	sw, runs := injectedSweep(cleanRuns())
	Analyze(sw, runs)
	if sw.USL == nil {
		t.Fatalf("no fit: %s", sw.USLError)
	}
	if sw.USL.PoorFit || sw.USL.PeakExtrapolated || !sw.USL.PeakFinding() || sw.USL.R2 < 0.98 {
		t.Errorf("a clean sweep's fit: R² %v, poor %v, extrapolated %v, peak a finding %v", sw.USL.R2, sw.USL.PoorFit, sw.USL.PeakExtrapolated, sw.USL.PeakFinding())
	}
	if sw.Caveats == nil || len(sw.Caveats) != 0 {
		t.Errorf("a clean sweep has caveats %v (want an empty list)", kinds(sw.Caveats))
	}
	for _, p := range sw.Points {
		if p.TPSCILowClipped {
			t.Errorf("point %d: interval [%v, %v] marked clipped", p.Clients, p.TPSCILow, p.TPSCIHigh)
		}
	}
}

func TestAnalyzeLabelsAPoorFitAndStatesNoPeak(t *testing.T) {
	sw := poorSweep(t)
	if sw.USL.R2 >= results.USLMinR2 || !sw.USL.PoorFit || sw.USL.PeakFinding() {
		t.Errorf("R² %v: poor fit %v, peak a finding %v", sw.USL.R2, sw.USL.PoorFit, sw.USL.PeakFinding())
	}
	c := caveatOf(t, sw, results.CaveatPoorFit)
	if !strings.Contains(c.Text, fmt.Sprintf("poor fit (R² %.2f, under 0.90)", sw.USL.R2)) || !strings.Contains(c.Text, "not a finding") {
		t.Errorf("poor-fit caveat: %q", c.Text)
	}
}

func TestAnalyzeSaysAPeakPastTheClientsMeasuredIsExtrapolated(t *testing.T) {
	var in []injected
	for _, n := range []int{1, 2, 4, 8} {
		in = append(in, injected{1, n, uslX(1000, 0.05, 0.0095, float64(n)), 10})
	}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	if sw.USL == nil || sw.USL.PeakClients == nil {
		t.Fatalf("no fit with a peak: %+v %s", sw.USL, sw.USLError)
	}
	if !sw.USL.PeakExtrapolated || sw.USL.PoorFit || sw.USL.PeakFinding() {
		t.Errorf("peak %.1f clients from 1-8: extrapolated %v, poor %v, a finding %v", *sw.USL.PeakClients, sw.USL.PeakExtrapolated, sw.USL.PoorFit, sw.USL.PeakFinding())
	}
	caveatOf(t, sw, results.CaveatPeakExtrapolated)
}

func TestAnalyzeMarksAnIntervalClippedAtZero(t *testing.T) {
	// Two repeats at 1 client that differ ninefold: the t interval of 2
	// runs (t = 12.7) reaches far below 0. The other points are tight.
	in := []injected{{1, 1, 1000, 10}, {2, 1, 9000, 10}, {1, 2, 9000, 10}, {2, 2, 9100, 10}}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	one, two := sw.Points[0], sw.Points[1]
	if !one.TPSCILowClipped || one.TPSCILow != 0 {
		t.Errorf("1 client: interval [%v, %v], clipped %v; want a low end of 0 marked clipped", one.TPSCILow, one.TPSCIHigh, one.TPSCILowClipped)
	}
	if two.TPSCILowClipped || two.TPSCILow <= 0 {
		t.Errorf("2 clients: interval [%v, %v], clipped %v; want a positive low end, not clipped", two.TPSCILow, two.TPSCIHigh, two.TPSCILowClipped)
	}
}

func TestAnalyzeFlagsEfficiencyAboveOneAsASuspectBaseline(t *testing.T) {
	in := []injected{{1, 1, 8000, 100}, {1, 2, 22000, 100}, {1, 4, 30000, 100}}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	c := caveatOf(t, sw, results.CaveatEfficiencyAbove1)
	if !slices.Equal(c.Clients, []int{1, 2}) || !slices.Equal(c.Runs, []string{"r1-c1"}) {
		t.Errorf("caveat on clients %v, runs %v; want 1 and 2 clients, run r1-c1", c.Clients, c.Runs)
	}
	for _, s := range []string{"efficiency 1.38 at 2 clients", "baseline is suspect", "r1-c1"} {
		if !strings.Contains(c.Text, s) {
			t.Errorf("caveat %q lacks %q", c.Text, s)
		}
	}
	if n := len(sw.Caveats); n != 1 {
		t.Errorf("%d caveats %v, want 1 (4 clients' efficiency is under 1)", n, kinds(sw.Caveats))
	}
}

func TestAnalyzeFlagsRepeatsInTwoRegimesWithTheirRuns(t *testing.T) {
	// The 1-client repeats of issue 38: 17098 against 8141 and 8823 tps,
	// each run steady within itself. At 2 clients the repeats differ by
	// less than their runs' own spread; at 4 by many times their (tiny)
	// spread, but only 2%: drift, not regimes.
	in := []injected{{1, 1, 8141, 400}, {2, 1, 17098, 400}, {3, 1, 8823, 400},
		{1, 2, 20000, 600}, {2, 2, 21000, 600}, {3, 2, 20500, 600},
		{1, 4, 30000, 10}, {2, 4, 30600, 10}, {3, 4, 30300, 10}}
	sw, runs := injectedSweep(in)
	runs["r1-c1"].Summary.HostIdlePct = ptr(60)
	runs["r2-c1"].Summary.HostIdlePct = ptr(17)
	Analyze(sw, runs)
	var got []results.SweepCaveat
	for _, c := range sw.Caveats {
		if c.Kind == results.CaveatRepeatsDisagree {
			got = append(got, c)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d repeats-disagree caveats, want 1 (1 client only): %v", len(got), kinds(sw.Caveats))
	}
	c := got[0]
	if !slices.Equal(c.Clients, []int{1}) || !slices.Equal(c.Runs, []string{"r1-c1", "r3-c1", "r2-c1"}) {
		t.Errorf("caveat on clients %v, runs %v", c.Clients, c.Runs)
	}
	for _, s := range []string{"repeats at 1 client disagree", "17,098 tps (run r2-c1, host 17% idle) against 8,141 tps (run r1-c1, host 60% idle) and 8,823 tps (run r3-c1)"} {
		if !strings.Contains(c.Text, s) {
			t.Errorf("caveat %q lacks %q", c.Text, s)
		}
	}
}

func TestAnalyzeFlagsASystematicRoundEffect(t *testing.T) {
	// Round 1 is 15-25% slower than round 2 at every point.
	slow := []float64{0.85, 0.8, 0.75, 0.82, 0.78}
	var in []injected
	for round := 1; round <= 2; round++ {
		for i, n := range []int{1, 2, 4, 8, 16} {
			x := uslX(1000, 0.05, 0.0095, float64(n))
			if round == 1 {
				x *= slow[i]
			}
			in = append(in, injected{round, n, x, 0.3 * x})
		}
	}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	c := caveatOf(t, sw, results.CaveatRoundEffect)
	if !slices.Equal(c.Runs, []string{"r1-c1", "r1-c2", "r1-c4", "r1-c8", "r1-c16"}) || !slices.Equal(c.Clients, []int{1, 2, 4, 8, 16}) {
		t.Errorf("round effect on clients %v, runs %v", c.Clients, c.Runs)
	}
	for _, s := range []string{"round 1 ran slower than round 2 at 5 of 5 runs, by 20%"} {
		if !strings.Contains(c.Text, s) {
			t.Errorf("caveat %q lacks %q", c.Text, s)
		}
	}

	// The same sweep with the rounds' order alternating point by point has
	// no round effect.
	for i := range in {
		if in[i].clients == 2 || in[i].clients == 8 {
			in[i].round = 3 - in[i].round
		}
	}
	sw, runs = injectedSweep(in)
	Analyze(sw, runs)
	for _, c := range sw.Caveats {
		if c.Kind == results.CaveatRoundEffect {
			t.Errorf("a round effect where the slower run alternates between rounds: %s", c.Text)
		}
	}
}
