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
)

// ResolveDriver settles cfg.Driver for database d: an empty Driver becomes
// DriverLoop where the engine has event-loop connections and the run has
// no terminals, else DriverGoroutine. It fails, naming the flag, when
// --driver loop or --loops asks for what d cannot do.
func ResolveDriver(d db.DB, cfg *Config) error {
	_, loopDB := d.(db.LoopDB)
	canLoop := loopDB && evloop.Available()
	switch cfg.Driver {
	case "":
		cfg.Driver = DriverGoroutine
		if canLoop && cfg.Terminals == 0 {
			cfg.Driver = DriverLoop
		}
		if cfg.Loops > 0 && cfg.Driver != DriverLoop {
			return fmt.Errorf("--loops needs the event-loop driver, which %s", noLoopReason(d, cfg, loopDB))
		}
	case DriverLoop:
		if !canLoop {
			return fmt.Errorf("--driver loop asks for the event-loop driver, which %s; use --driver goroutine", noLoopReason(d, cfg, loopDB))
		}
	}
	if cfg.Driver == DriverLoop && cfg.Loops == 0 {
		cfg.Loops = DefaultLoops(d.Target().Local(), cfg.Clients, evloop.Processors())
	}
	return cfg.Validate()
}

// DefaultLoops is the number of event loops a run gets when --loops does
// not say: on a host shared with the database one per processor, up to
// one per client, and elsewhere one.
//
// On a shared host one loop can hold the database back, most of all with
// few clients: its single thread wakes every backend in turn, and while it
// works through a queue of replies the other processors run out of
// backends to run. With few clients two loops on 2 cores were about twice
// as fast as one, at three quarters of its CPU; from 8 clients up they cost
// 7-14% more CPU for 0-10% more throughput on PostgreSQL, and on MariaDB's
// socket one loop was 3-7% faster; with the loops pinned (PinLoops), two
// were faster on both (README, Drivers, has the figures). A
// remote database's backends do not compete with the client's thread;
// there one loop serves until it is busy most of the run (the report says
// when, and --loops adds more).
func DefaultLoops(local bool, clients, procs int) int {
	if !local {
		return 1
	}
	return max(1, min(procs, clients))
}

func noLoopReason(d db.DB, cfg *Config, loopDB bool) string {
	switch {
	case !loopDB:
		return fmt.Sprintf("the %s engine does not have", d.Target().Kind)
	case !evloop.Available():
		return "needs Linux (epoll)"
	case cfg.Terminals > 0:
		return "does not run --terminals (terminals are goroutines sharing connections)"
	}
	return "is not available"
}

// PinLoops pins two or more loops one to each of cpus (the CPUs the
// process may use) when there are as many loops as CPUs; else it leaves
// the loops to the system's scheduler. It returns the CPUs of the loops it
// pinned, in the loops' order, or nil. Only a loop for every CPU is
// pinned: fewer loops would all go to the lowest CPUs, and several
// processes on one host (shards, runs side by side) would pile onto them
// while the others stood idle.
//
// Left free, two loops on a 2-core host shared with the database ran
// mostly on the same CPU in 3 or 4 runs of 10, and those runs cost a third
// more CPU, the client's and the server's alike (in one free run 41% of
// the loops' wake-ups of backends crossed CPUs, against pgbench's 24%).
// Pinned, select-only over TCP took 0.87 of the client's CPU and 0.94 of
// the wall time in 10 alternating pairs, every pair faster (README,
// Drivers). One loop is never pinned: there is nothing to keep apart.
func PinLoops(loops []*evloop.Loop, cpus []int) []int {
	if len(loops) < 2 || len(loops) != len(cpus) {
		return nil
	}
	for i, l := range loops {
		l.Pin(cpus[i])
	}
	return cpus
}

// newLoops makes n event loops.
func newLoops(n int) ([]*evloop.Loop, error) {
	loops := make([]*evloop.Loop, 0, n)
	for range n {
		l, err := evloop.New()
		if err != nil {
			for _, x := range loops {
				x.Close()
			}
			return nil, err
		}
		loops = append(loops, l)
	}
	return loops, nil
}

// loopOf is the loop of client i of clients among n loops: the clients
// are dealt in blocks of consecutive ids (with 8 clients and 2 loops, 0-3
// and 4-7, as pgbench deals its clients to threads), and share their
// loop's histograms (Run). Blocks rather than turns keep what consecutive
// clients allocate one after the other (their workers' state, their
// counters) on one loop's thread: dealt in turns, neighbours on the heap
// ran on different CPUs and wrote to shared cache lines.
func loopOf(i, clients, n int) int { return i * n / clients }

// runLoops starts the clients as tasks of the placer's loops, dealt in
// blocks (loopOf), and runs each loop on its own goroutine (a pinned
// loop keeps whichever OS thread runs it on its CPU); wg is done when
// every loop has ended. Every loop is held (evloop.Loop.Hold) until the
// last client has finished, so that a client
// may move to any loop until then.
func runLoops(ctx context.Context, p *placer, clients []*client, wg *sync.WaitGroup) {
	p.left.Store(int32(len(clients)))
	for _, l := range p.loops {
		l.Hold()
	}
	p.seatAll(clients)
	for _, c := range clients {
		p.loops[c.loopIdx].Go(func(t *evloop.Task) { p.drive(ctx, c, t) })
	}
	for _, l := range p.loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run()
			l.Close()
		}()
	}
}

// seatAll deals the clients to the loops (loopOf) and notes each loop's
// histograms, which its clients were given (recorders) and share.
func (p *placer) seatAll(clients []*client) {
	for i, c := range clients {
		c.loopIdx = loopOf(i, len(clients), len(p.loops))
		p.seated[c.loopIdx].Add(1)
		p.handles[c.loopIdx], p.lags[c.loopIdx], p.earlies[c.loopIdx] = c.h, c.lag, c.early
		if p.follow {
			c.seat = &seat{p: p, seen: -1}
		}
	}
}

// seat moves client c to loop to, and gives it that loop's histograms: a
// Recorder takes one writer at a time, and only the clients of one loop
// run one at a time. The warm-up's early histograms move too: a client
// that kept its first loop's would record into them from another thread
// than that loop's clients, in the moments between the measured phase's
// start and the warm-up's last tick.
func (p *placer) seat(c *client, to int) {
	c.loopIdx, c.h, c.lag, c.early = to, p.handles[to], p.lags[to], p.earlies[to]
}

// drive runs client c as task t of its loop until it finishes or moves:
// a move detaches its socket here, between transactions, and starts a task
// on the loop it moves to, which attaches the socket there and goes on.
func (p *placer) drive(ctx context.Context, c *client, t *evloop.Task) {
	c.task, c.taskCtx = t, evloop.WithTask(context.Background(), t)
	if err := c.attach(c.conn); err != nil {
		// Only a failing epoll_ctl gets here: start afresh.
		if !c.reconnect(ctx) {
			p.finish(c)
			return
		}
	}
	to := c.run(ctx)
	if to < 0 {
		p.finish(c)
		return
	}
	c.conn.(db.LoopConn).Detach()
	p.seat(c, to)
	p.loops[to].Go(func(t *evloop.Task) { p.drive(ctx, c, t) })
}

// finish ends client c; after the last one every loop is released.
func (p *placer) finish(c *client) {
	c.finish()
	if p.left.Add(-1) == 0 {
		for _, l := range p.loops {
			l.Release()
		}
	}
}

// placer deals the clients among the loops. With loops pinned one to each
// CPU, and following on, it moves each client, now and then, to the loop
// on the CPU its server process runs on (db.LoopConn's ServerCPU): a
// transaction then wakes the server on the CPU that sent it, and the
// server's reply wakes the loop on its own.
//
// Left alone, the system's scheduler spreads the server processes evenly,
// but without regard to which loop drives each: on a 2-core host shared
// with PostgreSQL, each pinned loop's 4 backends settled 2 on its CPU and
// 2 on the other, and stayed so, every wake-up of those 2 crossing CPUs
// (a reschedule interrupt each way). Moving the backends beside their
// loops once, by hand, cut the machine's reschedule interrupts 20-fold
// and raised select-only throughput by a quarter (README, Benchmarks).
// dbharness may not move the server's processes, but it can move its
// clients to them.
type placer struct {
	loops  []*evloop.Loop
	follow bool
	// loopAt[cpu] is the index of the loop pinned to cpu, or -1.
	loopAt []int
	// handles, lags and earlies are each loop's histograms, which its
	// clients share (recorders).
	handles, lags, earlies []histogram.Handle
	// seated counts each loop's clients, and limit is the most a loop
	// takes by a move: its share and one more, so that two clients
	// crossed the other way round can swap through it, while a skewed
	// placement of the server's processes does not pile every client on
	// one loop.
	seated []atomic.Int32
	limit  int32
	moves  atomic.Int64
	// left counts the clients not yet finished.
	left atomic.Int32
}

// lookEvery is how often a following client asks where its server process
// runs; it moves when two looks in a row name another loop's CPU, and
// then not again for moveGap. (Variables only for the tests.)
var (
	lookEvery = 100 * time.Millisecond
	moveGap   = time.Second
)

// newPlacer makes the placer of clients on loops, pinned to cpus (nil
// when they are not pinned); it follows the server's processes when
// follow is set and the loops are pinned.
func newPlacer(loops []*evloop.Loop, cpus []int, clients []*client, follow bool) *placer {
	n := len(loops)
	p := &placer{loops: loops, handles: make([]histogram.Handle, n), lags: make([]histogram.Handle, n), earlies: make([]histogram.Handle, n),
		seated: make([]atomic.Int32, n), limit: int32((len(clients)+n-1)/n + 1)}
	if follow && len(cpus) == n && n > 1 {
		p.follow = true
		for i, cpu := range cpus {
			for len(p.loopAt) <= cpu {
				p.loopAt = append(p.loopAt, -1)
			}
			p.loopAt[cpu] = i
		}
	}
	return p
}

// seat is a following client's state in the placer.
type seat struct {
	p *placer
	// next is when the client looks next; seen is the loop the last look
	// named, when it was another than the client's (else -1).
	next time.Time
	seen int
}

// look asks where client c's server process runs, just after a
// transaction ended (c.ended), and returns the loop c is to move to, or
// -1 to stay.
func (s *seat) look(c *client) int {
	p := s.p
	s.next = c.ended.Add(lookEvery)
	lc, ok := c.conn.(db.LoopConn)
	if !ok {
		return -1
	}
	to := -1
	if cpu := lc.ServerCPU(); cpu >= 0 && cpu < len(p.loopAt) {
		to = p.loopAt[cpu]
	}
	if to < 0 || to == c.loopIdx {
		s.seen = -1
		return -1
	}
	if s.seen != to {
		s.seen = to
		return -1
	}
	s.seen = -1
	// A loop whose thread could not be pinned is on no CPU in particular.
	if p.loops[to].Stats().CPU < 0 {
		return -1
	}
	if p.seated[to].Add(1) > p.limit {
		p.seated[to].Add(-1)
		return -1
	}
	p.seated[c.loopIdx].Add(-1)
	p.moves.Add(1)
	s.next = c.ended.Add(moveGap)
	return to
}

// attach hands a loop connection's socket to the client's task.
func (c *client) attach(conn db.Conn) error {
	lc, ok := conn.(db.LoopConn)
	if !ok {
		return errors.New("the connection cannot be driven by an event loop")
	}
	return lc.Attach(c.task)
}
