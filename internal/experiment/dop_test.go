package experiment

import (
	"math/rand/v2"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// TestDOPAndPlanWorkers: compare lists a difference of --dop; a sweep
// point's workers are the medians over the runs that measured them.
func TestDOPAndPlanWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := fakeRun("a", 4, 1000, 0.05, 30, 1, 3, rng)
	b := *a
	b.RunID, b.Config.DOP = "b", 4
	found := false
	for _, d := range CompareRuns(a, &b).ConfigDifferences {
		if d.Key == "config.dop" {
			found = d.A == "(unset)" && d.B == "4"
		}
	}
	if !found {
		t.Errorf("config.dop is not a difference: %+v", CompareRuns(a, &b).ConfigDifferences)
	}
	withWorkers := func(ws ...*results.Workers) *results.Run {
		r := &results.Run{}
		for _, w := range ws {
			r.Plans = append(r.Plans, results.StatementPlans{Workers: w})
		}
		return r
	}
	runs := []*results.Run{
		withWorkers(&results.Workers{Planned: 2, Launched: 2}, &results.Workers{Planned: 1, Launched: 0}),
		withWorkers(&results.Workers{Planned: 2, Launched: 1}, &results.Workers{NotMeasured: "the statement writes"}),
		withWorkers(&results.Workers{Planned: 4, Launched: 4}),
		withWorkers(),
	}
	w := workerMedians(runs)
	if w == nil || w.Planned != 3 || w.Launched != 2 || w.Runs != 3 {
		t.Errorf("workers %+v; want 3 planned, 2 launched over 3 runs", w)
	}
	if workerMedians(runs[3:]) != nil {
		t.Error("workers of runs that measured none")
	}
}
