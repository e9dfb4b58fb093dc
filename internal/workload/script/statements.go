package script

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/pgbexpr"
	"github.com/dbharness/dbharness/internal/workload"
)

// medianDraws is how many values of a skewed random function (exponential,
// zipfian) the plan check's median is taken from.
const medianDraws = 2001

// explainable are the first words of the commands EXPLAIN takes.
var explainable = map[string]bool{"select": true, "insert": true, "update": true, "delete": true,
	"with": true, "values": true, "merge": true, "table": true}

// Statements implements workload.Statementer: every SQL command EXPLAIN
// takes (SELECT, INSERT, UPDATE, DELETE, ...), named SCRIPT:LINE:COLUMN,
// whose variables the plan check can draw as the clients do:
//
//   - a variable set by \set of a plain random function (random,
//     random_gaussian, random_exponential, random_zipfian) whose bounds and
//     parameter are constants: its bounds are the minimum and maximum, the
//     median is the midpoint (uniform, gaussian) or the median of 2,001
//     draws (exponential, zipfian), and random draws evaluate the \set as
//     the clients do;
//   - a constant: :scale, :random_seed, :default_seed, a -D value, or a
//     variable set by \set of an expression that draws nothing and reads
//     only constants.
//
// A variable set by several \set commands (in one script or in several)
// counts as set once when they all have the same expression; with
// different expressions it has no single domain. A command that reads a
// variable without a domain is left out, and LeftOut says which and why:
// one set by \gset or \aset (its values exist only in a running script),
// :client_id (one value per client), one set by \set commands of
// different expressions or by a \set that computes on a draw
// (random(1, 10) + :x, hash(...)). So is, in --query-mode simple, a command
// with a variable inside quotes, since the check's text would not be the
// clients', and a compound command (\;), which EXPLAIN does not take.
// Outside --query-mode prepared the statements are OneShot: the clients
// never run a generic plan.
func (w *Workload) Statements() []workload.Statement {
	e := &constEnv{w: w, a: assigned(w.parsed), vals: map[string]variable{}, busy: map[string]bool{},
		cache: map[pgbexpr.DistKey]datagen.IntDist{}, where: map[*Command]string{}}
	for _, s := range w.parsed {
		for _, c := range s.Commands {
			e.where[c] = c.where(s)
		}
	}
	w.leftOut = nil
	leave := func(c *Command, s *Script, format string, a ...any) {
		w.leftOut = append(w.leftOut, c.where(s)+": "+fmt.Sprintf(format, a...))
	}
	var out []workload.Statement
	for _, s := range w.parsed {
	cmds:
		for _, c := range s.Commands {
			if c.kind != cSQL {
				continue
			}
			if toks := sqlTokens(c.orig); len(toks) == 0 || toks[0].quoted || !explainable[toks[0].text] {
				continue
			}
			if c.parts != nil {
				leave(c, s, "a compound command (\\;), which EXPLAIN does not take")
				continue
			}
			if w.QueryMode == ModeSimple {
				if i := slices.IndexFunc(c.pieces, func(p piece) bool {
					return p.name != "" && !p.required && e.a.mayBeSet(p.name, w.defines)
				}); i >= 0 {
					leave(c, s, ":%s is written inside quotes, which --query-mode simple fills in and EXPLAIN with parameters would not", c.pieces[i].name)
					continue
				}
			}
			st := workload.Statement{Name: c.where(s), SQL: c.sql, OneShot: w.QueryMode != ModePrepared}
			first := map[string]int{}
			for i, name := range c.vars {
				if j, ok := first[name]; ok {
					st.Params = append(st.Params, workload.ParamDomain{Name: name, Derive: func(e []any) any { return e[j] }})
					continue
				}
				p, why := e.domain(name)
				if why != "" {
					leave(c, s, ":%s %s", name, why)
					continue cmds
				}
				first[name] = i
				st.Params = append(st.Params, p)
			}
			out = append(out, st)
		}
	}
	return out
}

// LeftOut implements workload.LeftOuter: the commands EXPLAIN takes that
// the last Statements left out, each as "SCRIPT:LINE:COLUMN: why".
func (w *Workload) LeftOut() []string { return w.leftOut }

// onlySet returns the \set command that sets name, when there is one or
// when all of them have the same expression; why says otherwise.
func (e *constEnv) onlySet(name string) (c *Command, why string) {
	sets := e.a.sets[name]
	if len(sets) == 0 {
		return nil, ""
	}
	for _, o := range sets[1:] {
		if strings.TrimSpace(o.expr.String()) != strings.TrimSpace(sets[0].expr.String()) {
			var at []string
			for _, x := range sets {
				at = append(at, e.where[x])
			}
			return nil, fmt.Sprintf("is set by \\set commands of different expressions (%s), so it has no single domain", strings.Join(at, ", "))
		}
	}
	return sets[0], ""
}

// errNotConstant is returned for a variable whose value is not known
// before the run.
var errNotConstant = errors.New("not a constant")

// constEnv evaluates expressions over the variables whose value is the
// same for every client and every run of the scripts.
type constEnv struct {
	w     *Workload
	a     *assignments
	vals  map[string]variable
	busy  map[string]bool // being evaluated: a \set that reads itself is no constant
	cache map[pgbexpr.DistKey]datagen.IntDist
	// where names each \set command as SCRIPT:LINE:COLUMN.
	where map[*Command]string
}

// constant returns the value name has in every client, if it has one, or
// why it has none.
func (e *constEnv) constant(name string) (variable, string) {
	if v, ok := e.vals[name]; ok {
		return v, ""
	}
	switch {
	case e.busy[name]:
		return variable{}, "is computed from itself"
	case e.a.mayFetch(name):
		return variable{}, "is set by \\gset or \\aset, whose values exist only in a running script"
	case name == "client_id":
		return variable{}, "has one value per client"
	}
	var v variable
	set, why := e.onlySet(name)
	text, defined := e.w.defines[name]
	switch {
	case why != "":
		return variable{}, why
	case set != nil:
		x := set.expr
		if x.Draws() {
			return variable{}, "is drawn"
		}
		e.busy[name] = true
		val, err := x.Eval(e)
		delete(e.busy, name)
		if err != nil {
			return variable{}, fmt.Sprintf("is set by %s, which the check cannot evaluate before the run", e.where[set])
		}
		v = variable{val: val}
	// The built-ins as NewWorker sets them: -D may set :scale and
	// :default_seed, not :random_seed.
	case name == "random_seed":
		v = variable{val: pgbexpr.IntValue(int64(e.w.seed))}
	case defined:
		v = textVariable(text)
	case name == "scale":
		v = variable{val: pgbexpr.IntValue(e.w.scale)}
	case name == "default_seed":
		v = variable{val: pgbexpr.IntValue(e.w.defaultSeed())}
	default:
		return variable{}, "is not set before the run"
	}
	e.vals[name] = v
	return v, ""
}

// Var implements pgbexpr.Env.
func (e *constEnv) Var(name string) (pgbexpr.Value, bool, error) {
	v, why := e.constant(name)
	switch {
	case why != "":
		return pgbexpr.Value{}, true, errNotConstant
	case v.isText:
		return pgbexpr.Value{}, true, errNotConstant
	}
	return v.val, true, nil
}

// Rand implements pgbexpr.Env; constants draw nothing.
func (e *constEnv) Rand() *rand.Rand { return nil }

// Cache implements pgbexpr.Env.
func (e *constEnv) Cache() map[pgbexpr.DistKey]datagen.IntDist { return e.cache }

// drawEnv draws a \set's random function with the plan check's generator.
type drawEnv struct {
	*constEnv
	rng *rand.Rand
}

func (d drawEnv) Rand() *rand.Rand { return d.rng }

// domain is the plan check's domain of a variable, or why it has none.
func (e *constEnv) domain(name string) (workload.ParamDomain, string) {
	v, why := e.constant(name)
	if why == "" {
		x := v.arg()
		return workload.ParamDomain{Name: name, Min: x, Median: x, Max: x, Sample: func(*rand.Rand) any { return x }}, ""
	}
	if why != "is drawn" {
		return workload.ParamDomain{}, why
	}
	set, _ := e.onlySet(name)
	x := set.expr
	fn, args, ok := x.RandomCall()
	if !ok {
		return workload.ParamDomain{}, fmt.Sprintf("is set by %s, which computes on a draw: the check knows the domain of a plain random function only", e.where[set])
	}
	var bounds [2]int64
	for i := range bounds {
		v, err := args[i].Eval(e)
		if err == nil {
			bounds[i], err = v.AsInt()
		}
		if err != nil {
			return workload.ParamDomain{}, fmt.Sprintf("is drawn by %s between bounds that are not constants", e.where[set])
		}
	}
	sample := func(rng *rand.Rand) (any, error) {
		v, err := x.Eval(drawEnv{e, rng})
		return v.Any(), err
	}
	// A draw fails where the client's would (a bad parameter, an empty
	// range): no domain.
	if _, err := sample(rand.New(rand.NewPCG(e.w.seed, 0))); err != nil {
		return workload.ParamDomain{}, fmt.Sprintf("is drawn by %s, which fails: %v", e.where[set], err)
	}
	lo, hi := bounds[0], bounds[1]
	median := any(lo + (hi-lo)/2)
	if fn == "random_exponential" || fn == "random_zipfian" {
		rng := rand.New(rand.NewPCG(e.w.seed, 1))
		vals := make([]int64, medianDraws)
		for i := range vals {
			v, _ := sample(rng)
			vals[i] = v.(int64)
		}
		slices.Sort(vals)
		median = vals[len(vals)/2]
	}
	return workload.ParamDomain{Name: name, Min: lo, Median: median, Max: hi, Sample: func(rng *rand.Rand) any {
		v, _ := sample(rng)
		return v
	}}, ""
}
