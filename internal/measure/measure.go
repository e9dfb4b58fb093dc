// Package measure holds what a run measured as the load generator hands it out:
// each interval's tick and the run's totals, per operation, with their
// HdrHistograms. The load generator fills them; results turns them into a run.
// It imports nothing of the project, so that readers of measurements
// need not import the load generator and its drivers.
package measure

import (
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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
	// Down is the number of clients without a connection at the tick, and
	// Waiting the number whose transaction in flight began before the
	// interval did (stuck on the server for the whole interval at least).
	Down    int
	Waiting int
	// Lag is the schedule lag in open-loop mode (nil otherwise).
	Lag *hdr.Histogram
	// PhaseCount and PhaseSeconds are the successful transactions and
	// elapsed seconds so far in this phase, for cumulative tps.
	PhaseCount   int64
	PhaseSeconds float64
	// CPU is the harness process's CPU time (user + system) in the
	// interval; HostIdle the client host's idle share (-1 unknown) and
	// RunQueue its runnable tasks at the tick (-1 unknown).
	CPU      time.Duration
	HostIdle float64
	RunQueue int
	// LoopBusy is, in loop mode, the busiest loop's share of the interval
	// spent running clients rather than waiting for sockets (0 to 1); -1
	// on the goroutine driver.
	LoopBusy float64
}

// OpResult is one operation's totals over the measured phase.
type OpResult struct {
	Name    string
	Hist    *hdr.Histogram
	Errors  int64
	Retries int64
	Late    int64
}

// StatementResult is one statement's latencies over the measured phase
// (loadgen.Config.ReportStatements): Name is the statement's, Op the
// transaction type it belongs to.
type StatementResult struct {
	Op, Name string
	Hist     *hdr.Histogram // µs
}

// Result is what a run measured.
type Result struct {
	Ops []OpResult
	// Statements are the statements' latencies, when they were timed, in
	// the order of the transaction types and of their statements.
	Statements []StatementResult
	// Connects are the times the connections opened for each transaction
	// took (loadgen.Config.ConnectPerTx), µs; nil otherwise.
	Connects *hdr.Histogram
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
	// StartLate is how long after the instant agreed with the other
	// shards (loadgen.Config.Begin) this process woke to start: the run's
	// clock starts at the instant, and what lateness cost shows in its
	// first interval (and, in open loop, as lag).
	StartLate time.Duration
	// FirstTxLate is how long after it was due the run's first
	// transaction began: from the earliest time a client's (or
	// terminal's) first transaction was due, the run's start (a shard's
	// agreed instant) or, if later, its first scheduled arrival (open
	// loop) or keying time (terminals), to the earliest beginning of one.
	// It includes StartLate and whatever else held the process back.
	// FirstTx says that a transaction began at all.
	FirstTxLate time.Duration
	FirstTx     bool
	End         time.Time
	Interrupted bool
	// Driver is the driver that ran the clients (DriverGoroutine or
	// DriverLoop) and Loops the number of event loops (0 on goroutines).
	Driver string
	Loops  int
	// LoopCPUs are the CPUs the loops' threads were pinned to, one a loop
	// in order; nil when they were not pinned.
	LoopCPUs []int
	// FollowServer is set when the loops' clients followed their server
	// processes (loadgen.Config.FollowServer, with pinned loops), and
	// LoopMoves is how many times a client moved to another loop.
	FollowServer bool
	LoopMoves    int64
	// CPU is the harness process's CPU time over the measured phase.
	CPU time.Duration
	// Outages are the spans during which clients had no connection, in
	// time order.
	Outages []Outage
	// Failure, when not empty, is why the load generator ended the run before its
	// end (a client could not reconnect in time; the driver's error may
	// span lines): the run failed, with what it measured until then.
	Failure string
	// DownAtEnd is the number of clients without a connection when the
	// run ended.
	DownAtEnd int
	// Abandoned is the number of clients that had not stopped when the run
	// gave up waiting for them (their statements could be neither finished
	// nor cancelled, as on a server that stopped answering).
	Abandoned int
	// HostIdle is the client host's idle share over the measured phase and
	// RunQueue its mean runnable tasks besides the harness's sampling
	// thread (each -1 when unknown); LoopBusy the busiest loop's busy
	// share (-1 on goroutines).
	HostIdle, RunQueue, LoopBusy float64
}

// Seconds is the length of the measured phase.
func (r *Result) Seconds() float64 { return r.End.Sub(r.MeasureStart).Seconds() }

// Span is one client's time without a connection: From when it lost it,
// To when it had one again or the run ended; Open says it never had one
// again.
type Span struct {
	From, To time.Time
	Open     bool
}

// Outage is a span of time during which at least one client had no
// connection: Clients is the most that were down at once, and Open says
// that some were still down when the run ended.
type Outage struct {
	Start, End time.Time
	Clients    int
	Open       bool
}

// Outages merges the clients' spans into outages: the maximal spans of
// time during which some client was down. A span not yet ended (zero To)
// ends at end.
func Outages(spans []Span, end time.Time) []Outage {
	type event struct {
		at   time.Time
		d    int
		open bool
	}
	ev := make([]event, 0, 2*len(spans))
	for _, s := range spans {
		to := s.To
		if to.IsZero() || to.After(end) {
			to = end
		}
		if to.Before(s.From) {
			to = s.From
		}
		ev = append(ev, event{at: s.From, d: 1}, event{at: to, d: -1, open: s.Open || s.To.IsZero()})
	}
	// Downs before ups at the same instant: a client that goes down as
	// another comes back continues the outage.
	sort.Slice(ev, func(i, j int) bool {
		if !ev[i].at.Equal(ev[j].at) {
			return ev[i].at.Before(ev[j].at)
		}
		return ev[i].d > ev[j].d
	})
	var out []Outage
	down := 0
	for _, e := range ev {
		if down == 0 && e.d > 0 {
			out = append(out, Outage{Start: e.at})
		}
		down += e.d
		o := &out[len(out)-1]
		o.Clients = max(o.Clients, down)
		if e.open {
			o.Open = true
		}
		if down == 0 {
			o.End = e.at
		}
	}
	return out
}
