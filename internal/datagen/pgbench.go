package datagen

import "math/bits"

// This file reproduces pgbench's permute(), hash_fnv1a() and hash_murmur2()
// (PostgreSQL 14+, src/bin/pgbench/pgbench.c) bit for bit, together with the
// pieces of src/common/pg_prng.c that permute() depends on.

// pgPRNG is PostgreSQL's pg_prng_state: xoroshiro128** seeded by splitmix64.
type pgPRNG struct{ s0, s1 uint64 }

// splitmix64 advances *state and returns the next splitmix64 output.
func splitmix64(state *uint64) uint64 {
	*state += golden
	return mix64(*state)
}

// seed is pg_prng_seed.
func (p *pgPRNG) seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

// uint64 is pg_prng_uint64 (xoroshiro128**).
func (p *pgPRNG) uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// uint64Range is pg_prng_uint64_range: uniform in [lo, hi] by bitmask
// rejection; it consumes no randomness when the range is a single value.
func (p *pgPRNG) uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := uint(bits.LeadingZeros64(span)) // 63 - pg_leftmost_one_pos64(span)
	for {
		v := p.uint64() >> shift
		if v <= span {
			return lo + v
		}
	}
}

// permRounds is the number of rounds of pgbench's permute().
const permRounds = 6

// Permutation is pgbench's permute(v, size, seed) with its pseudo-random
// constants drawn once: permute() draws the same constants for every v of a
// given (size, seed), so precomputing them gives identical results at a
// fraction of the cost. Apply is a bijection of [0, size).
type Permutation struct {
	size    uint64
	mask    uint64
	masklen uint
	round   [permRounds]struct{ m1, r1, m2, r2, off uint64 }
}

// NewPermutation returns the permutation pgbench's permute(_, size, seed)
// computes. A size below 2 yields the identity on {0}.
func NewPermutation(size, seed int64) *Permutation {
	p := &Permutation{}
	p.init(size, seed)
	return p
}

func (p *Permutation) init(size, seed int64) {
	*p = Permutation{}
	if size < 2 {
		p.size = 1
		return
	}
	p.size = uint64(size)
	var st pgPRNG
	st.seed(uint64(seed))
	p.masklen = uint(63 - bits.LeadingZeros64(p.size))
	p.mask = 1<<p.masklen - 1
	for i := range p.round {
		rd := &p.round[i]
		rd.m1 = st.uint64()&p.mask | 1
		rd.r1 = st.uint64() & p.mask
		rd.m2 = st.uint64()&p.mask | 1
		rd.r2 = st.uint64() & p.mask
		rd.off = st.uint64Range(0, p.size-1)
	}
}

// Size returns the permutation's size.
func (p *Permutation) Size() int64 { return int64(p.size) }

// Apply returns permute(val, size, seed). Like pgbench, it first reduces val
// modulo size as an unsigned number, so any int64 is accepted.
func (p *Permutation) Apply(val int64) int64 {
	if p.size < 2 {
		return 0
	}
	size, mask, ml := p.size, p.mask, p.masklen
	v := uint64(val)
	if v >= size {
		v %= size
	}
	for i := range p.round {
		rd := &p.round[i]
		// Random multiply (by an odd number), XOR and rotate of the lower
		// part.
		if v <= mask {
			v = (v*rd.m1 ^ rd.r1) & mask
			v = (v<<1)&mask | v>>(ml-1)
		}
		// The same on the upper part.
		if t := size - 1 - v; t <= mask {
			t = (t*rd.m2 ^ rd.r2) & mask
			t = (t<<1)&mask | t>>(ml-1)
			v = size - 1 - t
		}
		// Random offset; v and off are both below size.
		if v += rd.off; v >= size {
			v -= size
		}
	}
	return int64(v)
}

// PermuteInt returns pgbench's permute(val, size, seed): a pseudo-random
// permutation of [0, size) applied to val mod size. Size must be positive
// (pgbench rejects other sizes); a size of 1 gives 0. Each call draws the
// permutation's constants again; keep a [Permutation] to apply one
// permutation many times.
func PermuteInt(val, size, seed int64) int64 {
	var p Permutation
	p.init(size, seed)
	return p.Apply(val)
}

// pgbench's hash constants.
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a returns pgbench's hash_fnv1a(v, seed): 64-bit FNV-1a over the
// eight bytes of v, least significant first, with the offset basis XORed
// with seed.
func HashFNV1a(v, seed int64) int64 {
	h := uint64(fnvOffsetBasis) ^ uint64(seed)
	x := uint64(v)
	for range 8 {
		h ^= x & 0xff
		h *= fnvPrime
		x >>= 8
	}
	return int64(h)
}

// HashMurmur2 returns pgbench's hash_murmur2(v, seed): 64-bit MurmurHash2
// (MurmurHash64A) of the single 8-byte value v with the given seed. It is
// also pgbench's hash(v, seed).
func HashMurmur2(v, seed int64) int64 {
	h := uint64(seed) ^ mm2MulTimes8
	k := uint64(v)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}
