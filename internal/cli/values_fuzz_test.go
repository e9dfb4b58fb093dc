package cli

import (
	"math"
	"testing"
	"time"
)

// Whatever a user types, a duration flag holds a duration from 0 to
// maxDuration or refuses the value: never an overflow.
func FuzzDurationValue(f *testing.F) {
	for _, s := range []string{"10s", "90", "1.5", "9999999999999", "99999999h", "NaN", "-Inf", "1e400", "-1", "720h", "720h0m1s", "0x10", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := time.Duration(-1)
		if err := (durationValue{d: &d}).Set(s); err != nil {
			return
		}
		if d < 0 || d > maxDuration {
			t.Fatalf("Set(%q) = %s, outside 0..%s", s, d, maxDuration)
		}
	})
}

// Whatever a user types, a number flag holds a finite number within its
// bounds or refuses the value.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", "1e7", "1e308", "NaN", "Inf", "-0", "0x1p-2", " 5 ", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseNumber(s, 0, maxRate)
		if err != nil {
			return
		}
		if math.IsNaN(v) || v < 0 || v > maxRate {
			t.Fatalf("parseNumber(%q) = %g, outside 0..%g", s, v, float64(maxRate))
		}
	})
}
