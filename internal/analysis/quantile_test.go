package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantile(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		q    float64
		want float64
	}{
		{"the median of an odd-sized sample is its middle value", []float64{5, 1, 3}, 0.5, 3},
		{"the median of an even-sized sample is the mean of the middle pair", []float64{4, 1, 3, 2}, 0.5, 2.5},
		{"quantile 0 is the minimum", []float64{7, -2, 9}, 0, -2},
		{"quantile 1 is the maximum", []float64{7, -2, 9}, 1, 9},
		{"quantiles interpolate linearly between order statistics", []float64{10, 20, 30, 40, 50}, 0.9, 46},
		{"a single value is every quantile", []float64{42}, 0.99, 42},
		{"an empty sample has no quantile", nil, 0.5, math.NaN()},
		{"a sample containing NaN has no quantile", []float64{1, math.NaN(), 3}, 0.5, math.NaN()},
		{"a quantile below 0 is rejected", []float64{1, 2}, -0.1, math.NaN()},
		{"a quantile above 1 is rejected", []float64{1, 2}, 1.1, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Quantile(tt.xs, tt.q)
			if !sameFloat(got, tt.want, 1e-12) {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
			}
		})
	}
}

func TestMedianDoesNotModifyItsInput(t *testing.T) {
	xs := []float64{9, 3, 7, 1, 5}
	orig := slices.Clone(xs)
	if got := Median(xs); got != 5 {
		t.Fatalf("Median = %v, want 5", got)
	}
	if !slices.Equal(xs, orig) {
		t.Errorf("Median reordered its input: %v, was %v", xs, orig)
	}
}

func TestMedianInPlaceAgreesWithSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name   string
		levels int // distinct values drawn from; small means many ties
	}{
		{"selection finds the median of continuous data", 0},
		{"selection finds the median of data with many ties", 3},
		{"selection finds the median of constant data", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for trial := range 300 {
				n := 1 + rng.IntN(200)
				xs := make([]float64, n)
				for i := range xs {
					if tc.levels > 0 {
						xs[i] = float64(rng.IntN(tc.levels))
					} else {
						xs[i] = rng.NormFloat64()
					}
				}
				want := Median(xs)
				got := medianInPlace(slices.Clone(xs))
				if got != want {
					t.Fatalf("trial %d (n=%d): medianInPlace = %v, sorted median = %v", trial, n, got, want)
				}
			}
		})
	}
}

// sameFloat reports whether got and want agree within a relative tolerance,
// treating two NaNs as equal.
func sameFloat(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}
