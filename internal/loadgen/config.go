package loadgen

import (
	"context"
	"errors"
	"fmt"
	"time"
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
	// ReportStatements times each statement of a workload that can
	// (workload.StatementTimer; run -r): one histogram per statement, over
	// the measured phase. Off, no statement is timed.
	ReportStatements bool
	// ConnectPerTx opens a new connection for each transaction and closes
	// it after (run -C, as pgbench -C); the workload must be a
	// workload.Rebinder. As in pgbench, the time to connect is not part of
	// a transaction's latency in a closed loop (it is in the tps), and is
	// in an open loop, whose latency counts from the intended start.
	ConnectPerTx bool
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
	case c.ConnectPerTx && c.Terminals > 0:
		return errors.New("--connect and --terminals do not go together: terminals share their connections")
	case c.Loops < 0:
		return fmt.Errorf("--loops %d is negative", c.Loops)
	case c.Loops > 0 && c.Driver == DriverGoroutine:
		return errors.New("--loops is for --driver loop")
	case c.Loops > c.Clients:
		return fmt.Errorf("--loops %d is more than the %d clients", c.Loops, c.Clients)
	}
	return nil
}
