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
