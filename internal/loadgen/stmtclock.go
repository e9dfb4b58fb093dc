package loadgen

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/measure"
)

// extraClock is a client's optional clocks: its statements' latencies
// (Config.ReportStatements) and its connections' times
// (Config.ConnectPerTx), over the measured phase. Only a run that asks for
// them has one; the lock is the client's own, taken only while it records,
// and keeps the run's end from reading what a client still writes.
type extraClock struct {
	mu sync.Mutex
	// on: the client's transaction in flight began in the measured phase.
	on bool
	// stmts[op][stmt] are made on first use.
	stmts   [][]*hdr.Histogram
	connect *hdr.Histogram
}

func newExtraClock(names [][]string) *extraClock {
	x := &extraClock{stmts: make([][]*hdr.Histogram, len(names))}
	for i, n := range names {
		x.stmts[i] = make([]*hdr.Histogram, len(n))
	}
	return x
}

// Statement implements workload.StatementClock.
func (x *extraClock) Statement(op, stmt int, d time.Duration) {
	if !x.on || op >= len(x.stmts) || stmt >= len(x.stmts[op]) {
		return
	}
	x.mu.Lock()
	h := x.stmts[op][stmt]
	if h == nil {
		h = histogram.New()
		x.stmts[op][stmt] = h
	}
	histogram.Record(h, d)
	x.mu.Unlock()
}

// connected records the time a connection took, when in the measured phase.
func (x *extraClock) connected(measured bool, d time.Duration) {
	if !measured {
		return
	}
	x.mu.Lock()
	if x.connect == nil {
		x.connect = histogram.New()
	}
	histogram.Record(x.connect, d)
	x.mu.Unlock()
}

// mergeExtra merges the clients' statement histograms, named by names,
// and their connection times.
func mergeExtra(clients []*client, ops []string, names [][]string) ([]measure.StatementResult, *hdr.Histogram) {
	var stmts []measure.StatementResult
	for op, ns := range names {
		for _, n := range ns {
			stmts = append(stmts, measure.StatementResult{Op: ops[op], Name: n, Hist: histogram.New()})
		}
	}
	var connect *hdr.Histogram
	for _, c := range clients {
		x := c.extra
		if x == nil {
			continue
		}
		x.mu.Lock()
		k := 0
		for op, ns := range names {
			for i := range ns {
				if h := x.stmts[op][i]; h != nil {
					stmts[k].Hist.Merge(h)
				}
				k++
			}
		}
		if x.connect != nil {
			if connect == nil {
				connect = histogram.New()
			}
			connect.Merge(x.connect)
		}
		x.mu.Unlock()
	}
	return stmts, connect
}
