package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
)

// EvidenceWaits is the kind under which AddEvidence stores the wait
// profile's intervals; every other kind is the name of a collector whose
// series (Collect.Series) the points belong to.
const EvidenceWaits = "waits"

const evidenceSchema = `
CREATE TABLE IF NOT EXISTS evidence (
	run_id TEXT NOT NULL,
	kind   TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	point  TEXT NOT NULL,
	PRIMARY KEY (run_id, kind, seq)
);
`

// AddEvidence appends one interval of a collector's series (a Point for
// a collector's series, kind its name; a WaitInterval for EvidenceWaits) as the
// run goes, so that a harness killed mid-run keeps its evidence up to the
// last interval. The rows are dropped when the finished run is saved with
// its whole series.
func (s *Store) AddEvidence(runID, kind string, seq int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.exec(`INSERT INTO evidence (run_id, kind, seq, point) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, kind, seq) DO UPDATE SET point = excluded.point`, runID, kind, seq, string(b))
	if err != nil {
		return s.writeError(fmt.Sprintf("save %s evidence %d of run %s", kind, seq, runID), err)
	}
	return nil
}

// abandoned says whether a run saved as running was left by a process that
// is gone: it ran on this host, under another process id than ours, and
// that process no longer exists.
func abandoned(r *Run, pid int) bool {
	if r.Status != StatusRunning || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if host, _ := os.Hostname(); r.Host.Hostname != "" && host != r.Host.Hostname {
		return false
	}
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

// recoverRun turns the saved intervals of an abandoned run into its result:
// status failed with the reason, the summary and per-operation figures of
// the measured intervals from their histograms.
func (s *Store) recoverRun(ctx context.Context, r *Run, pid int) error {
	hists, err := s.IntervalHists(ctx, r.RunID)
	if err != nil {
		return err
	}
	r.Status = StatusFailed
	r.Error = fmt.Sprintf("the harness (process %d) ended without finishing the run (killed or crashed); the %d intervals it saved are kept",
		pid, len(r.Intervals))
	summarizeIntervals(r, hists)
	return nil
}

// IntervalHists returns the per-operation histograms saved with a run's
// intervals, encoded (EncodeHist), by seq and then operation name. An
// interval or operation that recorded nothing has none.
func (s *Store) IntervalHists(ctx context.Context, runID string) (map[int]map[string]string, error) {
	rows, err := s.query(ctx, `SELECT seq, hists FROM intervals WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	hists := map[int]map[string]string{}
	for rows.Next() {
		var seq int
		var hb *string
		if err := rows.Scan(&seq, &hb); err != nil {
			return nil, err
		}
		if hb != nil && *hb != "" {
			m := map[string]string{}
			if json.Unmarshal([]byte(*hb), &m) == nil {
				hists[seq] = m
			}
		}
	}
	return hists, rows.Err()
}

// summarizeIntervals fills the summary and operations of r from its
// measured intervals and their per-operation histograms (by seq, then
// operation name).
func summarizeIntervals(r *Run, hists map[int]map[string]string) {
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

// fillEvidence puts the evidence rows of a run that has not been saved
// finished (running, or abandoned) into its collector series.
func (s *Store) fillEvidence(ctx context.Context, r *Run) error {
	rows, err := s.query(ctx, `SELECT kind, point FROM evidence WHERE run_id = ? ORDER BY kind, seq`, r.RunID)
	if err != nil {
		return err
	}
	defer rows.Close()
	pts := map[string][]evidence.Point{}
	var waitPts []WaitInterval
	for rows.Next() {
		var kind, js string
		if err := rows.Scan(&kind, &js); err != nil {
			return err
		}
		if kind == EvidenceWaits {
			var w WaitInterval
			if err := json.Unmarshal([]byte(js), &w); err != nil {
				return fmt.Errorf("run %s: damaged wait evidence: %v", r.RunID, err)
			}
			waitPts = append(waitPts, w)
			continue
		}
		var p evidence.Point
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return fmt.Errorf("run %s: damaged %s evidence: %v", r.RunID, kind, err)
		}
		pts[kind] = append(pts[kind], p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(pts)+len(waitPts) == 0 {
		return nil
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
	return nil
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
