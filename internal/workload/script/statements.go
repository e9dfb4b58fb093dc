package script

import (
	"errors"
	"math/rand/v2"
	"slices"

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
//   - a variable set by one \set of a plain random function (random,
//     random_gaussian, random_exponential, random_zipfian) whose bounds and
//     parameter are constants: its bounds are the minimum and maximum, the
//     median is the midpoint (uniform, gaussian) or the median of 2,001
//     draws (exponential, zipfian), and random draws evaluate the \set as
//     the clients do;
//   - a constant: :scale, :random_seed, :default_seed, a -D value, or a
//     variable set by one \set of an expression that draws nothing and
//     reads only constants.
//
// A command that reads any other variable is left out: one set by \gset or
// \aset (its values exist only in a running script), :client_id (one value
// per client), one set by several \set commands or by a \set that computes
// on a draw (random(1, 10) + :x, hash(...)). So is, in --query-mode
// simple, a command with a variable inside quotes, since the check's text
// would not be the clients'. Outside --query-mode prepared the statements
// are OneShot: the clients never run a generic plan.
func (w *Workload) Statements() []workload.Statement {
	e := &constEnv{w: w, a: assigned(w.parsed), vals: map[string]variable{}, busy: map[string]bool{},
		cache: map[pgbexpr.DistKey]datagen.IntDist{}}
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
			if w.QueryMode == ModeSimple && slices.ContainsFunc(c.pieces, func(p piece) bool {
				return p.name != "" && !p.required && e.a.mayBeSet(p.name, w.defines)
			}) {
				continue
			}
			st := workload.Statement{Name: c.where(s), SQL: c.sql, OneShot: w.QueryMode != ModePrepared}
			first := map[string]int{}
			for i, name := range c.vars {
				if j, ok := first[name]; ok {
					st.Params = append(st.Params, workload.ParamDomain{Name: name, Derive: func(e []any) any { return e[j] }})
					continue
				}
				p, ok := e.domain(name)
				if !ok {
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
}

// constant returns the value name has in every client, if it has one.
func (e *constEnv) constant(name string) (variable, bool) {
	if v, ok := e.vals[name]; ok {
		return v, true
	}
	if e.busy[name] || e.a.mayFetch(name) || name == "client_id" {
		return variable{}, false
	}
	var v variable
	sets := e.a.sets[name]
	text, defined := e.w.defines[name]
	switch {
	case len(sets) > 1:
		return variable{}, false
	case len(sets) == 1:
		x := sets[0].expr
		if x.Draws() {
			return variable{}, false
		}
		e.busy[name] = true
		val, err := x.Eval(e)
		delete(e.busy, name)
		if err != nil {
			return variable{}, false
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
		return variable{}, false
	}
	e.vals[name] = v
	return v, true
}

// Var implements pgbexpr.Env.
func (e *constEnv) Var(name string) (pgbexpr.Value, bool, error) {
	v, ok := e.constant(name)
	switch {
	case !ok:
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

// domain is the plan check's domain of a variable, if it has one.
func (e *constEnv) domain(name string) (workload.ParamDomain, bool) {
	if v, ok := e.constant(name); ok {
		x := v.arg()
		return workload.ParamDomain{Name: name, Min: x, Median: x, Max: x, Sample: func(*rand.Rand) any { return x }}, true
	}
	sets := e.a.sets[name]
	if len(sets) != 1 || e.a.mayFetch(name) {
		return workload.ParamDomain{}, false
	}
	x := sets[0].expr
	fn, args, ok := x.RandomCall()
	if !ok {
		return workload.ParamDomain{}, false
	}
	var bounds [2]int64
	for i := range bounds {
		v, err := args[i].Eval(e)
		if err == nil {
			bounds[i], err = v.AsInt()
		}
		if err != nil {
			return workload.ParamDomain{}, false
		}
	}
	sample := func(rng *rand.Rand) (any, error) {
		v, err := x.Eval(drawEnv{e, rng})
		return v.Any(), err
	}
	// A draw fails where the client's would (a bad parameter, an empty
	// range): no domain.
	if _, err := sample(rand.New(rand.NewPCG(e.w.seed, 0))); err != nil {
		return workload.ParamDomain{}, false
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
	}}, true
}
