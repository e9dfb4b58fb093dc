package datagen

import "math/rand/v2"

// golden is 2^64 / phi, the increment of splitmix64.
const golden = 0x9E3779B97F4A7C15

// mix64 is the splitmix64 finalizer: a bijection on uint64 with good
// avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// DeriveSeed mixes a seed and a path of stream numbers into the two words of
// a PCG seed. Different paths ((7), (7, 0), (7, 1, 2), (7, 2, 1)) give
// unrelated streams.
func DeriveSeed(seed uint64, streams ...uint64) (hi, lo uint64) {
	h := mix64(seed + golden)
	for i, s := range streams {
		h = mix64(h ^ mix64(s+uint64(i+2)*golden))
	}
	return mix64(h ^ 0x5851F42D4C957F2D), mix64(h ^ 0x14057B7EF767814F)
}

// NewRand returns a *rand.Rand whose sequence depends only on seed and the
// stream path, e.g. NewRand(seed, table, batch) for one load batch or
// NewRand(seed, worker) for one client. It is not safe for concurrent use.
func NewRand(seed uint64, streams ...uint64) *rand.Rand {
	return rand.New(NewPCG(seed, streams...))
}

// NewPCG returns the PCG source behind [NewRand].
func NewPCG(seed uint64, streams ...uint64) *rand.PCG {
	hi, lo := DeriveSeed(seed, streams...)
	return rand.NewPCG(hi, lo)
}

// SeedPCG reseeds p to the state NewPCG(seed, streams...) would have, without
// allocating: a loader can keep one rand.New(p) per worker and reseed it for
// each batch.
func SeedPCG(p *rand.PCG, seed uint64, streams ...uint64) {
	p.Seed(DeriveSeed(seed, streams...))
}

// Must returns v, and panics if err is not nil. It is meant for distributions
// built from constants known to be valid.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
