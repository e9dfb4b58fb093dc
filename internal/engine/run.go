package engine

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
