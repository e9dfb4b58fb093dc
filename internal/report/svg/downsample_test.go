package svg

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestDownsample(t *testing.T) {
	// An hour at one sample per second, flat at 100 with one spike up and
	// one dip down, each a single second long.
	n := 3600
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range n {
		xs[i] = float64(i)
		ys[i] = 100 + float64(i%7)
	}
	ys[1234] = 5000
	ys[2345] = 1

	for _, maxPoints := range []int{5, 10, 100, 500, 1999} {
		t.Run(fmt.Sprintf("keeping %d points bounds the count and keeps both spikes", maxPoints), func(t *testing.T) {
			ox, oy := Downsample(xs, ys, maxPoints)
			if len(ox) != len(oy) {
				t.Fatalf("got %d xs and %d ys", len(ox), len(oy))
			}
			if len(ox) > maxPoints {
				t.Fatalf("got %d points, want at most %d", len(ox), maxPoints)
			}
			if len(ox) < maxPoints/2 {
				t.Fatalf("got only %d points for a budget of %d", len(ox), maxPoints)
			}
			if i := slices.Index(oy, 5000); i < 0 || ox[i] != 1234 {
				t.Errorf("the spike at x=1234 was lost")
			}
			if i := slices.Index(oy, 1); i < 0 || ox[i] != 2345 {
				t.Errorf("the dip at x=2345 was lost")
			}
			if !slices.IsSorted(ox) {
				t.Errorf("x order was not kept")
			}
			if ox[0] != 0 || ox[len(ox)-1] != float64(n-1) {
				t.Errorf("the series now spans [%v, %v], want [0, %d]", ox[0], ox[len(ox)-1], n-1)
			}
		})
	}

	t.Run("a gap survives downsampling", func(t *testing.T) {
		gy := slices.Clone(ys)
		for i := 2000; i < 2010; i++ {
			gy[i] = math.NaN()
		}
		ox, oy := Downsample(xs, gy, 300)
		if len(ox) > 300 {
			t.Fatalf("got %d points, want at most 300", len(ox))
		}
		gaps := 0
		for i, y := range oy {
			if math.IsNaN(y) {
				gaps++
				if ox[i] < 2000 || ox[i] >= 2010 {
					t.Errorf("gap point at x=%v, want within [2000, 2010)", ox[i])
				}
			}
		}
		if gaps == 0 {
			t.Error("the gap was lost")
		}
		if !slices.Contains(oy, 5000) {
			t.Error("the spike was lost")
		}
	})

	t.Run("a short series is returned as a copy", func(t *testing.T) {
		x, y := []float64{1, 2, 3}, []float64{4, 5, 6}
		ox, oy := Downsample(x, y, 10)
		if !slices.Equal(ox, x) || !slices.Equal(oy, y) {
			t.Fatalf("got %v %v", ox, oy)
		}
		ox[0] = 99
		if x[0] != 1 {
			t.Error("the input was modified through the result")
		}
	})

	t.Run("a zero budget means no downsampling", func(t *testing.T) {
		ox, _ := Downsample(xs, ys, 0)
		if len(ox) != n {
			t.Errorf("got %d points, want %d", len(ox), n)
		}
	})

	t.Run("slices of different lengths use the shorter", func(t *testing.T) {
		ox, oy := Downsample(xs[:10], ys[:7], 100)
		if len(ox) != 7 || len(oy) != 7 {
			t.Errorf("got %d and %d points, want 7", len(ox), len(oy))
		}
	})

	t.Run("the input is left untouched", func(t *testing.T) {
		before := slices.Clone(ys)
		Downsample(xs, ys, 50)
		if !slices.Equal(before, ys) {
			t.Error("ys was modified")
		}
	})
}

func TestDownsampleMean(t *testing.T) {
	t.Run("buckets average their values and ignore NaN", func(t *testing.T) {
		x := []float64{0, 1, 2, 3, 4, 5}
		col := []float64{1, 3, math.NaN(), 5, math.NaN(), math.NaN()}
		ox, oc := downsampleMean(x, [][]float64{col}, 3)
		if !slices.Equal(ox, []float64{0.5, 2.5, 4.5}) {
			t.Errorf("x = %v", ox)
		}
		if oc[0][0] != 2 || oc[0][1] != 5 || !math.IsNaN(oc[0][2]) {
			t.Errorf("values = %v, want [2 5 NaN]", oc[0])
		}
	})
}

func ExampleDownsample() {
	xs := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	ys := []float64{5, 5, 9, 5, 5, 1, 5, 4}
	ox, oy := Downsample(xs, ys, 6)
	fmt.Println(ox, oy)
	// Output: [0 1 2 4 5 7] [5 5 9 5 1 4]
}
