package collect

import (
	"context"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

// PhaseEnv is what a collector that runs around the measured phase (a
// Kind's Phase) is started from. It is the same for every such collector
// of a run, and the run keeps it until its last hook has returned.
type PhaseEnv struct {
	DB db.DB
	// Run is the run being made: its Config, Dataset and Workload say what
	// it runs; its Collect is set. The collector fills its own section of
	// it (Run.Plans, Run.Physical, Run.ServerCPU...).
	Run *results.Run
	// Workload is the workload's runner, which may describe its
	// statements (workload.Statementer).
	Workload workload.Runner
	// Option is the collector's own option, "" when not given (physical's
	// is --physical, checked with the flags).
	Option string
	// CreateExtensions is the user's consent to create what a collector
	// needs in the target database (--create-extensions); without it no
	// collector changes the database's schema.
	CreateExtensions bool
	// Warnf writes a one-line warning, Notef a one-line note (what the
	// run did that the user should know of).
	Warnf, Notef func(format string, args ...any)
	// Side, when set, is the other endpoint of the server its own
	// evidence is read from (--server-evidence): the server's process is
	// found through it.
	Side *ServerSide
	// Connect opens a connection to DB, bounded as the run's first
	// connections are.
	Connect func(ctx context.Context) (db.Conn, error)
}

// PhaseHooks are what the run calls of a collector that runs around the
// measured phase, once it has started; each is optional.
type PhaseHooks struct {
	// ClockStarted is given the start of the run's clock, on the load's
	// own goroutine; the measured phase starts Run.Config.WarmupSeconds
	// later.
	ClockStarted func(t time.Time)
	// End is called as soon as the clients have stopped, before the
	// interval collectors take their last samples: for what must end as
	// close to the end of the measured phase as it can (the CPU profile).
	End func(ctx context.Context)
	// After is called once the interval collectors have stopped, in the
	// kinds' Order: for what talks to the server again after the run. ctx
	// bounds it by the time the run leaves for its end; unhealthy says
	// that the server did not answer at the end of the run, and that
	// what follows should keep to that short time.
	After func(ctx context.Context, unhealthy bool)
}

// Phases are the started collectors of a run that run around its measured
// phase, in Order.
type Phases []*PhaseHooks

// PhaseStart starts the collectors of set m that run around the measured
// phase, in Order, and returns the hooks of those that have more to do.
// Each fills its section of env.Run, and says there why when it cannot
// work.
func PhaseStart(ctx context.Context, env *PhaseEnv, m map[string]bool, options map[string]string) Phases {
	var out Phases
	for _, k := range Kinds() {
		if !m[k.Name] || k.Phase == nil {
			continue
		}
		e := *env
		e.Option = options[k.Name]
		if h := k.Phase(ctx, &e); h != nil {
			out = append(out, h)
		}
	}
	return out
}

// Clocked says whether any of them is given the start of the clock.
func (p Phases) Clocked() bool {
	for _, h := range p {
		if h.ClockStarted != nil {
			return true
		}
	}
	return false
}

// ClockStarted gives each the start of the run's clock.
func (p Phases) ClockStarted(t time.Time) {
	for _, h := range p {
		if h.ClockStarted != nil {
			h.ClockStarted(t)
		}
	}
}

// End ends what must end with the measured phase, in Order.
func (p Phases) End(ctx context.Context) {
	for _, h := range p {
		if h.End != nil {
			h.End(ctx)
		}
	}
}

// After runs each one's work after the run, in Order.
func (p Phases) After(ctx context.Context, unhealthy bool) {
	for _, h := range p {
		if h.After != nil {
			h.After(ctx, unhealthy)
		}
	}
}

// errLine is an error's first line, trimmed, as the run records it.
func errLine(err error) string {
	return oneLine(strings.TrimSpace(err.Error()))
}
