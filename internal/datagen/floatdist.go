package datagen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// FloatDist is a distribution of float64 values. Float64 does not allocate.
type FloatDist interface {
	Float64(r *rand.Rand) float64
}

// UniformFloat draws floats uniformly from [lo, hi).
type UniformFloat struct{ lo, hi float64 }

// NewUniformFloat returns a uniform distribution over [lo, hi); both bounds
// must be finite and lo <= hi.
func NewUniformFloat(lo, hi float64) (*UniformFloat, error) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo <= hi) {
		return nil, fmt.Errorf("uniform float: need finite lo <= hi, got [%v, %v]", lo, hi)
	}
	return &UniformFloat{lo: lo, hi: hi}, nil
}

// Float64 draws a value.
func (u *UniformFloat) Float64(r *rand.Rand) float64 {
	return u.lo + (u.hi-u.lo)*r.Float64()
}

// GaussianFloat draws floats from a normal distribution, optionally truncated
// to [lo, hi].
type GaussianFloat struct{ tn truncNormal }

// NewGaussianFloat returns a normal distribution with the given mean and
// standard deviation, truncated to [lo, hi]; pass math.Inf(-1) and
// math.Inf(1) for an unbounded normal.
func NewGaussianFloat(mean, stddev, lo, hi float64) (*GaussianFloat, error) {
	tn, err := newTruncNormal(mean, stddev, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("gaussian float: %w", err)
	}
	return &GaussianFloat{tn: tn}, nil
}

// Float64 draws a value.
func (g *GaussianFloat) Float64(r *rand.Rand) float64 { return g.tn.draw(r) }

// truncNormal samples a normal distribution restricted to [a, b] by
// inversion, from one uniform draw. When the interval lies mostly above the
// mean the computation is mirrored, so that it always works in the lower
// tail where the normal CDF and its inverse are accurate.
type truncNormal struct {
	mean, sd  float64
	a, b      float64 // bounds of the interval
	pa, pb    float64 // standard normal CDF of the (possibly mirrored) bounds
	flip      bool
	unbounded bool
}

func stdNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func newTruncNormal(mean, sd, a, b float64) (truncNormal, error) {
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return truncNormal{}, fmt.Errorf("mean %v must be finite", mean)
	}
	if !(sd > 0) || math.IsInf(sd, 0) {
		return truncNormal{}, fmt.Errorf("standard deviation %v must be a positive finite number", sd)
	}
	if !(a <= b) {
		return truncNormal{}, fmt.Errorf("empty range [%v, %v]", a, b)
	}
	t := truncNormal{mean: mean, sd: sd, a: a, b: b}
	if math.IsInf(a, -1) && math.IsInf(b, 1) {
		t.unbounded = true
		return t, nil
	}
	za, zb := (a-mean)/sd, (b-mean)/sd
	if za+zb > 0 {
		t.flip = true
		za, zb = -zb, -za
	}
	t.pa, t.pb = stdNormalCDF(za), stdNormalCDF(zb)
	if !(t.pb > t.pa) {
		return truncNormal{}, fmt.Errorf("range [%v, %v] is too far (or too narrow) from mean %v with standard deviation %v to sample", a, b, mean, sd)
	}
	return t, nil
}

func (t *truncNormal) draw(r *rand.Rand) float64 {
	if t.unbounded {
		return t.mean + t.sd*r.NormFloat64()
	}
	u := t.pa + (t.pb-t.pa)*r.Float64()
	if u <= 0 {
		u = math.SmallestNonzeroFloat64
	}
	z := mathext.NormalQuantile(u)
	if t.flip {
		z = -z
	}
	x := t.mean + t.sd*z
	if x < t.a {
		return t.a
	}
	if x > t.b {
		return t.b
	}
	return x
}
