// Package collect gathers the evidence beside a run's own numbers: the
// operating system's counters (from /proc), the database server's counters
// and wait profile, and the plans of the workload's statements.
//
// A Sampler reads cumulative counters and gauges; the Collector takes one
// sample at the start of the run and one at the end of every interval (the
// engine's ticks trigger them, so each point lines up with intervals[] by its
// seq) on its own goroutine and connection, and turns successive samples into
// per-second rates. A WaitProfiler runs on its own faster clock and is cut
// at the same boundaries. Readers of the operating system go through a
// Source, so a remote host (over SSH) can be added without touching the
// samplers.
package collect

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

// The collectors of this package, as --collect names them; each registers
// itself (Register) from its own file.
const (
	KindOS     = "os"
	KindServer = "server"
	KindWaits  = "waits"
	KindPlans  = "plans"
)

// Snapshot is one reading of a sampler.
type Snapshot struct {
	Time time.Time
	// Counters only grow; their per-second rates are reported. Names
	// starting with "_" are read for Derive only and not reported.
	Counters map[string]float64
	// Gauges are reported as they are.
	Gauges map[string]float64
}

// Sampler reads one source of counters.
type Sampler interface {
	// Name is the name of the collector (Kind) it samples for.
	Name() string
	// Start prepares the sampler (e.g. opens its connection).
	Start(ctx context.Context) error
	// Sample reads the counters now.
	Sample(ctx context.Context) (*Snapshot, error)
	// Stop releases what Start took.
	Stop() error
	// Describe fills the series' description (source, what it describes,
	// parts that are unavailable).
	Describe(s *results.Series)
}

// Settler is a Sampler whose source publishes its counters late (e.g.
// PostgreSQL backends flush their statistics at most once a second, and on
// exit): after the run, the collector waits Settle and reads it again, and
// the last interval absorbs what arrived late.
type Settler interface {
	Settle() time.Duration
}

// Deriver is a Sampler that computes derived figures (percentages,
// averages) from two successive snapshots into values.
type Deriver interface {
	Derive(prev, cur *Snapshot, values map[string]float64)
}

// WaitProfiler measures where the harness's sessions spend their time.
type WaitProfiler interface {
	Start(ctx context.Context) error
	// Cut returns the weight of each event since the previous cut.
	Cut(ctx context.Context) (map[string]float64, error)
	Stop() error
	// Method says how the profile is measured; Unit is the weight's unit.
	Method() string
	Unit() string
}

// Collector runs the samplers and the wait profiler of one run.
type Collector struct {
	samplers []Sampler
	waits    WaitProfiler
	timeout  time.Duration
	// OnPoint, when set before Start, is given each interval as it is
	// computed, on the collector's goroutine: a results.Point of the
	// sampler's collector (kind its name) or a results.WaitInterval
	// (KindWaits). The run stores them as it goes.
	OnPoint func(kind string, seq int, v any)

	mu    sync.Mutex
	start time.Time
	prev  []*Snapshot
	// before is the snapshot each sampler's last point started from.
	before  []*Snapshot
	series  []*results.Series
	errs    []string
	wout    *results.Waits
	reqs    chan request
	done    chan struct{}
	stopped bool
}

type request struct {
	seq   int
	phase string
	at    time.Time
	base  bool
}

// New returns a Collector over the given samplers and wait profiler (nil
// for none).
func New(samplers []Sampler, waits WaitProfiler) *Collector {
	return &Collector{samplers: samplers, waits: waits, timeout: 5 * time.Second}
}

// Start starts every sampler and takes the baseline sample. A sampler that
// cannot start is dropped with a warning (returned), never failing the run.
func (c *Collector) Start(ctx context.Context) []string {
	var warns []string
	var kept []Sampler
	for _, s := range c.samplers {
		if err := s.Start(ctx); err != nil {
			warns = append(warns, fmt.Sprintf("%s collector: %v", s.Name(), err))
			continue
		}
		kept = append(kept, s)
	}
	c.samplers = kept
	c.prev = make([]*Snapshot, len(kept))
	c.before = make([]*Snapshot, len(kept))
	c.series = make([]*results.Series, len(kept))
	for i, s := range kept {
		c.series[i] = &results.Series{Intervals: []results.Point{}, Totals: map[string]float64{}}
		s.Describe(c.series[i])
		if k, ok := Lookup(s.Name()); ok {
			c.series[i].Title = cmp.Or(c.series[i].Title, k.Title)
			c.series[i].Layout = cmp.Or(c.series[i].Layout, k.Layout)
		}
	}
	if c.waits != nil {
		if err := c.waits.Start(ctx); err != nil {
			c.wout = &results.Waits{Method: c.waits.Method(), Unit: c.waits.Unit(), Events: []results.WaitShare{}, Unavailable: err.Error()}
			c.waits = nil
		} else {
			c.wout = &results.Waits{Method: c.waits.Method(), Unit: c.waits.Unit(), Events: []results.WaitShare{}}
		}
	}
	c.start = time.Now()
	c.sampleAll(ctx, request{base: true, at: c.start})
	c.reqs = make(chan request, 64)
	c.done = make(chan struct{})
	go c.loop()
	return warns
}

// Begin marks the start of the run's clock: the baseline is taken again so
// that the first interval covers the same time as the run's first interval.
// It never blocks.
func (c *Collector) Begin(t time.Time) {
	c.send(request{base: true, at: t})
}

// Boundary asks for a sample at the end of interval seq. It never blocks:
// the sample is taken on the collector's own goroutine.
func (c *Collector) Boundary(seq int, phase string, t time.Time) {
	c.send(request{seq: seq, phase: phase, at: t})
}

func (c *Collector) send(r request) {
	if c.reqs == nil {
		return
	}
	select {
	case c.reqs <- r:
	default: // a sampler is stuck: skip this boundary rather than slow the run
	}
}

func (c *Collector) loop() {
	defer close(c.done)
	for r := range c.reqs {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		c.sampleAll(ctx, r)
		cancel()
	}
}

func (c *Collector) sampleAll(ctx context.Context, r request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.base {
		c.start = r.at
	}
	t := round3(time.Since(c.start).Seconds())
	for i, s := range c.samplers {
		snap, err := s.Sample(ctx)
		if err != nil {
			c.warn(fmt.Sprintf("%s collector: %v", s.Name(), err))
			continue
		}
		prev := c.prev[i]
		c.prev[i] = snap
		if r.base || prev == nil {
			continue
		}
		c.before[i] = prev
		p := Point(s, prev, snap)
		p.Seq, p.Phase, p.T = r.seq, r.phase, t
		c.series[i].Intervals = append(c.series[i].Intervals, p)
		if c.OnPoint != nil {
			c.OnPoint(s.Name(), p.Seq, p)
		}
		if r.phase != "warmup" {
			for k, v := range snap.Counters {
				if d := v - prev.Counters[k]; d > 0 && !strings.HasPrefix(k, "_") {
					c.series[i].Totals[k] += d
				}
			}
		}
	}
	if c.waits != nil {
		cut, err := c.waits.Cut(ctx)
		if err != nil {
			c.warn(fmt.Sprintf("wait profile: %v", err))
			return
		}
		if r.base {
			return
		}
		var total float64
		for _, w := range cut {
			total += w
		}
		wi := results.WaitInterval{Seq: r.seq, Phase: r.phase, T: t, Total: round3(total), Shares: map[string]float64{}}
		for e, w := range cut {
			if total > 0 {
				wi.Shares[e] = round4(w / total)
			}
			if r.phase != "warmup" {
				c.addWait(e, w)
			}
		}
		c.wout.Intervals = append(c.wout.Intervals, wi)
		if c.OnPoint != nil {
			c.OnPoint(KindWaits, wi.Seq, wi)
		}
	}
}

// Headers returns the series as started, without their points: where the
// numbers come from and what could not be read. A run saves them first, so
// that the points stored as it goes can be read back if it never ends.
func (c *Collector) Headers() *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := &Result{Series: map[string]*results.Series{}}
	for i, s := range c.samplers {
		h := *c.series[i]
		h.Intervals, h.Totals = []results.Point{}, nil
		h.Unavailable = append([]string(nil), h.Unavailable...)
		res.Series[s.Name()] = &h
	}
	if c.wout != nil {
		w := *c.wout
		w.Intervals, w.Events = nil, []results.WaitShare{}
		res.Waits = &w
	}
	return res
}

func (c *Collector) addWait(e string, w float64) {
	c.wout.Total += w
	for i := range c.wout.Events {
		if c.wout.Events[i].Event == e {
			c.wout.Events[i].Weight += w
			return
		}
	}
	c.wout.Events = append(c.wout.Events, results.WaitShare{Event: e, Weight: w})
}

func (c *Collector) warn(s string) {
	for _, e := range c.errs {
		if e == s {
			return
		}
	}
	c.errs = append(c.errs, s)
}

// Point turns two snapshots of sampler s into one interval's rates and
// values.
func Point(s Sampler, prev, cur *Snapshot) results.Point {
	secs := cur.Time.Sub(prev.Time).Seconds()
	p := results.Point{Seconds: round3(secs), Rates: map[string]float64{}, Values: map[string]float64{}}
	for k, v := range cur.Counters {
		if strings.HasPrefix(k, "_") {
			continue
		}
		pv, ok := prev.Counters[k]
		if !ok || secs <= 0 {
			continue
		}
		d := v - pv
		if d < 0 { // a counter reset (pg_stat_reset, server restart)
			continue
		}
		p.Rates[k] = round3(d / secs)
	}
	for k, v := range cur.Gauges {
		p.Values[k] = round3(v)
	}
	if d, ok := s.(Deriver); ok {
		d.Derive(prev, cur, p.Values)
	}
	if len(p.Values) == 0 {
		p.Values = nil
	}
	return p
}

// Result is what the collectors gathered.
type Result struct {
	// Series are the samplers' series by collector name.
	Series map[string]*results.Series
	Waits  *results.Waits
	// Warnings are problems met while sampling, one line each.
	Warnings []string
}

// Stop takes the last sample (for the interval seq that ended at t, if
// seq >= 0), stops the samplers and returns the series. Counters that stayed
// at zero for the whole run are left out of the series.
func (c *Collector) Stop(seq int, phase string, t time.Time) *Result {
	if c.reqs != nil && !c.stopped {
		c.stopped = true
		if seq >= 0 {
			c.reqs <- request{seq: seq, phase: phase, at: t}
		}
		close(c.reqs)
		<-c.done
		c.settle()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	res := &Result{Series: map[string]*results.Series{}, Warnings: c.errs}
	for i, s := range c.samplers {
		_ = s.Stop()
		sr := c.series[i]
		dropZero(sr)
		res.Series[s.Name()] = sr
	}
	if c.waits != nil {
		_ = c.waits.Stop()
	}
	if c.wout != nil {
		for i := range c.wout.Events {
			if c.wout.Total > 0 {
				c.wout.Events[i].Share = round4(c.wout.Events[i].Weight / c.wout.Total)
			}
			c.wout.Events[i].Weight = round3(c.wout.Events[i].Weight)
		}
		results.SortWaitShares(c.wout.Events)
		c.wout.Total = round3(c.wout.Total)
		res.Waits = c.wout
	}
	return res
}

// settle reads late-publishing samplers once more after their settle time
// and folds what arrived into their last interval and the totals.
func (c *Collector) settle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var wait time.Duration
	for _, s := range c.samplers {
		if st, ok := s.(Settler); ok {
			wait = max(wait, st.Settle())
		}
	}
	if wait == 0 {
		return
	}
	time.Sleep(wait)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	for i, s := range c.samplers {
		sr := c.series[i]
		if _, ok := s.(Settler); !ok || len(sr.Intervals) == 0 || c.before[i] == nil {
			continue
		}
		snap, err := s.Sample(ctx)
		if err != nil {
			c.warn(fmt.Sprintf("%s collector: %v", s.Name(), err))
			continue
		}
		last := &sr.Intervals[len(sr.Intervals)-1]
		p := Point(s, c.before[i], snap)
		p.Seq, p.Phase, p.T = last.Seq, last.Phase, last.T
		if last.Phase != "warmup" {
			for k, v := range snap.Counters {
				if d := v - c.prev[i].Counters[k]; d > 0 && !strings.HasPrefix(k, "_") {
					sr.Totals[k] += d
				}
			}
		}
		*last = p
		c.prev[i] = snap
	}
}

// dropZero removes rates that are zero in every interval.
func dropZero(s *results.Series) {
	nonzero := map[string]bool{}
	for _, p := range s.Intervals {
		for k, v := range p.Rates {
			if v != 0 {
				nonzero[k] = true
			}
		}
	}
	for _, p := range s.Intervals {
		for k := range p.Rates {
			if !nonzero[k] {
				delete(p.Rates, k)
			}
		}
	}
	if len(s.Totals) == 0 {
		s.Totals = nil
	}
}

func round3(f float64) float64 { return Round3(f) }

// Round3 rounds f to three decimals, as the collectors store figures.
func Round3(f float64) float64 { return math.Round(f*1000) / 1000 }
func round4(f float64) float64 { return math.Round(f*10000) / 10000 }
