package datagen

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestDistinct(t *testing.T) {
	shapes := []struct {
		name  string
		n     int64
		shape func(n int64) IntDist
	}{
		{"a uniform shape", 20_000, func(int64) IntDist { return nil }},
		{"a zipf shape with s=1.2", 1000, func(n int64) IntDist { return Must(NewZipf(1, n, 1.2)) }},
		{"a zipf shape with s=0.8", 5000, func(n int64) IntDist { return Must(NewZipf(1, n, 0.8)) }},
		{"a gaussian shape", 200, func(n int64) IntDist { return Must(NewGaussianParam(1, n, 3)) }},
		{"an exponential shape over 0..n-1", 300, func(n int64) IntDist { return Must(NewExponential(0, n-1, 4)) }},
	}
	for _, spread := range []bool{false, true} {
		for _, c := range shapes {
			mode := "permuted"
			if spread {
				mode = "spread"
			}
			t.Run(fmt.Sprintf("%s values of %s come in exactly %d distinct values", mode, c.name, c.n), func(t *testing.T) {
				shape := c.shape(c.n)
				var d *Distinct
				if spread {
					d = Must(NewDistinctSpread(c.n, shape, 7))
				} else {
					d = Must(NewDistinct(c.n, shape, 7))
				}
				values := make(map[int64]struct{}, c.n)
				for i := range c.n {
					values[d.Value(i)] = struct{}{}
				}
				if int64(len(values)) != c.n {
					t.Fatalf("Value(0..%d) enumerates %d distinct values", c.n-1, len(values))
				}
				r := newRand(3)
				seen := make(map[int64]int64, c.n)
				const draws = 500_000
				for range draws {
					v := d.Int64(r)
					if _, ok := values[v]; !ok {
						t.Fatalf("drew %d, which Value does not enumerate", v)
					}
					if v < d.Min() || v > d.Max() {
						t.Fatalf("drew %d, outside [%d, %d]", v, d.Min(), d.Max())
					}
					seen[v]++
				}
				if int64(len(seen)) != c.n {
					t.Errorf("%d draws gave %d distinct values, want exactly %d", draws, len(seen), c.n)
				}
			})
		}
	}
	t.Run("the frequent ranks of a permuted zipf are scattered over 1..n", func(t *testing.T) {
		const n = 1000
		d := Must(NewDistinct(n, Must(NewZipf(1, n, 1.2)), 11))
		top := make([]int64, 10)
		for i := range top {
			top[i] = d.Value(int64(i))
		}
		if slices.Max(top) < n/2 || slices.Min(top) > n/2 {
			t.Errorf("the ten most frequent values %v all sit in one half of 1..%d", top, n)
		}
		// The frequencies, sorted, still follow the zipf shape.
		counts := countDraws(t, d, fitDraws)
		ranked := make([]int64, n)
		for rank := range int64(n) {
			ranked[rank] = counts[d.Value(rank)-1]
		}
		checkFit(t, ranked, zipfProbs(n, 1.2))
	})
	t.Run("spread values cover the positive int64 range", func(t *testing.T) {
		d := Must(NewDistinctSpread(1000, nil, 5))
		var lowHalf int
		for i := range int64(1000) {
			v := d.Value(i)
			if v < 0 {
				t.Fatalf("Value(%d) = %d is negative", i, v)
			}
			if v < math.MaxInt64/2 {
				lowHalf++
			}
		}
		if lowHalf < 400 || lowHalf > 600 {
			t.Errorf("%d of 1000 values in the lower half of the range, want about 500", lowHalf)
		}
	})
	t.Run("a different seed gives a different permutation", func(t *testing.T) {
		a, b := Must(NewDistinct(1000, nil, 1)), Must(NewDistinct(1000, nil, 2))
		same := 0
		for i := range int64(1000) {
			if a.Value(i) == b.Value(i) {
				same++
			}
		}
		if same > 20 {
			t.Errorf("%d of 1000 values agree between seeds", same)
		}
	})
	t.Run("one million spread ranks map to one million distinct values", func(t *testing.T) {
		const n = 1_000_000
		d := Must(NewDistinctSpread(n, nil, 99))
		seen := make(map[int64]struct{}, n)
		for i := range int64(n) {
			seen[d.Value(i)] = struct{}{}
		}
		if len(seen) != n {
			t.Errorf("%d distinct values, want %d", len(seen), n)
		}
	})
}
