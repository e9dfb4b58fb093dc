package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

func normalSample(rng *rand.Rand, n int, mean, sd float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mean + sd*rng.NormFloat64()
	}
	return xs
}

// ar1Series returns n values of mean + sd*e_t with e_t = phi*e_{t-1} + z_t,
// a simple model of autocorrelated per-interval throughput.
func ar1Series(rng *rand.Rand, n int, mean, sd, phi float64) []float64 {
	xs := make([]float64, n)
	e := rng.NormFloat64() / math.Sqrt(1-phi*phi) // start in the stationary distribution
	for i := range xs {
		xs[i] = mean + sd*e
		e = phi*e + rng.NormFloat64()
	}
	return xs
}

func TestBootstrapMedianCIEdgeCases(t *testing.T) {
	tests := []struct {
		name            string
		xs              []float64
		med, low, high  float64
		wantNaNInterval bool
	}{
		{name: "no samples give NaN everywhere", xs: nil, med: math.NaN(), low: math.NaN(), high: math.NaN()},
		{name: "one sample gives a zero-width interval at that sample", xs: []float64{17}, med: 17, low: 17, high: 17},
		{name: "constant samples give a zero-width interval", xs: []float64{3, 3, 3, 3}, med: 3, low: 3, high: 3},
		{name: "a NaN sample gives NaN everywhere", xs: []float64{1, math.NaN(), 2}, med: math.NaN(), low: math.NaN(), high: math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, block := range []bool{false, true} {
				var m, lo, hi float64
				if block {
					m, lo, hi = BlockBootstrapMedianCI(tt.xs, 0, 0.95, 200, newRand(1))
				} else {
					m, lo, hi = BootstrapMedianCI(tt.xs, 0.95, 200, newRand(1))
				}
				if !sameFloat(m, tt.med, 0) || !sameFloat(lo, tt.low, 0) || !sameFloat(hi, tt.high, 0) {
					t.Errorf("block=%v: got (%v, %v, %v), want (%v, %v, %v)", block, m, lo, hi, tt.med, tt.low, tt.high)
				}
			}
		})
	}
}

func TestBootstrapIntervalBracketsTheEstimate(t *testing.T) {
	xs := normalSample(newRand(2), 50, 100, 10)
	mean := func(s []float64) float64 {
		sum := 0.0
		for _, x := range s {
			sum += x
		}
		return sum / float64(len(s))
	}
	for _, tc := range []struct {
		name string
		run  func() (float64, float64, float64)
	}{
		{"the iid median interval contains the sample median", func() (float64, float64, float64) { return BootstrapMedianCI(xs, 0.95, 2000, newRand(3)) }},
		{"the iid mean interval contains the sample mean", func() (float64, float64, float64) { return Bootstrap(xs, mean, 0.95, 2000, newRand(3)) }},
		{"the block median interval contains the sample median", func() (float64, float64, float64) { return BlockBootstrapMedianCI(xs, 0, 0.95, 2000, newRand(3)) }},
		{"the block mean interval contains the sample mean", func() (float64, float64, float64) { return BlockBootstrap(xs, 5, mean, 0.95, 2000, newRand(3)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			est, lo, hi := tc.run()
			if !(lo < est && est < hi) {
				t.Errorf("interval [%v, %v] does not strictly contain the estimate %v", lo, hi, est)
			}
			// For n=50 and sd=10 the standard error of the centre is about
			// 1.4 to 1.8, so a 95% interval is a few units wide.
			if w := hi - lo; w < 2 || w > 15 {
				t.Errorf("interval width %v is implausible for n=50, sd=10", w)
			}
		})
	}
}

func TestBootstrapIsReproducible(t *testing.T) {
	xs := normalSample(newRand(4), 40, 50, 5)
	t.Run("the same seed gives the same interval", func(t *testing.T) {
		_, lo1, hi1 := BootstrapMedianCI(xs, 0.9, 500, newRand(9))
		_, lo2, hi2 := BootstrapMedianCI(xs, 0.9, 500, newRand(9))
		if lo1 != lo2 || hi1 != hi2 {
			t.Errorf("got [%v, %v] then [%v, %v]", lo1, hi1, lo2, hi2)
		}
	})
	t.Run("a nil generator is replaced by a fixed seed", func(t *testing.T) {
		_, lo1, hi1 := BootstrapMedianCI(xs, 0.9, 500, nil)
		_, lo2, hi2 := BootstrapMedianCI(xs, 0.9, 500, nil)
		if lo1 != lo2 || hi1 != hi2 {
			t.Errorf("got [%v, %v] then [%v, %v]", lo1, hi1, lo2, hi2)
		}
	})
	t.Run("the input is not reordered", func(t *testing.T) {
		orig := append([]float64(nil), xs...)
		BootstrapMedianCI(xs, 0.9, 50, nil)
		BlockBootstrapMedianCI(xs, 0, 0.9, 50, nil)
		for i := range xs {
			if xs[i] != orig[i] {
				t.Fatalf("sample %d changed from %v to %v", i, orig[i], xs[i])
			}
		}
	})
}

// TestBootstrapMedianCICoverage checks that the percentile bootstrap interval
// of the median of normal(100, 10) samples (true median 100) covers the truth
// about as often as its level promises. The lower level doubles as a check
// that the test can fail: a 50% interval must not pass the 95% band.
func TestBootstrapMedianCICoverage(t *testing.T) {
	const trials, n, iters = 400, 30, 1000
	tests := []struct {
		name     string
		level    float64
		min, max float64
	}{
		{"a 95% interval covers the true median in roughly 95% of trials", 0.95, 0.90, 0.99},
		{"a 50% interval covers the true median in roughly half of trials", 0.50, 0.40, 0.65},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := newRand(42)
			covered := 0
			for range trials {
				xs := normalSample(rng, n, 100, 10)
				_, lo, hi := BootstrapMedianCI(xs, tt.level, iters, rng)
				if lo <= 100 && 100 <= hi {
					covered++
				}
			}
			rate := float64(covered) / trials
			t.Logf("coverage %.3f at level %.2f", rate, tt.level)
			if rate < tt.min || rate > tt.max {
				t.Errorf("coverage %.3f outside [%.2f, %.2f]", rate, tt.min, tt.max)
			}
		})
	}
}

// TestBlockBootstrapOnAutocorrelatedSeries shows why interval data needs the
// block bootstrap: on a strongly autocorrelated series the iid bootstrap
// interval is far too narrow, while moving blocks of about sqrt(n) values
// keep most of the dependence and restore coverage.
func TestBlockBootstrapOnAutocorrelatedSeries(t *testing.T) {
	const trials, n, iters, phi = 150, 300, 400, 0.8
	rng := newRand(43)
	iidCovered, blockCovered := 0, 0
	for range trials {
		xs := ar1Series(rng, n, 1000, 10, phi)
		if _, lo, hi := BootstrapMedianCI(xs, 0.95, iters, rng); lo <= 1000 && 1000 <= hi {
			iidCovered++
		}
		if _, lo, hi := BlockBootstrapMedianCI(xs, 0, 0.95, iters, rng); lo <= 1000 && 1000 <= hi {
			blockCovered++
		}
	}
	iidRate := float64(iidCovered) / trials
	blockRate := float64(blockCovered) / trials
	t.Logf("coverage of 95%% intervals, AR(1) phi=%.1f n=%d: iid %.3f, block %.3f", phi, n, iidRate, blockRate)
	t.Run("the iid bootstrap under-covers an autocorrelated series", func(t *testing.T) {
		if iidRate > 0.8 {
			t.Errorf("iid coverage %.3f, expected well below 0.95", iidRate)
		}
	})
	t.Run("the block bootstrap covers an autocorrelated series nearly as promised", func(t *testing.T) {
		if blockRate < 0.82 || blockRate > 0.99 {
			t.Errorf("block coverage %.3f outside [0.82, 0.99]", blockRate)
		}
		if blockRate < iidRate+0.15 {
			t.Errorf("block coverage %.3f is not clearly better than iid %.3f", blockRate, iidRate)
		}
	})
}

func TestBlockResamplerCopiesContiguousBlocks(t *testing.T) {
	src := make([]float64, 100)
	for i := range src {
		src[i] = float64(i)
	}
	tests := []struct {
		name     string
		blockLen int
		wantLen  int
	}{
		{"an automatic block is sqrt(n) long", 0, 10},
		{"an explicit block length is honoured", 7, 7},
		{"a block longer than the series is clamped to the series", 1000, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]float64, len(src))
			blockResampler(tt.blockLen)(dst, src, newRand(5))
			// Consecutive values inside one block differ by exactly 1; a
			// jump marks a block boundary, which must fall on a multiple of
			// the block length.
			for i := 1; i < len(dst); i++ {
				if dst[i] != dst[i-1]+1 && i%tt.wantLen != 0 {
					t.Fatalf("jump from %v to %v at position %d, inside a block of length %d", dst[i-1], dst[i], i, tt.wantLen)
				}
			}
		})
	}
}

func TestDefaultBlockLen(t *testing.T) {
	for _, tt := range []struct {
		n, want int
	}{{0, 1}, {1, 1}, {2, 2}, {30, 6}, {100, 10}, {3600, 60}} {
		if got := DefaultBlockLen(tt.n); got != tt.want {
			t.Errorf("DefaultBlockLen(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

func TestConfidenceLevelValidation(t *testing.T) {
	for _, level := range []float64{-0.5, 1, 1.5, math.NaN()} {
		if err := ValidateLevel(level); err == nil || !strings.Contains(err.Error(), "between 0 and 1") {
			t.Errorf("ValidateLevel(%v) = %v, want an error saying between 0 and 1", level, err)
		}
	}
	if err := ValidateLevel(0.95); err != nil {
		t.Errorf("ValidateLevel(0.95) = %v", err)
	}
	t.Run("a level outside (0, 1) is a programmer error and panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("BootstrapMedianCI with level 95 did not panic")
			}
		}()
		BootstrapMedianCI([]float64{1, 2, 3}, 95, 10, nil)
	})
	t.Run("a zero level selects the default level", func(t *testing.T) {
		xs := normalSample(newRand(6), 30, 0, 1)
		_, lo0, hi0 := BootstrapMedianCI(xs, 0, 300, newRand(7))
		_, lo, hi := BootstrapMedianCI(xs, DefaultLevel, 300, newRand(7))
		if lo0 != lo || hi0 != hi {
			t.Errorf("level 0 gave [%v, %v], default level gave [%v, %v]", lo0, hi0, lo, hi)
		}
	})
}
