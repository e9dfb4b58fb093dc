package pgbexpr

import (
	"errors"
	"math/rand/v2"

	"github.com/dbharness/dbharness/internal/datagen"
)

// Check finds the errors pgbench would meet every time it evaluates the
// expression, whatever the variables hold: a part that reads no variable
// and draws nothing is evaluated now (TRUE + 2, NOT 0.0, ln(TRUE), 1 / 0),
// and so are the arguments of a random function (random(FALSE, TRUE),
// random(10, 1)). Parts evaluated only on some paths (the right of AND and
// OR, the branches of CASE) are checked only when the path is certain. The
// error is a *SyntaxError at the offending operator or function.
func (e *Expr) Check() error {
	_, _, err := check(e.root)
	return err
}

// errNotConst stops the evaluation of a part that reads a variable.
var errNotConst = errors.New("not a constant")

// constEnv has no variables and a fixed random source; debug() shows
// nothing.
type constEnv struct{ r *rand.Rand }

func (constEnv) Var(string) (Value, bool, error)    { return Value{}, false, errNotConst }
func (c constEnv) Rand() *rand.Rand                 { return c.r }
func (constEnv) Cache() map[DistKey]datagen.IntDist { return nil }

// check returns the node's value when it is a constant (known), or the
// first certain error.
func check(n node) (v Value, known bool, err error) {
	switch x := n.(type) {
	case *litNode:
		return x.v, true, nil
	case *varNode:
		return Value{}, false, nil
	case *caseNode:
		// The first condition is always evaluated.
		_, _, err := check(x.conds[0])
		return Value{}, false, err
	case *binNode:
		if x.op == "and" || x.op == "or" {
			if _, known, err := check(x.l); err != nil || !known {
				return Value{}, false, err
			}
			return constEval(n, x.pos)
		}
		return checkAll(n, x.pos, x.l, x.r)
	case *unaryNode:
		return checkAll(n, x.pos, x.x)
	case *callNode:
		v, known, err := checkAll(n, x.pos, x.args...)
		if err == nil && !known && randomFuncs[x.name] {
			// The arguments are coerced, the range and the parameter
			// checked before a draw: with constant arguments, one draw
			// tells whether every draw fails.
			for _, a := range x.args {
				if (&Expr{root: a}).hasVarOrDraw() {
					return Value{}, false, nil
				}
			}
			if _, err := eval(n, constEnv{rand.New(rand.NewPCG(1, 2))}); err != nil {
				return Value{}, false, &SyntaxError{x.pos, err.Error()}
			}
		}
		return v, known, err
	}
	return Value{}, false, nil
}

// checkAll checks the operands of n, all of them evaluated, and evaluates
// n if they are all constants and n draws nothing.
func checkAll(n node, pos int, kids ...node) (Value, bool, error) {
	all := true
	for _, k := range kids {
		_, known, err := check(k)
		if err != nil {
			return Value{}, false, err
		}
		all = all && known
	}
	if c, ok := n.(*callNode); !all || ok && (randomFuncs[c.name] || c.name == "hash" || c.name == "hash_murmur2" ||
		c.name == "hash_fnv1a" || c.name == "permute") && len(c.args) < c.fn.max {
		// A draw, or a hash or permute of :default_seed.
		return Value{}, false, nil
	}
	return constEval(n, pos)
}

// constEval evaluates a node that may still read a variable (the right of
// AND): that makes it unknown, not wrong.
func constEval(n node, pos int) (Value, bool, error) {
	v, err := eval(n, constEnv{rand.New(rand.NewPCG(1, 2))})
	switch {
	case errors.Is(err, errNotConst):
		return Value{}, false, nil
	case err != nil:
		return Value{}, false, &SyntaxError{pos, err.Error()}
	}
	if (&Expr{root: n}).Draws() {
		return Value{}, false, nil
	}
	return v, true, nil
}

// hasVarOrDraw reports whether the expression reads a variable or draws.
func (e *Expr) hasVarOrDraw() bool {
	found := false
	walk(e.root, func(n node) {
		switch x := n.(type) {
		case *varNode:
			found = true
		case *callNode:
			found = found || randomFuncs[x.name]
		}
	})
	return found
}
