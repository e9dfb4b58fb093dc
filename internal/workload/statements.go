package workload

import "math/rand/v2"

// Statementer is a Runner that describes the statements its transactions
// run and the domains of their parameters, so that the harness can check
// their plans before and after a run. It is called after Setup.
type Statementer interface {
	Statements() []Statement
}

// LeftOuter is a Statementer that says which of its statements
// Statements left out, and why, so that the plan check can tell.
type LeftOuter interface {
	// LeftOut lists them, one line each: "NAME: why".
	LeftOut() []string
}

// Statement is one statement of a workload, written with $1..$n
// placeholders as the workload prepares it.
type Statement struct {
	// Name identifies the statement in reports, e.g. "select_account".
	Name string
	SQL  string
	// Params describe $1, $2, ... in order.
	Params []ParamDomain
	// Session lists the statements the workload runs on each client's
	// session before its transactions (a planner setting, say); the plan
	// check runs them on its session before explaining, so that it sees
	// the plans the clients get.
	Session []string
	// OneShot: the clients send the statement afresh each time (its values
	// written into the text, or an unnamed statement), never prepared, so
	// the server plans it for its values every time and never runs a
	// generic plan; the plan check does not look for one.
	OneShot bool
}

// ParamDomain is the distribution a parameter is drawn from.
type ParamDomain struct {
	Name string
	// Min, Median and Max are the lowest, middle and highest values of the
	// distribution (Median may be nil: the midpoint of integer bounds).
	Min, Median, Max any
	// Sample draws a value as the workload does.
	Sample func(rng *rand.Rand) any
	// Derive, when set, computes the parameter from the parameters before
	// it, as the workload does (a range's upper bound from its lower
	// bound, for instance): it is never drawn or set to its bounds on its
	// own, since values the workload never sends would show plans it never
	// runs. Min, Median, Max and Sample are then unused.
	Derive func(earlier []any) any
}
