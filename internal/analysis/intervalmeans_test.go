package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func ar1(rng *rand.Rand, n int, mu, sd, phi float64) []float64 {
	out := make([]float64, n)
	e := 0.0
	for i := range out {
		e = phi*e + rng.NormFloat64()*sd
		out[i] = mu + e
	}
	return out
}

// TestCompareIntervalMeansKeepsItsFalsePositiveRate compares pairs of
// series with the same mean (a verdict other than "no significant
// difference" is a false positive) and pairs 5% apart (power).
func TestCompareIntervalMeansKeepsItsFalsePositiveRate(t *testing.T) {
	for _, tc := range []struct {
		name            string
		n               int
		phi             float64
		maxFP, minPower float64
	}{
		{"40 independent intervals", 40, 0, 0.09, 0.95},
		{"40 autocorrelated intervals", 40, 0.3, 0.10, 0.8},
		{"100 autocorrelated intervals", 100, 0.3, 0.08, 0.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const trials = 300
			rng := rand.New(rand.NewPCG(1, 2))
			fp, power := 0, 0
			for range trials {
				if c := CompareIntervalMeans(ar1(rng, tc.n, 1000, 50, tc.phi), ar1(rng, tc.n, 1000, 50, tc.phi), 0.95, 1000, rng); c.Verdict != NoSignificantDifference {
					fp++
				}
				if c := CompareIntervalMeans(ar1(rng, tc.n, 1000, 50, tc.phi), ar1(rng, tc.n, 1050, 50, tc.phi), 0.95, 1000, rng); c.Verdict == Faster {
					power++
				}
			}
			fpr, pw := float64(fp)/trials, float64(power)/trials
			t.Logf("false positives %.3f, power at +5%% %.3f", fpr, pw)
			if fpr > tc.maxFP || pw < tc.minPower {
				t.Errorf("false positives %.3f (max %.2f), power %.3f (min %.2f)", fpr, tc.maxFP, pw, tc.minPower)
			}
		})
	}
}

func TestCompareIntervalMeansEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := ar1(rng, 30, 1000, 50, 0)
	t.Run("a series against itself shows no significant difference", func(t *testing.T) {
		c := CompareIntervalMeans(a, a, 0.95, 1000, nil)
		if c.Verdict != NoSignificantDifference || c.DeltaPct != 0 || !(c.CILowPct < 0 && c.CIHighPct > 0) {
			t.Errorf("%+v", c)
		}
	})
	t.Run("a slower series is slower and the delta is of the means", func(t *testing.T) {
		b := make([]float64, len(a))
		for i, v := range a {
			b[i] = v * 0.8
		}
		c := CompareIntervalMeans(a, b, 0.95, 1000, nil)
		if c.Verdict != Slower || math.Abs(c.DeltaPct+20) > 1e-9 || !(c.CILowPct < -20 && c.CIHighPct > -20) {
			t.Errorf("%+v", c)
		}
	})
	t.Run("fewer than two blocks is insufficient data", func(t *testing.T) {
		if c := CompareIntervalMeans(a[:5], a, 0.95, 1000, nil); c.Verdict != InsufficientData {
			t.Errorf("%+v", c)
		}
	})
	t.Run("constant series differ exactly", func(t *testing.T) {
		x := []float64{10, 10, 10, 10, 10, 10, 10, 10}
		y := []float64{12, 12, 12, 12, 12, 12, 12, 12}
		if c := CompareIntervalMeans(x, y, 0.95, 100, nil); c.Verdict != Faster || c.DeltaPct != 20 {
			t.Errorf("%+v", c)
		}
		if c := CompareIntervalMeans(x, x, 0.95, 100, nil); c.Verdict != NoSignificantDifference {
			t.Errorf("%+v", c)
		}
	})
}

func TestBlockBootstrapMeanCI(t *testing.T) {
	t.Run("covers the true mean of AR(1) series at about the stated rate", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		covered := 0
		const trials = 300
		for range trials {
			_, lo, hi := BlockBootstrapMeanCI(ar1(rng, 30, 100, 10, 0.3), 0, 0.95, 1000, rng)
			if lo <= 100 && 100 <= hi {
				covered++
			}
		}
		rate := float64(covered) / trials
		t.Logf("coverage %.3f", rate)
		if rate < 0.88 || rate > 0.99 {
			t.Errorf("coverage %.3f outside [0.88, 0.99]", rate)
		}
	})
	t.Run("collapses with fewer than two blocks", func(t *testing.T) {
		m, lo, hi := BlockBootstrapMeanCI([]float64{1, 2, 3}, 0, 0.95, 100, nil)
		if m != 2 || lo != 2 || hi != 2 {
			t.Errorf("%v %v %v", m, lo, hi)
		}
	})
}

func TestCompareMeansTOnFewRepeats(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("%d repeats a side keep the false-positive rate near 5%%", n), func(t *testing.T) {
			const trials = 400
			rng := rand.New(rand.NewPCG(7, 8))
			fp := 0
			for range trials {
				if c := CompareMeansT(normalSample(rng, n, 1000, 50), normalSample(rng, n, 1000, 50), 0.95); c.Verdict != NoSignificantDifference {
					fp++
				}
			}
			if r := float64(fp) / trials; r > 0.09 {
				t.Errorf("false positives %.3f", r)
			}
		})
	}
	t.Run("a clear difference is found with 3 repeats", func(t *testing.T) {
		c := CompareMeansT([]float64{1000, 1010, 990}, []float64{1500, 1490, 1510}, 0.95)
		if c.Verdict != Faster || c.DeltaPct != 50 {
			t.Errorf("%+v", c)
		}
	})
	t.Run("one sample is insufficient", func(t *testing.T) {
		if c := CompareMeansT([]float64{1}, []float64{1, 2}, 0.95); c.Verdict != InsufficientData {
			t.Errorf("%+v", c)
		}
	})
}

func TestMeanTCI(t *testing.T) {
	m, lo, hi := MeanTCI([]float64{9, 10, 11}, 0.95)
	// s = 1, se = 1/sqrt(3), t(0.975, 2) = 4.3027.
	if m != 10 || math.Abs(hi-10-4.3027/math.Sqrt(3)) > 1e-3 || math.Abs(10-lo-(hi-10)) > 1e-9 {
		t.Errorf("%v [%v, %v]", m, lo, hi)
	}
}
