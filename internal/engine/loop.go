package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
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
			return fmt.Errorf("--driver loop: %s; use --driver goroutine", noLoopReason(d, cfg, loopDB))
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

// abortAfterCancel is how long, after the cancel requests at the end of the
// stop grace, the loops wait for answers before their clients stop
// waiting.
const abortAfterCancel = time.Second

// abandonAfterAbort is how long, after the loops were aborted, the run
// waits for its clients before it ends without them.
const abandonAfterAbort = time.Second

// PinLoops pins two or more loops one to each of cpus (the CPUs the
// process may use) when there are as many loops as CPUs; else it leaves
// the loops to the system's scheduler. Only a loop for every CPU is
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
func PinLoops(loops []*evloop.Loop, cpus []int) {
	if len(loops) < 2 || len(loops) != len(cpus) {
		return
	}
	for i, l := range loops {
		l.Pin(cpus[i])
	}
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

// runLoops starts the clients as tasks of the loops, dealt in blocks
// (loopOf), and runs each loop on its own goroutine (locked to its OS
// thread); wg is done when every loop has ended.
func runLoops(ctx context.Context, loops []*evloop.Loop, clients []*client, wg *sync.WaitGroup) {
	for i, c := range clients {
		loops[loopOf(i, len(clients), len(loops))].Go(func(t *evloop.Task) {
			defer c.finish()
			c.task, c.taskCtx = t, evloop.WithTask(context.Background(), t)
			if err := c.attach(c.conn); err != nil {
				// Only a failing epoll_ctl gets here: start afresh.
				if !c.reconnect(ctx) {
					return
				}
			}
			c.run(ctx)
		})
	}
	for _, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run()
			l.Close()
		}()
	}
}

// attach hands a loop connection's socket to the client's task.
func (c *client) attach(conn db.Conn) error {
	lc, ok := conn.(db.LoopConn)
	if !ok {
		return errors.New("the connection cannot be driven by an event loop")
	}
	return lc.Attach(c.task)
}
