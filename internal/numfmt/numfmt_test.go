package numfmt

import (
	"math"
	"testing"
)

func TestWholeNumbersHaveThousandsSeparators(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {999.4, "999"}, {999.5, "1,000"}, {74446.6, "74,447"}, {1234567, "1,234,567"},
		{-1234.2, "-1,234"}, {-999, "-999"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"},
	} {
		if got := Whole(c.v); got != c.want {
			t.Errorf("Whole(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := Group("-100000"); got != "-100,000" {
		t.Errorf("Group(-100000) = %q", got)
	}
}

func TestFiguresKeepTheDigitsTheirSizeCallsFor(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{18738.24, "18,738"}, {1000, "1,000"}, {266.44, "266.4"}, {266.04, "266"}, {99.456, "99.46"},
		{3.5, "3.5"}, {2, "2"}, {0, "0"}, {0.01234, "0.0123"}, {-1500, "-1,500"},
		{math.NaN(), "-"}, {math.Inf(-1), "-"},
	} {
		if got := Figure(c.v); got != c.want {
			t.Errorf("Figure(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
