package datagen

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

const fitDraws = 1_000_000

func TestUniformFitsItsDistribution(t *testing.T) {
	for _, c := range []struct{ lo, hi int64 }{{1, 100}, {-5, 5}, {7, 7}, {0, 9999}} {
		t.Run(fmt.Sprintf("uniform over [%d, %d] gives every value the same share", c.lo, c.hi), func(t *testing.T) {
			d := Must(NewUniform(c.lo, c.hi))
			counts := countDraws(t, d, fitDraws)
			if len(counts) == 1 {
				return // a single value: the range check is the test
			}
			probs := make([]float64, len(counts))
			for i := range probs {
				probs[i] = 1 / float64(len(probs))
			}
			checkFit(t, counts, probs)
		})
	}
	t.Run("uniform over the whole int64 range sets the top bit half of the time", func(t *testing.T) {
		d := Must(NewUniform(math.MinInt64, math.MaxInt64))
		r := newRand(1)
		neg := 0
		const n = 100_000
		for range n {
			if d.Int64(r) < 0 {
				neg++
			}
		}
		if math.Abs(float64(neg)/n-0.5) > 0.01 {
			t.Errorf("%d of %d draws negative, want about half", neg, n)
		}
	})
}

func TestZipfFitsItsDistribution(t *testing.T) {
	for _, c := range []struct {
		n int
		s float64
	}{{1000, 0.8}, {1000, 1.2}, {1000, 1.0}, {10, 0.5}, {50, 2.5}, {2, 0.1}} {
		t.Run(fmt.Sprintf("zipf over %d values with s=%v matches 1/k^s", c.n, c.s), func(t *testing.T) {
			d := Must(NewZipf(1, int64(c.n), c.s))
			checkFit(t, countDraws(t, d, fitDraws), zipfProbs(c.n, c.s))
		})
	}
	t.Run("zipf with s=1.2 is told apart from s=1.1 by the fit test", func(t *testing.T) {
		d := Must(NewZipf(1, 1000, 1.2))
		if fits(countDraws(t, d, fitDraws), zipfProbs(1000, 1.1)) {
			t.Error("the chi-square test accepted the wrong exponent; it has no power")
		}
	})
	for _, s := range []float64{0.8, 1.2} {
		t.Run(fmt.Sprintf("zipf over ten million values with s=%v matches 1/k^s in log-spaced bins", s), func(t *testing.T) {
			const n = 10_000_000
			// Bins: ranks 1..100 one by one, then bins growing by 25%.
			edges := []int64{}
			for k := int64(1); k <= 100; k++ {
				edges = append(edges, k)
			}
			for e := 125.0; e < n; e *= 1.25 {
				edges = append(edges, int64(e))
			}
			bin := func(k int64) int {
				i, found := slices.BinarySearch(edges, k)
				if !found {
					i--
				}
				return i
			}
			// Exact sums for small ranks; beyond, the midpoint rule
			// sum_{k=a}^{b-1} k^-s ~ integral from a-1/2 to b-1/2, whose
			// relative error is below 1e-7 there.
			antiderivative := func(x float64) float64 {
				if s == 1 {
					return math.Log(x)
				}
				return math.Pow(x, 1-s) / (1 - s)
			}
			probs := make([]float64, len(edges))
			sum := 0.0
			for i, a := range edges {
				b := int64(n + 1)
				if i+1 < len(edges) {
					b = edges[i+1]
				}
				if a >= 10_000 {
					probs[i] = antiderivative(float64(b)-0.5) - antiderivative(float64(a)-0.5)
				} else {
					for k := a; k < b; k++ {
						probs[i] += math.Pow(float64(k), -s)
					}
				}
				sum += probs[i]
			}
			for i := range probs {
				probs[i] /= sum
			}
			d := Must(NewZipf(1, n, s))
			r := newRand(2)
			counts := make([]int64, len(edges))
			for range fitDraws {
				k := d.Int64(r)
				if k < 1 || k > n {
					t.Fatalf("drew %d, outside [1, %d]", k, n)
				}
				counts[bin(k)]++
			}
			checkFit(t, counts, probs)
		})
	}
	t.Run("zipf over [lo, hi] makes lo the most frequent value", func(t *testing.T) {
		d := Must(NewZipf(-10, 9, 1.1))
		counts := countDraws(t, d, 100_000)
		if slices.Index(counts, slices.Max(counts)) != 0 {
			t.Errorf("counts %v: lo is not the most frequent", counts)
		}
	})
}

func TestGaussianFitsItsDistribution(t *testing.T) {
	for _, c := range []struct {
		name     string
		lo, hi   int64
		mean, sd float64
	}{
		{"a bell inside the range", 1, 100, 40, 15},
		{"a wide bell that is almost uniform", 1, 50, 25, 200},
		{"a mean below the range (mirrored tail)", 0, 50, -10, 20},
		{"a mean far above the range (deep tail)", 0, 20, 100, 10},
		{"a narrow bell", -3, 3, 0, 0.7},
	} {
		t.Run(fmt.Sprintf("gaussian with %s matches the truncated normal", c.name), func(t *testing.T) {
			d := Must(NewGaussian(c.lo, c.hi, c.mean, c.sd))
			checkFit(t, countDraws(t, d, fitDraws), gaussianProbs(c.lo, c.hi, c.mean, c.sd))
		})
	}
	t.Run("pgbench-style gaussian:2.5 over 1..100 matches random_gaussian's bell", func(t *testing.T) {
		d := Must(NewGaussianParam(1, 100, 2.5))
		// pgbench: value = lo + floor(n * (z + p) / 2p), z standard normal in [-p, p).
		probs := make([]float64, 100)
		for k := range probs {
			a, b := -2.5+5*float64(k)/100, -2.5+5*float64(k+1)/100
			probs[k] = normMass(a, b, 0, 1) / normMass(-2.5, 2.5, 0, 1)
		}
		checkFit(t, countDraws(t, d, fitDraws), probs)
	})
}

func TestExponentialFitsItsDistribution(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		param  float64
	}{{1, 100, 5}, {0, 999, 0.5}, {10, 19, 20}} {
		t.Run(fmt.Sprintf("exponential over [%d, %d] with parameter %v matches pgbench's definition", c.lo, c.hi, c.param), func(t *testing.T) {
			d := Must(NewExponential(c.lo, c.hi, c.param))
			n := float64(c.hi - c.lo + 1)
			probs := make([]float64, c.hi-c.lo+1)
			for k := range probs {
				probs[k] = (math.Exp(-c.param*float64(k)/n) - math.Exp(-c.param*float64(k+1)/n)) / (1 - math.Exp(-c.param))
			}
			checkFit(t, countDraws(t, d, fitDraws), probs)
		})
	}
}

func TestHotSpotGivesTheHotValuesTheirShare(t *testing.T) {
	for _, c := range []struct {
		lo, hi          int64
		fraction, share float64
		hot             int64
	}{{1, 1000, 0.2, 0.8, 200}, {0, 99, 0.01, 0.5, 1}, {1, 10, 0.001, 0.3, 1}, {1, 50, 1, 0.9, 50}, {1, 1000, 0.1, 0, 100}} {
		t.Run(fmt.Sprintf("%v of [%d, %d] receive %v of the draws", c.fraction, c.lo, c.hi, c.share), func(t *testing.T) {
			d := Must(NewHotSpot(c.lo, c.hi, c.fraction, c.share))
			if d.HotValues() != c.hot {
				t.Fatalf("%d hot values, want %d", d.HotValues(), c.hot)
			}
			counts := countDraws(t, d, fitDraws)
			var hot int64
			for _, n := range counts[:c.hot] {
				hot += n
			}
			n := int64(len(counts))
			want := c.share
			if c.hot == n {
				want = 1
			}
			if got := float64(hot) / fitDraws; math.Abs(got-want) > 0.01 {
				t.Errorf("hot values got %.4f of the draws, want %.4f within 0.01", got, want)
			}
			probs := make([]float64, n)
			for i := range probs {
				if int64(i) < c.hot {
					probs[i] = want / float64(c.hot)
				} else {
					probs[i] = (1 - want) / float64(n-c.hot)
				}
			}
			checkFit(t, counts, probs)
		})
	}
}

func TestWeightedFitsItsWeights(t *testing.T) {
	for _, w := range [][]float64{{1, 2, 3, 0, 4}, {0.1, 1000}, {5}, {0, 0, 1}, {45, 43, 4, 4, 4}, {1, 1, 1, 1, 1, 1, 1}} {
		t.Run(fmt.Sprintf("weights %v give proportional shares and never a zero weight", w), func(t *testing.T) {
			d := Must(NewWeighted(w))
			counts := countDraws(t, d, fitDraws)
			sum := 0.0
			for _, x := range w {
				sum += x
			}
			probs := make([]float64, len(w))
			positive := 0
			for i, x := range w {
				probs[i] = x / sum
				if x == 0 && counts[i] != 0 {
					t.Errorf("index %d has weight 0 but was drawn %d times", i, counts[i])
				}
				if x > 0 {
					positive++
				}
			}
			if positive > 1 {
				checkFit(t, counts, probs)
			}
		})
	}
}

func TestNURandMatchesTheTPCCDefinition(t *testing.T) {
	for _, c := range []struct{ a, x, y, c int64 }{{255, 0, 999, 123}, {1023, 1, 3000, 259}, {7, 1, 10, 3}} {
		t.Run(fmt.Sprintf("NURand(%d, %d, %d) with C=%d matches the enumerated distribution", c.a, c.x, c.y, c.c), func(t *testing.T) {
			d := Must(NewNURand(c.a, c.x, c.y, c.c))
			n := c.y - c.x + 1
			probs := make([]float64, n)
			unit := 1 / float64((c.a+1)*n)
			for a := int64(0); a <= c.a; a++ {
				for b := c.x; b <= c.y; b++ {
					probs[((a|b)+c.c)%n]++
				}
			}
			for i := range probs {
				probs[i] *= unit
			}
			checkFit(t, countDraws(t, d, fitDraws), probs)
		})
	}
}

func TestSequence(t *testing.T) {
	t.Run("a sequence counts from its start by its step and restarts on Reset", func(t *testing.T) {
		s := NewSequence(10, 5)
		for i, want := range []int64{10, 15, 20, 25} {
			if got := s.Int64(nil); got != want {
				t.Fatalf("value %d is %d, want %d", i, got, want)
			}
		}
		s.Reset(-1)
		if got := s.Next(); got != -1 {
			t.Errorf("after Reset(-1) got %d", got)
		}
		if s.Min() != -1 || s.Max() != math.MaxInt64 {
			t.Errorf("bounds [%d, %d]", s.Min(), s.Max())
		}
	})
	t.Run("independent sequences of two streams do not interfere", func(t *testing.T) {
		a, b := NewSequence(1, 1), NewSequence(1001, 1)
		for i := range int64(100) {
			if x, y := a.Next(), b.Next(); x != 1+i || y != 1001+i {
				t.Fatalf("step %d: got %d and %d", i, x, y)
			}
		}
	})
}

func TestConstructorsRejectInvalidParameters(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"uniform with hi below lo", func() error { _, err := NewUniform(2, 1); return err }},
		{"zipf with a zero exponent", func() error { _, err := NewZipf(1, 10, 0); return err }},
		{"zipf with a NaN exponent", func() error { _, err := NewZipf(1, 10, nan); return err }},
		{"zipf over more than 2^53 values", func() error { _, err := NewZipf(0, 1<<60, 1.1); return err }},
		{"gaussian with a zero deviation", func() error { _, err := NewGaussian(1, 10, 5, 0); return err }},
		{"gaussian with an infinite mean", func() error { _, err := NewGaussian(1, 10, math.Inf(1), 1); return err }},
		{"gaussian with a range beyond any representable mass", func() error { _, err := NewGaussian(1000, 1001, 0, 1); return err }},
		{"pgbench gaussian with a parameter below 2", func() error { _, err := NewGaussianParam(1, 10, 1.5); return err }},
		{"exponential with a negative parameter", func() error { _, err := NewExponential(1, 10, -1); return err }},
		{"hot spot with no hot values", func() error { _, err := NewHotSpot(1, 10, 0, 0.5); return err }},
		{"hot spot with a share above 1", func() error { _, err := NewHotSpot(1, 10, 0.1, 1.5); return err }},
		{"weighted with no weights", func() error { _, err := NewWeighted(nil); return err }},
		{"weighted with a negative weight", func() error { _, err := NewWeighted([]float64{1, -1}); return err }},
		{"weighted with only zero weights", func() error { _, err := NewWeighted([]float64{0, 0}); return err }},
		{"NURand with a negative A", func() error { _, err := NewNURand(-1, 1, 10, 0); return err }},
		{"distinct of zero values", func() error { _, err := NewDistinct(0, nil, 1); return err }},
		{"distinct whose shape has the wrong number of values", func() error {
			_, err := NewDistinct(100, Must(NewZipf(1, 99, 1.1)), 1)
			return err
		}},
		{"a string length that can be negative", func() error { _, err := NewStringGen(Must(NewUniform(-1, 5))); return err }},
		{"uniform float with an infinite bound", func() error { _, err := NewUniformFloat(0, math.Inf(1)); return err }},
		{"gaussian float with a negative deviation", func() error {
			_, err := NewGaussianFloat(0, -1, math.Inf(-1), math.Inf(1))
			return err
		}},
		{"partitioned keys for a negative client", func() error { _, err := NewPartitioned(-1); return err }},
		{"partitioned keys for a client beyond int64", func() error { _, err := NewPartitioned(MaxPartitionClient + 1); return err }},
	} {
		t.Run(c.name+" is an error", func(t *testing.T) {
			if err := c.err(); err == nil {
				t.Error("no error")
			}
		})
	}
}
