// Package workload declares what a workload is and keeps the registry of
// built-in workloads. A workload is a small Generator (name, description,
// flags) plus optional capabilities found by type assertion: Initer (build
// and load the schema), Runner (transactions for the driver) and Checker
// (consistency invariants). Each workload lives in its own sub-package and
// registers itself in init().
//
// A workload never prints: it returns data, and reports progress through
// the LoadProgress it is given.
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
)

// Command names the command a workload's flags are being registered for.
type Command string

// Commands that take a workload.
const (
	CmdInit  Command = "init"
	CmdRun   Command = "run"
	CmdCheck Command = "check"
)

// Generator is the part every workload has.
type Generator interface {
	Name() string
	// Description is one line for `dbharness workloads`.
	Description() string
	// Flags registers the workload's flags for cmd on fs, bound to the
	// workload's own configuration fields.
	Flags(cmd Command, fs *pflag.FlagSet)
}

// Validator checks the values of a workload's flags for cmd. The harness
// calls it right after parsing the command line, before it connects to
// anything, so that a bad value is a usage error; a sweep calls it for every
// point before its first run. The error names the flag and the value, and
// says what is allowed.
type Validator interface {
	Validate(cmd Command) error
}

// Env is what a workload gets from the harness.
type Env struct {
	DB   db.DB
	Seed uint64
	// Loaders is the number of parallel loaders for Init.
	Loaders int
	// Progress receives loading progress; never nil.
	Progress LoadProgress
	// Note, when set, shows the user a one-line remark (such as an option
	// the engine cannot honour); a workload calls it instead of printing.
	Note func(msg string)
	// DOP is the run's degree of parallelism (--dop: the processes a
	// query may use, leader included; 0 leaves the server's). The engine
	// applies it to every connection (db.DOPSetter); a workload reads it
	// only to describe the run.
	DOP int
}

// Notef sends a remark to env.Note, if set.
func (e *Env) Notef(format string, args ...any) {
	if e.Note != nil {
		e.Note(fmt.Sprintf(format, args...))
	}
}

// Initer creates the workload's schema and loads its initial data,
// replacing any existing tables of the workload.
type Initer interface {
	Init(ctx context.Context, env *Env) error
}

// Runner supplies transactions to the driver.
type Runner interface {
	// Setup runs once before the workers start: it validates flags, checks
	// that the tables exist (naming the init command to run if not) and
	// reads what it needs from the database (e.g. the scale).
	Setup(ctx context.Context, env *Env, conn db.Conn) error
	// Ops names the transaction types, in a fixed order; Worker.Next
	// returns indexes into this list.
	Ops() []string
	// NewWorker returns a worker bound to one connection. It is called again
	// with a fresh connection after a reconnect.
	NewWorker(ctx context.Context, conn db.Conn, id int) (Worker, error)
}

// Worker runs transactions on one connection, from one goroutine.
type Worker interface {
	// Next chooses the next transaction type and draws its parameters,
	// which Do uses; Do may be called again with the same op to retry.
	Next() int
	// Do runs one transaction of type op as a whole, rolling back on
	// error. A retryable error (serialization failure, deadlock) is
	// returned as it came from the database.
	Do(ctx context.Context, op int) error
}

// Thinker is a Worker whose transactions are followed by a pause (a
// workload file's think time). The driver waits it after the transaction
// of type op, outside the measured latency, and ends it early when the run
// stops; a worker never sleeps itself, since on the event-loop driver a
// sleeping worker would stall every client of its loop.
type Thinker interface {
	ThinkTime(op int) time.Duration
}

// Checker verifies the workload's invariants on the database.
type Checker interface {
	Check(ctx context.Context, env *Env) ([]CheckResult, error)
}

// CheckResult is the outcome of one invariant.
type CheckResult struct {
	Name string `json:"name"`
	Pass bool   `json:"pass"`
	// Skipped says the invariant could not be checked on this data (Detail
	// says why); it is neither a pass nor a failure.
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
}

// LoadProgress receives loading progress from Init.
type LoadProgress interface {
	// Plan announces a table and the rows it will get.
	Plan(table string, rows int64)
	// Add reports rows written to a table.
	Add(table string, rows int64)
	// Phase names a post-load step (keys, analyze) as it starts.
	Phase(name string)
}

// NopProgress discards progress.
type NopProgress struct{}

// Plan does nothing.
func (NopProgress) Plan(string, int64) {}

// Add does nothing.
func (NopProgress) Add(string, int64) {}

// Phase does nothing.
func (NopProgress) Phase(string) {}

var registry = map[string]func() Generator{}

// Register adds a workload constructor; it panics on a duplicate name
// (a programmer error).
func Register(name string, fn func() Generator) {
	if _, dup := registry[name]; dup {
		panic("workload registered twice: " + name)
	}
	registry[name] = fn
}

// Names lists the registered workloads, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FileLoader opens a workload defined in a file.
type FileLoader func(path string) (Generator, error)

var fileLoaders = map[string]FileLoader{}

// RegisterFileLoader makes New open names ending in suffix (".yaml") as
// workload files with fn.
func RegisterFileLoader(suffix string, fn FileLoader) { fileLoaders[strings.ToLower(suffix)] = fn }

// ErrUnknown is wrapped by New's error for a name that is neither a
// registered workload nor a workload file.
var ErrUnknown = errors.New("unknown workload")

// New returns a fresh instance of the named workload: a built-in name, or
// the path of a workload file (a registered suffix such as .yaml, or any
// existing file that is not a built-in name).
func New(name string) (Generator, error) {
	fn, ok := registry[name]
	if !ok {
		low := strings.ToLower(name)
		for suf, load := range fileLoaders {
			if strings.HasSuffix(low, suf) {
				return load(name)
			}
		}
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
			for _, load := range fileLoaders {
				return load(name)
			}
		}
		return nil, fmt.Errorf("%w %q; `dbharness workloads` lists them", ErrUnknown, name)
	}
	return fn(), nil
}

// FileReader is a workload that reads files named by its flags (pgbench
// scripts). The harness calls Load after the flags are set and before
// connecting, so that a mistake in a file is reported first.
type FileReader interface {
	Load() error
}

// Profiler is a workload whose loaded data can be profiled (workload
// files): what the data is, what the engine's statistics believe, and
// where they differ.
type Profiler interface {
	// ProfileData measures the loaded data on conn.
	ProfileData(ctx context.Context, d db.DB, conn db.Conn) (DataProfile, error)
}

// DataProfile is a Profiler's result: a value for JSON and text for people.
type DataProfile interface {
	// WriteText writes the profile as text.
	WriteText(w io.Writer)
}

// TerminalRunner is a Runner whose transactions come from emulated
// terminals (TPC-C clause 5.2.5): many terminals, each choosing from a menu,
// keying, waiting for the response and thinking, share fewer connections.
type TerminalRunner interface {
	Runner
	// PickOp chooses a terminal's next transaction type from the menu.
	PickOp(rng *rand.Rand) int
	// Keying is the keying time before a transaction of type op.
	Keying(op int) time.Duration
	// Think is the think time after a transaction of type op.
	Think(op int, rng *rand.Rand) time.Duration
}

// TriesDefaulter is a Runner whose transactions are meant to be retried on
// serialization failures and deadlocks (TPC-C's, which deadlock by design
// under concurrency): its default --max-tries replaces the driver's 1.
type TriesDefaulter interface {
	DefaultMaxTries() int
}

// TerminalChecker is a TerminalRunner whose flags may not all fit terminal
// mode; CheckTerminals is called with --terminals before connecting.
type TerminalChecker interface {
	CheckTerminals(terminals int) error
}

// TerminalWorker is a Worker that draws a transaction's parameters on behalf
// of a terminal (e.g. from the terminal's home warehouse and district).
type TerminalWorker interface {
	Worker
	// Prepare draws the parameters of a transaction of type op for terminal
	// term; Do runs it.
	Prepare(term, op int)
}

// RunHooks lets a workload take measurements around a run, such as server
// counters (WAL bytes) or derived figures (NOPM). The figures AfterRun
// returns are added to the run's summary under their own keys.
type RunHooks interface {
	// BeforeRun is called once before the clients start.
	BeforeRun(ctx context.Context, env *Env, conn db.Conn) error
	// AfterRun is called once after the run, on a fresh connection.
	AfterRun(ctx context.Context, env *Env, conn db.Conn, t Totals) (map[string]float64, error)
}

// MetricLabeler is a RunHooks that says what each of the figures its
// AfterRun returns is, in a few words: the run keeps them beside the
// figures, so that two figures of one kind (the harness's NOPM and
// HammerDB's) are never shown as an unlabelled pair.
type MetricLabeler interface {
	MetricLabels() map[string]string
	// HeadlineMetric names the figure that is the workload's result
	// ("nopm" for TPC-C), which a sweep tabulates beside tps; "" for
	// none.
	HeadlineMetric() string
}

// PhaseReader is a RunHooks that reads the database at the bounds of the
// measured phase: counters whose change over the phase makes a figure, as
// HammerDB's TPM and NOPM are made. The harness calls MeasureStart as the
// measured phase starts (before the clients start when there is no
// warm-up) and MeasureEnd as soon as the clients have stopped, before any
// statement of its own, both on one connection opened before the run;
// MeasureStart is not called when the run ends before its measured phase.
// AfterRun then turns the readings into figures.
type PhaseReader interface {
	RunHooks
	// MeasureStart reads the counters at the start of the measured phase.
	MeasureStart(ctx context.Context, conn db.Conn) error
	// MeasureEnd reads them at its end.
	MeasureEnd(ctx context.Context, conn db.Conn) error
}

// Describer is a Runner that says which data it runs on: the parameters
// that size or shape it (tpcb's scale, tpcc's warehouses) and the tables it
// uses. The harness calls Dataset after Setup, before the clients start, and
// records the parameters with the rows and bytes of each table.
type Describer interface {
	Dataset(ctx context.Context, env *Env, conn db.Conn) (params map[string]any, tables []string, err error)
}

// Mixer is a workload that names its transaction mix in a few words, for
// the listings of runs and sweeps: "select-only", a script's file names,
// tpcc's mode. The harness calls MixName after Setup, whose choices it
// shows; "" says nothing beyond the workload's name.
type Mixer interface {
	MixName() string
}

// DOPFlagger is a Runner with a flag of its own for the degree of
// parallelism (transtats's --parallel, older than run's --dop). Its value
// and --dop are one setting: the harness takes the flag's value as --dop,
// and refuses the two when they differ.
type DOPFlagger interface {
	// DOPFlag returns the degree of parallelism the workload's flag asks
	// for and the flag ("--parallel"); 0 when it was not given.
	DOPFlag() (n int, flag string)
}

// FixedWorker is a Runner whose own flags can set a fixed amount of work
// per client (e.g. inserts' --rows-per-client), which the harness turns into
// the driver's transactions per client.
type FixedWorker interface {
	// FixedWork returns the transactions per client the workload's flags
	// ask for and the flag that asks (0 and "" when none does); an error
	// names the flag to fix.
	FixedWork() (transactions int64, flag string, err error)
}

// Totals are a run's measured totals, for RunHooks.
type Totals struct {
	// Commits per transaction type, measured phase only.
	Commits map[string]int64
	Errors  map[string]int64
	// Seconds of the measured phase.
	Seconds float64
	// MeasureStart and End bound the measured phase.
	MeasureStart, End time.Time
	// ClientSeconds is each client's time from the start of measurement to
	// its last transaction (fixed-work runs compare them).
	ClientSeconds []float64
}

// StatementTimer is a Runner whose workers can time each of their
// statements (run -r, pgbench's --report-per-command). The driver gives a
// TimedWorker a StatementClock only when asked to, so a run without -r
// reads no clock per statement.
type StatementTimer interface {
	Runner
	// StatementNames names, for each transaction type (in Ops' order), the
	// statements its workers time, in the order they are numbered.
	StatementNames() [][]string
}

// TimedWorker is the Worker of a StatementTimer.
type TimedWorker interface {
	Worker
	// TimeStatements makes the worker report the latency of each statement
	// that succeeds to clock (op, the statement's index in
	// StatementNames()[op], and its time).
	TimeStatements(clock StatementClock)
}

// StatementClock receives statement latencies from a TimedWorker.
type StatementClock interface {
	Statement(op, stmt int, d time.Duration)
}

// Rebinder is a Runner whose workers can go on on a new connection while
// keeping their state (their random stream, their variables), as pgbench's
// clients do under -C: the driver's --connect opens a new connection for
// each transaction and rebinds the client's worker to it.
type Rebinder interface {
	Runner
	// Rebind moves worker w, made by NewWorker, to conn (preparing again
	// what it prepares per connection).
	Rebind(ctx context.Context, w Worker, conn db.Conn) error
}

// MixedRunner is a Runner whose clients are of two kinds: terminals, which
// run its transaction mix, and streams of another kind that its own flags
// count (ch's analytic query streams). The run's --terminals (or, where it
// is not given, --clients) counts the terminals, each a client with a
// connection of its own, not emulated terminals sharing connections. The
// harness runs Clients(terminals) clients, the terminals first: NewWorker
// makes a terminal for an id below terminals and a stream for the others.
type MixedRunner interface {
	Runner
	// Clients returns how many clients to run for terminals terminals, the
	// streams included, or an error naming the flag to fix.
	Clients(terminals int) (int, error)
}

// Scripted is a Runner whose work is a fixed script for each of a fixed
// number of clients (TPC-H's power and throughput tests: one stream, then
// S query streams beside one refresh stream). The harness runs Clients()
// clients, refuses a --clients that says otherwise, and ends each client
// when its worker (a Holder) says its script is done.
type Scripted interface {
	Runner
	FixedWorker
	// Clients is the number of clients the script needs.
	Clients() int
}

// Holder is the Worker of a Scripted runner. The driver asks it before each
// transaction whether the client's script is done (the client ends), or
// whether it must first wait for other clients' work (a throughput stream
// waits for the power test): then the driver waits that long, outside any
// measured latency and cut short when the run stops, and asks again.
type Holder interface {
	Worker
	Hold() (wait time.Duration, done bool)
}

// Refused is a run flag of the workload that the target cannot honour (a
// feature its engine or database lacks), found when the workload sets up:
// the user's to fix, so the run ends with the usage exit status.
type Refused struct{ Msg string }

func (e *Refused) Error() string { return e.Msg }
