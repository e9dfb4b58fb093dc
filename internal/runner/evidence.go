package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/engine"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

// evidence runs the collectors and the plan check of one run.
type evidence struct {
	warnf func(format string, args ...any)
	kinds map[string]bool
	d     db.DB
	col   *collect.Collector
	plans *collect.PlanCheck
	cpu   *serverCPU
}

// startEvidence tags the harness's sessions, checks the plans of the
// workload's statements and starts the collectors, before the clients
// connect. It returns nil when --collect none.
//
// onPoint (may be nil) is given each evidence interval as it is computed.
func startEvidence(ctx context.Context, warnf func(format string, args ...any), kinds map[string]bool, d db.DB, runner workload.Runner,
	run *results.Run, onPoint func(kind string, seq int, v any)) *evidence {
	if len(kinds) == 0 {
		return nil
	}
	ev := &evidence{warnf: warnf, kinds: kinds, d: d}
	run.Collect = &results.Collect{}
	run.Collect.Enabled = collect.Enabled(kinds)
	appName := ""
	if tg, ok := d.(db.Tagger); ok {
		appName = tg.Tag("dbharness-" + run.RunID)
	}
	if kinds[collect.KindPlans] {
		st, ok := runner.(workload.Statementer)
		var stmts []workload.Statement
		var leftOut []string
		if ok {
			stmts = st.Statements()
			if lo, ok := runner.(workload.LeftOuter); ok {
				leftOut = lo.LeftOut()
			}
		}
		// Say which statements the check leaves out, and why.
		for _, why := range leftOut {
			warnf("plan check leaves out %s", why)
		}
		switch {
		case !ok:
			run.Collect.PlansNotChecked = fmt.Sprintf("workload %s describes no statements", run.Workload)
		case len(stmts) == 0 && len(leftOut) > 0:
			run.Collect.PlansNotChecked = fmt.Sprintf("workload %s gave no statement whose parameters the check can draw; left out: %s",
				run.Workload, strings.Join(leftOut, "; "))
		case len(stmts) == 0:
			run.Collect.PlansNotChecked = fmt.Sprintf("workload %s gave no statement whose parameters the check can draw", run.Workload)
		default:
			ev.plans = &collect.PlanCheck{DB: d, Stmts: stmts, Seed: run.Config.Seed}
			if conn, err := connect(ctx, d); err != nil {
				warnf("plan check: %v", err)
				run.Collect.PlansNotChecked = oneLine(err.Error())
				ev.plans = nil
			} else {
				run.Plans = ev.plans.Before(ctx, conn)
				conn.Close()
			}
		}
	}
	if kinds[collect.KindServerCPU] {
		ev.cpu = startServerCPU(ctx, warnf, d, time.Duration(run.Config.WarmupSeconds*float64(time.Second)), run)
	}
	if onIntervals(kinds) {
		ev.col = collect.For(d, kinds, appName)
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
func (ev *evidence) observer(obs engine.ObserverFunc) engine.Observer {
	if ev == nil || ev.col == nil && ev.cpu == nil {
		return obs
	}
	return &evidenceObserver{f: obs, col: ev.col, cpu: ev.cpu}
}

type evidenceObserver struct {
	f   engine.ObserverFunc
	col *collect.Collector
	cpu *serverCPU
}

func (o *evidenceObserver) OnStart(t time.Time) {
	if o.col != nil {
		o.col.Begin(t)
	}
	o.cpu.clockStarted(t)
}

func (o *evidenceObserver) OnTick(tk *engine.Tick) {
	if o.col != nil {
		o.col.Boundary(tk.Seq, tk.Phase, tk.End)
	}
	o.f(tk)
}

// finish stops the collectors, checks the plans again and stores it all in
// the run.
func (ev *evidence) finish(ctx context.Context, run *results.Run) {
	if ev == nil {
		return
	}
	// The profile ends first, as close to the end of the measured phase
	// as it can.
	ev.cpu.finish(ctx, run)
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
	if ev.plans != nil {
		// A server that does not answer must not hold the end of the run.
		ctx, cancel := context.WithTimeout(ctx, planCheckTimeout)
		defer cancel()
		conn, err := connect(ctx, ev.d)
		if err != nil {
			ev.warnf("plan check after the run: %v", err)
			run.Plans = ev.plans.AfterFailed(fmt.Errorf("could not connect: %w", err))
			return
		}
		run.Plans = ev.plans.After(ctx, conn)
		conn.Close()
	}
}

// planCheckTimeout bounds the plan check after the run; the statements it
// has not explained by then say so.
const planCheckTimeout = time.Minute
