package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/results"
)

func TestOpenLoopSummaryShowsTargetAndAchievedRate(t *testing.T) {
	r := &results.Run{RunID: "r", Workload: "tpcb", Status: results.StatusCompleted,
		Config:  results.Config{Clients: 4, Rate: 2000, Percentiles: []float64{50, 99}},
		Summary: results.Summary{TPS: 1500, Transactions: 4500, Seconds: 3, LagMs: results.Latency{"p50": 1, "p99": 40, "max": 90}}}
	var b bytes.Buffer
	Summary(&b, r)
	out := b.String()
	for _, want := range []string{"open loop: target 2,000 tps, achieved 1,500 tps (75%)", "schedule lag (ms): p50 1.000  p99 40.000  max 90.000"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	r.Config.Rate = 0
	Summary(&b, r)
	if strings.Contains(b.String(), "open loop") {
		t.Errorf("a closed-loop run mentions the open loop:\n%s", b.String())
	}
}

func TestSummarySaysWhenNoTransactionSucceeded(t *testing.T) {
	r := &results.Run{RunID: "r", Workload: "script", Status: results.StatusCompleted,
		Config:       results.Config{Clients: 2, Percentiles: []float64{50}},
		Summary:      results.Summary{Errors: 40, Seconds: 1},
		ErrorClasses: map[string]int64{"sqlstate:22": 40}, ErrorSamples: map[string]string{"sqlstate:22": "division by zero (22012)"}}
	var b bytes.Buffer
	Summary(&b, r)
	if !strings.Contains(b.String(), "no transaction succeeded: all 40 failed") {
		t.Errorf("summary of a run without a success:\n%s", b.String())
	}
	for _, ok := range []results.Summary{{Transactions: 1, Errors: 40}, {}} {
		b.Reset()
		r.Summary = ok
		Summary(&b, r)
		if strings.Contains(b.String(), "no transaction succeeded") {
			t.Errorf("summary of %+v says no transaction succeeded:\n%s", ok, b.String())
		}
	}
}

func TestSummaryShowsTheWarmUpApart(t *testing.T) {
	r := &results.Run{RunID: "r", Workload: "tpcb", Status: results.StatusCompleted,
		Config:  results.Config{Clients: 2, WarmupSeconds: 5, Percentiles: []float64{50}},
		Summary: results.Summary{TPS: 100, Transactions: 1000, Seconds: 10},
		Warmup:  []results.Op{{Name: "a", Count: 300, Errors: 2}, {Name: "b", Count: 20}}}
	var b bytes.Buffer
	Summary(&b, r)
	if !strings.Contains(b.String(), "warm-up 5.0s (not in the figures below): 320 transactions, 2 errors") {
		t.Errorf("summary lacks the warm-up line:\n%s", b.String())
	}
	b.Reset()
	r.Warmup = nil
	Summary(&b, r)
	if strings.Contains(b.String(), "warm-up") {
		t.Errorf("a run without warm-up mentions one:\n%s", b.String())
	}
}

func TestSummaryShowsTheHarnessCostAndWarnsWhenItMayBeTheBottleneck(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	r := &results.Run{RunID: "r", Workload: "tpcb", Status: results.StatusCompleted,
		Config: results.Config{Clients: 8, Percentiles: []float64{50}, Driver: "loop", Loops: 1},
		Host:   hostinfo.Host{Cores: 2},
		Summary: results.Summary{TPS: 50000, Transactions: 500000, Seconds: 10, ClientCPUSeconds: 2.5, ClientCPUUsPerTx: 5,
			HostIdlePct: pct(40), HostRunQueue: pct(1.5), LoopBusyPct: pct(55)}}
	var b bytes.Buffer
	Summary(&b, r)
	// One short line by default; the driver's internals with --verbose.
	if want := "\nharness: loop driver, 5.0 µs CPU per transaction, its loop 55% busy\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	SummaryWith(&b, r, TextOptions{Verbose: true})
	if want := "harness: loop driver (1 loop, 55% busy), 5.0 µs CPU per transaction (2.50 s in all); client host 40% idle, run queue 1.5"; !strings.Contains(b.String(), want) {
		t.Errorf("the verbose summary lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	Summary(&b, r)
	if strings.Contains(b.String(), "warning") {
		t.Errorf("a run with an idle host and a half-busy loop warns:\n%s", b.String())
	}
	r.Summary.HostSaturated, r.Summary.LoopBusyPct = true, pct(96)
	b.Reset()
	Summary(&b, r)
	for _, want := range []string{"warning: the client host was saturated", "twice its 2 cores", "warning: the event loop was 96% busy", "--loops 2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// On a host whose every CPU has a loop, another loop is no advice.
	r.Config.Loops = 2
	b.Reset()
	Summary(&b, r)
	if s := b.String(); strings.Contains(s, "--loops 3") || !strings.Contains(s, "each of the host's 2 CPUs has a loop already") {
		t.Errorf("the advice to 2 loops on 2 CPUs:\n%s", s)
	}
	r.Config.Loops = 1
	page, err := runPage(r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := page.Sections[0].Warnings; len(w) != 2 {
		t.Errorf("the report's summary has %d warnings, want 2: %q", len(w), w)
	}
	if !strings.Contains(b.String(), "the harness may have been the bottleneck") {
		t.Errorf("a saturated host without an account of others blames nothing else:\n%s", b.String())
	}
	// The saturation is laid to the other processes (when above the
	// threshold) or to the server on this host, whichever took more, when
	// that took at least the harness's share; else to the harness. A
	// shard host where the server took 64%, the other shard 10% and the
	// harness 9% was laid to the others.
	server := func(pct float64) *float64 { return &pct }
	for _, c := range []struct {
		others, harness float64
		server          *float64
		want            string
	}{
		{78, 2, nil, "others"}, {6, 5, nil, "others"}, {5, 1, nil, "harness"}, {30, 60, nil, "harness"},
		{3, 20, server(71), "server"}, {30, 20, server(40), "server"}, {45, 20, server(40), "others"}, {10, 9, server(64), "server"},
		{2, 60, server(30), "harness"}, {2, 40, server(40), "server"},
	} {
		r.Summary.HostCPU = &results.HostCPU{CPUs: 2, HarnessPct: c.harness, OthersPct: c.others, ServerPct: c.server}
		b.Reset()
		Summary(&b, r)
		got := map[string]bool{
			"others":  strings.Contains(b.String(), fmt.Sprintf("other processes took %.0f%% of its CPU and the harness %.0f%%", c.others, c.harness)),
			"harness": strings.Contains(b.String(), "the harness may have been the bottleneck"),
		}
		if c.server != nil {
			got["server"] = strings.Contains(b.String(), fmt.Sprintf("the database server took %.0f%% of its CPU and the harness %.0f%%", *c.server, c.harness))
		}
		for who, laid := range got {
			if laid != (who == c.want) {
				t.Errorf("others %v%%, harness %v%%, server %v: laid to %s %v, want it laid to %s:\n%s", c.others, c.harness, c.server, who, laid, c.want, b.String())
			}
		}
	}
}

func TestTheWorkloadsFiguresAreLabelled(t *testing.T) {
	r := &results.Run{RunID: "r", Workload: "tpcc", Status: results.StatusCompleted, Config: results.Config{Percentiles: []float64{50}},
		Summary: results.Summary{Transactions: 10, Seconds: 1, Metrics: map[string]float64{"nopm": 1608.5, "hammerdb_nopm": 1608.5, "x": 2},
			MetricLabels: map[string]string{"nopm": "counted by the harness", "hammerdb_nopm": "HammerDB's"}}}
	var b bytes.Buffer
	Summary(&b, r)
	for _, want := range []string{"\nhammerdb_nopm: 1608.5  (HammerDB's)\n", "\nnopm: 1608.5  (counted by the harness)\n", "\nx: 2.000\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
}
