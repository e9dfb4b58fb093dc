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
