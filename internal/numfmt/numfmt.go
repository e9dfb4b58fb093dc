// Package numfmt writes numbers for people: whole counts and rates with
// thousands separators ("74,447"), as the reports' tables and the
// analysis' sentences show them.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Group inserts thousands separators into an integer's decimal string.
func Group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Whole is v rounded to a whole number, with thousands separators
// (74446.6 is "74,447"); NaN and the infinities as strconv writes them.
func Whole(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return Group(strconv.FormatFloat(v, 'f', 0, 64))
}

// Figure writes a rate or a ratio for people: a whole number with
// thousands separators from 1,000 on (18,738), one decimal from 100 (266.4,
// and 266 for 266.0), up to two below (3.25, 0.5), three significant
// digits under 1 (0.0123); NaN and the infinities as "-".
func Figure(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return Whole(v)
	case a >= 100:
		// 266, not 266.0: a count of samples has no tenths to show.
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
	case a >= 1 || a == 0:
		return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}
