package datagen

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestFloatDistributionsFitByKolmogorovSmirnov(t *testing.T) {
	const n = 200_000
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		d    FloatDist
		cdf  func(float64) float64
		lo   float64
		hi   float64
	}{
		{"uniform over [2, 5)", Must(NewUniformFloat(2, 5)), func(x float64) float64 { return (x - 2) / 3 }, 2, 5},
		{"unbounded gaussian with mean 10 and deviation 3", Must(NewGaussianFloat(10, 3, -inf, inf)),
			distuv.Normal{Mu: 10, Sigma: 3}.CDF, -inf, inf},
		{"gaussian truncated to [0, 1] with mean 0.7", Must(NewGaussianFloat(0.7, 0.4, 0, 1)), func(x float64) float64 {
			return normMass(0, x, 0.7, 0.4) / normMass(0, 1, 0.7, 0.4)
		}, 0, 1},
		{"gaussian truncated to its upper tail [3, inf)", Must(NewGaussianFloat(0, 1, 3, inf)), func(x float64) float64 {
			return normMass(3, x, 0, 1) / normMass(3, inf, 0, 1)
		}, 3, inf},
	} {
		t.Run(fmt.Sprintf("%s matches its CDF", c.name), func(t *testing.T) {
			r := newRand(4)
			sample := make([]float64, n)
			for i := range sample {
				x := c.d.Float64(r)
				if x < c.lo || x > c.hi {
					t.Fatalf("drew %v, outside [%v, %v]", x, c.lo, c.hi)
				}
				sample[i] = x
			}
			if d := ksStatistic(sample, c.cdf); d > ksCritical(n) {
				t.Errorf("KS distance %.5f exceeds the critical value %.5f", d, ksCritical(n))
			}
		})
	}
	t.Run("a gaussian with the wrong mean is rejected by the KS test", func(t *testing.T) {
		d := Must(NewGaussianFloat(10.05, 3, -inf, inf))
		r := newRand(4)
		sample := make([]float64, n)
		for i := range sample {
			sample[i] = d.Float64(r)
		}
		if ks := ksStatistic(sample, distuv.Normal{Mu: 10, Sigma: 3}.CDF); ks <= ksCritical(n) {
			t.Errorf("KS distance %.5f within the critical value: the test has no power", ks)
		}
	})
}
