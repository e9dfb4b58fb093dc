package svg

import (
	"math"
	"slices"
	"testing"
)

func TestLinearTicks(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
		n      int
		want   []float64
	}{
		{"a unit range splits into fifths", 0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{"a range is widened to whole steps on both sides", 3, 97, 5, []float64{0, 20, 40, 60, 80, 100}},
		{"steps of five are chosen when two would be too many", 0, 23, 5, []float64{0, 5, 10, 15, 20, 25}},
		{"steps of one times a power of ten are chosen when they fit", 0, 4200, 5, []float64{0, 1000, 2000, 3000, 4000, 5000}},
		{"steps of two are chosen when nearest", 0, 4200, 2, []float64{0, 2000, 4000, 6000}},
		{"a step is rounded to the nearest nice value", 0, 4200, 4, []float64{0, 1000, 2000, 3000, 4000, 5000}},
		{"negative ranges work", -7, 3, 5, []float64{-8, -6, -4, -2, 0, 2, 4}},
		{"small decimals come out exact", 0.1, 0.3, 2, []float64{0.1, 0.2, 0.3}},
		{"tenths are not 3 times 0.1", 0, 0.3, 3, []float64{0, 0.1, 0.2, 0.3}},
		{"a single value is widened around itself", 5, 5, 4, []float64{4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6}},
		{"a single zero becomes zero to one", 0, 0, 2, []float64{0, 0.5, 1}},
		{"reversed bounds are swapped", 10, 0, 2, []float64{0, 5, 10}},
		{"large numbers keep their magnitude", 0, 2.5e6, 5, []float64{0, 5e5, 1e6, 1.5e6, 2e6, 2.5e6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LinearTicks(tc.lo, tc.hi, tc.n)
			if !slices.Equal(got, tc.want) {
				t.Errorf("LinearTicks(%v, %v, %d) = %v, want %v", tc.lo, tc.hi, tc.n, got, tc.want)
			}
		})
	}
	t.Run("non-finite bounds give no ticks", func(t *testing.T) {
		if got := LinearTicks(math.NaN(), 1, 5); got != nil {
			t.Errorf("got %v, want nil", got)
		}
		if got := LinearTicks(0, math.Inf(1), 5); got != nil {
			t.Errorf("got %v, want nil", got)
		}
	})
}

func TestNiceStep(t *testing.T) {
	tests := []struct {
		name string
		span float64
		n    int
		want float64
	}{
		{"a step of exactly one stays one", 10, 10, 1},
		{"a step of 1.4 rounds down to one", 14, 10, 1},
		{"a step of 1.5 rounds up to two", 15, 10, 2},
		{"a step of 3.1 rounds down to two", 31, 10, 2},
		{"a step of 3.2 rounds up to five", 32, 10, 5},
		{"a step of 7 rounds down to five", 70, 10, 5},
		{"a step of 7.1 rounds up to ten", 71, 10, 10},
		{"a decimal step keeps its decimal", 0.3, 3, 0.1},
		{"zero intervals count as one", 7, 0, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NiceStep(tc.span, tc.n); got != tc.want {
				t.Errorf("NiceStep(%v, %d) = %v, want %v", tc.span, tc.n, got, tc.want)
			}
		})
	}
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
		n      int
		want   []float64
	}{
		{"several decades get one tick per decade", 0.5, 3000, 8, []float64{0.1, 1, 10, 100, 1000, 10000}},
		{"exact powers of ten are not widened", 1, 1000, 8, []float64{1, 10, 100, 1000}},
		{"a narrow range gets 1-2-5 ticks", 20, 80, 8, []float64{20, 50, 100}},
		{"two decades get 1-2-5 ticks", 1, 64, 8, []float64{1, 2, 5, 10, 20, 50, 100}},
		{"too many decades are thinned to every k-th", 1e-3, 1e9, 4, []float64{1e-3, 1, 1e3, 1e6, 1e9}},
		{"thinned decades still cover the range", 2e-4, 5e8, 4, []float64{1e-4, 1, 1e4, 1e8, 1e12}},
		{"a single value gets its decade", 7, 7, 8, []float64{5, 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LogTicks(tc.lo, tc.hi, tc.n)
			if !slices.Equal(got, tc.want) {
				t.Errorf("LogTicks(%v, %v, %d) = %v, want %v", tc.lo, tc.hi, tc.n, got, tc.want)
			}
		})
	}
	t.Run("a range reaching zero or below gives no ticks", func(t *testing.T) {
		if got := LogTicks(0, 10, 5); got != nil {
			t.Errorf("got %v, want nil", got)
		}
	})
}

func TestDurationTicks(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
		n      int
		want   []float64
	}{
		{"a minute gets ten-second ticks", 0, 60, 6, []float64{0, 10, 20, 30, 40, 50, 60}},
		{"an hour gets ten-minute ticks", 0, 3600, 6, []float64{0, 600, 1200, 1800, 2400, 3000, 3600}},
		{"fifteen seconds is a clock-friendly step", 0, 90, 7, []float64{0, 15, 30, 45, 60, 75, 90}},
		{"an uneven end is rounded up to a whole step", 0, 3599, 4, []float64{0, 900, 1800, 2700, 3600}},
		{"two days get twelve-hour ticks", 0, 172800, 4, []float64{0, 43200, 86400, 129600, 172800}},
		{"sub-second spans fall back to linear ticks", 0, 2, 4, []float64{0, 0.5, 1, 1.5, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DurationTicks(tc.lo, tc.hi, tc.n)
			if !slices.Equal(got, tc.want) {
				t.Errorf("DurationTicks(%v, %v, %d) = %v, want %v", tc.lo, tc.hi, tc.n, got, tc.want)
			}
		})
	}
}

func TestTickLabels(t *testing.T) {
	t.Run("linear labels use as many decimals as the step needs", func(t *testing.T) {
		ticks, _, e := linearTicks(0, 1, 5)
		got := formatLinearTicks(ticks, e)
		want := []string{"0", "0.2", "0.4", "0.6", "0.8", "1.0"}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("large linear labels use a k suffix across the axis", func(t *testing.T) {
		ticks, _, e := linearTicks(0, 25000, 5)
		got := formatLinearTicks(ticks, e)
		want := []string{"0", "5k", "10k", "15k", "20k", "25k"}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("millions keep the decimal their step needs", func(t *testing.T) {
		ticks, _, e := linearTicks(0, 2.5e6, 5)
		got := formatLinearTicks(ticks, e)
		want := []string{"0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"log labels of small values are plain decimals", formatLog(0.001), "0.001"},
		{"log labels of thousands use k", formatLog(2000), "2k"},
		{"log labels of millions use M", formatLog(1e6), "1M"},
		{"durations under an hour read m:ss", FormatDuration(605, false), "10:05"},
		{"durations read h:mm:ss when asked", FormatDuration(3725, true), "1:02:05"},
		{"negative durations keep their sign", FormatDuration(-30, false), "-0:30"},
		{"the 90th percentile sits at 10", PercentileLabel(10), "90%"},
		{"the 99.9th percentile sits at 1000", PercentileLabel(1000), "99.9%"},
		{"the 99.999th percentile sits at 100000", PercentileLabel(1e5), "99.999%"},
		{"the median sits at 2", PercentileLabel(2), "50%"},
		{"the minimum sits at 1", PercentileLabel(1), "0%"},
		{"a percentile survives the round trip", PercentileLabel(PercentileX(99.99)), "99.99%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestLinearTicksOfAbsurdRanges(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float64
	}{
		{"a range wider than float64 gives its bounds", -1e308, 1e308},
		{"a step lost in the magnitude gives the bounds", 1e300, 1e300 * (1 + 1e-15)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LinearTicks(tc.lo, tc.hi, 5)
			if len(got) != 2 || got[0] != tc.lo || got[1] != tc.hi {
				t.Errorf("got %v, want [%v %v]", got, tc.lo, tc.hi)
			}
		})
	}
}
