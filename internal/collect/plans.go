package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

// Flags set on a statement's plans.
const (
	FlagParameterSensitive = "parameter-sensitive"
	FlagChanged            = "changed-during-run"
	FlagGenericDiffers     = "generic-plan-differs"
)

// RandomDraws is how many random parameter sets each statement is
// explained with, besides the lowest, median and highest values.
const RandomDraws = 5

// Draw is one sampled parameter set of a statement.
type Draw struct {
	// Label says how the values were chosen: "min", "median", "max",
	// "min aid" (that parameter at its minimum, the others at their
	// median), "random".
	Label  string
	Values []any
}

// Draws returns the parameter sets a statement is explained with: every
// parameter at its minimum, median and maximum, each parameter alone at its
// bounds (the others at their median), and n random draws. Duplicates are
// dropped.
func Draws(st workload.Statement, rng *rand.Rand, n int) []Draw {
	if len(st.Params) == 0 {
		return []Draw{{Label: "no parameters"}}
	}
	med := make([]any, len(st.Params))
	for i, p := range st.Params {
		if p.Derive == nil {
			med[i] = median(p)
		}
	}
	derive(st, med)
	var out []Draw
	seen := map[string]bool{}
	add := func(label string, v []any) {
		derive(st, v)
		k := fmt.Sprint(v...)
		if !seen[k] {
			seen[k] = true
			out = append(out, Draw{Label: label, Values: v})
		}
	}
	pick := func(f func(p workload.ParamDomain) any) []any {
		v := make([]any, len(st.Params))
		for i, p := range st.Params {
			v[i] = f(p)
		}
		return v
	}
	add("min", pick(func(p workload.ParamDomain) any { return p.Min }))
	add("median", pick(median))
	add("max", pick(func(p workload.ParamDomain) any { return p.Max }))
	if len(st.Params) > 1 {
		for i, p := range st.Params {
			if p.Derive != nil {
				continue
			}
			for _, b := range []struct {
				label string
				v     any
			}{{"min", p.Min}, {"max", p.Max}} {
				v := append([]any(nil), med...)
				v[i] = b.v
				add(b.label+" "+p.Name, v)
			}
		}
	}
	for k := 0; k < n; k++ {
		add("random", pick(func(p workload.ParamDomain) any {
			if p.Sample == nil {
				return median(p)
			}
			return p.Sample(rng)
		}))
	}
	return out
}

// derive sets the derived parameters of v from those before them.
func derive(st workload.Statement, v []any) {
	for i, p := range st.Params {
		if p.Derive != nil {
			v[i] = p.Derive(v[:i])
		}
	}
}

func median(p workload.ParamDomain) any {
	if p.Median != nil {
		return p.Median
	}
	lo, ok1 := p.Min.(int64)
	hi, ok2 := p.Max.(int64)
	if ok1 && ok2 {
		return lo + (hi-lo)/2
	}
	return p.Min
}

func init() {
	// The plan check runs around the measured phase (PlanCheck), not on
	// its intervals. Its Order puts its check after the run before
	// physical's measurement: InnoDB's leaf modes analyze the tables,
	// which may change a plan.
	Register(Kind{Name: KindPlans, Order: 40, InAll: true,
		Help: "the plans of the workload's statements before and after the run", Needs: "a workload that describes its statements",
		Phase: startPlans})
}

// planCheckTimeout bounds the plan check after the run; the statements it
// has not explained by then say so.
const planCheckTimeout = time.Minute

// startPlans explains the workload's statements before the clients
// connect (env.Run.Plans), or says in env.Run.Collect why it cannot, and
// returns the check after the run.
func startPlans(ctx context.Context, env *PhaseEnv) *PhaseHooks {
	run := env.Run
	st, ok := env.Workload.(workload.Statementer)
	var stmts []workload.Statement
	var leftOut []string
	if ok {
		stmts = st.Statements()
		if lo, ok := env.Workload.(workload.LeftOuter); ok {
			leftOut = lo.LeftOut()
		}
	}
	// Say which statements the check leaves out, and why.
	for _, why := range leftOut {
		env.Warnf("plan check leaves out %s", why)
	}
	switch {
	case !ok:
		run.Collect.PlansNotChecked = fmt.Sprintf("workload %s describes no statements", run.Workload)
		return nil
	case len(stmts) == 0 && len(leftOut) > 0:
		run.Collect.PlansNotChecked = fmt.Sprintf("workload %s gave no statement whose parameters the check can draw; left out: %s",
			run.Workload, strings.Join(leftOut, "; "))
		return nil
	case len(stmts) == 0:
		run.Collect.PlansNotChecked = fmt.Sprintf("workload %s gave no statement whose parameters the check can draw", run.Workload)
		return nil
	}
	pc := &PlanCheck{DB: env.DB, Stmts: stmts, Seed: run.Config.Seed}
	conn, err := env.Connect(ctx)
	if err != nil {
		env.Warnf("plan check: %v", err)
		run.Collect.PlansNotChecked = errLine(err)
		return nil
	}
	if err := CanExplain(ctx, env.DB, conn); err != nil {
		conn.Close()
		run.Collect.PlansNotChecked = "not measured: " + errLine(err)
		return nil
	}
	run.Plans = pc.Before(ctx, conn)
	conn.Close()
	return &PhaseHooks{After: func(ctx context.Context, _ bool) {
		// A server that does not answer must not hold the end of the run.
		ctx, cancel := context.WithTimeout(ctx, planCheckTimeout)
		defer cancel()
		conn, err := env.Connect(ctx)
		if err != nil {
			env.Warnf("plan check after the run: %v", err)
			run.Plans = pc.AfterFailed(fmt.Errorf("could not connect: %w", err))
			return
		}
		run.Plans = pc.After(ctx, conn)
		conn.Close()
	}}
}

// PlanCheck explains a workload's statements before and after a run.
type PlanCheck struct {
	DB     db.DB
	Stmts  []workload.Statement
	Seed   uint64
	draws  [][]Draw
	before [][]string // fingerprint per statement and draw
	shapes map[string]string
	report []results.StatementPlans
}

// Before explains every statement with its sampled parameter sets and
// groups the sets by plan. It returns the report (also kept for After).
func (pc *PlanCheck) Before(ctx context.Context, conn db.Conn) []results.StatementPlans {
	rng := rand.New(rand.NewPCG(pc.Seed, 0x91a4))
	pc.shapes = map[string]string{}
	pc.draws = make([][]Draw, len(pc.Stmts))
	pc.before = make([][]string, len(pc.Stmts))
	pc.report = make([]results.StatementPlans, len(pc.Stmts))
	for i, st := range pc.Stmts {
		sp := results.StatementPlans{Statement: st.Name, SQL: st.SQL, Plans: []results.PlanVariant{}}
		pc.draws[i] = Draws(st, rng, RandomDraws)
		pc.before[i] = make([]string, len(pc.draws[i]))
		byFP := map[string]*results.PlanVariant{}
		var order []string
		if err := session(ctx, conn, st); err != nil {
			sp.Error = oneLine(err.Error())
			pc.report[i] = sp
			continue
		}
		for j, dr := range pc.draws[i] {
			shape, err := Explain(ctx, pc.DB, conn, st.SQL, dr.Values)
			if err != nil {
				sp.Error = oneLine(err.Error())
				break
			}
			fp := Fingerprint(shape)
			pc.shapes[fp] = shape
			pc.before[i][j] = fp
			v := byFP[fp]
			if v == nil {
				v = &results.PlanVariant{Fingerprint: fp, Shape: shape}
				byFP[fp] = v
				order = append(order, fp)
			}
			v.Count++
			v.Examples = append(v.Examples, results.PlanExample{Draw: dr.Label, Params: params(st, dr.Values)})
		}
		for _, fp := range order {
			sp.Plans = append(sp.Plans, *byFP[fp])
		}
		sort.SliceStable(sp.Plans, func(a, b int) bool { return sp.Plans[a].Count > sp.Plans[b].Count })
		if len(sp.Plans) > 1 {
			sp.Flags = append(sp.Flags, FlagParameterSensitive)
		}
		if wc, ok := pc.DB.(evidence.WorkerCounter); ok && sp.Error == "" {
			sp.Workers = countWorkers(ctx, wc, conn, st, pc.draws[i])
		}
		if gp, ok := pc.DB.(evidence.GenericPlanner); ok && sp.Error == "" && len(st.Params) > 0 && !st.OneShot {
			g, err := genericPlan(ctx, gp, conn, st, i, rng)
			if err != nil {
				sp.Error = "generic plan: " + oneLine(err.Error())
			} else {
				sp.Generic = g
				for _, v := range sp.Plans {
					if v.Fingerprint != g.Fingerprint {
						sp.Flags = append(sp.Flags, FlagGenericDiffers)
						break
					}
				}
			}
		}
		pc.report[i] = sp
	}
	return pc.report
}

// After explains the same parameter sets again and flags the statements
// whose plan changed during the run. It returns the updated report.
func (pc *PlanCheck) After(ctx context.Context, conn db.Conn) []results.StatementPlans {
	for i, st := range pc.Stmts {
		sp := &pc.report[i]
		if sp.Error != "" {
			continue
		}
		if err := session(ctx, conn, st); err != nil {
			sp.Error = results.AfterRun + oneLine(err.Error())
			continue
		}
		for j, dr := range pc.draws[i] {
			shape, err := Explain(ctx, pc.DB, conn, st.SQL, dr.Values)
			if err != nil {
				sp.Error = results.AfterRun + oneLine(err.Error())
				break
			}
			fp := Fingerprint(shape)
			if fp != pc.before[i][j] {
				sp.Changed = append(sp.Changed, results.PlanChange{Params: params(st, dr.Values), Before: pc.before[i][j],
					After: fp, AfterShape: shape})
			}
		}
		if len(sp.Changed) > 0 {
			sp.Flags = append(sp.Flags, FlagChanged)
		}
	}
	return pc.report
}

// AfterFailed records that the check after the run could not be made
// (err: it could not connect, say): each statement explained before the
// run says so (results.AfterRun), rather than reading as unchanged during
// the run. It returns the updated report.
func (pc *PlanCheck) AfterFailed(err error) []results.StatementPlans {
	for i := range pc.report {
		if sp := &pc.report[i]; sp.Error == "" {
			sp.Error = results.AfterRun + oneLine(err.Error())
		}
	}
	return pc.report
}

// countWorkers runs the statement once with its median draw (else its
// first) under the engine's EXPLAIN ANALYZE, for the parallel workers its
// plan planned and launched; an error is the figures' reason for being
// absent, not the statement's.
func countWorkers(ctx context.Context, wc evidence.WorkerCounter, conn db.Conn, st workload.Statement, draws []Draw) *results.Workers {
	dr := draws[0]
	for _, d := range draws {
		if d.Label == "median" {
			dr = d
		}
	}
	w, err := wc.Workers(ctx, conn, st.SQL, dr.Values)
	if err != nil {
		return &results.Workers{Draw: dr.Label, NotMeasured: oneLine(err.Error())}
	}
	return &results.Workers{Draw: dr.Label, Planned: w.Planned, Launched: w.Launched, NotMeasured: w.NotMeasured}
}

// genericPlan asks the engine for the generic plan of statement i, with
// random draws of its parameters.
func genericPlan(ctx context.Context, gp evidence.GenericPlanner, conn db.Conn, st workload.Statement, i int, rng *rand.Rand) (*results.GenericPlan, error) {
	draw := func() []any {
		v := make([]any, len(st.Params))
		for k, p := range st.Params {
			if p.Sample != nil {
				v[k] = p.Sample(rng)
			} else {
				v[k] = median(p)
			}
		}
		derive(st, v)
		return v
	}
	shape, chosen, err := gp.GenericPlan(ctx, conn, fmt.Sprintf("dbharness_plan_check_%d", i), st.SQL, draw)
	if err != nil {
		return nil, err
	}
	return &results.GenericPlan{Fingerprint: Fingerprint(shape), Shape: shape, Chosen: chosen}, nil
}

// session runs the statement's session settings on conn.
func session(ctx context.Context, conn db.Conn, st workload.Statement) error {
	for _, q := range st.Session {
		if err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("session setting %q: %w", q, err)
		}
	}
	return nil
}

func params(st workload.Statement, v []any) map[string]any {
	m := make(map[string]any, len(v))
	for i, x := range v {
		name := fmt.Sprintf("$%d", i+1)
		if i < len(st.Params) && st.Params[i].Name != "" {
			name = st.Params[i].Name
		}
		m[name] = x
	}
	return m
}

// Fingerprint is a short hash of a normalized plan.
func Fingerprint(shape string) string {
	h := sha256.Sum256([]byte(shape))
	return hex.EncodeToString(h[:8])
}

// CanExplain says why the engine of d cannot explain statements on conn:
// it is no Explainer, or its server does not honour its way of explaining
// (evidence.ExplainProber). Nil when it can.
func CanExplain(ctx context.Context, d db.DB, conn db.Conn) error {
	e, ok := d.(evidence.Explainer)
	if !ok {
		return fmt.Errorf("this engine cannot explain statements")
	}
	if p, ok := e.(evidence.ExplainProber); ok {
		return p.ProbeExplain(ctx, conn)
	}
	return nil
}

// Explain returns the normalized plan of sql (with $1..$n placeholders) for
// the parameter values args, as the engine gives it (Explainer).
func Explain(ctx context.Context, d db.DB, conn db.Conn, sql string, args []any) (string, error) {
	e, ok := d.(evidence.Explainer)
	if !ok {
		return "", fmt.Errorf("this engine cannot explain statements")
	}
	return e.Explain(ctx, conn, sql, args)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
