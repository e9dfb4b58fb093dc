package analysis

import (
	"math"
	"testing"
)

func TestCompareSamplesVerdicts(t *testing.T) {
	rng := newRand(100)
	base := normalSample(rng, 30, 1000, 20)
	higher := normalSample(rng, 30, 1200, 20)
	lower := normalSample(rng, 30, 800, 20)
	sameDist := normalSample(rng, 30, 1000, 20)
	noisyA := normalSample(rng, 10, 1000, 100)
	noisyB := normalSample(rng, 10, 1010, 100)

	tests := []struct {
		name      string
		a, b      []float64
		compare   func(a, b []float64) Comparison
		want      Verdict
		wantDelta float64 // approximate; NaN to skip
	}{
		{"a throughput sample compared with itself shows no significant difference", base, base, throughput, NoSignificantDifference, 0},
		{"two throughput samples from the same distribution show no significant difference", base, sameDist, throughput, NoSignificantDifference, math.NaN()},
		{"a 1% change buried in 10% noise shows no significant difference", noisyA, noisyB, throughput, NoSignificantDifference, math.NaN()},
		{"20% more throughput is faster", base, higher, throughput, Faster, 20},
		{"20% less throughput is slower", base, lower, throughput, Slower, -20},
		{"a latency sample compared with itself shows no significant difference", base, base, latency, NoSignificantDifference, 0},
		{"20% lower latency is faster", base, lower, latency, Faster, -20},
		{"20% higher latency is slower", base, higher, latency, Slower, 20},
		{"an interval series compared with itself shows no significant difference", base, base, intervals, NoSignificantDifference, 0},
		{"an interval series with 20% more throughput is faster", base, higher, intervals, Faster, 20},
		{"constant samples 10% apart are faster with a zero-width interval", []float64{100, 100, 100}, []float64{110, 110, 110}, throughput, Faster, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.compare(tt.a, tt.b)
			t.Logf("%+v", c)
			if c.Verdict != tt.want {
				t.Errorf("Verdict = %q, want %q", c.Verdict, tt.want)
			}
			if !(c.CILowPct <= c.DeltaPct && c.DeltaPct <= c.CIHighPct) {
				t.Errorf("interval [%v, %v] does not contain the delta %v", c.CILowPct, c.CIHighPct, c.DeltaPct)
			}
			if !math.IsNaN(tt.wantDelta) && math.Abs(c.DeltaPct-tt.wantDelta) > 3 {
				t.Errorf("DeltaPct = %.2f, want about %.0f", c.DeltaPct, tt.wantDelta)
			}
			if want := (Median(tt.b) - Median(tt.a)) / Median(tt.a) * 100; !sameFloat(c.DeltaPct, want, 1e-12) {
				t.Errorf("DeltaPct = %v, want (median(b)-median(a))/median(a) = %v", c.DeltaPct, want)
			}
			if c.Level != 0.95 {
				t.Errorf("Level = %v, want 0.95", c.Level)
			}
		})
	}
}

func throughput(a, b []float64) Comparison { return CompareSamples(a, b, 0.95, 2000, newRand(7)) }
func latency(a, b []float64) Comparison    { return CompareLatency(a, b, 0.95, 2000, newRand(7)) }
func intervals(a, b []float64) Comparison  { return CompareIntervals(a, b, 0.95, 2000, newRand(7)) }

func TestCompareSamplesWithTooLittleData(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
	}{
		{"an empty baseline is insufficient", nil, []float64{1, 2, 3}},
		{"an empty candidate is insufficient", []float64{1, 2, 3}, nil},
		{"a single baseline sample is insufficient", []float64{100}, []float64{120, 121}},
		{"a single candidate sample is insufficient", []float64{100, 101}, []float64{120}},
		{"a zero baseline median is insufficient", []float64{0, 0, 1}, []float64{5, 6, 7}},
		{"a NaN sample is insufficient", []float64{1, math.NaN(), 3}, []float64{5, 6, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CompareSamples(tt.a, tt.b, 0.95, 100, newRand(1))
			if c.Verdict != InsufficientData {
				t.Errorf("Verdict = %q, want %q", c.Verdict, InsufficientData)
			}
			if !math.IsNaN(c.CILowPct) || !math.IsNaN(c.CIHighPct) {
				t.Errorf("interval = [%v, %v], want NaN", c.CILowPct, c.CIHighPct)
			}
		})
	}
}

// TestCompareIntervalsOnAutocorrelatedSeries compares pairs of runs drawn
// from the same autocorrelated process: the iid bootstrap often claims a
// difference that is only noise, while the block bootstrap used by
// CompareIntervals rarely does.
func TestCompareIntervalsOnAutocorrelatedSeries(t *testing.T) {
	const pairs, n, iters, phi = 100, 300, 400, 0.8
	rng := newRand(200)
	iidFalse, blockFalse := 0, 0
	for range pairs {
		a := ar1Series(rng, n, 1000, 10, phi)
		b := ar1Series(rng, n, 1000, 10, phi)
		if CompareSamples(a, b, 0.95, iters, rng).Verdict != NoSignificantDifference {
			iidFalse++
		}
		if CompareIntervals(a, b, 0.95, iters, rng).Verdict != NoSignificantDifference {
			blockFalse++
		}
	}
	iidRate := float64(iidFalse) / pairs
	blockRate := float64(blockFalse) / pairs
	t.Logf("false difference rate at 95%%, AR(1) phi=%.1f n=%d: iid %.2f, block %.2f", phi, n, iidRate, blockRate)
	t.Run("the iid bootstrap claims differences the noise explains", func(t *testing.T) {
		if iidRate < 0.2 {
			t.Errorf("iid false difference rate %.2f, expected well above 0.05", iidRate)
		}
	})
	t.Run("the block bootstrap keeps false differences near the nominal rate", func(t *testing.T) {
		if blockRate > 0.15 {
			t.Errorf("block false difference rate %.2f, want at most 0.15", blockRate)
		}
	})
}

func TestCompareOptions(t *testing.T) {
	a := ar1Series(newRand(300), 200, 1000, 10, 0.5)
	b := ar1Series(newRand(301), 200, 1000, 10, 0.5)
	t.Run("WithIIDBootstrap turns CompareIntervals into CompareSamples", func(t *testing.T) {
		got := CompareIntervals(a, b, 0.9, 300, newRand(1), WithIIDBootstrap())
		want := CompareSamples(a, b, 0.9, 300, newRand(1))
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("WithBlockBootstrap with the default length matches CompareIntervals", func(t *testing.T) {
		got := CompareSamples(a, b, 0.9, 300, newRand(1), WithBlockBootstrap(0))
		want := CompareIntervals(a, b, 0.9, 300, newRand(1))
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("LowerIsBetter only flips the verdict, not the numbers", func(t *testing.T) {
		up := CompareSamples([]float64{100, 101, 99}, []float64{150, 151, 149}, 0.9, 300, newRand(1))
		down := CompareSamples([]float64{100, 101, 99}, []float64{150, 151, 149}, 0.9, 300, newRand(1), LowerIsBetter())
		if up.Verdict != Faster || down.Verdict != Slower {
			t.Errorf("verdicts %q and %q, want %q and %q", up.Verdict, down.Verdict, Faster, Slower)
		}
		up.Verdict, down.Verdict = "", ""
		if up != down {
			t.Errorf("numbers differ: %+v vs %+v", up, down)
		}
	})
}
