package datagen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Distinct draws from exactly n distinct values. A rank is drawn from an
// inner shape distribution over n consecutive integers (for example
// NewZipf(1, n, 1.1) or NewGaussian(1, n, ...)), and each rank is mapped
// through a fixed bijection chosen by seed, so that the frequent ranks are
// scattered instead of clustered at one end.
//
// By default ([NewDistinct]) the values are the shape's own range, permuted
// with pgbench's permute(): with a shape over 1..n the values are 1..n, which
// makes Distinct the right tool for skewed foreign keys ("children per parent
// are not uniform") whose hot parents are spread over the table. With
// [NewDistinctSpread] the values are spread over [0, math.MaxInt64] by a
// seeded bijective hash, for a column with exactly n distinct values whose
// magnitude carries no information.
type Distinct struct {
	shape  IntDist
	lo, n  int64
	spread bool
	k0, k1 uint64
	perm   Permutation
}

// NewDistinct returns a Distinct over the shape's range, which must hold
// exactly n values; a nil shape means uniform over 1..n.
func NewDistinct(n int64, shape IntDist, seed uint64) (*Distinct, error) {
	return newDistinct(n, shape, seed, false)
}

// NewDistinctSpread returns a Distinct whose n values are spread over
// [0, math.MaxInt64]; shape must range over exactly n values (nil means
// uniform over 1..n).
func NewDistinctSpread(n int64, shape IntDist, seed uint64) (*Distinct, error) {
	return newDistinct(n, shape, seed, true)
}

func newDistinct(n int64, shape IntDist, seed uint64, spread bool) (*Distinct, error) {
	if n < 1 {
		return nil, fmt.Errorf("distinct: the number of values %d must be at least 1", n)
	}
	if shape == nil {
		shape = &Uniform{lo: 1, hi: n}
	}
	lo, hi := shape.Min(), shape.Max()
	if hi < lo || uint64(hi)-uint64(lo) != uint64(n-1) {
		return nil, fmt.Errorf("distinct: shape ranges over [%d, %d], not over exactly %d values", lo, hi, n)
	}
	d := &Distinct{shape: shape, lo: lo, n: n, spread: spread}
	if spread {
		d.k0 = mix64(seed^0x243F6A8885A308D3) & math.MaxInt64
		d.k1 = mix64(seed^0x13198A2E03707344) & math.MaxInt64
	} else {
		d.perm.init(n, int64(seed))
	}
	return d, nil
}

// Int64 draws one of the n values.
func (d *Distinct) Int64(r *rand.Rand) int64 {
	return d.Value(int64(uint64(d.shape.Int64(r)) - uint64(d.lo)))
}

// Value returns the value of rank i, 0 <= i < n, where rank i is the shape's
// value Min()+i. Value(0), ..., Value(n-1) enumerate the n distinct values,
// e.g. to fill a dimension table.
func (d *Distinct) Value(i int64) int64 {
	if d.spread {
		return int64(mix63(uint64(i), d.k0, d.k1))
	}
	return int64(uint64(d.lo) + uint64(d.perm.Apply(i)))
}

// N returns the number of distinct values.
func (d *Distinct) N() int64 { return d.n }

// Min returns the smallest value that can be drawn (for a spread Distinct, 0:
// a bound, not necessarily a value).
func (d *Distinct) Min() int64 {
	if d.spread {
		return 0
	}
	return d.lo
}

// Max returns the largest value that can be drawn (for a spread Distinct,
// math.MaxInt64: a bound, not necessarily a value).
func (d *Distinct) Max() int64 {
	if d.spread {
		return math.MaxInt64
	}
	return d.lo + d.n - 1
}

// mix63 is a keyed bijection of [0, 2^63): every step (XOR with a 63-bit key,
// multiplication by an odd constant modulo 2^63, XOR with a right shift) is
// invertible on 63-bit words.
func mix63(x, k0, k1 uint64) uint64 {
	const m = math.MaxInt64
	x = (x ^ k0) & m
	x = (x * 0xBF58476D1CE4E5B9) & m
	x ^= x >> 29
	x = (x * 0x94D049BB133111EB) & m
	x ^= x >> 31
	x ^= k1
	x = (x * 0xD6E8FEB86659FD93) & m
	return x ^ x>>32
}
