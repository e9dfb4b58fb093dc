package results

import (
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
)

// EvidenceWaits is the kind under which the store keeps the wait
// profile's intervals as a run goes; every other kind is the name of a
// collector whose series (Collect.Series) the points belong to.
const EvidenceWaits = "waits"

// SummarizeIntervals fills the summary and operations of r from its
// measured intervals and their per-operation histograms (by seq, then
// operation name): how a run its harness never finished is recovered, and
// how a group's merged intervals are summed up.
func SummarizeIntervals(r *Run, hists map[int]map[string]string) {
	ps := r.Config.Percentiles
	all := histogram.New()
	byOp := map[string]*hdr.Histogram{}
	ops := map[string]*Op{}
	var order []string
	var secs float64
	r.Summary = Summary{}
	for _, iv := range r.Intervals {
		if r.EndTime.IsZero() || r.StartTime.Add(time.Duration(iv.T*float64(time.Second))).After(r.EndTime) {
			r.EndTime = r.StartTime.Add(time.Duration(iv.T * float64(time.Second)))
		}
		if iv.Phase == "warmup" {
			continue
		}
		secs += iv.Seconds
		r.Summary.Reconnects += iv.Reconnects
		for _, o := range iv.Ops {
			op := ops[o.Name]
			if op == nil {
				op = &Op{Name: o.Name}
				ops[o.Name] = op
				order = append(order, o.Name)
				byOp[o.Name] = histogram.New()
			}
			op.Count += o.Count
			op.Errors += o.Errors
			op.Retries += o.Retries
			if h, err := DecodeHist(hists[iv.Seq][o.Name]); err == nil && h != nil {
				byOp[o.Name].Merge(h)
			}
		}
		r.Summary.Late += iv.Late
		for k, v := range iv.ErrorClasses {
			if r.ErrorClasses == nil {
				r.ErrorClasses = map[string]int64{}
			}
			r.ErrorClasses[k] += v
		}
	}
	r.Ops = r.Ops[:0]
	for _, name := range order {
		op := ops[name]
		h := byOp[name]
		all.Merge(h)
		op.LatencyMs, op.Histogram = LatencyOf(h, ps), EncodeHist(h)
		if secs > 0 {
			op.TPS = round2(float64(op.Count) / secs)
		}
		r.Ops = append(r.Ops, *op)
		r.Summary.Transactions += op.Count
		r.Summary.Errors += op.Errors
		r.Summary.Retries += op.Retries
	}
	r.Summary.Seconds = round3(secs)
	if secs > 0 {
		r.Summary.TPS = round2(float64(r.Summary.Transactions) / secs)
	}
	r.Summary.LatencyMs = LatencyOf(all, ps)
}

// RestoreEvidence puts the evidence a run kept as it went (its
// collectors' points by collector name, and its wait profile's intervals)
// into the run's series and wait profile, when the run was not saved
// finished (running, or abandoned): a series that has intervals of its own
// is kept, the wait profile's shares are summed from its intervals.
func (r *Run) RestoreEvidence(pts map[string][]evidence.Point, waitPts []WaitInterval) {
	if len(pts)+len(waitPts) == 0 {
		return
	}
	if r.Collect == nil {
		r.Collect = &Collect{}
	}
	for kind, p := range pts {
		r.Collect.Set(kind, seriesFrom(r.Collect.Get(kind), p))
	}
	if len(waitPts) > 0 {
		if r.Waits == nil {
			r.Waits = &Waits{}
		}
		r.Waits.Intervals = waitPts
		weights := map[string]float64{}
		r.Waits.Total = 0
		for _, w := range waitPts {
			if w.Phase == "warmup" {
				continue
			}
			r.Waits.Total += w.Total
			for e, sh := range w.Shares {
				weights[e] += sh * w.Total
			}
		}
		r.Waits.Events = r.Waits.Events[:0]
		for e, wt := range weights {
			ws := WaitShare{Event: e, Weight: round3(wt)}
			if r.Waits.Total > 0 {
				ws.Share = math.Round(wt/r.Waits.Total*10000) / 10000
			}
			r.Waits.Events = append(r.Waits.Events, ws)
		}
		SortWaitShares(r.Waits.Events)
		r.Waits.Total = round3(r.Waits.Total)
	}
}

// seriesFrom returns the series with the stored points (and their measured
// totals, from the rates) when it has none of its own.
func seriesFrom(s *evidence.Series, pts []evidence.Point) *evidence.Series {
	if len(pts) == 0 || (s != nil && len(s.Intervals) > 0) {
		return s
	}
	if s == nil {
		s = &evidence.Series{}
	}
	s.Intervals = pts
	s.Totals = map[string]float64{}
	for _, p := range pts {
		if p.Phase == "warmup" {
			continue
		}
		for k, v := range p.Rates {
			s.Totals[k] += v * p.Seconds
		}
	}
	for k, v := range s.Totals {
		s.Totals[k] = round3(v)
	}
	return s
}
