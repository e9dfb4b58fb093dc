package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// HDRLog writes a run's per-interval latency histograms in HdrHistogram's
// interval log format (the one wrk2 and YCSB write and HdrHistogram's log
// processors read): one line per interval and transaction type, tagged
// with the type's name, its timestamps in seconds from the start of the
// run (the log's StartTime). Values are microseconds; the writer puts each
// line's maximum in units of 10^6 of them (seconds).
//
// `run --hdr-log` writes it as the run goes and `report RUN --hdr-log`
// from a saved run, both through Interval, so the two logs are the same.
type HDRLog struct {
	w   *hdr.HistogramLogWriter
	ops []string
	// tags are the ops' names made fit for a tag.
	tags []string
	// empty stands for a type that recorded nothing in an interval.
	empty *hdr.Histogram
}

// NewHDRLog writes the log's header for a run that started at start with
// the given transaction types.
func NewHDRLog(w io.Writer, runID string, start time.Time, ops []string) (*HDRLog, error) {
	l := &HDRLog{w: hdr.NewHistogramLogWriter(w), ops: ops, empty: histogram.New()}
	for _, op := range ops {
		l.tags = append(l.tags, hdrTag(op))
	}
	for _, f := range []func() error{
		l.w.OutputLogFormatVersion,
		func() error {
			return l.w.OutputComment(fmt.Sprintf("[dbharness run %s: latencies in microseconds, one tag per transaction type: %s]",
				runID, strings.Join(l.tags, " ")))
		},
		func() error { return l.w.OutputStartTime(start.UnixMilli()) },
		l.w.OutputLegend,
	} {
		if err := f(); err != nil {
			return nil, fmt.Errorf("write HdrHistogram log: %w", err)
		}
	}
	return l, nil
}

// hdrTag makes a transaction type's name a valid tag: no comma, space or
// line break.
func hdrTag(op string) string {
	t := strings.Map(func(r rune) rune {
		if r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return '_'
		}
		return r
	}, op)
	if t == "" {
		t = "_"
	}
	return t
}

// Interval writes one interval: hists[i] is the i-th transaction type's
// histogram (nil or empty when it recorded nothing). Every type has a line
// in every interval, so the log's intervals line up with the run's.
func (l *HDRLog) Interval(iv *results.Interval, hists []*hdr.Histogram) error {
	endMs := int64(math.Round(iv.T * 1000))
	startMs := int64(math.Round((iv.T - iv.Seconds) * 1000))
	if iv.Phase == runphase.Warmup && iv.Seq == 0 {
		if err := l.w.OutputComment("[warm-up intervals first; they are not in the run's summary]"); err != nil {
			return err
		}
	}
	for i, tag := range l.tags {
		h := l.empty
		if i < len(hists) && hists[i] != nil {
			h = hists[i]
		}
		h.SetTag(tag)
		h.SetStartTimeMs(startMs)
		h.SetEndTimeMs(endMs)
		if err := l.w.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("write HdrHistogram log: %w", err)
		}
	}
	return nil
}

// WriteHDRLog writes a saved run's log from its intervals and their saved
// histograms (store.Store.IntervalHists), or a group's from its merged
// ones (store.Store.GetGroup).
func WriteHDRLog(w io.Writer, run *results.Run, encoded map[int]map[string]string) error {
	ops := make([]string, 0, len(run.Ops))
	for _, o := range run.Ops {
		ops = append(ops, o.Name)
	}
	id := run.RunID
	if g := run.Group; g != nil {
		id = fmt.Sprintf("group %s, %d of %d shards, their histograms merged", g.Name, len(run.Shards), g.Shards)
	}
	l, err := NewHDRLog(w, id, run.StartTime, ops)
	if err != nil {
		return err
	}
	for k := range run.Intervals {
		iv := &run.Intervals[k]
		hists := make([]*hdr.Histogram, len(ops))
		for i, op := range ops {
			s := encoded[iv.Seq][op]
			if s == "" {
				continue
			}
			h, err := results.DecodeHist(s)
			if err != nil {
				return fmt.Errorf("run %s: interval %d's %s histogram is damaged: %v", run.RunID, iv.Seq, op, err)
			}
			hists[i] = h
		}
		if err := l.Interval(iv, hists); err != nil {
			return err
		}
	}
	return nil
}
