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
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/runphase"
	"github.com/dbharness/dbharness/internal/selfcost"
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
	// the end of the run (its deadline, or an interrupt) before they are
	// cancelled; 0 means DefaultStopGrace.
	StopGrace time.Duration
	// ReconnectTimeout is how long a client that lost its connection keeps
	// trying to connect again before the run ends as failed. 0 means
	// DefaultReconnectTimeout for runs of fixed work (--transactions) and
	// the rest of the run for timed runs, which ride out outages and
	// report them.
	ReconnectTimeout time.Duration
	// StallTimeout ends the run as failed when every client that is not
	// reconnecting has been inside its transaction for this long: the
	// server has stopped answering (a frozen process, a lock nobody
	// releases). 0 means DefaultStallTimeout for runs of fixed work, which
	// have no deadline to end them, and no limit for timed runs; below 0,
	// no limit.
	StallTimeout time.Duration
	// Terminals, when above 0, runs that many emulated terminals sharing
	// the Clients connections; the workload must be a TerminalRunner.
	Terminals int
	// ThinkTimes makes terminals wait the workload's keying and think times.
	ThinkTimes bool
	// Driver is how clients run: DriverGoroutine, a goroutine per client on
	// Go's network poller, or DriverLoop, every client a coroutine of an
	// event loop that owns their sockets (package evloop; the database must
	// be a db.LoopDB). Empty means DriverGoroutine.
	Driver string
	// Loops is the number of event loops, each on its own OS thread, that
	// share the clients in loop mode; 0 means 1 (ResolveDriver sets it to
	// DefaultLoops when it chooses).
	Loops int
	// PinLoops keeps each loop's thread on a CPU of its own (PinLoops, the
	// function, says when).
	PinLoops bool
	// FollowServer, with pinned loops, moves each client now and then to
	// the loop on the CPU its server process runs on (placer).
	FollowServer bool
	// ClientBase and TerminalBase are the ids of this process's first
	// client and terminal among those of a sharded run's every process:
	// a workload keys its per-client data (home warehouses, key ranges) by
	// them, so shards never collide; 0 for a run of one process. The
	// open-loop schedule's stream is drawn from the seed and ClientBase,
	// so that each shard's is its own.
	ClientBase, TerminalBase int
	// Begin, when set, is called once every client has connected; the run
	// starts at the instant it returns (by this host's clock), waiting for
	// it, so that the shards of a run start together. The run's clock
	// starts at that instant even when the process wakes late: the shards'
	// intervals stay aligned, and the lateness is the Result's StartLate.
	Begin func(ctx context.Context) (time.Time, error)
}

// DefaultStopGrace is how long transactions in flight at the end of a run
// may take to finish before they are cancelled.
const DefaultStopGrace = time.Second

// DefaultReconnectTimeout bounds reconnection in runs of fixed work, which
// have no deadline to end them.
const DefaultReconnectTimeout = 30 * time.Second

// DefaultStallTimeout bounds how long a run of fixed work waits for a
// server that answers none of its clients.
const DefaultStallTimeout = 60 * time.Second

// stallLimit is how long every client may wait for the server; 0 is no
// limit.
func (c *Config) stallLimit() time.Duration {
	switch {
	case c.StallTimeout < 0:
		return 0
	case c.StallTimeout > 0 || c.Duration > 0:
		return c.StallTimeout
	}
	return DefaultStallTimeout
}

// Grace is how long transactions in flight at the end of the run may take
// to finish before they are cancelled: StopGrace, or DefaultStopGrace.
func (c *Config) Grace() time.Duration {
	if c.StopGrace > 0 {
		return c.StopGrace
	}
	return DefaultStopGrace
}

// reconnectLimit is how long a client may try to reconnect; 0 is no limit.
func (c *Config) reconnectLimit() time.Duration {
	if c.ReconnectTimeout > 0 || c.Duration > 0 {
		return c.ReconnectTimeout
	}
	return DefaultReconnectTimeout
}

// ErrStopped is matched (errors.Is) by the error Run returns when the run
// was stopped (stop closed) before its clock started: nothing was
// measured. The error itself says when: before every client had
// connected, or while they waited for the start Config.Begin agrees (a
// shard waiting for its group's other shards).
var ErrStopped = errors.New("stopped before the run's clock started")

// stopped is ErrStopped with when it happened, e.g. "before every client
// had connected".
type stopped string

func (s stopped) Error() string        { return "stopped " + string(s) }
func (s stopped) Is(target error) bool { return target == ErrStopped }

// When says when the run was stopped, as the error's text does after
// "stopped ".
func (s stopped) When() string { return string(s) }

// ClassCancelled is the error class of the transactions still in flight
// when the run ended and its grace was over: they were cancelled.
const ClassCancelled = "cancelled"

// Drivers (Config.Driver).
const (
	DriverGoroutine = "goroutine"
	DriverLoop      = "loop"
)

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
	case c.ReconnectTimeout < 0:
		return fmt.Errorf("--reconnect-timeout %s is negative", c.ReconnectTimeout)
	case c.StopGrace < 0:
		return fmt.Errorf("stop grace %s is negative", c.StopGrace)
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
	case c.Driver != "" && c.Driver != DriverGoroutine && c.Driver != DriverLoop:
		return fmt.Errorf("--driver %q is not a driver; use loop or goroutine", c.Driver)
	case c.Driver == DriverLoop && c.Terminals > 0:
		return errors.New("--terminals runs on the goroutine driver (terminals are goroutines that share connections); use --driver goroutine")
	case c.Loops < 0:
		return fmt.Errorf("--loops %d is negative", c.Loops)
	case c.Loops > 0 && c.Driver == DriverGoroutine:
		return errors.New("--loops is for --driver loop")
	case c.Loops > c.Clients:
		return fmt.Errorf("--loops %d is more than the %d clients", c.Loops, c.Clients)
	}
	return nil
}

// The measurements the engine hands out (package measure, so that what
// reads them need not import the engine).
type (
	OpTick   = measure.OpTick
	Tick     = measure.Tick
	OpResult = measure.OpResult
	Result   = measure.Result
)

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

// workerStats are one worker's counters; the ticker reads them. The pads
// keep the fields a client writes on every transaction (busySince,
// lastEnd) off the cache lines of the next client's, which may run on
// another event loop's thread.
type workerStats struct {
	_                     [128]byte
	errors, retries, late []atomic.Int64
	reconnects            atomic.Int64
	down                  atomic.Bool
	finished              atomic.Int64 // unix ns when the client stopped
	// lastEnd is when the client's last transaction ended, as time since
	// the measured phase's start (which keeps the monotonic clock);
	// noEnd until one has.
	lastEnd atomic.Int64
	// busySince is when the transaction in flight began (unix ns), 0
	// between transactions.
	busySince atomic.Int64
	mu        sync.Mutex
	classes   map[string]int64
	samples   map[string]string
	// downs are the client's spans without a connection.
	downs []measure.Span
	_     [128]byte
}

// recorders gives each of the clients the histograms it records into
// (handles; lags where lagReg is set) and the lock it takes to record
// (nil where it needs none). The clients of one event loop (loops > 0)
// run one at a time on its thread, so they share the loop's histograms
// without a lock. Goroutine clients share theirs in groups, a few per
// processor (recordGroups), under a lock per group: a set per client
// took 52 KB per transaction type (1,000 clients of tpcc's five: 260 MB)
// and a merge of each on every tick. Either way a tick merges a few
// sets, not one per client, which is what lets one process drive
// thousands of clients.
func recorders(reg, lagReg *histogram.Registry, clients, loops int) (handles, lags []histogram.Handle, locks []*sync.Mutex) {
	sets := loops
	if loops == 0 {
		sets = recordGroups(clients)
	}
	setHandles, setLags := make([]histogram.Handle, sets), make([]histogram.Handle, sets)
	for k := range setHandles {
		setHandles[k] = reg.NewHandle()
		if lagReg != nil {
			setLags[k] = lagReg.NewHandle()
		}
	}
	var groupLocks []paddedMutex
	if loops == 0 && sets < clients {
		groupLocks = make([]paddedMutex, sets)
	}
	handles, lags, locks = make([]histogram.Handle, clients), make([]histogram.Handle, clients), make([]*sync.Mutex, clients)
	for i := range handles {
		k := loopOf(i, clients, sets)
		handles[i], lags[i] = setHandles[k], setLags[k]
		if groupLocks != nil {
			locks[i] = &groupLocks[k].Mutex
		}
	}
	return handles, lags, locks
}

// recordGroups is how many sets of histograms goroutine clients share:
// four per processor the Go runtime runs on, so that clients seldom wait
// for each other's lock (a Record holds it for tens of nanoseconds, and
// a transaction takes tens of microseconds or more).
func recordGroups(clients int) int {
	return min(clients, 4*runtime.GOMAXPROCS(0))
}

// paddedMutex is a group's lock, kept off the cache lines of the next
// group's.
type paddedMutex struct {
	_ [128]byte
	sync.Mutex
	_ [128]byte
}

// record adds one latency to h (the client's h or lag), under the
// client's group lock if it shares h.
func (c *client) record(h histogram.Handle, op int, d time.Duration) {
	if c.hmu == nil {
		h.Record(op, d)
		return
	}
	c.hmu.Lock()
	h.Record(op, d)
	c.hmu.Unlock()
}

// noEnd is workerStats.lastEnd before the client's first transaction ends.
const noEnd = math.MinInt64

// lastEnd is when the last of the clients' transactions ended, or the
// stop if that was later (zero when no transaction ended and the run was
// not stopped).
func lastEnd(stats []*workerStats, measureStart, stoppedAt time.Time) time.Time {
	end := stoppedAt
	for _, s := range stats {
		v := s.lastEnd.Load()
		if v == noEnd {
			continue
		}
		if e := measureStart.Add(time.Duration(v)); end.IsZero() || e.After(end) {
			end = e
		}
	}
	return end
}

// stalled says whether every client still running and connected has
// been inside its transaction for longer than lim at now (and at least
// one is).
func stalled(stats []*workerStats, now time.Time, lim time.Duration) bool {
	waiting := 0
	for _, s := range stats {
		if s.finished.Load() != 0 || s.down.Load() {
			continue
		}
		b := s.busySince.Load()
		if b == 0 || now.Sub(time.Unix(0, b)) <= lim {
			return false
		}
		waiting++
	}
	return waiting > 0
}

// wentDown and cameUp bound a span without a connection; open says the
// client never got one back.
func (s *workerStats) wentDown(at time.Time) {
	s.down.Store(true)
	s.mu.Lock()
	s.downs = append(s.downs, measure.Span{From: at})
	s.mu.Unlock()
}

func (s *workerStats) cameUp(at time.Time, open bool) {
	s.mu.Lock()
	if n := len(s.downs); n > 0 {
		s.downs[n-1].To, s.downs[n-1].Open = at, open
	}
	s.mu.Unlock()
	s.down.Store(false)
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
	connect, err := connector(d, &cfg)
	if err != nil {
		return nil, err
	}
	var loops []*evloop.Loop
	var pinned []int // the loops' CPUs, when pinned
	if cfg.Driver == DriverLoop {
		if loops, err = newLoops(max(1, cfg.Loops)); err != nil {
			return nil, err
		}
		if cfg.PinLoops {
			pinned = PinLoops(loops, evloop.AllowedCPUs())
		}
	}
	conns := make([]db.Conn, cfg.Clients)
	workers := make([]workload.Worker, cfg.Clients)
	// Stop (an interrupt) ends the connecting too.
	cctx, ccancel := context.WithCancel(ctx)
	interrupt := stop // the loop below sets stop to nil
	go func() {
		select {
		case <-interrupt:
			ccancel()
		case <-cctx.Done():
		}
	}()
	err = connectAll(cctx, connect, r, conns, workers, cfg.ClientBase)
	var agreed time.Time
	when := stopped("before every client had connected")
	if err == nil && cfg.Begin != nil {
		when = "after every client had connected, while waiting for the agreed start"
		if agreed, err = begin(cctx, cfg.Begin); err != nil {
			for _, c := range conns {
				c.Close()
			}
		}
	}
	ccancel()
	if err != nil {
		for _, l := range loops {
			l.Close()
		}
		select {
		case <-interrupt:
			return nil, when
		default:
		}
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
		stats[i].lastEnd.Store(noEnd)
	}
	startCost := selfcost.Read()
	start := startCost.At
	var startLate time.Duration
	if !agreed.IsZero() && agreed.Before(start) {
		start, startLate = agreed, start.Sub(agreed)
	}
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
		sched = newSchedule(start, cfg.Rate, scheduleSeed(&cfg))
	}
	var stopping, hardStop atomic.Bool
	stopC := make(chan struct{})
	hard, cancel := context.WithCancel(ctx)
	defer cancel()
	// A client that cannot reconnect in time fails the run: the first one
	// says why, and the run stops.
	var failOnce sync.Once
	failC := make(chan struct{})
	var failure string
	fail := func(msg string) {
		failOnce.Do(func() {
			failure = msg
			close(failC)
		})
	}

	var wg sync.WaitGroup
	handles, lagHandles, locks := recorders(reg, lagReg, cfg.Clients, len(loops))
	clients := make([]*client, cfg.Clients)
	for i := range clients {
		clients[i] = &client{id: i, d: d, connect: connect, r: r, cfg: &cfg, w: workers[i], h: handles[i], lag: lagHandles[i], hmu: locks[i],
			st: stats[i], sched: sched, stopping: &stopping, hardStop: &hardStop, stopC: stopC, measureStart: measureStart,
			deadline: deadline, byRequest: d.Caps().CancelByRequest, fail: fail}
		clients[i].setConn(conns[i])
	}
	var termEnds []atomic.Int64
	var pl *placer
	switch {
	case tr != nil:
		termEnds = runTerminals(hard, tr, &cfg, clients, &wg, &stopping, stopC, measureStart)
	case loops != nil:
		pl = newPlacer(loops, pinned, clients, cfg.FollowServer)
		runLoops(hard, pl, clients, &wg)
	default:
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

	res := &Result{Start: start, MeasureStart: measureStart, StartLate: startLate, ErrorClasses: map[string]int64{}, Driver: DriverGoroutine}
	if loops != nil {
		res.Driver, res.Loops = DriverLoop, len(loops)
	}
	t := &ticker{cfg: &cfg, ops: ops, reg: reg, lagReg: lagReg, stats: stats, obs: obs, start: start,
		measureStart: measureStart, res: res, loops: loops, pl: pl, cost: startCost}
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
	abandonC := make(chan struct{})
	grace := cfg.Grace()
	var stoppedAt time.Time
	beginStop := func() {
		if stopping.Swap(true) {
			return
		}
		stoppedAt = time.Now()
		close(stopC)
		for _, l := range loops {
			l.Interrupt()
		}
		// Let in-flight transactions finish, then cancel them (counted as
		// ClassCancelled). A second later, a client whose statement is not
		// answered even then stops waiting: the loops abort their waits,
		// and goroutine clients have their sockets closed (db.Aborter).
		// Clients that still have not stopped are abandoned: a server that
		// stopped answering cannot hold the run.
		go func() {
			select {
			case <-done:
				return
			case <-time.After(grace):
			}
			hardStop.Store(true)
			cancel()
			for _, c := range clients {
				c.cancelStatement()
			}
			select {
			case <-done:
				return
			case <-time.After(abortAfterCancel):
			}
			for _, l := range loops {
				l.Abort()
			}
			if loops == nil {
				for _, c := range clients {
					c.abort()
				}
			}
			select {
			case <-done:
			case <-time.After(abandonAfterAbort):
				close(abandonC)
			}
		}()
	}
	failSel := failC
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
			if lim := cfg.stallLimit(); lim > 0 && stalled(t.stats, time.Now(), lim) {
				fail(fmt.Sprintf("the server answered none of the clients for %s: every client was waiting on its transaction (the stall timeout; give --stall-timeout to wait longer)", lim))
			}
			next = t.nextTick()
			tickTimer.Reset(time.Until(next))
		case <-deadlineC:
			deadlineC = nil
			beginStop()
		case <-stop:
			stop = nil
			res.Interrupted = true
			beginStop()
		case <-failSel:
			failSel = nil
			beginStop()
		case <-done:
			finished = true
		case <-abandonC:
			finished = true
			for _, c := range clients {
				if c.st.finished.Load() == 0 {
					res.Abandoned++
				}
			}
		}
	}
	// The run ends when its last transaction did (a run stopped at its
	// deadline, not before), or when its grace was over: the time spent
	// cancelling what was left, and the clients' own ending (thousands of
	// idle open-loop clients take a while), is not measured.
	res.End = time.Now()
	if end := lastEnd(stats, measureStart, stoppedAt); !end.IsZero() && end.Before(res.End) {
		res.End = end
	}
	if !stoppedAt.IsZero() && res.End.After(stoppedAt.Add(grace)) {
		res.End = stoppedAt.Add(grace)
	}
	select {
	case <-failC:
		res.Failure = failure
	default:
	}
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
	var spans []measure.Span
	for _, s := range stats {
		s.mu.Lock()
		spans = append(spans, s.downs...)
		s.mu.Unlock()
	}
	res.Outages = measure.Outages(spans, res.End)
	for _, sp := range spans {
		if sp.Open || sp.To.IsZero() {
			res.DownAtEnd++
		}
	}
	t.finish()
	return res, nil
}

// connector returns how the driver opens a client's connection: a
// db.LoopDB's loop connection in loop mode, else DB.Connect.
func connector(d db.DB, cfg *Config) (func(context.Context) (db.Conn, error), error) {
	if cfg.Driver != DriverLoop {
		return d.Connect, nil
	}
	ld, ok := d.(db.LoopDB)
	if !ok {
		return nil, fmt.Errorf("--driver loop: the %s engine has no event-loop connections; use --driver goroutine", d.Target().Kind)
	}
	if !evloop.Available() {
		return nil, errors.New("--driver loop needs Linux (epoll); use --driver goroutine")
	}
	return func(ctx context.Context) (db.Conn, error) {
		c, err := ld.ConnectLoop(ctx)
		if err != nil {
			return nil, err
		}
		return c, nil
	}, nil
}

// clientSetupTimeout bounds how long a client may take to connect and to
// set its worker up (prepare its statements).
const clientSetupTimeout = 10 * time.Second

// begin asks f for the run's starting instant, waits for it and returns
// it; an interrupt (ctx) ends the wait. An instant already past starts the
// run at once.
func begin(ctx context.Context, f func(context.Context) (time.Time, error)) (time.Time, error) {
	at, err := f(ctx)
	if err != nil {
		return time.Time{}, err
	}
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return at, nil
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
}

func connectAll(ctx context.Context, connect func(context.Context) (db.Conn, error), r workload.Runner, conns []db.Conn, workers []workload.Worker, base int) error {
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
			cctx, cancel := context.WithTimeout(ctx, clientSetupTimeout)
			defer cancel()
			c, err := connect(cctx)
			if err == nil {
				workers[i], err = r.NewWorker(cctx, c, base+i)
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

// scheduleSeed is the seed of the open-loop arrivals: the run's, mixed with
// the id of its first client, so that the shards of a group (each its own
// first client) draw independent streams, and a run of one process the
// same as before shards.
func scheduleSeed(cfg *Config) uint64 {
	return cfg.Seed ^ uint64(cfg.ClientBase)*0x9e3779b97f4a7c15
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
	id      int
	d       db.DB
	connect func(context.Context) (db.Conn, error)
	r       workload.Runner
	cfg     *Config
	conn    db.Conn
	w       workload.Worker
	h, lag  histogram.Handle
	// hmu, when set, guards h and lag, which the client shares with other
	// goroutine clients (recordGroups).
	hmu      *sync.Mutex
	st       *workerStats
	sched    *schedule
	stopping *atomic.Bool
	// hardStop is set when the stop grace is over and transactions in
	// flight are being cancelled.
	hardStop *atomic.Bool
	stopC    <-chan struct{} // closed with stopping
	// fail ends the run as failed, saying why.
	fail         func(msg string)
	measureStart time.Time
	deadline     time.Time
	// byRequest: statements run under a never-cancelled context (cheaper
	// for the driver) and are cancelled with Conn.Cancel at a hard stop.
	byRequest bool
	live      atomic.Value // liveConn: the connection, for cancelStatement
	// task is the client's coroutine in loop mode (nil on goroutines), and
	// taskCtx the context its statements run under.
	task    *evloop.Task
	taskCtx context.Context
	// measured counts the client's transactions begun in the measured
	// phase (run's; terminals count their own), and ended is when its last
	// transaction ended.
	measured int64
	ended    time.Time
	// loopIdx is the index of the client's loop, and seat its place in
	// the placer's watch (nil: the client stays where it is).
	loopIdx int
	seat    *seat
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

// abort closes the socket of a goroutine client whose transaction is still
// in flight, where the connection can (db.Aborter); loops abort their own
// clients.
func (c *client) abort() {
	if c.st.busySince.Load() == 0 {
		return
	}
	if lc, ok := c.live.Load().(liveConn); ok {
		if a, ok := lc.c.(db.Aborter); ok {
			a.Abort()
		}
	}
}

// stmtCtx is the context statements run under.
func (c *client) stmtCtx(ctx context.Context) context.Context {
	if c.task != nil {
		return c.taskCtx
	}
	if c.byRequest {
		return context.Background()
	}
	return ctx
}

func (c *client) loop(ctx context.Context) {
	defer c.finish()
	c.run(ctx)
}

// run runs transactions until the client's end, or until it is to move
// to another loop: then it returns that loop's index (else -1), between
// transactions.
func (c *client) run(ctx context.Context) (moveTo int) {
	for !c.stopping.Load() {
		if c.cfg.Transactions > 0 && c.measured >= c.cfg.Transactions {
			return -1
		}
		var intended time.Time
		if c.sched != nil {
			intended = c.sched.Next()
			if !c.deadline.IsZero() && intended.After(c.deadline) {
				// No arrival left before the deadline: wait for it, so
				// that the measured phase is the duration asked for.
				c.sleep(time.Until(intended))
				return -1
			}
			if !c.sleep(time.Until(intended)) {
				return -1
			}
		}
		op := c.w.Next()
		if !c.execute(ctx, op, intended, &c.measured) {
			return -1
		}
		if th, ok := c.w.(workload.Thinker); ok {
			if d := th.ThinkTime(op); d > 0 && !c.sleep(d) {
				return -1
			}
		}
		if c.seat != nil && !c.ended.Before(c.seat.next) {
			if to := c.seat.look(c); to >= 0 {
				return to
			}
		}
	}
	return -1
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
	if !c.deadline.IsZero() && begin.After(c.deadline) {
		// Past the deadline: no transaction starts, however late the
		// engine's timer sees it.
		return false
	}
	if intended.IsZero() {
		intended = begin
	} else if c.lag != nil {
		c.record(c.lag, 0, begin.Sub(intended))
	}
	c.st.busySince.Store(begin.UnixNano())
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
	c.ended = end
	c.st.busySince.Store(0)
	c.st.lastEnd.Store(int64(end.Sub(c.measureStart)))
	if begin.After(c.measureStart) {
		*measured++
	}
	if err == nil {
		lat := end.Sub(intended)
		c.record(c.h, op, lat)
		if c.cfg.LatencyLimit > 0 && lat > c.cfg.LatencyLimit {
			c.st.late[op].Add(1)
		}
		return true
	}
	if c.hardStop != nil && c.hardStop.Load() || ctx.Err() != nil {
		// Still in flight when the run's grace ended: cancelled.
		c.st.errors[op].Add(1)
		c.st.addClass(ClassCancelled, err)
		return false
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
	if c.task != nil {
		return c.task.Sleep(d) && !c.stopping.Load()
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
// between attempts, until it succeeds, the run stops, or the reconnect
// timeout is over (which fails the run). The time without a connection is
// kept for the run's outages.
func (c *client) reconnect(ctx context.Context) bool {
	began := time.Now()
	c.st.wentDown(began)
	if c.conn != nil {
		c.conn.Close()
		c.setConn(nil)
	}
	limit := c.cfg.reconnectLimit()
	backoff := 50 * time.Millisecond
	for !c.stopping.Load() && ctx.Err() == nil {
		conn, w, err := c.open(ctx)
		if conn != nil {
			c.setConn(conn)
			c.w = w
			c.st.reconnects.Add(1)
			c.st.cameUp(time.Now(), false)
			return true
		}
		wait := backoff
		if limit > 0 {
			left := limit - time.Since(began)
			if left <= 0 {
				c.fail(fmt.Sprintf("client %d could not connect again within the reconnect timeout (%s): %v",
					c.id+1, limit, err))
				break
			}
			wait = min(wait, left) // one last try at the limit
		}
		if !c.sleep(wait) {
			break
		}
		backoff = min(backoff*2, 2*time.Second)
	}
	c.st.cameUp(time.Now(), true)
	return false
}

// open connects and makes a worker on the new connection, or returns why
// it could not. On a loop the connection is opened on a goroutine
// (Offload) while the other clients go on, and then attached to the
// client's task.
func (c *client) open(ctx context.Context) (db.Conn, workload.Worker, error) {
	var conn db.Conn
	var w workload.Worker
	var err error
	dial := func() {
		cctx, cancel := context.WithTimeout(ctx, clientSetupTimeout)
		defer cancel()
		if conn, err = c.connect(cctx); err != nil {
			conn = nil
			return
		}
		if w, err = c.r.NewWorker(cctx, conn, c.cfg.ClientBase+c.id); err != nil {
			conn.Close()
			conn = nil
		}
	}
	if c.task == nil {
		dial()
		return conn, w, err
	}
	c.task.Offload(dial)
	if conn != nil {
		if err = c.attach(conn); err != nil {
			conn.Close()
			return nil, nil, err
		}
	}
	return conn, w, err
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

	// The harness's own cost: the last sample, the loops and their last
	// stats, and the measured phase's sums.
	cost                selfcost.Sample
	loops               []*evloop.Loop
	pl                  *placer
	loopStats           []evloop.Stats
	measCPU             time.Duration
	measBusy, measTotal uint64
	runQueueSum         float64
	runQueueN           int
	measLoopStart       []evloop.Stats
	measLoopEnd         []evloop.Stats
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
	t.phase, t.phaseStart = runphase.Measure, t.measureStart
	if t.cfg.Warmup > 0 {
		t.phase, t.phaseStart = runphase.Warmup, t.start
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
	phase := runphase.Measure
	if !now.After(t.measureStart) && t.cfg.Warmup > 0 {
		phase = runphase.Warmup
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
		if phase == runphase.Warmup {
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
		if b := s.busySince.Load(); b != 0 && b <= t.last.UnixNano() {
			tk.Waiting++
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
	if phase == runphase.Measure {
		for k, v := range tk.ErrorClasses {
			t.totalClasses[k] += v
		}
	}
	if t.lagReg != nil {
		tk.Lag = t.lagReg.Tick()[0]
		if phase == runphase.Measure {
			t.lag.Merge(tk.Lag)
		}
	}
	tk.PhaseCount = t.phaseCount
	tk.PhaseSeconds = now.Sub(t.phaseStart).Seconds()
	t.sampleCost(tk, phase)
	t.seq++
	t.last = now
	if t.obs != nil {
		t.obs.OnTick(tk)
	}
}

// sampleCost fills the tick's cost figures and adds them to the measured
// phase's.
func (t *ticker) sampleCost(tk *Tick, phase string) {
	now := selfcost.Read()
	sp := selfcost.Between(t.cost, now)
	tk.CPU, tk.HostIdle, tk.RunQueue, tk.LoopBusy = sp.CPU, sp.HostIdle, now.Running, -1
	if phase == runphase.Measure {
		t.measCPU += sp.CPU
		if now.HostTotal > t.cost.HostTotal {
			t.measBusy += now.HostBusy - t.cost.HostBusy
			t.measTotal += now.HostTotal - t.cost.HostTotal
		}
		if now.Running > 0 {
			// Less the thread that reads it.
			t.runQueueSum += float64(now.Running - 1)
			t.runQueueN++
		}
	}
	t.cost = now
	if len(t.loops) == 0 {
		return
	}
	if t.loopStats == nil {
		t.loopStats = make([]evloop.Stats, len(t.loops))
	}
	cur := make([]evloop.Stats, len(t.loops))
	for i, l := range t.loops {
		cur[i] = l.Stats()
		if el := cur[i].Elapsed - t.loopStats[i].Elapsed; el > 0 {
			tk.LoopBusy = max(tk.LoopBusy, float64(cur[i].Busy-t.loopStats[i].Busy)/float64(el))
		}
	}
	if phase == runphase.Measure {
		if t.measLoopStart == nil {
			t.measLoopStart = t.loopStats
		}
		t.measLoopEnd = cur
	}
	t.loopStats = cur
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
	t.res.CPU = t.measCPU
	t.res.HostIdle, t.res.RunQueue, t.res.LoopBusy = -1, -1, -1
	if t.measTotal > 0 {
		t.res.HostIdle = 1 - float64(t.measBusy)/float64(t.measTotal)
	}
	if t.runQueueN > 0 {
		t.res.RunQueue = t.runQueueSum / float64(t.runQueueN)
	}
	for _, l := range t.loops {
		if cpu := l.Stats().CPU; cpu >= 0 {
			t.res.LoopCPUs = append(t.res.LoopCPUs, cpu)
		}
	}
	if len(t.res.LoopCPUs) != len(t.loops) {
		t.res.LoopCPUs = nil // some ran unpinned: the list would mislead
	}
	if t.pl != nil && t.pl.follow && t.res.LoopCPUs != nil {
		t.res.FollowServer, t.res.LoopMoves = true, t.pl.moves.Load()
	}
	for i := range t.measLoopEnd {
		a, b := t.measLoopStart[i], t.measLoopEnd[i]
		if el := b.Elapsed - a.Elapsed; el > 0 {
			t.res.LoopBusy = max(t.res.LoopBusy, float64(b.Busy-a.Busy)/float64(el))
		}
	}
}
