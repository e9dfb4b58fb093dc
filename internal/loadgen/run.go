package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/selfcost"
	"github.com/dbharness/dbharness/internal/workload"
)

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

// Run drives the workload until the configuration's end, or until stop is
// closed (an interrupted run). Closing ctx cancels transactions in flight.
func Run(ctx context.Context, d db.DB, r workload.Runner, cfg Config, obs Observer, stop <-chan struct{}) (*Result, error) {
	rn, err := prepare(ctx, d, r, cfg, obs)
	if err != nil {
		return nil, err
	}
	defer rn.cancel()
	if err := rn.connectClients(stop); err != nil {
		return nil, err
	}
	rn.startClock()
	rn.startClients()
	rn.startTicker()
	rn.drive(stop)
	return rn.end(), nil
}

// run is one Run's state, which its steps fill in turn.
type run struct {
	ctx context.Context
	d   db.DB
	r   workload.Runner
	cfg Config
	obs Observer

	// prepare's: the transaction types, the terminal runner (with
	// Terminals), how a client connects, the event loops (loop mode) and
	// their CPUs (when pinned), and the context the clients run under,
	// cancelled when the stop grace is over and when Run returns.
	ops []string
	tr  workload.TerminalRunner
	// stmtNames are the timed statements' names per op (ReportStatements).
	stmtNames [][]string
	connect   func(context.Context) (db.Conn, error)
	loops     []*evloop.Loop
	pinned    []int
	hard      context.Context
	cancel    context.CancelFunc

	// connectClients': every client's connection and worker, and the start
	// Config.Begin agreed (zero without it).
	conns   []db.Conn
	workers []workload.Worker
	agreed  time.Time

	// startClock's.
	reg, lagReg *histogram.Registry
	// earlyReg, with a warm-up, holds what the clients record in the
	// measured phase before the ticker has closed the warm-up (gate): the
	// ticker adds it to the first measured interval.
	earlyReg     *histogram.Registry
	gate         atomic.Bool
	stats        []*workerStats
	startCost    selfcost.Sample
	start        time.Time
	startLate    time.Duration
	first        *firstLate
	measureStart time.Time
	deadline     time.Time // zero: the run ends when its work is done
	sched        *schedule

	// startClients': the stop escalation, the failure (failC is closed
	// when a client fails the run, failure says why), the clients, the
	// terminals' ends, the placer (loop mode), and done, closed when every
	// client has ended.
	stopper  *stopper
	failOnce sync.Once
	failC    chan struct{}
	failure  string
	clients  []*client
	termEnds []atomic.Int64
	pl       *placer
	done     chan struct{}

	// startTicker's.
	res *Result
	t   *ticker
}

// prepare checks the configuration, and makes how clients connect and,
// in loop mode, the event loops.
func prepare(ctx context.Context, d db.DB, r workload.Runner, cfg Config, obs Observer) (*run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rn := &run{ctx: ctx, d: d, r: r, cfg: cfg, obs: obs, ops: r.Ops()}
	if cfg.Terminals > 0 {
		var ok bool
		if rn.tr, ok = r.(workload.TerminalRunner); !ok {
			return nil, errors.New("this workload has no terminals; --terminals is for TPC-C-style workloads")
		}
	}
	if cfg.ReportStatements {
		st, ok := r.(workload.StatementTimer)
		if !ok {
			return nil, errors.New("-r (--report-per-statement): this workload cannot time its statements")
		}
		rn.stmtNames = st.StatementNames()
	}
	if _, ok := r.(workload.Rebinder); cfg.ConnectPerTx && !ok {
		return nil, errors.New("-C (--connect): this workload's clients cannot move to a new connection for each transaction")
	}
	var err error
	if rn.connect, err = connector(d, &rn.cfg); err != nil {
		return nil, err
	}
	if cfg.Driver == DriverLoop {
		if rn.loops, err = newLoops(max(1, cfg.Loops)); err != nil {
			return nil, err
		}
		if cfg.PinLoops {
			rn.pinned = PinLoops(rn.loops, evloop.AllowedCPUs())
		}
	}
	rn.hard, rn.cancel = context.WithCancel(ctx)
	return rn, nil
}

// connectClients connects every client before the clock starts, as
// pgbench does, and waits for the start Config.Begin agrees. Stop (an
// interrupt) ends the connecting too: the error is then a stopped.
func (rn *run) connectClients(stop <-chan struct{}) error {
	rn.conns = make([]db.Conn, rn.cfg.Clients)
	rn.workers = make([]workload.Worker, rn.cfg.Clients)
	cctx, ccancel := context.WithCancel(rn.ctx)
	go func() {
		select {
		case <-stop:
			ccancel()
		case <-cctx.Done():
		}
	}()
	err := connectAll(cctx, rn.connect, rn.r, rn.conns, rn.workers, rn.cfg.ClientBase)
	when := stopped("before every client had connected")
	if err == nil && rn.cfg.Begin != nil {
		when = "after every client had connected, while waiting for the agreed start"
		if rn.agreed, err = begin(cctx, rn.cfg.Begin); err != nil {
			for _, c := range rn.conns {
				c.Close()
			}
		}
	}
	ccancel()
	if err != nil {
		for _, l := range rn.loops {
			l.Close()
		}
		select {
		case <-stop:
			return when
		default:
		}
		return err
	}
	return nil
}

// startClock makes the histograms and the clients' counters, and starts
// the run's clock: now, or the agreed start when the process woke late.
// The observer is told; the warm-up's end, the deadline and the open-loop
// schedule count from it.
func (rn *run) startClock() {
	cfg := &rn.cfg
	rn.reg = histogram.NewRegistry(rn.ops)
	if cfg.Warmup > 0 {
		rn.earlyReg = histogram.NewRegistry(rn.ops)
	}
	if cfg.Rate > 0 {
		rn.lagReg = histogram.NewRegistry([]string{"lag"})
	}
	n := len(rn.ops)
	rn.stats = make([]*workerStats, cfg.Clients)
	for i := range rn.stats {
		rn.stats[i] = &workerStats{errors: make([]atomic.Int64, n), retries: make([]atomic.Int64, n),
			late: make([]atomic.Int64, n), classes: map[string]int64{}, samples: map[string]string{}}
		rn.stats[i].lastEnd.Store(noEnd)
	}
	rn.startCost = selfcost.Read()
	rn.start = rn.startCost.At
	if !rn.agreed.IsZero() && rn.agreed.Before(rn.start) {
		rn.start, rn.startLate = rn.agreed, rn.start.Sub(rn.agreed)
	}
	rn.first = newFirstLate(rn.start)
	if so, ok := rn.obs.(StartObserver); ok {
		so.OnStart(rn.start)
	}
	rn.measureStart = rn.start.Add(cfg.Warmup)
	if cfg.Duration > 0 {
		rn.deadline = rn.measureStart.Add(cfg.Duration)
	}
	if cfg.Rate > 0 {
		rn.sched = newSchedule(rn.start, cfg.Rate, scheduleSeed(cfg))
	}
}

// startClients starts the clients: as emulated terminals sharing them, on
// the event loops, or a goroutine each. done is closed when every one has
// ended.
func (rn *run) startClients() {
	cfg := &rn.cfg
	rn.failC = make(chan struct{})
	rn.done = make(chan struct{})
	rn.stopper = newStopper(cfg.Grace(), rn.done, rn.interruptLoops, rn.cancelInFlight, rn.abortInFlight)
	st := rn.stopper
	handles, lagHandles, locks := recorders(rn.reg, rn.lagReg, cfg.Clients, len(rn.loops))
	var early []histogram.Handle
	if rn.earlyReg != nil {
		// Grouped as handles are, and guarded by the same locks.
		early, _, _ = recorders(rn.earlyReg, nil, cfg.Clients, len(rn.loops))
	}
	rn.clients = make([]*client, cfg.Clients)
	for i := range rn.clients {
		rn.clients[i] = &client{id: i, d: rn.d, connect: rn.connect, r: rn.r, cfg: cfg, w: rn.workers[i], h: handles[i], lag: lagHandles[i], hmu: locks[i],
			st: rn.stats[i], sched: rn.sched, stopping: &st.stopping, hardStop: &st.hardStop, stopC: st.stopC, measureStart: rn.measureStart,
			start: rn.start, first: rn.first, deadline: rn.deadline, byRequest: rn.d.Caps().CancelByRequest, fail: rn.fail}
		if early != nil {
			rn.clients[i].early, rn.clients[i].gate = early[i], &rn.gate
		}
		if cfg.ReportStatements || cfg.ConnectPerTx {
			rn.clients[i].extra = newExtraClock(rn.stmtNames)
		}
		rn.clients[i].setWorker(rn.workers[i])
		rn.clients[i].setConn(rn.conns[i])
	}
	var wg sync.WaitGroup
	switch {
	case rn.tr != nil:
		rn.termEnds = runTerminals(rn.hard, rn.tr, cfg, rn.clients, &wg, &st.stopping, st.stopC, rn.measureStart, rn.start)
	case rn.loops != nil:
		// A client with a connection per transaction has no server process
		// to follow.
		rn.pl = newPlacer(rn.loops, rn.pinned, rn.clients, cfg.FollowServer && !cfg.ConnectPerTx)
		runLoops(rn.hard, rn.pl, rn.clients, &wg)
	default:
		for _, c := range rn.clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.loop(rn.hard)
			}()
		}
	}
	go func() {
		wg.Wait()
		if rn.tr != nil {
			for _, c := range rn.clients {
				c.finish()
			}
		}
		close(rn.done)
	}()
}

// fail ends the run as failed, saying why (a client that cannot reconnect
// in time, a stalled server): the first call says why, and the run stops.
func (rn *run) fail(msg string) {
	rn.failOnce.Do(func() {
		rn.failure = msg
		close(rn.failC)
	})
}

// interruptLoops is the stopper's graceful step beyond its flags: the
// loops wake their clients, which then see the stop.
func (rn *run) interruptLoops() {
	for _, l := range rn.loops {
		l.Interrupt()
	}
}

// cancelInFlight is the stopper's cancel step: it cancels the clients'
// context and, where the engine cancels by request, their statements.
func (rn *run) cancelInFlight() {
	rn.cancel()
	for _, c := range rn.clients {
		c.cancelStatement()
	}
}

// abortInFlight is the stopper's abort step: the loops abort their
// clients' waits, and goroutine clients have their sockets closed
// (db.Aborter).
func (rn *run) abortInFlight() {
	for _, l := range rn.loops {
		l.Abort()
	}
	if rn.loops == nil {
		for _, c := range rn.clients {
			c.abort()
		}
	}
}

// startTicker makes the run's Result and the ticker that fills it.
func (rn *run) startTicker() {
	rn.res = &Result{Start: rn.start, MeasureStart: rn.measureStart, StartLate: rn.startLate, ErrorClasses: map[string]int64{}, Driver: DriverGoroutine}
	if rn.loops != nil {
		rn.res.Driver, rn.res.Loops = DriverLoop, len(rn.loops)
	}
	rn.t = &ticker{cfg: &rn.cfg, ops: rn.ops, reg: rn.reg, lagReg: rn.lagReg, earlyReg: rn.earlyReg, gate: &rn.gate, stats: rn.stats, obs: rn.obs, start: rn.start,
		measureStart: rn.measureStart, res: rn.res, loops: rn.loops, pl: rn.pl, cost: rn.startCost}
	rn.t.init()
}

// drive ticks every interval until the run is over: every client has
// ended, or been abandoned. The deadline, stop (an interrupt) and a
// failure begin the stop.
func (rn *run) drive(stop <-chan struct{}) {
	var deadlineC <-chan time.Time
	if !rn.deadline.IsZero() {
		tm := time.NewTimer(time.Until(rn.deadline))
		defer tm.Stop()
		deadlineC = tm.C
	}
	next := rn.t.nextTick()
	tickTimer := time.NewTimer(time.Until(next))
	defer tickTimer.Stop()
	failSel := rn.failC
	for finished := false; !finished; {
		select {
		case <-tickTimer.C:
			if !rn.deadline.IsZero() && !next.Before(rn.deadline) {
				// The last interval ends when the clients have finished
				// their last transactions, so none lands in a sliver.
				rn.stopper.begin()
				continue
			}
			rn.t.tick(next)
			if lim := rn.cfg.stallLimit(); lim > 0 && stalled(rn.stats, time.Now(), lim) {
				rn.fail(fmt.Sprintf("the server answered none of the clients for %s: every client was waiting on its transaction (the stall timeout; give --stall-timeout to wait longer)", lim))
			}
			next = rn.t.nextTick()
			tickTimer.Reset(time.Until(next))
		case <-deadlineC:
			deadlineC = nil
			rn.stopper.begin()
		case <-stop:
			stop = nil
			rn.res.Interrupted = true
			rn.stopper.begin()
		case <-failSel:
			failSel = nil
			rn.stopper.begin()
		case <-rn.done:
			finished = true
		case <-rn.stopper.abandoned:
			finished = true
			for _, c := range rn.clients {
				if c.st.finished.Load() == 0 {
					rn.res.Abandoned++
				}
			}
		}
	}
}

// end closes the last interval and completes the Result.
func (rn *run) end() *Result {
	res, stoppedAt, grace := rn.res, rn.stopper.at, rn.stopper.grace
	// The run ends when its last transaction did (a run stopped at its
	// deadline, not before), or when its grace was over: the time spent
	// cancelling what was left, and the clients' own ending (thousands of
	// idle open-loop clients take a while), is not measured.
	res.End = time.Now()
	if end := lastEnd(rn.stats, rn.measureStart, stoppedAt); !end.IsZero() && end.Before(res.End) {
		res.End = end
	}
	if !stoppedAt.IsZero() && res.End.After(stoppedAt.Add(grace)) {
		res.End = stoppedAt.Add(grace)
	}
	select {
	case <-rn.failC:
		res.Failure = rn.failure
	default:
	}
	rn.t.tick(res.End)
	res.FirstTxLate, res.FirstTx = rn.first.get()
	for _, e := range rn.clientEnds() {
		res.ClientSeconds = append(res.ClientSeconds, max(0, time.Unix(0, e).Sub(rn.measureStart).Seconds()))
	}
	if res.End.Before(rn.measureStart) {
		res.MeasureStart = res.End
	}
	var spans []measure.Span
	for _, s := range rn.stats {
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
	rn.t.finish()
	if rn.cfg.ReportStatements || rn.cfg.ConnectPerTx {
		res.Statements, res.Connects = mergeExtra(rn.clients, rn.ops, rn.stmtNames)
	}
	return res
}

// clientEnds is when each client (or terminal) ended, in unix ns.
func (rn *run) clientEnds() []int64 {
	ends := make([]int64, 0, len(rn.clients))
	if rn.termEnds != nil {
		for i := range rn.termEnds {
			ends = append(ends, rn.termEnds[i].Load())
		}
		return ends
	}
	for _, c := range rn.clients {
		ends = append(ends, c.st.finished.Load())
	}
	return ends
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
