package experiment

import (
	"math/rand/v2"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// TestCompareCarriesTheWorkloadsFigures: two runs' own figures are paired,
// the headline first, with the change; a figure only one side has is
// listed with the other side null. For two sweeps each point's figure is
// the median of its repeats.
func TestCompareCarriesTheWorkloadsFigures(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := fakeRun("a", 2, 1000, 0.05, 30, 1, 3, rng)
	b := fakeRun("b", 2, 1000, 0.05, 30, 1, 3, rng)
	a.Summary.Metrics = map[string]float64{"nopm": 1000, "tpm": 2300, "only_a": 1}
	a.Summary.MetricLabels = map[string]string{"nopm": "New-Orders a minute"}
	a.Summary.HeadlineMetric = "nopm"
	b.Summary.Metrics = map[string]float64{"nopm": 1100, "tpm": 2300}
	b.Summary.HeadlineMetric = "nopm"
	f := CompareRuns(a, b).Figures
	if len(f) != 3 || f[0].Name != "nopm" || !f[0].Headline || f[0].Label != "New-Orders a minute" ||
		*f[0].A != 1000 || *f[0].B != 1100 || f[0].DeltaPct == nil || *f[0].DeltaPct < 9.99 || *f[0].DeltaPct > 10.01 {
		t.Fatalf("figures %+v", f)
	}
	if f[1].Name != "only_a" || f[1].B != nil || f[1].DeltaPct != nil || f[2].Name != "tpm" || *f[2].DeltaPct != 0 {
		t.Errorf("figures after the headline: %+v, %+v", f[1], f[2])
	}
	if f := CompareRuns(a, a).Figures; len(f) != 3 || *f[0].DeltaPct != 0 {
		t.Errorf("a run against itself: %+v", f)
	}

	swa, runsA := fakeSweep([]int{1, 2}, 3, 1000, 0.05, 0.002, 0.01)
	swb, runsB := fakeSweep([]int{1, 2}, 3, 1000, 0.05, 0.002, 0.01)
	swb.SweepID = "sw-b"
	runs := map[string]*results.Run{}
	for id, r := range runsA {
		r.Summary.Metrics = map[string]float64{"qphh": float64(r.Config.Clients) * 100}
		runs[id] = r
	}
	// B's runs: the same ids in another map; one repeat of 2 clients is
	// far off, and the median must not follow it.
	for id, r := range runsB {
		r := *r
		r.RunID = id + "-b"
		r.Summary.Metrics = map[string]float64{"qphh": float64(r.Config.Clients) * 110}
		if id == "r1-2" {
			r.Summary.Metrics["qphh"] = 1e6
		}
		runs[r.RunID] = &r
	}
	for i := range swb.Plan {
		swb.Plan[i].RunID += "-b"
	}
	for i := range swb.RunIDs {
		swb.RunIDs[i] += "-b"
	}
	c := CompareSweeps(swa, swb, runs)
	if len(c.Figures) != 2 {
		t.Fatalf("sweep figures %+v", c.Figures)
	}
	for _, f := range c.Figures {
		want := float64(f.Clients) * 110
		if f.Name != "qphh" || f.RunsA != 3 || f.RunsB != 3 || *f.A != float64(f.Clients)*100 || *f.B != want {
			t.Errorf("point of %d clients: %+v (B %v), want B the median %v", f.Clients, f, *f.B, want)
		}
	}
}
