package datagen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Alphanumeric is the alphabet of [RandString]: 62 characters.
const Alphanumeric = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandString appends n random alphanumeric bytes, each uniform over
// [Alphanumeric], to dst and returns the extended slice. It allocates only if
// dst lacks capacity.
func RandString(r *rand.Rand, dst []byte, n int) []byte {
	if n <= 0 {
		return dst
	}
	dst = slices.Grow(dst, n)
	var x uint64
	avail := 0
	for n > 0 {
		if avail == 0 {
			x, avail = r.Uint64(), 10 // ten 6-bit chunks per word
		}
		c := x & 63
		x >>= 6
		avail--
		if c < uint64(len(Alphanumeric)) {
			dst = append(dst, Alphanumeric[c])
			n--
		}
	}
	return dst
}

// StringGen appends random alphanumeric strings whose length is drawn from a
// distribution: [Constant] for a fixed width, [Uniform] for lo..hi,
// [Gaussian] for a bell around a mean. The mean length sets the average row
// width, hence rows per page.
type StringGen struct {
	length IntDist
}

// NewStringGen returns a generator of strings whose length follows length;
// length.Min() must not be negative.
func NewStringGen(length IntDist) (*StringGen, error) {
	if length == nil {
		return nil, fmt.Errorf("string: no length distribution")
	}
	if length.Min() < 0 {
		return nil, fmt.Errorf("string: length distribution allows negative length %d", length.Min())
	}
	return &StringGen{length: length}, nil
}

// Append appends one string to dst.
func (g *StringGen) Append(r *rand.Rand, dst []byte) []byte {
	return RandString(r, dst, int(g.length.Int64(r)))
}

// Length returns the length distribution.
func (g *StringGen) Length() IntDist { return g.length }

// Pattern renders Prefix followed by a number drawn from Num, zero-padded to
// Width digits (no padding when Width <= 0): "VC" + 7 gives "VC7", and
// "X580 G" + 7 with width 2 gives "X580 G07".
type Pattern struct {
	Prefix string
	Num    IntDist
	Width  int
}

// Append appends one rendering to dst.
func (p *Pattern) Append(r *rand.Rand, dst []byte) []byte {
	return AppendPadded(append(dst, p.Prefix...), p.Num.Int64(r), p.Width)
}

// AppendPadded appends the decimal form of v, zero-padded to width digits,
// to dst. A negative v gets its minus sign before the padding.
func AppendPadded(dst []byte, v int64, width int) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	digits := 1
	for x := u; x >= 10; x /= 10 {
		digits++
	}
	for ; digits < width; digits++ {
		dst = append(dst, '0')
	}
	return strconv.AppendUint(dst, u, 10)
}

// TimeUniform draws timestamps uniformly from lo, lo+res, lo+2*res, ... up to
// hi, for a resolution res such as time.Microsecond (PostgreSQL's timestamp
// precision) or time.Second. Results are in lo's location.
type TimeUniform struct {
	lo    time.Time
	res   time.Duration
	steps int64 // number of resolution steps from lo to hi
}

// NewTimeUniform returns timestamps uniform over [lo, hi] in steps of res;
// hi must not be before lo, res must be positive and hi-lo must fit a
// time.Duration (about 292 years).
func NewTimeUniform(lo, hi time.Time, res time.Duration) (*TimeUniform, error) {
	if res <= 0 {
		return nil, fmt.Errorf("time range: resolution %v must be positive", res)
	}
	if hi.Before(lo) {
		return nil, fmt.Errorf("time range: %v is before %v", hi, lo)
	}
	span := hi.Sub(lo)
	if span == time.Duration(1<<63-1) {
		return nil, fmt.Errorf("time range: [%v, %v] is longer than %v", lo, hi, span)
	}
	return &TimeUniform{lo: lo, res: res, steps: int64(span / res)}, nil
}

// Time draws a timestamp.
func (t *TimeUniform) Time(r *rand.Rand) time.Time {
	return t.lo.Add(time.Duration(uniformIn(r, 0, t.steps)) * t.res)
}
