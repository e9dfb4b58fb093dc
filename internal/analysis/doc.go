// Package analysis holds the statistics that turn measured runs into
// defensible numbers: quantiles, bootstrap confidence intervals (plain and
// moving-block for autocorrelated interval series), comparisons of two runs
// with a verdict that never claims a difference the noise can explain, and a
// fit of the Universal Scalability Law (Gunther) to a client-count sweep.
//
// The package is pure computation: it never touches a database, never prints
// and never keeps global state. Every randomised routine takes a
// *math/rand/v2.Rand so results are reproducible from a seed; a nil generator
// is replaced by one with a fixed seed, so the same input always yields the
// same interval.
//
// Confidence levels are fractions in (0, 1), for example 0.95. A level of 0
// selects DefaultLevel and a non-positive iteration count selects
// DefaultIters. A level outside (0, 1) is a programmer error and panics;
// callers that take the level from a flag validate it first with
// ValidateLevel.
package analysis
