// Package histogram is the HdrHistogram registry of the driver: each worker
// records latencies into its own handles without taking a lock, and a
// single reader swaps the handles' buffers on every tick and merges them
// into per-operation interval and cumulative histograms.
//
// Values are recorded in microseconds, from 1 µs to 1 hour, with 2
// significant digits (1% resolution); one histogram of that shape takes
// about 26 KB, so a handle costs two of them per operation. The clients
// of one event loop share the loop's handle; goroutine clients share one
// per group of clients, under the group's lock (see package loadgen).
package histogram

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range and precision, shared by every histogram of a run so they
// can be merged.
const (
	MinValue   = 1             // 1 µs
	MaxValue   = 3_600_000_000 // 1 h in µs
	SigFigures = 2
)

// New returns an empty histogram with the registry's range and precision.
// Its header (which Record writes: the total count) sits between two
// cache lines' worth of padding, so that histograms written by different
// threads never share a cache line (see cacheLinePad).
func New() *hdr.Histogram {
	p := &padded[hdr.Histogram]{}
	p.v = *hdr.New(MinValue, MaxValue, SigFigures)
	return &p.v
}

// cacheLinePad keeps a value written on one CPU off the cache lines of its
// neighbours on the heap: two adjacent lines, since x86 CPUs fetch lines
// in pairs. Without it the histograms and phasers of two event loops,
// allocated one after the other, shared lines, and every Record on one
// loop invalidated the other's copy.
type cacheLinePad [128]byte

// padded holds a value with a cache-line pad on each side.
type padded[T any] struct {
	_ cacheLinePad
	v T
	_ cacheLinePad
}

// Record adds a duration to h, clamped into the histogram's range.
func Record(h *hdr.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < MinValue {
		us = MinValue
	} else if us > MaxValue {
		us = MaxValue
	}
	_ = h.RecordValue(us)
}

// phaser is a writer-reader phaser (after Gil Tene's WriterReaderPhaser):
// writers pay two uncontended atomic adds; the reader waits until every
// writer that entered the old phase has left it.
type phaser struct {
	startEpoch atomic.Int64
	evenEnd    atomic.Int64
	oddEnd     atomic.Int64
}

func newPhaser() *phaser {
	pp := &padded[phaser]{}
	p := &pp.v
	p.oddEnd.Store(math.MinInt64)
	return p
}

func (p *phaser) enter() int64 { return p.startEpoch.Add(1) - 1 }

func (p *phaser) exit(v int64) {
	if v < 0 {
		p.oddEnd.Add(1)
	} else {
		p.evenEnd.Add(1)
	}
}

// flip moves writers to the next phase and waits for the previous phase's
// writers to leave. Only one reader may call it at a time.
func (p *phaser) flip() {
	nextEven := p.startEpoch.Load() < 0
	var initial int64
	if nextEven {
		initial = 0
		p.evenEnd.Store(initial)
	} else {
		initial = math.MinInt64
		p.oddEnd.Store(initial)
	}
	atFlip := p.startEpoch.Swap(initial)
	for {
		var end int64
		if nextEven {
			end = p.oddEnd.Load()
		} else {
			end = p.evenEnd.Load()
		}
		if end == atFlip {
			return
		}
		runtime.Gosched()
	}
}

// Recorder is one worker's histogram for one operation. Record may be called
// from one goroutine while another calls Swap.
type Recorder struct {
	p      *phaser
	active atomic.Pointer[hdr.Histogram]
	spare  *hdr.Histogram
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	r := &Recorder{p: newPhaser(), spare: New()}
	r.active.Store(New())
	return r
}

// Record adds one latency. It takes no lock.
func (r *Recorder) Record(d time.Duration) {
	v := r.p.enter()
	Record(r.active.Load(), d)
	r.p.exit(v)
}

// Swap hands back everything recorded since the previous Swap and starts a
// new interval. The returned histogram is the caller's until the next Swap.
func (r *Recorder) Swap() *hdr.Histogram {
	r.spare.Reset()
	old := r.active.Swap(r.spare)
	r.p.flip()
	r.spare = old
	return old
}

// Registry holds the recorders of every worker, per operation, and merges
// them on each tick.
type Registry struct {
	ops []string
	mu  sync.Mutex // guards workers; taken when a worker joins and on ticks
	// workers[w][op]
	workers [][]*Recorder
}

// NewRegistry returns a registry for the named operations.
func NewRegistry(ops []string) *Registry { return &Registry{ops: ops} }

// Ops returns the operation names, in order.
func (g *Registry) Ops() []string { return g.ops }

// Handle is a worker's set of recorders, indexed by operation.
type Handle []*Recorder

// Record adds one latency for operation op.
func (h Handle) Record(op int, d time.Duration) { h[op].Record(d) }

// NewHandle registers a new worker and returns its recorders.
func (g *Registry) NewHandle() Handle {
	h := make(Handle, len(g.ops))
	for i := range h {
		h[i] = NewRecorder()
	}
	g.mu.Lock()
	g.workers = append(g.workers, h)
	g.mu.Unlock()
	return h
}

// Tick collects what every worker recorded since the previous tick, merged
// per operation, into fresh histograms.
func (g *Registry) Tick() []*hdr.Histogram {
	out := make([]*hdr.Histogram, len(g.ops))
	for i := range out {
		out[i] = New()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, h := range g.workers {
		for i, r := range h {
			out[i].Merge(r.Swap())
		}
	}
	return out
}
