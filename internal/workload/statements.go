package workload

import "math/rand/v2"

// Statementer is a Runner that describes the statements its transactions
// run and the domains of their parameters, so that the harness can check
// their plans before and after a run. It is called after Setup.
type Statementer interface {
	Statements() []Statement
}

// Statement is one statement of a workload, written with $1..$n
// placeholders as the workload prepares it.
type Statement struct {
	// Name identifies the statement in reports, e.g. "select_account".
	Name string
	SQL  string
	// Params describe $1, $2, ... in order.
	Params []ParamDomain
}

// ParamDomain is the distribution a parameter is drawn from.
type ParamDomain struct {
	Name string
	// Min, Median and Max are the lowest, middle and highest values of the
	// distribution (Median may be nil: the midpoint of integer bounds).
	Min, Median, Max any
	// Sample draws a value as the workload does.
	Sample func(rng *rand.Rand) any
}
