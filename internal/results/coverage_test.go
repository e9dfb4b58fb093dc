package results

import (
	"fmt"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
)

func TestCoverageCountsOnlyTheIntervalsACollectorSpanned(t *testing.T) {
	// Ten intervals of a second, 100 transactions each; the first is the
	// warm-up.
	r := &Run{Summary: Summary{Transactions: 900, Seconds: 9}}
	for seq := 0; seq < 10; seq++ {
		phase := "measure"
		if seq == 0 {
			phase = "warmup"
		}
		r.Intervals = append(r.Intervals, Interval{Seq: seq, Phase: phase, T: float64(seq + 1), Seconds: 1, Count: 100})
	}
	pt := func(seq, span int) evidence.Point {
		return evidence.Point{Seq: seq, Span: span, Phase: r.Intervals[seq].Phase}
	}
	s := &evidence.Series{
		// 3 and 4 were lost (a recorded gap); 6 was not sampled but 7
		// spans it; 9, the last, was never sampled.
		Intervals: []evidence.Point{pt(0, 0), pt(1, 0), pt(2, 0), pt(5, 0), pt(7, 2), pt(8, 0)},
		Gaps:      []evidence.Gap{{FirstSeq: 3, LastSeq: 4, From: 3, To: 5, Reason: "its connection was lost"}},
	}
	c := r.SeriesCoverage(s)
	if c.Seconds != 6 || c.Of != 9 || c.Transactions != 600 {
		t.Errorf("covers %g s of %g with %d transactions, want 6 of 9 with the 600 of the measured intervals spanned", c.Seconds, c.Of, c.Transactions)
	}
	want := []Stretch{{From: 3, To: 5, Reason: "its connection was lost"}, {From: 9, To: 10, Reason: "no sample was taken"}}
	if fmt.Sprint(c.Uncovered) != fmt.Sprint(want) || c.Complete() {
		t.Errorf("uncovered %+v, want %+v", c.Uncovered, want)
	}

	w := &Waits{Intervals: []WaitInterval{{Seq: 0, Phase: "warmup"}}}
	for seq := 1; seq < 10; seq++ {
		w.Intervals = append(w.Intervals, WaitInterval{Seq: seq, Phase: "measure"})
	}
	if c := r.WaitsCoverage(w); !c.Complete() || c.Seconds != 9 || c.Transactions != 900 {
		t.Errorf("a profile of every interval: %+v", c)
	}
	if c := (&Run{Summary: r.Summary}).SeriesCoverage(s); !c.Complete() || c.Transactions != 900 {
		t.Errorf("a run saved without intervals is taken as covered: %+v", c)
	}
}
