//go:build linux

package main

import (
	"fmt"
	"testing"
)

// The median's interval is the sign test's: the 10th and the 21st of 30
// ratios (95.7%), the 6th and the 15th of 20, the smallest and the
// largest of 8 (99.2%), and none of 5, whose extremes bound the median
// with 93.75% only.
func TestTheMediansIntervalIsTheSignTests(t *testing.T) {
	ratios := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64((i*7)%n) + 1 // 1..n, shuffled
		}
		return xs
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
		conf   string
	}{{30, 10, 21, "0.957"}, {20, 6, 15, "0.959"}, {8, 1, 8, "0.992"}, {6, 1, 6, "0.969"}} {
		lo, hi, conf, ok := medianCI(ratios(c.n))
		if !ok || lo != c.lo || hi != c.hi || fmt.Sprintf("%.3f", conf) != c.conf {
			t.Errorf("%d ratios: interval %v-%v at %.4f (ok %v); want %v-%v at %s", c.n, lo, hi, conf, ok, c.lo, c.hi, c.conf)
		}
	}
	if _, _, _, ok := medianCI(ratios(5)); ok {
		t.Error("5 ratios give an interval; the sign test gives none at 95%")
	}
	if got := ciText(ratios(30)); got != "95% CI 10.000-21.000, " {
		t.Errorf("the summary's interval reads %q", got)
	}
}
