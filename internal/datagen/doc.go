// Package datagen provides deterministic data generators for loading test
// databases and for drawing transaction parameters.
//
// Every generator takes an explicit *rand.Rand (math/rand/v2) so that a
// loader can produce the same rows from the same (seed, batch) on any
// machine and in any order, and so that many goroutines can generate in
// parallel without sharing state. Use [NewRand] (or [SeedPCG] to reseed a
// reusable source without allocating) to derive independent streams from one
// seed:
//
//	r := datagen.NewRand(seed, tableID, batch)
//	ids := datagen.Must(datagen.NewZipf(1, 100_000, 0.9))
//	id := ids.Int64(r)
//
// # Distributions
//
// Integer distributions implement [IntDist]: [Uniform], [Constant], [Zipf]
// (any exponent s > 0, by Hörmann's rejection-inversion), [Gaussian]
// (truncated to [lo, hi]), [Exponential] (pgbench's random_exponential),
// [HotSpot] (a fraction of the values receives a share of the draws),
// [Sequence] (stateful), [Weighted] (alias method over indexes), [NURand]
// (TPC-C) and [Distinct] (exactly n distinct values, shaped by an inner
// distribution and scattered by a fixed permutation). [ParseIntDist] builds
// one from a flag value such as "zipf:1.1". Float distributions implement
// [FloatDist]: [UniformFloat] and [GaussianFloat].
//
// # Strings, times and keys
//
// [RandString] appends random alphanumeric bytes; [StringGen] draws the length
// from any IntDist to control the average row width; [Pattern] renders
// prefix + number; [TimeUniform] draws timestamps. Key generators for the
// inserts workload are [UUIDv4Gen], [UUIDv7Gen] (time-ordered, strictly
// increasing per generator), [PartitionedGen] and [RandomBigintGen].
//
// # pgbench compatibility
//
// [PermuteInt] / [Permutation], [HashFNV1a] and [HashMurmur2] return the same
// values as pgbench's permute(), hash_fnv1a() and hash_murmur2(); the tests
// hold reference values produced by pgbench 15. The random distributions
// follow pgbench's definitions (same probabilities) but not its random number
// sequence: pgbench uses xoroshiro128**, this package uses math/rand/v2.
//
// # Determinism
//
// A generator's output depends only on its parameters and on the seed and
// stream path of its *rand.Rand (math/rand/v2's PCG, whose sequence Go keeps
// stable). The tests pin a fingerprint of every generator's sequence, so a
// change that would alter generated data is noticed. Generators that compute
// with floating point (Zipf, Gaussian, Exponential and the float
// distributions) are pinned on amd64; on other architectures Go may fuse
// multiply-adds, which can move a rare value by one across a rounding
// boundary.
//
// # Concurrency and allocation
//
// A *rand.Rand is not safe for concurrent use, and neither are the stateful
// generators ([Sequence], the key generators): give each goroutine its own.
// Stateless distributions (everything else) may be shared by goroutines that
// each pass their own *rand.Rand. Draws do not allocate; constructors do.
package datagen
