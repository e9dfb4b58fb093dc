package runner

import (
	"bufio"
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
)

// hdrLog writes --hdr-log as the intervals come. The first write error
// stops it; the run ends with that error after its summary.
type hdrLog struct {
	w     *bufio.Writer
	runID string
	ops   []string
	log   *report.HDRLog
	err   error
}

// newHDRLog returns nil (which writes nothing) when w is nil.
func newHDRLog(w io.Writer, runID string, ops []string) *hdrLog {
	if w == nil {
		return nil
	}
	return &hdrLog{w: bufio.NewWriter(w), runID: runID, ops: ops}
}

// interval writes one tick; the log's start is the run's clock's, which
// the first tick gives.
func (l *hdrLog) interval(tk *loadgen.Tick, iv *results.Interval) {
	if l == nil || l.err != nil {
		return
	}
	if l.log == nil {
		l.log, l.err = report.NewHDRLog(l.w, l.runID, tk.End.Add(-tk.Elapsed), l.ops)
		if l.err != nil {
			return
		}
	}
	hists := make([]*hdr.Histogram, len(tk.Ops))
	for i, o := range tk.Ops {
		hists[i] = o.Hist
	}
	l.err = l.log.Interval(iv, hists)
}

// close flushes the log and returns the first error, if any.
func (l *hdrLog) close() error {
	if l == nil {
		return nil
	}
	if l.err == nil {
		l.err = l.w.Flush()
	}
	if l.err != nil {
		return fmt.Errorf("--hdr-log: %v", l.err)
	}
	return nil
}
