// Package engine is the driver: it starts one worker per client, each on its
// own connection, paces them (closed loop, or open loop from one shared
// Poisson schedule), times every transaction into the histogram registry,
// retries serialization failures, reconnects lost connections, splits the
// run into warm-up and measurement, and hands an interval to its observer on
// every tick. It never knows SQL: workloads do.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/workload"
)

// Config is how a run is driven.
type Config struct {
	Clients  int
	Duration time.Duration
	// Transactions per client; 0 runs for Duration.
	Transactions int64
	Warmup       time.Duration
	// Rate is the target total transactions per second (open loop); 0 is
	// closed loop.
	Rate         float64
	LatencyLimit time.Duration
	// MaxTries is how many times a transaction is tried when it fails with
	// a serialization failure or deadlock; 1 means no retry.
	MaxTries int
	// Interval is the tick length.
	Interval time.Duration
	Seed     uint64
	// StopGrace is how long in-flight transactions may take to finish after
	// the end of the run before they are cancelled.
	StopGrace time.Duration
	// Terminals, when above 0, runs that many emulated terminals sharing
	// the Clients connections; the workload must be a TerminalRunner.
	Terminals int
	// ThinkTimes makes terminals wait the workload's keying and think times.
	ThinkTimes bool
}

// Validate checks the configuration and names the flag at fault.
func (c *Config) Validate() error {
	switch {
	case c.Clients < 1:
		return fmt.Errorf("--clients %d is invalid; it must be at least 1", c.Clients)
	case c.Clients > 100000:
		return fmt.Errorf("--clients %d is too many; at most 100000", c.Clients)
	case c.Duration < 0:
		return fmt.Errorf("--duration %s is negative", c.Duration)
	case c.Transactions < 0:
		return fmt.Errorf("--transactions %d is negative", c.Transactions)
	case c.Duration == 0 && c.Transactions == 0:
		return errors.New("give --duration or --transactions (per client) to say when the run ends")
	case c.Warmup < 0:
		return fmt.Errorf("--warmup %s is negative", c.Warmup)
	case c.Rate < 0:
		return fmt.Errorf("--rate %g is negative", c.Rate)
	case c.LatencyLimit < 0:
		return fmt.Errorf("--latency-limit %s is negative", c.LatencyLimit)
	case c.MaxTries < 1:
		return fmt.Errorf("--max-tries %d is invalid; 1 means no retry", c.MaxTries)
	case c.Interval <= 0:
		return fmt.Errorf("interval %s must be positive", c.Interval)
	case c.Terminals < 0:
		return fmt.Errorf("--terminals %d is negative", c.Terminals)
	case c.Terminals > 1_000_000:
		return fmt.Errorf("--terminals %d is too many; at most 1000000", c.Terminals)
	case c.Terminals > 0 && c.Rate > 0:
		return errors.New("--rate and --terminals do not go together: terminals pace themselves")
	}
	return nil
}

// Phase of a run.
const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// OpTick is one operation's share of an interval.
type OpTick struct {
	Hist    *hdr.Histogram // successful transactions, µs
	Errors  int64
	Retries int64
	Late    int64 // over --latency-limit
}

// Tick is one interval of the run.
type Tick struct {
	Seq   int
	Phase string
	// Start and End bound the interval; Elapsed is End minus the start of
	// the run.
	Start, End time.Time
	Elapsed    time.Duration
	Ops        []OpTick
	// ErrorClasses counts failed transactions by error class.
	ErrorClasses map[string]int64
	Reconnects   int64
	// Down is the number of clients without a connection at the tick.
	Down int
	// Lag is the schedule lag in open-loop mode (nil otherwise).
	Lag *hdr.Histogram
	// PhaseCount and PhaseSeconds are the successful transactions and
	// elapsed seconds so far in this phase, for cumulative tps.
	PhaseCount   int64
	PhaseSeconds float64
}

// Observer receives every tick as it happens, from one goroutine.
type Observer interface {
	OnTick(t *Tick)
}

// StartObserver is an Observer that wants to know when the run's clock
// starts (after every client has connected): interval 0 starts then.
type StartObserver interface {
	OnStart(start time.Time)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(*Tick)

// OnTick calls f.
func (f ObserverFunc) OnTick(t *Tick) { f(t) }

// OpResult is one operation's totals over the measured phase.
type OpResult struct {
	Name    string
	Hist    *hdr.Histogram
	Errors  int64
	Retries int64
	Late    int64
}

// Result is what a run measured.
type Result struct {
	Ops []OpResult
	// Warmup is the warm-up phase's totals, kept apart.
	Warmup       []OpResult
	ErrorClasses map[string]int64
	// ErrorSamples holds the first message seen for each error class.
	ErrorSamples map[string]string
	Reconnects   int64
	Lag          *hdr.Histogram
	// ClientSeconds is, per client (or terminal), the time from the start
	// of measurement to its last transaction.
	ClientSeconds []float64
	Start         time.Time // start of the run (warm-up included)
	MeasureStart  time.Time
	End           time.Time
	Interrupted   bool
}

// Seconds is the length of the measured phase.
func (r *Result) Seconds() float64 { return r.End.Sub(r.MeasureStart).Seconds() }

// workerStats are one worker's counters; the ticker reads them.
type workerStats struct {
	errors, retries, late []atomic.Int64
	reconnects            atomic.Int64
	down                  atomic.Bool
	finished              atomic.Int64 // unix ns when the client stopped
	mu                    sync.Mutex
	classes               map[string]int64
	samples               map[string]string
}

func (s *workerStats) addClass(code string, err error) {
	s.mu.Lock()
	s.classes[code]++
	if _, ok := s.samples[code]; !ok {
		s.samples[code] = err.Error()
	}
	s.mu.Unlock()
}

// Run drives the workload until the configuration's end, or until stop is
// closed (an interrupted run). Closing ctx cancels transactions in flight.
func Run(ctx context.Context, d db.DB, r workload.Runner, cfg Config, obs Observer, stop <-chan struct{}) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ops := r.Ops()
	var tr workload.TerminalRunner
	if cfg.Terminals > 0 {
		var ok bool
		if tr, ok = r.(workload.TerminalRunner); !ok {
			return nil, errors.New("this workload has no terminals; --terminals is for TPC-C-style workloads")
		}
	}
	// Connect every client before the clock starts, as pgbench does.
	conns := make([]db.Conn, cfg.Clients)
	workers := make([]workload.Worker, cfg.Clients)
	if err := connectAll(ctx, d, r, conns, workers); err != nil {
		return nil, err
	}
	reg := histogram.NewRegistry(ops)
	var lagReg *histogram.Registry
	if cfg.Rate > 0 {
		lagReg = histogram.NewRegistry([]string{"lag"})
	}
	stats := make([]*workerStats, cfg.Clients)
	for i := range stats {
		stats[i] = &workerStats{errors: make([]atomic.Int64, len(ops)), retries: make([]atomic.Int64, len(ops)),
			late: make([]atomic.Int64, len(ops)), classes: map[string]int64{}, samples: map[string]string{}}
	}
	start := time.Now()
	if so, ok := obs.(StartObserver); ok {
		so.OnStart(start)
	}
	measureStart := start.Add(cfg.Warmup)
	var deadline time.Time
	if cfg.Duration > 0 {
		deadline = measureStart.Add(cfg.Duration)
	}
	var sched *schedule
	if cfg.Rate > 0 {
		sched = newSchedule(start, cfg.Rate, cfg.Seed)
	}
	var stopping atomic.Bool
	stopC := make(chan struct{})
	hard, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	clients := make([]*client, cfg.Clients)
	for i := range clients {
		lh := histogram.Handle(nil)
		if lagReg != nil {
			lh = lagReg.NewHandle()
		}
		clients[i] = &client{id: i, d: d, r: r, cfg: &cfg, w: workers[i], h: reg.NewHandle(), lag: lh,
			st: stats[i], sched: sched, stopping: &stopping, stopC: stopC, measureStart: measureStart, deadline: deadline,
			byRequest: d.Caps().CancelByRequest}
		clients[i].setConn(conns[i])
	}
	var termEnds []atomic.Int64
	if tr != nil {
		termEnds = runTerminals(hard, tr, &cfg, clients, &wg, &stopping, stopC, measureStart)
	} else {
		for _, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.loop(hard)
			}()
		}
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		if tr != nil {
			for _, c := range clients {
				c.finish()
			}
		}
		close(done)
	}()

	res := &Result{Start: start, MeasureStart: measureStart, ErrorClasses: map[string]int64{}}
	t := &ticker{cfg: &cfg, ops: ops, reg: reg, lagReg: lagReg, stats: stats, obs: obs, start: start,
		measureStart: measureStart, res: res}
	t.init()

	// The end of the run: the deadline, every client done, or stop.
	var deadlineC <-chan time.Time
	if !deadline.IsZero() {
		tm := time.NewTimer(time.Until(deadline))
		defer tm.Stop()
		deadlineC = tm.C
	}
	next := t.nextTick()
	tickTimer := time.NewTimer(time.Until(next))
	defer tickTimer.Stop()
	beginStop := func() {
		if stopping.Swap(true) {
			return
		}
		close(stopC)
		// Let in-flight transactions finish, then cancel them.
		grace := cfg.StopGrace
		if grace <= 0 {
			grace = 30 * time.Second
		}
		go func() {
			select {
			case <-done:
			case <-time.After(grace):
				cancel()
				for _, c := range clients {
					c.cancelStatement()
				}
			}
		}()
	}
	for finished := false; !finished; {
		select {
		case <-tickTimer.C:
			if !deadline.IsZero() && !next.Before(deadline) {
				// The last interval ends when the clients have finished
				// their last transactions, so none lands in a sliver.
				beginStop()
				continue
			}
			t.tick(next)
			next = t.nextTick()
			tickTimer.Reset(time.Until(next))
		case <-deadlineC:
			deadlineC = nil
			beginStop()
		case <-stop:
			stop = nil
			res.Interrupted = true
			beginStop()
		case <-done:
			finished = true
		}
	}
	res.End = time.Now()
	t.tick(res.End)
	ends := make([]int64, 0, len(clients))
	if termEnds != nil {
		for i := range termEnds {
			ends = append(ends, termEnds[i].Load())
		}
	} else {
		for _, c := range clients {
			ends = append(ends, c.st.finished.Load())
		}
	}
	for _, e := range ends {
		res.ClientSeconds = append(res.ClientSeconds, max(0, time.Unix(0, e).Sub(measureStart).Seconds()))
	}
	if res.End.Before(measureStart) {
		res.MeasureStart = res.End
	}
	t.finish()
	return res, nil
}

func connectAll(ctx context.Context, d db.DB, r workload.Runner, conns []db.Conn, workers []workload.Worker) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		sem      = make(chan struct{}, 16)
	)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := d.Connect(ctx)
			if err == nil {
				workers[i], err = r.NewWorker(ctx, c, i)
				if err != nil {
					c.Close()
				}
			}
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("client %d: %w", i+1, err)
				}
				mu.Unlock()
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	if firstErr != nil {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}
	return firstErr
}

// schedule is the open-loop arrival schedule shared by every client:
// exponential gaps with mean 1/rate, a Poisson process.
type schedule struct {
	mu   sync.Mutex
	next time.Time
	mean float64 // ns
	rng  *rand.Rand
}

func newSchedule(start time.Time, rate float64, seed uint64) *schedule {
	return &schedule{next: start, mean: 1e9 / rate, rng: rand.New(rand.NewPCG(seed, 0x5ced))}
}

// Next returns the intended start time of the next transaction.
func (s *schedule) Next() time.Time {
	s.mu.Lock()
	s.next = s.next.Add(time.Duration(s.rng.ExpFloat64() * s.mean))
	t := s.next
	s.mu.Unlock()
	return t
}

type client struct {
	id           int
	d            db.DB
	r            workload.Runner
	cfg          *Config
	conn         db.Conn
	w            workload.Worker
	h, lag       histogram.Handle
	st           *workerStats
	sched        *schedule
	stopping     *atomic.Bool
	stopC        <-chan struct{} // closed with stopping
	measureStart time.Time
	deadline     time.Time
	// byRequest: statements run under a never-cancelled context (cheaper
	// for the driver) and are cancelled with Conn.Cancel at a hard stop.
	byRequest bool
	live      atomic.Value // liveConn: the connection, for cancelStatement
}

type liveConn struct{ c db.Conn }

// setConn replaces the client's connection.
func (c *client) setConn(conn db.Conn) {
	c.conn = conn
	c.live.Store(liveConn{conn})
}

// cancelStatement cancels the statement the client is running, from
// another goroutine, where the engine cancels by request.
func (c *client) cancelStatement() {
	if !c.byRequest {
		return
	}
	if lc, ok := c.live.Load().(liveConn); ok && lc.c != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_ = lc.c.Cancel(ctx)
		}()
	}
}

// stmtCtx is the context statements run under.
func (c *client) stmtCtx(ctx context.Context) context.Context {
	if c.byRequest {
		return context.Background()
	}
	return ctx
}

func (c *client) loop(ctx context.Context) {
	defer c.finish()
	var measured int64
	for !c.stopping.Load() {
		if c.cfg.Transactions > 0 && measured >= c.cfg.Transactions {
			return
		}
		var intended time.Time
		if c.sched != nil {
			intended = c.sched.Next()
			if !c.deadline.IsZero() && intended.After(c.deadline) {
				return
			}
			if !c.sleep(time.Until(intended)) {
				return
			}
		}
		op := c.w.Next()
		if !c.execute(ctx, op, intended, &measured) {
			return
		}
	}
}

// finish closes the client's connection and notes when it finished.
func (c *client) finish() {
	if c.conn != nil {
		c.conn.Close()
		c.setConn(nil)
	}
	c.st.finished.Store(time.Now().UnixNano())
}

// execute runs one transaction of type op (already drawn), with retries,
// and records it. intended is its intended start (zero: now). It returns
// false when the client must stop.
func (c *client) execute(ctx context.Context, op int, intended time.Time, measured *int64) bool {
	begin := time.Now()
	if intended.IsZero() {
		intended = begin
	} else if c.lag != nil {
		c.lag.Record(0, begin.Sub(intended))
	}
	sctx := c.stmtCtx(ctx)
	err := c.w.Do(sctx, op)
	for try := 1; err != nil && try < c.cfg.MaxTries; try++ {
		if !c.d.Classify(err).Retryable || ctx.Err() != nil {
			break
		}
		c.st.retries[op].Add(1)
		err = c.w.Do(sctx, op)
	}
	end := time.Now()
	if begin.After(c.measureStart) {
		*measured++
	}
	if err == nil {
		lat := end.Sub(intended)
		c.h.Record(op, lat)
		if c.cfg.LatencyLimit > 0 && lat > c.cfg.LatencyLimit {
			c.st.late[op].Add(1)
		}
		return true
	}
	if ctx.Err() != nil {
		return false // cancelled at the end of the run: not an error
	}
	class := c.d.Classify(err)
	c.st.errors[op].Add(1)
	c.st.addClass(class.Code, err)
	if class.ConnLost || !c.conn.Alive() {
		return c.reconnect(ctx)
	}
	return true
}

// sleep waits for d or until the run stops; it reports whether to go on.
func (c *client) sleep(d time.Duration) bool {
	if d <= 0 {
		return !c.stopping.Load()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !c.stopping.Load()
	case <-c.stopC:
		return false
	}
}

// reconnect replaces a lost connection, backing off from 50 ms to 2 s
// between attempts, until it succeeds or the run stops.
func (c *client) reconnect(ctx context.Context) bool {
	c.st.down.Store(true)
	defer c.st.down.Store(false)
	if c.conn != nil {
		c.conn.Close()
		c.setConn(nil)
	}
	backoff := 50 * time.Millisecond
	for !c.stopping.Load() && ctx.Err() == nil {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		conn, err := c.d.Connect(cctx)
		if err == nil {
			var w workload.Worker
			w, err = c.r.NewWorker(cctx, conn, c.id)
			if err == nil {
				cancel()
				c.setConn(conn)
				c.w = w
				c.st.reconnects.Add(1)
				return true
			}
			conn.Close()
		}
		cancel()
		if !c.sleep(backoff) {
			return false
		}
		backoff = min(backoff*2, 2*time.Second)
	}
	return false
}

// ticker turns the registry's swaps into ticks and phase totals.
type ticker struct {
	cfg          *Config
	ops          []string
	reg, lagReg  *histogram.Registry
	stats        []*workerStats
	obs          Observer
	start        time.Time
	measureStart time.Time
	res          *Result

	seq                int
	last               time.Time
	prevErr, prevRetry []int64
	prevLate           []int64
	prevReconn         int64
	prevClasses        map[string]int64
	warm, meas         []OpResult
	lag                *hdr.Histogram
	phaseCount         int64
	phase              string
	phaseStart         time.Time
	totalClasses       map[string]int64
	totalReconn        int64
}

func (t *ticker) init() {
	n := len(t.ops)
	t.last = t.start
	t.prevErr, t.prevRetry, t.prevLate = make([]int64, n), make([]int64, n), make([]int64, n)
	t.prevClasses = map[string]int64{}
	t.totalClasses = map[string]int64{}
	t.warm, t.meas = make([]OpResult, n), make([]OpResult, n)
	for i, name := range t.ops {
		t.warm[i] = OpResult{Name: name, Hist: histogram.New()}
		t.meas[i] = OpResult{Name: name, Hist: histogram.New()}
	}
	if t.lagReg != nil {
		t.lag = histogram.New()
	}
	t.phase, t.phaseStart = PhaseMeasure, t.measureStart
	if t.cfg.Warmup > 0 {
		t.phase, t.phaseStart = PhaseWarmup, t.start
	}
}

// nextTick is the next interval boundary: every Interval from the start,
// with one extra boundary at the end of the warm-up.
func (t *ticker) nextTick() time.Time {
	k := t.last.Sub(t.start)/t.cfg.Interval + 1
	next := t.start.Add(k * t.cfg.Interval)
	if t.last.Before(t.measureStart) && next.After(t.measureStart) {
		next = t.measureStart
	}
	return next
}

func (t *ticker) tick(now time.Time) {
	if !now.After(t.last) {
		return
	}
	phase := PhaseMeasure
	if !now.After(t.measureStart) && t.cfg.Warmup > 0 {
		phase = PhaseWarmup
	}
	if phase != t.phase {
		t.phase, t.phaseStart, t.phaseCount = phase, t.last, 0
	}
	hists := t.reg.Tick()
	tk := &Tick{Seq: t.seq, Phase: phase, Start: t.last, End: now, Elapsed: now.Sub(t.start),
		Ops: make([]OpTick, len(t.ops)), ErrorClasses: map[string]int64{}}
	for i := range t.ops {
		var e, r, l int64
		for _, s := range t.stats {
			e += s.errors[i].Load()
			r += s.retries[i].Load()
			l += s.late[i].Load()
		}
		tk.Ops[i] = OpTick{Hist: hists[i], Errors: e - t.prevErr[i], Retries: r - t.prevRetry[i], Late: l - t.prevLate[i]}
		t.prevErr[i], t.prevRetry[i], t.prevLate[i] = e, r, l
		tot := &t.meas[i]
		if phase == PhaseWarmup {
			tot = &t.warm[i]
		}
		tot.Hist.Merge(hists[i])
		tot.Errors += tk.Ops[i].Errors
		tot.Retries += tk.Ops[i].Retries
		tot.Late += tk.Ops[i].Late
		t.phaseCount += hists[i].TotalCount()
	}
	var reconn int64
	classes := map[string]int64{}
	for _, s := range t.stats {
		reconn += s.reconnects.Load()
		if s.down.Load() {
			tk.Down++
		}
		s.mu.Lock()
		for k, v := range s.classes {
			classes[k] += v
		}
		s.mu.Unlock()
	}
	tk.Reconnects = reconn - t.prevReconn
	t.prevReconn = reconn
	t.totalReconn = reconn
	for k, v := range classes {
		if d := v - t.prevClasses[k]; d > 0 {
			tk.ErrorClasses[k] = d
		}
	}
	t.prevClasses = classes
	if phase == PhaseMeasure {
		for k, v := range tk.ErrorClasses {
			t.totalClasses[k] += v
		}
	}
	if t.lagReg != nil {
		tk.Lag = t.lagReg.Tick()[0]
		if phase == PhaseMeasure {
			t.lag.Merge(tk.Lag)
		}
	}
	tk.PhaseCount = t.phaseCount
	tk.PhaseSeconds = now.Sub(t.phaseStart).Seconds()
	t.seq++
	t.last = now
	if t.obs != nil {
		t.obs.OnTick(tk)
	}
}

func (t *ticker) finish() {
	t.res.Ops = t.meas
	t.res.Warmup = t.warm
	t.res.ErrorClasses = t.totalClasses
	t.res.ErrorSamples = map[string]string{}
	for _, s := range t.stats {
		s.mu.Lock()
		for k, v := range s.samples {
			if _, ok := t.res.ErrorSamples[k]; !ok {
				t.res.ErrorSamples[k] = v
			}
		}
		s.mu.Unlock()
	}
	t.res.Reconnects = t.totalReconn
	t.res.Lag = t.lag
}

// SortedClasses returns error classes by descending count.
func SortedClasses(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
