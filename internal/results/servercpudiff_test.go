package results

import (
	"strings"
	"testing"
)

func profiledRun(tps, cpuS, secs float64, mods, funcs []CPUShare) *Run {
	r := &Run{ServerCPU: &ServerCPU{Samples: 100, CPUSeconds: cpuS, Seconds: secs, Modules: mods, Functions: funcs}}
	r.Summary.TPS = tps
	return r
}

// Two runs' server profiles compare per transaction and by share: the
// largest changes first, counting what one profile lists alone by the
// least it can have changed; nothing is compared unless both runs have a
// profile with samples.
func TestTwoServerCPUProfilesCompareByTransactionAndShare(t *testing.T) {
	a := profiledRun(1000, 2, 10, []CPUShare{{Module: "postgres", SelfPct: 60}, {Module: "[kernel.kallsyms]", SelfPct: 40}},
		[]CPUShare{{Symbol: "ExecScan", Module: "postgres", SelfPct: 30}, {Symbol: "hash_search", Module: "postgres", SelfPct: 10},
			{Symbol: "LWLockAcquire", Module: "postgres", SelfPct: 5}})
	b := profiledRun(800, 2.4, 10, []CPUShare{{Module: "postgres", SelfPct: 50}, {Module: "[kernel.kallsyms]", SelfPct: 50}},
		[]CPUShare{{Symbol: "ExecScan", Module: "postgres", SelfPct: 29}, {Symbol: "LWLockAcquire", Module: "postgres", SelfPct: 15},
			{Symbol: "XLogInsertRecord", Module: "postgres", SelfPct: 8}})
	b.ServerCPU.Note = "perf stopped 5.0 s into the measured phase of 10.0 s (x): the profile covers that part"
	d := DiffServerCPU(a, b)
	if d == nil || d.CPUPerTxUsA == nil || *d.CPUPerTxUsA != 200 || d.CPUPerTxUsB == nil || *d.CPUPerTxUsB != 300 {
		t.Fatalf("CPU per transaction: %+v; want 200 and 300 µs", d)
	}
	var order []string
	for _, f := range d.Functions {
		order = append(order, f.Symbol)
	}
	// LWLockAcquire +10; XLogInsertRecord, listed in B alone at 8%, was
	// below A's smallest listed share (5%) there: at least +3;
	// hash_search, in A alone at 10%, below B's smallest (8%): at least
	// -2; ExecScan -1.
	if got := strings.Join(order, " "); got != "LWLockAcquire XLogInsertRecord hash_search ExecScan" {
		t.Errorf("functions in order %q", got)
	}
	if f := d.Functions[2]; f.SelfPctA == nil || *f.SelfPctA != 10 || f.SelfPctB != nil || f.DeltaPts != nil {
		t.Errorf("a function listed in A alone: %+v", f)
	}
	if m := d.Modules[0]; m.DeltaPts == nil || *m.DeltaPts != -10 && *m.DeltaPts != 10 {
		t.Errorf("modules %+v", d.Modules)
	}
	lines := strings.Join(d.Lines(), "\n")
	for _, want := range []string{"server CPU per transaction: 200.0 µs → 300.0 µs (+50.0%)", "function LWLockAcquire (postgres): 5.0% → 15.0% (+10.0 pts)",
		"function hash_search (postgres): 10.0% → not listed", "note: B: perf stopped 5.0 s"} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}
	b.ServerCPU = &ServerCPU{Unavailable: "perf is not installed (Debian package linux-perf)"}
	if d := DiffServerCPU(a, b); d != nil {
		t.Errorf("a run without a profile compared: %+v", d)
	}
	if d := DiffServerCPU(a, &Run{}); d != nil {
		t.Errorf("a run that did not ask for a profile compared: %+v", d)
	}
}
