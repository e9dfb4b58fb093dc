package cli

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// The bounds of the values flags take. Beyond them a value is a typing
// mistake or an overflow, never a plan, and it is refused before anything
// runs.
const (
	// maxRate is the highest --rate: ten million transactions a second,
	// one every 100 ns, is more than one client host can start on
	// schedule.
	maxRate = 1e7
	// maxDuration is the longest value of every duration flag (--duration,
	// --warmup, --progress, --latency-limit, --statement-timeout, ...): 30
	// days.
	maxDuration = 30 * 24 * time.Hour
)

// parseNumber is the one parse of every number a flag takes (--rate, each
// of --percentiles, a duration given in seconds): a finite number within
// [lo, hi]. Its error names the value as given, for the flag's message.
func parseNumber(s string, lo, hi float64) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	span := "from " + strconv.FormatFloat(lo, 'f', -1, 64) + " to " + strconv.FormatFloat(hi, 'f', -1, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%q is out of range; give a number %s", s, span)
	case err != nil:
		return 0, fmt.Errorf("%q is not a number", s)
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is not a finite number; give a number %s", s, span)
	case v < lo && lo == 0:
		return 0, fmt.Errorf("%q is negative", s)
	case v < lo || v > hi:
		return 0, fmt.Errorf("%q is out of range; give a number %s", s, span)
	}
	return v, nil
}

// floatValue is a pflag value for a number within [lo, hi] (parseNumber).
type floatValue struct {
	p      *float64
	lo, hi float64
}

func (v floatValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v floatValue) Set(s string) error {
	n, err := parseNumber(s, v.lo, v.hi)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v floatValue) Type() string { return "float64" }

func floatVarP(fs *pflag.FlagSet, p *float64, name, short string, def, lo, hi float64, usage string) {
	*p = def
	fs.VarP(floatValue{p, lo, hi}, name, short, usage)
}

// durationValue is a pflag value that takes a Go duration ("90s", "2m") or
// a bare number of its unit (seconds, as pgbench's -T takes; milliseconds
// for -L, as pgbench's): at most maxDuration, so that no value overflows.
type durationValue struct {
	d    *time.Duration
	unit time.Duration
}

func (v durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return "0"
	}
	return v.d.String()
}

// durationSyntax is what time.ParseDuration reads; a value of this form
// that it refuses is too long for a time.Duration.
var durationSyntax = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

func (v durationValue) Set(s string) error {
	tooLong := fmt.Errorf("%q is longer than %s (30 days), the longest duration a flag takes", s, maxDuration)
	unit, unitName := v.unit, "seconds"
	if unit == 0 {
		unit = time.Second
	}
	if unit == time.Millisecond {
		unitName = "milliseconds"
	}
	notDuration := fmt.Errorf("%q is not a duration; use e.g. 30s, 5m or a number of %s", s, unitName)
	// A bare number of the unit: checked as every number is (parseNumber),
	// after the words for what is not a duration.
	most := float64(maxDuration) / float64(unit)
	switch n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); {
	case errors.Is(err, strconv.ErrRange), err == nil && n > most && !math.IsInf(n, 1):
		return tooLong
	case err == nil && (math.IsNaN(n) || math.IsInf(n, 0)):
		return notDuration
	case err == nil:
		if n, err = parseNumber(s, 0, most); err != nil {
			return err
		}
		*v.d = time.Duration(n * float64(unit))
		return nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && durationSyntax.MatchString(s):
		return tooLong
	case err != nil:
		return notDuration
	case d < 0:
		return fmt.Errorf("%q is negative", s)
	case d > maxDuration:
		return tooLong
	}
	*v.d = d
	return nil
}

func (v durationValue) Type() string { return "duration" }

func durationVarP(fs *pflag.FlagSet, p *time.Duration, name, short string, def time.Duration, usage string) {
	*p = def
	fs.VarP(durationValue{d: p}, name, short, usage)
}

// millisVarP is durationVarP for a flag whose bare number is milliseconds
// (--latency-limit, as pgbench's -L).
func millisVarP(fs *pflag.FlagSet, p *time.Duration, name, short string, def time.Duration, usage string) {
	*p = def
	fs.VarP(durationValue{d: p, unit: time.Millisecond}, name, short, usage)
}
