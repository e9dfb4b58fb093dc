package experiment

import (
	"math/rand/v2"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// TestCompareListsTheOthersCPU: two runs differ in the CPU other processes
// took when one took more than 5% of the host and the other did not, or
// when they are more than 5 points apart; a point or two is no difference.
func TestCompareListsTheOthersCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := fakeRun("a", 4, 1000, 0.05, 30, 1, 3, rng)
	b := *a
	b.RunID = "b"
	host := func(others float64, top ...results.CPUUse) *results.HostCPU {
		srv := 50.0
		return &results.HostCPU{CPUs: 2, HarnessPct: 20, ServerPct: &srv, OthersPct: others, IdlePct: 30 - others, TopOthers: top}
	}
	for _, c := range []struct {
		a, b *results.HostCPU
		diff *results.ConfigDiff
	}{
		{host(1), host(2.5), nil},
		{nil, host(2), nil},
		{host(2), host(41, results.CPUUse{Comm: "yes", Pct: 40}),
			&results.ConfigDiff{Key: "host_cpu.others_pct", A: "2%", B: "41% (yes 40%)", Group: results.DiffGroupHost}},
		{host(4), host(6, results.CPUUse{Comm: "cc1plus", Pct: 5}),
			&results.ConfigDiff{Key: "host_cpu.others_pct", A: "4%", B: "6% (cc1plus 5%)", Group: results.DiffGroupHost}},
		{host(12), host(30), &results.ConfigDiff{Key: "host_cpu.others_pct", A: "12%", B: "30%", Group: results.DiffGroupHost}},
	} {
		a.Summary.HostCPU, b.Summary.HostCPU = c.a, c.b
		d := CompareRuns(a, &b).ConfigDifferences
		switch {
		case c.diff == nil && len(d) != 0:
			t.Errorf("%v vs %v: differences %+v, want none", c.a, c.b, d)
		case c.diff != nil && (len(d) != 1 || d[0] != *c.diff):
			t.Errorf("differences %+v, want %+v", d, *c.diff)
		}
	}
}

// TestAnalyzeMarksInterferedPoints: a sweep point lists its runs whose
// other processes took more than 5% of the host, and the sweep table marks
// it.
func TestAnalyzeMarksInterferedPoints(t *testing.T) {
	sw, runs := fakeSweep([]int{1, 2, 4}, 2, 1000, 0.05, 0.002, 0.01)
	srv := 50.0
	for id, r := range runs {
		r.Summary.HostCPU = &results.HostCPU{CPUs: 2, ServerPct: &srv, OthersPct: 1}
		if id == "r2-2" {
			r.Summary.HostCPU.OthersPct = 41
		}
	}
	Analyze(sw, runs)
	for _, p := range sw.Points {
		if want := p.Clients == 2; (len(p.Interfered) == 1 && p.Interfered[0] == "r2-2") != want || (!want && len(p.Interfered) > 0) {
			t.Errorf("point of %d clients: interfered %v", p.Clients, p.Interfered)
		}
	}
}
