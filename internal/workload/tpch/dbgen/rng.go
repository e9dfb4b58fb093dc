package dbgen

// The random numbers are dbgen's: a Park-Miller "minimal standard"
// multiplicative congruential generator, X(n+1) = 16807 * X(n) mod (2^31-1),
// one independent stream per column, each with its own fixed seed. Each
// stream is consumed by a fixed budget of draws per row; a row that uses
// fewer skips the rest, so the state at the start of row n is the seed
// advanced by (n-1) * budget draws, and any row range can be generated
// without the rows before it.

const (
	rngMult = 16807
	rngMod  = 2147483647
)

// advance returns seed after n draws: seed * 16807^n mod (2^31-1), by
// binary exponentiation.
func advance(seed, n int64) int64 {
	mult := int64(rngMult)
	for n > 0 {
		if n&1 != 0 {
			seed = seed * mult % rngMod
		}
		n >>= 1
		mult = mult * mult % rngMod
	}
	return seed
}

// stream is one column's random stream.
type stream struct {
	seed   int64 // the state
	used   int64 // draws in the current row
	perRow int64 // draws budgeted per row
}

// newStream returns a stream at the start of row first (1-based) of a table
// whose rows each budget perRow draws from a stream starting at seed.
func newStream(seed, perRow, first int64) stream {
	return stream{seed: advance(seed, perRow*(first-1)), perRow: perRow}
}

// next draws uniformly in [lo, hi] as dbgen's UnifInt does: the state
// scaled to the range in double precision and truncated.
func (s *stream) next(lo, hi int64) int64 {
	s.seed = s.seed * rngMult % rngMod
	s.used++
	return lo + int64(float64(s.seed)/float64(rngMod)*float64(hi-lo+1))
}

// next31 draws as next(0, 2^31-1) does in dbgen, whose range there is
// computed in 32-bit arithmetic and wraps to -2^31: the value is zero or
// negative, and its low bits are what the alphanumeric strings use.
func (s *stream) next31() int64 {
	s.seed = s.seed * rngMult % rngMod
	s.used++
	return int64(float64(s.seed) / float64(rngMod) * float64(int32(-2147483648)))
}

// rowDone skips the draws of the row's budget it did not use.
func (s *stream) rowDone() {
	if s.used < s.perRow {
		s.seed = advance(s.seed, s.perRow-s.used)
	}
	s.used = 0
}

// skipRows skips n whole rows.
func (s *stream) skipRows(n int64) {
	s.seed = advance(s.seed, s.perRow*n)
	s.used = 0
}
