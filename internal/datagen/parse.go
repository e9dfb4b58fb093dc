package datagen

import (
	"fmt"
	"strconv"
	"strings"
)

// IntDistSyntax describes the specifications [ParseIntDist] accepts, for flag
// help texts.
const IntDistSyntax = "uniform | zipf:S | gaussian:P | exponential:P | hotspot:FRACTION:SHARE"

// ParseIntDist builds a distribution over [lo, hi] from a specification such
// as a flag value:
//
//	uniform                   every value equally likely
//	zipf:S                    Zipf with exponent S > 0 (lo most frequent)
//	gaussian:P                pgbench's random_gaussian(lo, hi, P), P >= 2
//	exponential:P             pgbench's random_exponential(lo, hi, P), P > 0
//	hotspot:FRACTION:SHARE    FRACTION of the values get SHARE of the draws
//
// Names are case-insensitive; "zipfian" and "hot-spot" are accepted too. The
// error names the specification and what is wrong with it.
func ParseIntDist(spec string, lo, hi int64) (IntDist, error) {
	name, args, _ := strings.Cut(strings.TrimSpace(spec), ":")
	var params []float64
	if args != "" {
		for a := range strings.SplitSeq(args, ":") {
			f, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
			if err != nil {
				return nil, fmt.Errorf("distribution %q: parameter %q is not a number", spec, a)
			}
			params = append(params, f)
		}
	}
	bad := func(usage string) (IntDist, error) {
		return nil, fmt.Errorf("distribution %q: want %s", spec, usage)
	}
	var (
		d   IntDist
		err error
	)
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "uniform":
		if len(params) != 0 {
			return bad("uniform without parameters")
		}
		d, err = NewUniform(lo, hi)
	case "zipf", "zipfian":
		if len(params) != 1 {
			return bad("zipf:S with exponent S > 0")
		}
		d, err = NewZipf(lo, hi, params[0])
	case "gaussian":
		if len(params) != 1 {
			return bad("gaussian:P with parameter P >= 2")
		}
		d, err = NewGaussianParam(lo, hi, params[0])
	case "exponential":
		if len(params) != 1 {
			return bad("exponential:P with parameter P > 0")
		}
		d, err = NewExponential(lo, hi, params[0])
	case "hotspot", "hot-spot":
		if len(params) != 2 {
			return bad("hotspot:FRACTION:SHARE, e.g. hotspot:0.2:0.8")
		}
		d, err = NewHotSpot(lo, hi, params[0], params[1])
	default:
		return nil, fmt.Errorf("distribution %q: unknown; use %s", spec, IntDistSyntax)
	}
	if err != nil {
		return nil, fmt.Errorf("distribution %q: %w", spec, err)
	}
	return d, nil
}
