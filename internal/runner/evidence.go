package runner

import (
	"context"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

// evidence runs the collectors of one run: those around its measured
// phase and those on its intervals.
type evidence struct {
	warnf  func(format string, args ...any)
	col    *collect.Collector
	phases collect.Phases
	// unhealthy is set when the server did not answer at the end of the
	// run: the work after it then keeps to the short time left.
	unhealthy bool
}

// startEvidence tags the harness's sessions and starts the collectors,
// before the clients connect: first those around the measured phase, then
// those on its intervals. It returns nil when --collect none.
//
// onPoint (may be nil) is given each evidence interval as it is computed.
//
// options are the collectors' own options, by name, checked by the caller.
// base gives the collectors around the measured phase their Warnf, Notef
// and CreateExtensions; the rest of their environment is set here.
//
// side, when not nil, is the other endpoint of the server its own evidence
// is read from (--server-evidence).
func startEvidence(ctx context.Context, base collect.PhaseEnv, kinds map[string]bool, options map[string]string, d db.DB, side *collect.ServerSide, runner workload.Runner,
	run *results.Run, onPoint func(kind string, seq int, v any)) *evidence {
	warnf := base.Warnf
	if len(kinds) == 0 {
		return nil
	}
	ev := &evidence{warnf: warnf}
	run.Collect = &results.Collect{}
	run.Collect.Enabled = collect.Enabled(kinds)
	appName := ""
	if tg, ok := d.(db.Tagger); ok {
		appName = tg.Tag("dbharness-" + run.RunID)
	}
	env := &base
	env.DB, env.Run, env.Workload, env.Side = d, run, runner, side
	env.Connect = func(ctx context.Context) (db.Conn, error) { return connect(ctx, d) }
	ev.phases = collect.PhaseStart(ctx, env, kinds, options)
	if onIntervals(kinds) {
		ev.col = collect.For(d, kinds, appName, side)
		ev.col.OnPoint = onPoint
		for _, w := range ev.col.Start(ctx) {
			warnf("%s", w)
		}
		h := ev.col.Headers()
		run.Collect.Series, run.Waits = h.Series, h.Waits
	}
	return ev
}

// onIntervals says whether any collector of the set samples on the run's
// intervals (a series or the wait profile).
func onIntervals(kinds map[string]bool) bool {
	for _, n := range collect.Enabled(kinds) {
		if k, _ := collect.Lookup(n); k.Sampler != nil || k.Waits != nil {
			return true
		}
	}
	return false
}

// observer wraps the run's tick observer so that the collectors sample at
// the start of the clock and at the end of every interval.
func (ev *evidence) observer(obs loadgen.ObserverFunc) loadgen.Observer {
	if ev == nil || ev.col == nil && !ev.phases.Clocked() {
		return obs
	}
	return &evidenceObserver{f: obs, col: ev.col, phases: ev.phases}
}

type evidenceObserver struct {
	f      loadgen.ObserverFunc
	col    *collect.Collector
	phases collect.Phases
}

func (o *evidenceObserver) OnStart(t time.Time) {
	if o.col != nil {
		o.col.Begin(t)
	}
	o.phases.ClockStarted(t)
}

func (o *evidenceObserver) OnTick(tk *loadgen.Tick) {
	if o.col != nil {
		o.col.Boundary(tk.Seq, tk.Phase, tk.End)
	}
	o.f(tk)
}

// finish stops the collectors and stores what they gathered in the run:
// ctx bounds the work after the run.
func (ev *evidence) finish(ctx context.Context, run *results.Run) {
	if ev == nil {
		return
	}
	// What must end with the measured phase (the profile) ends first, as
	// close to it as it can.
	ev.phases.End(ctx)
	if ev.col != nil {
		// The collectors' last samples share the time after the run.
		if dl, ok := ctx.Deadline(); ok {
			ev.col.StopWait = max(time.Millisecond, time.Until(dl))
		}
		res := ev.col.Stop(-1, "", time.Time{})
		run.Collect.Series, run.Waits = res.Series, res.Waits
		for _, w := range res.Warnings {
			ev.warnf("%s", w)
		}
	}
	// Then what talks to the server again (the plan check, the storage
	// measurement), in the collectors' order.
	ev.phases.After(ctx, ev.unhealthy)
}
