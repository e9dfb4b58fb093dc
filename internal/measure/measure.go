// Package measure holds what a run measured as the engine hands it out:
// each interval's tick and the run's totals, per operation, with their
// HdrHistograms. The engine fills them; results turns them into a run.
// It imports nothing of the project, so that readers of measurements
// need not import the engine and its drivers.
package measure

import (
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
	// Down is the number of clients without a connection at the tick.
	Down int
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
	// Driver is the driver that ran the clients (DriverGoroutine or
	// DriverLoop) and Loops the number of event loops (0 on goroutines).
	Driver string
	Loops  int
	// CPU is the harness process's CPU time over the measured phase.
	CPU time.Duration
	// HostIdle is the client host's idle share over the measured phase and
	// RunQueue its mean runnable tasks besides the harness's sampling
	// thread (each -1 when unknown); LoopBusy the busiest loop's busy
	// share (-1 on goroutines).
	HostIdle, RunQueue, LoopBusy float64
}

// Seconds is the length of the measured phase.
func (r *Result) Seconds() float64 { return r.End.Sub(r.MeasureStart).Seconds() }
