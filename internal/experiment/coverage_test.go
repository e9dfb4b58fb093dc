package experiment

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// TestSingleRunIntervalCoverage checks the interval of a point with one
// run (moving-block bootstrap of its per-interval tps) against a known
// answer: for runs whose intervals are AR(1) noise around a true rate of
// 1000 tps, the 95% interval of the run's tps covers 1000 in roughly 95% of
// runs (measured: 92% to 98%; the percentile interval used before covered
// 69% to 88%).
func TestSingleRunIntervalCoverage(t *testing.T) {
	for _, tc := range []struct {
		n   int
		phi float64
	}{{10, 0}, {10, 0.3}, {40, 0.3}, {100, 0.3}} {
		t.Run(fmt.Sprintf("%d intervals with autocorrelation %.1f", tc.n, tc.phi), func(t *testing.T) {
			const trials = 300
			rng := rand.New(rand.NewPCG(11, 12))
			covered := 0
			for i := range trials {
				r := &results.Run{RunID: "r", Status: results.StatusCompleted, Config: results.Config{IntervalSeconds: 1}}
				e, sum := 0.0, 0.0
				for j := range tc.n {
					e = tc.phi*e + rng.NormFloat64()*50
					v := 1000 + e
					sum += v
					r.Intervals = append(r.Intervals, results.Interval{Seq: j, Phase: "measure", Seconds: 1, TPS: v})
				}
				r.Summary.TPS = sum / float64(tc.n)
				est, lo, hi, method, _ := tpsCI([]*results.Run{r}, rand.New(rand.NewPCG(uint64(i), 1)))
				if method != "intervals" || est != r.Summary.TPS {
					t.Fatalf("method %s, estimate %v", method, est)
				}
				if lo <= 1000 && 1000 <= hi {
					covered++
				}
			}
			rate := float64(covered) / trials
			t.Logf("coverage %.3f", rate)
			if rate < 0.88 || rate > 0.99 {
				t.Errorf("coverage %.3f outside [0.88, 0.99]", rate)
			}
		})
	}
}
