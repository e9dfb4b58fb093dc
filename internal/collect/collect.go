// Package collect gathers the evidence beside a run's own numbers: the
// operating system's counters (from /proc), the database server's counters
// and wait profile, and the plans of the workload's statements.
//
// A Sampler (the contract, with the engines' side of it, is in package
// evidence) reads cumulative counters and gauges; the Collector takes one
// sample at the start of the run and one at the end of every interval (the
// load generator's ticks trigger them, so each point lines up with intervals[] by its
// seq) on its own goroutine and connection, and turns successive samples into
// per-second rates. A WaitProfiler runs on its own faster clock and is cut
// at the same boundaries. Readers of the operating system go through a
// Source, so a remote host (over SSH) can be added without touching the
// samplers.
package collect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// The collectors of this package, as --collect names them; each registers
// itself (Register) from its own file. Those the engines name (the server
// counters and the wait profile) are evidence.KindServer and KindWaits.
const (
	KindOS    = "os"
	KindPlans = "plans"
)

// Collector runs the samplers and the wait profiler of one run.
//
// A sampler or profiler whose sample fails (its connection was lost, the
// server restarted or did not answer in time) is restarted with back-off
// at the following boundaries. The intervals from its last good sample to
// the first one after the restart are a gap of its series: no point spans
// them, so no delta mixes two lives of the server, and reports count only
// the intervals it covered (results.Coverage).
type Collector struct {
	samplers []evidence.Sampler
	waits    evidence.WaitProfiler
	// appName is the name of the harness's sessions (For), for Settlers.
	appName string
	// side labels the series of the samplers in sided, and the wait
	// profile when wsided, as read from another endpoint of the server
	// (For's ServerSide).
	side   string
	sided  map[evidence.Sampler]bool
	wsided bool
	// timeout bounds each sample, cut and restart; Stop waits at most as
	// long for the samples still under way.
	timeout time.Duration
	// A source that failed is restarted at the next boundary, then backs
	// off from minBackoff, doubling up to maxBackoff. Restarts are tried
	// at the run's boundaries only, so that a new baseline lines up with
	// an interval.
	minBackoff, maxBackoff time.Duration
	// Classify, when set, tells a lost connection from other errors
	// (db.DB.Classify), to say why evidence is missing.
	Classify func(error) db.ErrorClass
	// OnPoint, when set before Start, is given each interval as it is
	// computed, on the collector's goroutine: a evidence.Point of the
	// sampler's collector (kind its name) or a results.WaitInterval
	// (KindWaits). The run stores them as it goes.
	OnPoint func(kind string, seq int, v any)
	// StopWait, when above 0 and shorter than the sample timeout, is how
	// long Stop waits for the samples in flight (a server that stopped
	// answering must not hold the end of a run for the whole timeout).
	StopWait time.Duration

	// ctx is the parent of every sample's; Stop cancels it when the
	// samples under way take too long.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	start  time.Time
	tracks []*track // one per sampler
	wtrack *track   // the wait profiler's
	series []*evidence.Series
	errs   []string
	wout   *results.Waits
	reqs   chan request
	done   chan struct{}
	// stopped is set when Stop begins.
	stopped bool
}

// track is where one sampler, or the wait profiler, stands on the run's
// clock.
type track struct {
	// prev is a sampler's last snapshot and before the one its last point
	// started from.
	prev, before *evidence.Snapshot
	// ok: the last sample (or cut) succeeded at boundary seq, time t (in
	// seconds on the run's clock; seq -1 is the start of the clock), and
	// the next one can end a point.
	ok  bool
	seq int
	t   float64
	// down: the source failed and is restarted at retry, backing off.
	down    bool
	retry   time.Time
	backoff time.Duration
	// gap is the open gap while down; gaps the closed ones.
	gap  *evidence.Gap
	gaps []evidence.Gap
}

type request struct {
	seq   int
	phase string
	at    time.Time
	base  bool
}

// New returns a Collector over the given samplers and wait profiler (nil
// for none).
func New(samplers []evidence.Sampler, waits evidence.WaitProfiler) *Collector {
	return &Collector{samplers: samplers, waits: waits, timeout: 5 * time.Second,
		minBackoff: 250 * time.Millisecond, maxBackoff: 4 * time.Second}
}

// Start starts every sampler and takes the baseline sample. A sampler that
// cannot start is dropped with a warning (returned), never failing the run.
func (c *Collector) Start(ctx context.Context) []string {
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	var warns []string
	var kept []evidence.Sampler
	for _, s := range c.samplers {
		if err := startOne(ctx, s.Start); err != nil {
			warns = append(warns, fmt.Sprintf("%s collector: %v", s.Name(), err))
			continue
		}
		kept = append(kept, s)
	}
	c.samplers = kept
	c.tracks = make([]*track, len(kept))
	c.series = make([]*evidence.Series, len(kept))
	for i, s := range kept {
		c.tracks[i] = &track{seq: -1}
		c.series[i] = &evidence.Series{Intervals: []evidence.Point{}, Totals: map[string]float64{}}
		s.Describe(c.series[i])
		if c.sided[s] {
			c.series[i].Side = c.side
		}
		if k, ok := Lookup(s.Name()); ok {
			c.series[i].Title = cmp.Or(c.series[i].Title, k.Title)
			c.series[i].Layout = cmp.Or(c.series[i].Layout, k.Layout)
		}
	}
	if c.waits != nil {
		side := ""
		if c.wsided {
			side = c.side
		}
		if err := startOne(ctx, c.waits.Start); err != nil {
			c.wout = &results.Waits{Method: c.waits.Method(), Unit: c.waits.Unit(), Events: []results.WaitShare{}, Unavailable: err.Error()}
			c.waits = nil
		} else {
			c.wout = &results.Waits{Method: c.waits.Method(), Unit: c.waits.Unit(), Events: []results.WaitShare{}}
			c.wtrack = &track{seq: -1}
		}
		c.wout.Side = side
	}
	c.start = time.Now()
	c.sampleAll(request{base: true, at: c.start, seq: -1}, false)
	c.reqs = make(chan request, 64)
	c.done = make(chan struct{})
	go c.loop()
	return warns
}

// startTimeout bounds the start of one source (its connection, and the
// probes of what the server has) before the run: each source has its own,
// so that a slow login (a busy host, a server that starts a process per
// session) cannot leave the next source no time at all. The run's own
// connection has already answered, so a server that stopped answering is
// rare here.
const startTimeout = 30 * time.Second

func startOne(ctx context.Context, start func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return start(ctx)
}

// Begin marks the start of the run's clock: the baseline is taken again so
// that the first interval covers the same time as the run's first interval.
// It never blocks.
func (c *Collector) Begin(t time.Time) {
	c.send(request{base: true, at: t, seq: -1})
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
		// A request with a newer one queued behind it is late: a source
		// that is down is not restarted on it, so that its new baseline
		// is taken at the boundary it is labelled with.
		c.sampleAll(r, len(c.reqs) > 0)
	}
}

// op returns the context of one sample, cut or restart.
func (c *Collector) op() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, c.timeout)
}

func (c *Collector) sampleAll(r request, late bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.base {
		c.start = r.at
	}
	at := round3(r.at.Sub(c.start).Seconds())
	t := round3(time.Since(c.start).Seconds())
	for i, s := range c.samplers {
		tr := c.tracks[i]
		var snap *evidence.Snapshot
		if !c.attempt(tr, r, at, late, s.Stop, s.Start, func(ctx context.Context) (err error) {
			snap, err = s.Sample(ctx)
			return err
		}) {
			continue
		}
		prev, wasOK, from := tr.prev, tr.ok, tr.seq
		c.took(tr, r, at)
		tr.prev = snap
		if r.base || !wasOK {
			continue
		}
		tr.before = prev
		p := evidence.NewPoint(s, prev, snap)
		p.Seq, p.Phase, p.T = r.seq, r.phase, t
		if n := r.seq - from; n > 1 {
			p.Span = n
		}
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
	if c.waits == nil {
		return
	}
	tr := c.wtrack
	var cut map[string]float64
	if !c.attempt(tr, r, at, late, c.waits.Stop, c.waits.Start, func(ctx context.Context) (err error) {
		cut, err = c.waits.Cut(ctx)
		return err
	}) {
		return
	}
	// The blockers seen since the last cut go with it.
	bw, _ := c.waits.(evidence.BlockerWatcher)
	var seen []evidence.BlockerSeen
	var why string
	if bw != nil {
		seen, why = bw.CutBlockers()
	}
	wasOK, from := tr.ok, tr.seq
	c.took(tr, r, at)
	if r.base || !wasOK {
		return
	}
	var total float64
	for _, w := range cut {
		total += w
	}
	wi := results.WaitInterval{Seq: r.seq, Phase: r.phase, T: t, Total: round3(total), Shares: map[string]float64{}}
	if n := r.seq - from; n > 1 {
		wi.Span = n
	}
	for e, w := range cut {
		if total > 0 {
			wi.Shares[e] = round4(w / total)
		}
		if r.phase != "warmup" {
			c.addWait(e, w)
		}
	}
	if bw != nil {
		c.wout.AddBlockers(&wi, seen, bw.SamplePeriod(), r.phase != "warmup")
		if why != "" && c.wout.BlockersUnavailable == "" {
			c.wout.BlockersUnavailable = why
		}
	}
	c.wout.Intervals = append(c.wout.Intervals, wi)
	if c.OnPoint != nil {
		c.OnPoint(evidence.KindWaits, wi.Seq, wi)
	}
}

// attempt reads a source (a sampler or the wait profiler) at request r
// with read, restarting it first (stop, then start) if it is down and due.
// A read that fails marks it down; when that is not a timeout it is
// restarted and read again at once, so that a connection the server
// killed comes back at the same boundary. It reports whether read
// succeeded.
func (c *Collector) attempt(tr *track, r request, at float64, late bool, stop func() error, start func(context.Context) error,
	read func(context.Context) error) bool {
	for try := 0; ; try++ {
		if !c.up(tr, r, at, late, stop, start) {
			return false
		}
		ctx, cancel := c.op()
		err := read(ctx)
		cancel()
		if err == nil {
			return true
		}
		c.lose(tr, r, at, err)
		if try > 0 || time.Now().Before(tr.retry) {
			return false
		}
	}
}

// up says whether a source can be sampled at request r: it is not down,
// or it is and restarts now (stop, then start). A source that is down and
// not restarted stretches its gap to r.
func (c *Collector) up(tr *track, r request, at float64, late bool, stop func() error, start func(context.Context) error) bool {
	if !tr.down {
		return true
	}
	if late || time.Now().Before(tr.retry) || c.ctx.Err() != nil {
		c.stretch(tr, r, at)
		return false
	}
	_ = stop()
	ctx, cancel := c.op()
	err := start(ctx)
	cancel()
	if err != nil {
		if tr.gap.Error == "" {
			tr.gap.Error = oneLine(err.Error())
		}
		tr.retry = time.Now().Add(tr.backoff)
		tr.backoff = min(2*tr.backoff, c.maxBackoff)
		c.stretch(tr, r, at)
		return false
	}
	tr.down = false
	return true
}

// lose marks a source down after its sample at request r failed with err:
// a gap opens after its last good sample, and it is restarted at the next
// boundary (at once if its connection was lost, after a back-off if the
// server did not answer).
func (c *Collector) lose(tr *track, r request, at float64, err error) {
	if tr.gap == nil {
		tr.gap = &evidence.Gap{FirstSeq: tr.seq + 1, From: tr.t, Reason: c.why(err), Error: oneLine(err.Error())}
		tr.backoff = c.minBackoff
	}
	tr.down, tr.ok, tr.prev, tr.before = true, false, nil, nil
	tr.retry = time.Now()
	if c.timedOut(err) {
		tr.retry = tr.retry.Add(tr.backoff)
		tr.backoff = min(2*tr.backoff, c.maxBackoff)
	}
	c.stretch(tr, r, at)
}

// stretch extends the open gap of tr to the end of request r's interval.
func (c *Collector) stretch(tr *track, r request, at float64) {
	if tr.gap != nil {
		tr.gap.LastSeq, tr.gap.To = r.seq, at
	}
}

// took records a good sample of tr at request r: it ends any open gap.
func (c *Collector) took(tr *track, r request, at float64) {
	if g := tr.gap; g != nil {
		c.stretch(tr, r, at)
		if g.LastSeq >= g.FirstSeq {
			tr.gaps = append(tr.gaps, *g)
		}
		tr.gap = nil
	}
	tr.ok, tr.seq, tr.t = true, r.seq, at
}

// why says in a phrase why a sample failed.
func (c *Collector) why(err error) string {
	switch {
	case c.ctx.Err() != nil:
		return "the run ended before it answered"
	case c.timedOut(err):
		return fmt.Sprintf("the server did not answer within %s", c.timeout)
	case c.Classify != nil && c.Classify(err).ConnLost:
		return "its connection was lost"
	}
	return "its sample failed"
}

func (c *Collector) timedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || c.Classify != nil && c.Classify(err).Code == "timeout"
}

// Headers returns the series as started, without their points: where the
// numbers come from and what could not be read. A run saves them first, so
// that the points stored as it goes can be read back if it never ends.
func (c *Collector) Headers() *Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := &Result{Series: map[string]*evidence.Series{}}
	for i, s := range c.samplers {
		h := *c.series[i]
		h.Intervals, h.Totals = []evidence.Point{}, nil
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

// Result is what the collectors gathered.
type Result struct {
	// Series are the samplers' series by collector name.
	Series map[string]*evidence.Series
	Waits  *results.Waits
	// Warnings are problems met while sampling, one line each.
	Warnings []string
}

// Stop takes the last sample (for the interval seq that ended at t, if
// seq >= 0), stops the samplers and returns the series. Counters that stayed
// at zero for the whole run are left out of the series. It waits at most
// the collector's timeout for the samples still under way: a server that
// does not answer never holds the end of the run.
func (c *Collector) Stop(seq int, phase string, t time.Time) *Result {
	if c.reqs != nil && !c.stopped {
		c.stopped = true
		if seq >= 0 {
			c.send(request{seq: seq, phase: phase, at: t})
		}
		close(c.reqs)
		wait := c.timeout
		if c.StopWait > 0 && c.StopWait < wait {
			wait = c.StopWait
		}
		give := time.AfterFunc(wait, c.cancel)
		<-c.done
		give.Stop()
		c.settle()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
	res := &Result{Series: map[string]*evidence.Series{}}
	for i, s := range c.samplers {
		_ = s.Stop()
		sr := c.series[i]
		if i < len(c.tracks) {
			sr.Gaps = c.gaps(s.Name(), c.tracks[i])
		}
		dropZero(sr)
		res.Series[s.Name()] = sr
	}
	if c.waits != nil {
		_ = c.waits.Stop()
		c.wout.Gaps = c.gaps("wait profile", c.wtrack)
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
	res.Warnings = c.errs
	return res
}

// gaps closes the open gap of source name's track and returns its gaps,
// each also as a warning.
func (c *Collector) gaps(name string, tr *track) []evidence.Gap {
	if tr == nil {
		return nil
	}
	if g := tr.gap; g != nil && g.LastSeq >= g.FirstSeq {
		tr.gaps = append(tr.gaps, *g)
	}
	tr.gap = nil
	if !strings.HasSuffix(name, "profile") {
		name += " collector"
	}
	for _, g := range tr.gaps {
		c.warn(fmt.Sprintf("%s: no evidence from %.1f s to %.1f s: %s (%s)", name, g.From, g.To, g.Reason, g.Error))
	}
	return tr.gaps
}

// settle reads late-publishing samplers once more after their settle time
// and folds what arrived into their last interval and the totals.
func (c *Collector) settle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	// The settlers to read again: those whose last interval was sampled
	// (a sampler that lost its source is not asked).
	var wait time.Duration
	var settlers []evidence.Settler
	again := map[int]bool{}
	for i, s := range c.samplers {
		sr, tr := c.series[i], c.tracks[i]
		if st, ok := s.(evidence.Settler); ok && len(sr.Intervals) > 0 && tr.ok && tr.before != nil &&
			sr.Intervals[len(sr.Intervals)-1].Seq == tr.seq {
			wait = max(wait, st.Settle())
			settlers = append(settlers, st)
			again[i] = true
		}
	}
	if wait == 0 || c.ctx.Err() != nil {
		return
	}
	// A fixed wait cost every run its length in wall time (0.3 s on
	// PostgreSQL); the sources say when they are done, mostly at once.
	for until := time.Now().Add(wait); time.Now().Before(until) && !c.settled(settlers); {
		time.Sleep(5 * time.Millisecond)
	}
	for i, s := range c.samplers {
		sr, tr := c.series[i], c.tracks[i]
		if !again[i] {
			continue
		}
		ctx, cancel := c.op()
		snap, err := s.Sample(ctx)
		cancel()
		if err != nil {
			// The last interval stands as sampled at its boundary.
			c.warn(fmt.Sprintf("%s collector: after the run: %v", s.Name(), err))
			continue
		}
		last := &sr.Intervals[len(sr.Intervals)-1]
		p := evidence.NewPoint(s, tr.before, snap)
		p.Seq, p.Phase, p.T, p.Span = last.Seq, last.Phase, last.T, last.Span
		if last.Phase != "warmup" {
			for k, v := range snap.Counters {
				if d := v - tr.prev.Counters[k]; d > 0 && !strings.HasPrefix(k, "_") {
					sr.Totals[k] += d
				}
			}
		}
		*last = p
		tr.prev = snap
	}
}

// settled reports whether every settler's late counters have arrived.
func (c *Collector) settled(settlers []evidence.Settler) bool {
	for _, st := range settlers {
		ctx, cancel := c.op()
		ok, err := st.Settled(ctx, c.appName)
		cancel()
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// dropZero removes rates that are zero in every interval.
func dropZero(s *evidence.Series) {
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

func round3(f float64) float64 { return evidence.Round3(f) }

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }
