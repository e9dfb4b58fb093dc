package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/engine"
	evid "github.com/dbharness/dbharness/internal/evidence"
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
	phys  *collect.Physical
	// unhealthy is set when the server did not answer at the end of the
	// run: the measurement after it then keeps to the short time left.
	unhealthy bool
}

// startEvidence tags the harness's sessions, checks the plans of the
// workload's statements and starts the collectors, before the clients
// connect. It returns nil when --collect none.
//
// onPoint (may be nil) is given each evidence interval as it is computed.
//
// physical is --physical (collect.PhysicalMode), checked by the caller.
func startEvidence(ctx context.Context, warnf func(format string, args ...any), kinds map[string]bool, physical string, d db.DB, runner workload.Runner,
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
	if kinds[collect.KindPhysical] {
		ev.startPhysical(ctx, physical, run)
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
	// The plan check after the run comes first: InnoDB's leaf modes
	// analyze the tables, which may change a plan.
	defer ev.finishPhysical(ctx, run)
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

// startPhysical measures the storage of the workload's tables (from the
// run's dataset) before the clients start, in the mode --physical asks or,
// by default, the one their size allows.
func (ev *evidence) startPhysical(ctx context.Context, flag string, run *results.Run) {
	var tables []string
	total := int64(0)
	if run.Dataset != nil {
		for _, t := range run.Dataset.Tables {
			tables = append(tables, t.Name)
			if t.Bytes == nil || t.IndexBytes == nil || total < 0 {
				total = -1
				continue
			}
			total += *t.Bytes + *t.IndexBytes
		}
	}
	changes := ""
	if sc, ok := ev.d.(evid.PhysicalStatsChanger); ok {
		changes = sc.PhysicalChangesStats()
	}
	mode, reason, err := collect.PhysicalMode(flag, total, changes)
	if err != nil { // checked with the flags; kept safe here
		mode, reason = evid.PhysicalLimited, oneLine(err.Error())
	}
	p, rep := collect.NewPhysical(ev.d, tables, mode, reason, run.Workload)
	run.Physical = rep
	if p == nil { // said in the run's summary and JSON
		return
	}
	conn, err := connect(ctx, ev.d)
	if err != nil {
		rep.Unavailable = "could not connect: " + oneLine(err.Error())
		ev.warnf("physical: %s", rep.Unavailable)
		return
	}
	defer conn.Close()
	// What the engine cannot give (rep.Notes) is said in the run's
	// summary and JSON rather than warned on every run.
	p.Before(ctx, conn)
	ev.phys = p
}

// finishPhysical measures the tables again after the run. After a
// healthy run the measurement may take as long as the one before it did
// (the mode's cost is the user's choice), however short the time left;
// after a run whose server did not answer at its end, it keeps to the time
// left.
func (ev *evidence) finishPhysical(ctx context.Context, run *results.Run) {
	if ev.phys == nil {
		return
	}
	if !ev.unhealthy {
		budget := 2*ev.phys.Took() + physicalAfterMin
		if dl, ok := ctx.Deadline(); ok {
			budget = max(budget, time.Until(dl))
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), budget)
		defer cancel()
	}
	conn, err := connect(ctx, ev.d)
	if err != nil {
		ev.warnf("physical measurement after the run: %v", err)
		ev.phys.AfterFailed(fmt.Errorf("could not connect: %w", err))
		return
	}
	defer conn.Close()
	ev.phys.After(ctx, conn)
}

// physicalAfterMin is the least time the measurement after the run is
// given, beyond twice the time of the one before.
const physicalAfterMin = 10 * time.Second
