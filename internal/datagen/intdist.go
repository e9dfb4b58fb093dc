package datagen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// IntDist is a distribution of int64 values in [Min(), Max()].
//
// Int64 draws one value using r. Implementations do not allocate in Int64.
// Stateless implementations may be shared by goroutines that each pass their
// own r; stateful ones ([Sequence]) say so.
type IntDist interface {
	Int64(r *rand.Rand) int64
	Min() int64
	Max() int64
}

// uniformIn returns a uniform value in [lo, hi] (hi >= lo), including the
// full int64 range.
func uniformIn(r *rand.Rand, lo, hi int64) int64 {
	span := uint64(hi) - uint64(lo)
	if span == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return lo + int64(r.Uint64N(span+1))
}

func checkRange(lo, hi int64) error {
	if hi < lo {
		return fmt.Errorf("empty range: hi %d is below lo %d", hi, lo)
	}
	return nil
}

// Constant always returns the same value. It is useful as a fixed string
// length.
type Constant struct{ v int64 }

// NewConstant returns a distribution that always yields v.
func NewConstant(v int64) *Constant { return &Constant{v: v} }

// Int64 returns the constant.
func (c *Constant) Int64(*rand.Rand) int64 { return c.v }

// Min returns the constant.
func (c *Constant) Min() int64 { return c.v }

// Max returns the constant.
func (c *Constant) Max() int64 { return c.v }

// Uniform draws integers uniformly from [lo, hi], inclusive.
type Uniform struct{ lo, hi int64 }

// NewUniform returns a uniform distribution over [lo, hi]; hi must not be
// below lo.
func NewUniform(lo, hi int64) (*Uniform, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("uniform: %w", err)
	}
	return &Uniform{lo: lo, hi: hi}, nil
}

// Int64 draws a value.
func (u *Uniform) Int64(r *rand.Rand) int64 { return uniformIn(r, u.lo, u.hi) }

// Min returns lo.
func (u *Uniform) Min() int64 { return u.lo }

// Max returns hi.
func (u *Uniform) Max() int64 { return u.hi }

// Zipf draws from lo..hi with P(lo+k-1) proportional to 1/k^s for rank
// k = 1..n, n = hi-lo+1: lo is the most frequent value. Any exponent s > 0 is
// accepted, including s <= 1 (which math/rand's Zipf rejects). Sampling uses
// Hörmann and Derflinger's rejection-inversion method ("Rejection-inversion
// to generate variates from monotone discrete distributions", 1996), as in
// Apache Commons RNG: O(1) time and memory for any n, with an acceptance rate
// close to 1.
type Zipf struct {
	lo, hi int64
	n, s   float64
	hx1    float64 // hIntegral(1.5) - 1
	hxn    float64 // hIntegral(n + 0.5)
	thresh float64 // 2 - hIntegralInverse(hIntegral(2.5) - h(2))
}

// maxZipfValues bounds n so that ranks are exact in float64.
const maxZipfValues = 1 << 53

// NewZipf returns a Zipf distribution over [lo, hi] with exponent s > 0.
func NewZipf(lo, hi int64, s float64) (*Zipf, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("zipf: %w", err)
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf: exponent %v must be a positive finite number", s)
	}
	span := uint64(hi) - uint64(lo)
	if span >= maxZipfValues {
		return nil, fmt.Errorf("zipf: range [%d, %d] has more than 2^53 values", lo, hi)
	}
	z := &Zipf{lo: lo, hi: hi, n: float64(span + 1), s: s}
	z.hx1 = z.hIntegral(1.5) - 1
	z.hxn = z.hIntegral(z.n + 0.5)
	z.thresh = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z, nil
}

// Int64 draws a value.
func (z *Zipf) Int64(r *rand.Rand) int64 {
	if z.lo == z.hi {
		return z.lo
	}
	for {
		// u is uniform in (hx1, hxn].
		u := z.hxn + r.Float64()*(z.hx1-z.hxn)
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.thresh || u >= z.hIntegral(k+0.5)-z.h(k) {
			return z.lo + int64(k) - 1
		}
	}
}

// Min returns lo.
func (z *Zipf) Min() int64 { return z.lo }

// Max returns hi.
func (z *Zipf) Max() int64 { return z.hi }

// Exponent returns s.
func (z *Zipf) Exponent() float64 { return z.s }

// h is the unnormalised density x^-s.
func (z *Zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral is an antiderivative of h: (x^(1-s) - 1) / (1-s), or log x when
// s = 1, computed without cancellation near s = 1.
func (z *Zipf) hIntegral(x float64) float64 {
	logX := math.Log(x)
	return expm1Over((1-z.s)*logX) * logX
}

// hIntegralInverse inverts hIntegral.
func (z *Zipf) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.s)
	if t < -1 {
		// Rounding can push t slightly below -1.
		t = -1
	}
	return math.Exp(log1pOver(t) * x)
}

// log1pOver returns log(1+x)/x, continuous at 0.
func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3.0-0.25*x))
}

// expm1Over returns (exp(x)-1)/x, continuous at 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x/3*(1+0.25*x))
}

// Gaussian draws integers from a normal distribution with the given mean and
// standard deviation, truncated to [lo, hi]: the continuous normal is
// restricted to [lo-0.5, hi+0.5] and rounded to the nearest integer, so every
// value keeps its share of the bell and no mass piles up at the bounds.
// Sampling is by inversion: one uniform draw per value, never a loop.
type Gaussian struct {
	lo, hi int64
	mean   float64
	stddev float64
	tn     truncNormal
}

// NewGaussian returns a truncated normal distribution over [lo, hi]. stddev
// must be positive; mean may lie outside the range.
func NewGaussian(lo, hi int64, mean, stddev float64) (*Gaussian, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("gaussian: %w", err)
	}
	tn, err := newTruncNormal(mean, stddev, float64(lo)-0.5, float64(hi)+0.5)
	if err != nil {
		return nil, fmt.Errorf("gaussian: %w", err)
	}
	return &Gaussian{lo: lo, hi: hi, mean: mean, stddev: stddev, tn: tn}, nil
}

// MinGaussianParam is pgbench's lower bound for random_gaussian's parameter.
const MinGaussianParam = 2.0

// NewGaussianParam returns the distribution of pgbench's
// random_gaussian(lo, hi, param): centred on the middle of the range, with
// the range spanning param standard deviations on each side (param >= 2).
func NewGaussianParam(lo, hi int64, param float64) (*Gaussian, error) {
	if !(param >= MinGaussianParam) || math.IsInf(param, 0) {
		return nil, fmt.Errorf("gaussian: parameter %v must be at least %v", param, MinGaussianParam)
	}
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("gaussian: %w", err)
	}
	width := float64(hi) - float64(lo) + 1
	return NewGaussian(lo, hi, float64(lo)/2+float64(hi)/2, width/(2*param))
}

// Int64 draws a value.
func (g *Gaussian) Int64(r *rand.Rand) int64 {
	x := math.Floor(g.tn.draw(r) + 0.5)
	v := int64(x)
	// Guard against rounding at the edges and float -> int saturation.
	if x <= float64(g.lo) || v < g.lo {
		return g.lo
	}
	if x >= float64(g.hi) || v > g.hi {
		return g.hi
	}
	return v
}

// Min returns lo.
func (g *Gaussian) Min() int64 { return g.lo }

// Max returns hi.
func (g *Gaussian) Max() int64 { return g.hi }

// Exponential is pgbench's random_exponential(lo, hi, param): lo is the most
// frequent value and frequencies decrease exponentially towards hi. Value
// lo+k has probability (exp(-param*k/n) - exp(-param*(k+1)/n)) /
// (1 - exp(-param)), n = hi-lo+1; a larger param concentrates the draws
// nearer lo.
type Exponential struct {
	lo, hi int64
	param  float64
	cut    float64
	width  float64
}

// NewExponential returns an exponential distribution over [lo, hi]; param
// must be positive.
func NewExponential(lo, hi int64, param float64) (*Exponential, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("exponential: %w", err)
	}
	if !(param > 0) || math.IsInf(param, 0) {
		return nil, fmt.Errorf("exponential: parameter %v must be a positive finite number", param)
	}
	return &Exponential{
		lo: lo, hi: hi, param: param,
		cut:   math.Exp(-param),
		width: float64(hi) - float64(lo) + 1,
	}, nil
}

// Int64 draws a value.
func (e *Exponential) Int64(r *rand.Rand) int64 {
	u := 1 - r.Float64() // (0, 1]
	x := -math.Log(e.cut+(1-e.cut)*u) / e.param
	off := e.width * x
	if off >= float64(uint64(e.hi)-uint64(e.lo)) {
		return e.hi
	}
	return int64(uint64(e.lo) + uint64(off))
}

// Min returns lo.
func (e *Exponential) Min() int64 { return e.lo }

// Max returns hi.
func (e *Exponential) Max() int64 { return e.hi }

// HotSpot sends a share of the draws to a small set of hot values: the first
// round(fraction*n) values of [lo, hi] (at least one) receive share of the
// draws, uniformly, and the remaining values share the rest uniformly. Wrap
// it in a [Distinct] to scatter the hot values across the range.
type HotSpot struct {
	lo, hi int64
	hotHi  int64 // last hot value; hotHi == hi means every value is hot
	share  float64
}

// NewHotSpot returns a hot-spot distribution: fraction (0 < fraction <= 1) of
// the values of [lo, hi] receive share (0 <= share <= 1) of the draws.
func NewHotSpot(lo, hi int64, fraction, share float64) (*HotSpot, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, fmt.Errorf("hotspot: %w", err)
	}
	if !(fraction > 0 && fraction <= 1) {
		return nil, fmt.Errorf("hotspot: hot fraction %v must be in (0, 1]", fraction)
	}
	if !(share >= 0 && share <= 1) {
		return nil, fmt.Errorf("hotspot: hot share %v must be in [0, 1]", share)
	}
	n := float64(uint64(hi)-uint64(lo)) + 1
	hot := math.Max(1, math.Round(fraction*n))
	h := &HotSpot{lo: lo, hi: hi, hotHi: hi, share: share}
	if hot < n {
		h.hotHi = int64(uint64(lo) + uint64(hot) - 1)
	}
	return h, nil
}

// Int64 draws a value.
func (h *HotSpot) Int64(r *rand.Rand) int64 {
	if h.hotHi == h.hi {
		return uniformIn(r, h.lo, h.hi)
	}
	if r.Float64() < h.share {
		return uniformIn(r, h.lo, h.hotHi)
	}
	return uniformIn(r, h.hotHi+1, h.hi)
}

// Min returns lo.
func (h *HotSpot) Min() int64 { return h.lo }

// Max returns hi.
func (h *HotSpot) Max() int64 { return h.hi }

// HotValues returns the number of hot values; they are lo..lo+HotValues()-1.
func (h *HotSpot) HotValues() int64 { return int64(uint64(h.hotHi) - uint64(h.lo) + 1) }

// Sequence yields start, start+step, start+2*step, ... It is stateful and
// ignores r: give each stream (goroutine, load batch) its own Sequence, e.g.
// NewSequence(batch*rowsPerBatch+1, 1). It is not safe for concurrent use.
type Sequence struct {
	start, step, next int64
}

// NewSequence returns a sequence starting at start and advancing by step.
func NewSequence(start, step int64) *Sequence {
	return &Sequence{start: start, step: step, next: start}
}

// Int64 returns the next value; r is ignored and may be nil.
func (s *Sequence) Int64(*rand.Rand) int64 { return s.Next() }

// Next returns the next value.
func (s *Sequence) Next() int64 {
	v := s.next
	s.next += s.step
	return v
}

// Reset restarts the sequence at start.
func (s *Sequence) Reset(start int64) { s.start, s.next = start, start }

// Min returns start for a non-decreasing sequence, else math.MinInt64.
func (s *Sequence) Min() int64 {
	if s.step >= 0 {
		return s.start
	}
	return math.MinInt64
}

// Max returns start for a decreasing sequence, else math.MaxInt64.
func (s *Sequence) Max() int64 {
	if s.step < 0 {
		return s.start
	}
	return math.MaxInt64
}

// Weighted draws an index 0..len(weights)-1 with probability proportional to
// its weight, in O(1) by Vose's alias method. Zero weights are never drawn.
type Weighted struct {
	prob  []float64
	alias []int
}

// NewWeighted returns a weighted choice over the indexes of weights, which
// must be finite, non-negative and not all zero.
func NewWeighted(weights []float64) (*Weighted, error) {
	n := len(weights)
	if n == 0 {
		return nil, errors.New("weighted: no weights")
	}
	sum, maxI := 0.0, 0
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weighted: weight %d is %v; weights must be finite and non-negative", i, w)
		}
		sum += w
		if w > weights[maxI] {
			maxI = i
		}
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("weighted: weights sum to %v; need a positive finite sum", sum)
	}
	w := &Weighted{prob: make([]float64, n), alias: make([]int, n)}
	p := make([]float64, n)
	small := make([]int, 0, n)
	large := make([]int, 0, n)
	for i, x := range weights {
		p[i] = x * float64(n) / sum
		if p[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s := small[len(small)-1]
		small = small[:len(small)-1]
		l := large[len(large)-1]
		large = large[:len(large)-1]
		w.prob[s], w.alias[s] = p[s], l
		p[l] += p[s] - 1
		if p[l] < 1 {
			small = append(small, l)
		} else {
			large = append(large, l)
		}
	}
	// Leftovers have p == 1 up to rounding.
	for _, rest := range [2][]int{small, large} {
		for _, i := range rest {
			w.prob[i], w.alias[i] = 1, i
			if weights[i] == 0 {
				w.prob[i], w.alias[i] = 0, maxI
			}
		}
	}
	return w, nil
}

// Index draws an index.
func (w *Weighted) Index(r *rand.Rand) int {
	i := r.IntN(len(w.prob))
	if r.Float64() < w.prob[i] {
		return i
	}
	return w.alias[i]
}

// Int64 draws an index.
func (w *Weighted) Int64(r *rand.Rand) int64 { return int64(w.Index(r)) }

// Min returns 0.
func (w *Weighted) Min() int64 { return 0 }

// Max returns len(weights)-1.
func (w *Weighted) Max() int64 { return int64(len(w.prob) - 1) }

// NURand is TPC-C's non-uniform random function (TPC-C 5.11, clause 2.1.6):
// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
type NURand struct {
	a, x, y, c int64
}

// NewNURand returns NURand(a, x, y) with run-time constant c. The
// specification uses a = 255 for C_LAST, 1023 for C_ID and 8191 for OL_I_ID,
// and c drawn once per database from random(0, a).
func NewNURand(a, x, y, c int64) (*NURand, error) {
	if err := checkRange(x, y); err != nil {
		return nil, fmt.Errorf("nurand: %w", err)
	}
	if a < 0 || c < 0 || x < 0 {
		return nil, fmt.Errorf("nurand: a (%d), c (%d) and x (%d) must not be negative", a, c, x)
	}
	const limit = math.MaxInt64 / 4
	if a > limit || y > limit || c > limit {
		return nil, fmt.Errorf("nurand: a (%d), y (%d) or c (%d) above %d", a, y, c, int64(limit))
	}
	return &NURand{a: a, x: x, y: y, c: c}, nil
}

// Int64 draws a value.
func (n *NURand) Int64(r *rand.Rand) int64 {
	v := uniformIn(r, 0, n.a) | uniformIn(r, n.x, n.y)
	return (v+n.c)%(n.y-n.x+1) + n.x
}

// Min returns x.
func (n *NURand) Min() int64 { return n.x }

// Max returns y.
func (n *NURand) Max() int64 { return n.y }
