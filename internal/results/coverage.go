package results

import (
	"math"

	"github.com/dbharness/dbharness/internal/evidence"
)

// Coverage is the part of a run's measured phase that one collector's
// evidence covers: the run's intervals its points span. A collector whose
// connection was lost, or whose sample failed, covers nothing until it
// samples again; its figures per transaction count only the transactions
// of the intervals it covered.
type Coverage struct {
	// Seconds of the measured phase covered, of Of.
	Seconds, Of float64
	// Transactions are those committed in the intervals the collector's
	// measured points span: what its figures per transaction divide by.
	Transactions int64
	// Uncovered are the stretches of the measured phase not covered, in
	// order.
	Uncovered []Stretch
}

// Stretch is a part of a run, in seconds since its start, with why it was
// not covered.
type Stretch struct {
	From, To float64
	// Reason is the gap's (Gap.Reason), or "no sample was taken" for
	// intervals no recorded gap explains (a run saved without its gaps).
	Reason string
}

// Complete says whether the collector covered the whole measured phase.
func (c Coverage) Complete() bool { return len(c.Uncovered) == 0 }

// SeriesCoverage is what series s covers of run r.
func (r *Run) SeriesCoverage(s *evidence.Series) Coverage {
	spans := make([]span, len(s.Intervals))
	for i, p := range s.Intervals {
		spans[i] = span{p.Seq, p.Span, p.Phase}
	}
	return r.coverage(spans, s.Gaps)
}

// WaitsCoverage is what wait profile w covers of run r.
func (r *Run) WaitsCoverage(w *Waits) Coverage {
	spans := make([]span, len(w.Intervals))
	for i, p := range w.Intervals {
		spans[i] = span{p.Seq, p.Span, p.Phase}
	}
	return r.coverage(spans, w.Gaps)
}

// span is the run's intervals one point covers: n (0 is one) ending with
// seq.
type span struct {
	seq, n int
	phase  string
}

func (r *Run) coverage(spans []span, gaps []evidence.Gap) Coverage {
	if len(r.Intervals) == 0 {
		// A run saved without its intervals: nothing tells what was
		// covered from what was not.
		return Coverage{Seconds: r.Summary.Seconds, Of: r.Summary.Seconds, Transactions: r.Summary.Transactions}
	}
	covered := map[int]bool{}  // by any point
	measured := map[int]bool{} // by a point of the measured phase, as the totals are
	for _, sp := range spans {
		for k := sp.seq - max(sp.n, 1) + 1; k <= sp.seq; k++ {
			covered[k] = true
			if sp.phase != "warmup" {
				measured[k] = true
			}
		}
	}
	var c Coverage
	last := -1 // the stretch the previous interval added to, if it was uncovered
	for i, iv := range r.Intervals {
		if measured[iv.Seq] {
			c.Transactions += iv.Count
		}
		if iv.Phase == "warmup" {
			continue
		}
		c.Of += iv.Seconds
		if covered[iv.Seq] {
			c.Seconds += iv.Seconds
			last = -1
			continue
		}
		why := gapReason(gaps, iv.Seq)
		if last >= 0 && last == i-1 && c.Uncovered[len(c.Uncovered)-1].Reason == why {
			c.Uncovered[len(c.Uncovered)-1].To = iv.T
		} else {
			c.Uncovered = append(c.Uncovered, Stretch{From: round3(math.Max(iv.T-iv.Seconds, 0)), To: iv.T, Reason: why})
		}
		last = i
	}
	c.Seconds, c.Of = round3(c.Seconds), round3(c.Of)
	return c
}

// gapReason is why interval seq was not covered.
func gapReason(gaps []evidence.Gap, seq int) string {
	for _, g := range gaps {
		if seq >= g.FirstSeq && seq <= g.LastSeq {
			return g.Reason
		}
	}
	return "no sample was taken"
}
