package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// Outlier is where a run's slowest transaction happened, and what the
// evidence says of that interval next to the rest of the measured phase.
type Outlier struct {
	MaxMs  float64
	P999Ms float64 // the run's p99.9, for scale (NaN when unknown)
	Op     string  // the transaction type whose maximum it was
	Seq    int     // the interval
	// From and To bound the interval in seconds since the start of the run.
	From, To float64
	// Evidence lists what stood out in that interval: phrases such as
	// "client host idle 2% (rest of the run 31%)" or "waits Lock:tuple
	// 40% (rest of the run 3%)", most telling first.
	Evidence []string
	// Cause, when the interval's wait profile was mostly a lock wait, says
	// so and names the session holding the lock when it is known
	// (lockCause): the counters that moved there are then its
	// consequences, listed after it.
	Cause string
}

// IsOutlier says whether the maximum stands far from the rest: more than
// three times the run's p99.9.
func (o *Outlier) IsOutlier() bool {
	return !math.IsNaN(o.P999Ms) && o.MaxMs > 3*o.P999Ms
}

// Sentence is the outlier on one line, for the text summary and reports.
func (o *Outlier) Sentence() string {
	s := fmt.Sprintf("slowest transaction %s ms (%s) in interval %d, %s–%s s", fmtMs(o.MaxMs), o.Op, o.Seq, trimNum(o.From), trimNum(o.To))
	if !math.IsNaN(o.P999Ms) && o.P999Ms > 0 && o.MaxMs >= 2*o.P999Ms {
		s += fmt.Sprintf(", %.0fx the run's p99.9 of %s ms", o.MaxMs/o.P999Ms, fmtMs(o.P999Ms))
	}
	switch {
	case o.Cause != "" && len(o.Evidence) > 0:
		s += "; there: " + o.Cause + "; also there: " + strings.Join(o.Evidence, ", ")
	case o.Cause != "":
		s += "; there: " + o.Cause
	case len(o.Evidence) > 0:
		s += "; there: " + strings.Join(o.Evidence, ", ")
	default:
		s += "; nothing in the evidence stands out there"
	}
	return s
}

func trimNum(f float64) string { return fmt.Sprintf("%.1f", f) }

// FindOutlier finds the measured interval and transaction type of a run's
// slowest transaction and reads the evidence of that interval: the client
// host's idle share and the harness's CPU, the wait events whose share
// there is well above the run's, and the collectors' counters whose rate
// there is at least twice their mean. nil when nothing was measured.
func FindOutlier(r *results.Run) *Outlier {
	var o *Outlier
	idx := -1
	for i, iv := range r.Intervals {
		if iv.Phase != runphase.Measure {
			continue
		}
		for _, op := range iv.Ops {
			m, ok := op.LatencyMs["max"]
			if !ok || (o != nil && m <= o.MaxMs) {
				continue
			}
			o = &Outlier{MaxMs: m, Op: op.Name, Seq: iv.Seq, From: iv.T - iv.Seconds, To: iv.T}
			idx = i
		}
	}
	if o == nil {
		return nil
	}
	o.P999Ms = math.NaN()
	if v, ok := r.Summary.LatencyMs["p99.9"]; ok {
		o.P999Ms = v
	}
	iv := r.Intervals[idx]
	var ev []scored
	// The client host: busy when the slow transaction ran?
	if iv.HostIdlePct != nil {
		mean, n := 0.0, 0
		for _, x := range r.Intervals {
			if x.Phase == runphase.Measure && x.HostIdlePct != nil && x.Seq != iv.Seq {
				mean += *x.HostIdlePct
				n++
			}
		}
		if n > 0 {
			mean /= float64(n)
			if *iv.HostIdlePct < mean/2 && mean-*iv.HostIdlePct >= 5 {
				ev = append(ev, scored{fmt.Sprintf("client host idle %.0f%% (rest of the run %.0f%%)", *iv.HostIdlePct, mean), (mean + 1) / (*iv.HostIdlePct + 1)})
			}
		}
	}
	o.Cause = lockCause(r.Waits, iv.Seq)
	if o.Cause == "" {
		ev = append(ev, waitEvidence(r.Waits, iv.Seq)...)
	}
	if r.Collect != nil {
		for _, name := range r.Collect.Names() {
			ev = append(ev, rateEvidence(name, r.Collect.Get(name), iv.Seq)...)
		}
	}
	// Ties go by text: the counters come from maps, whose order differs
	// from one run of the program to the next.
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].score != ev[j].score {
			return ev[i].score > ev[j].score
		}
		return ev[i].text < ev[j].text
	})
	most := 4
	if o.Cause != "" {
		most = 2
	}
	for i := 0; i < len(ev) && i < most; i++ {
		o.Evidence = append(o.Evidence, ev[i].text)
	}
	return o
}

type scored struct {
	text  string
	score float64
}

// waitEvidence lists the wait events whose share in interval seq is at
// least a tenth and at least twice their share in the rest of the
// measured phase.
func waitEvidence(w *results.Waits, seq int) []scored {
	at, rest, restTotal := splitWaits(w, seq)
	if at == nil {
		return nil
	}
	var out []scored
	for ev, share := range at.Shares {
		other := 0.0
		if restTotal > 0 {
			other = rest[ev] / restTotal
		}
		if ev == "CPU" || share < 0.1 || share < 2*other {
			continue
		}
		out = append(out, scored{fmt.Sprintf("waits %s %.0f%% (rest of the run %.0f%%)", ev, 100*share, 100*other), (share + 0.01) / (other + 0.01)})
	}
	return out
}

// splitWaits finds the wait profile's measured interval that covers
// interval seq (nil if none), and sums the weight of each event over the
// rest of the measured phase, and their total.
func splitWaits(w *results.Waits, seq int) (at *results.WaitInterval, rest map[string]float64, restTotal float64) {
	if w == nil {
		return nil, nil, 0
	}
	rest = map[string]float64{}
	for i := range w.Intervals {
		wi := &w.Intervals[i]
		if wi.Phase != runphase.Measure || wi.Total <= 0 {
			continue
		}
		if covers(wi.Seq, wi.Span, seq) {
			at = wi
			continue
		}
		for ev, share := range wi.Shares {
			rest[ev] += share * wi.Total
		}
		restTotal += wi.Total
	}
	return at, rest, restTotal
}

// rateEvidence lists the counters of a collector whose rate in interval
// seq is at least twice their mean over the rest of the measured phase (or
// that moved there only).
func rateEvidence(name string, s *evidence.Series, seq int) []scored {
	if s == nil {
		return nil
	}
	sum, secs := map[string]float64{}, 0.0
	var at *evidence.Point
	for i := range s.Intervals {
		p := &s.Intervals[i]
		if p.Phase != runphase.Measure {
			continue
		}
		if covers(p.Seq, p.Span, seq) {
			at = p
			continue
		}
		for k, v := range p.Rates {
			sum[k] += v * p.Seconds
		}
		secs += p.Seconds
	}
	if at == nil {
		return nil
	}
	var out []scored
	for k, v := range at.Rates {
		mean := 0.0
		if secs > 0 {
			mean = sum[k] / secs
		}
		if v <= 0 || v < 2*mean {
			continue
		}
		// A counter that moves rarely (a checkpoint) scores by how far above
		// its mean it was; one that moved only here scores highest.
		score := math.Min(v/math.Max(mean, 1e-9), 1e6)
		out = append(out, scored{fmt.Sprintf("%s %s %s/s (rest of the run %s/s)", name, counterLabel(k), numfmt.Figure(v), numfmt.Figure(mean)), score})
	}
	return out
}

// covers says whether a point ending at interval end and spanning span
// intervals (0: one) covers interval seq.
func covers(end, span, seq int) bool { return results.Covers(end, span, seq) }
