package pgbexpr

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dbharness/dbharness/internal/datagen"
)

// Env is what an evaluation needs: variables and randomness.
type Env interface {
	// Var returns a variable's value; ok is false if it is not set.
	Var(name string) (v Value, ok bool, err error)
	// Rand is the random source of the random functions.
	Rand() *rand.Rand
	// Cache holds distributions built by the random functions, keyed by
	// their parameters; it may return nil to build them every time.
	Cache() map[DistKey]datagen.IntDist
}

// DistKey identifies a random function's distribution.
type DistKey struct {
	Fn     string
	Lo, Hi int64
	Param  float64
}

// Eval evaluates the expression.
func (e *Expr) Eval(env Env) (Value, error) { return eval(e.root, env) }

type node interface{}

type litNode struct{ v Value }

type varNode struct {
	name string
	pos  int
}

type unaryNode struct {
	op  string
	x   node
	pos int
}

type binNode struct {
	op   string
	l, r node
	pos  int
}

type callNode struct {
	name string
	fn   *function
	args []node
	pos  int
}

type caseNode struct {
	conds, vals []node
	els         node
}

var errDivZero = errors.New("division by zero")

func eval(n node, env Env) (Value, error) {
	switch x := n.(type) {
	case *litNode:
		return x.v, nil
	case *varNode:
		v, ok, err := env.Var(x.name)
		if err != nil {
			return Value{}, err
		}
		if !ok {
			return Value{}, fmt.Errorf("undefined variable %q", x.name)
		}
		return v, nil
	case *unaryNode:
		return evalUnary(x, env)
	case *binNode:
		return evalBinary(x, env)
	case *callNode:
		args := make([]Value, 0, 4)
		for _, a := range x.args {
			v, err := eval(a, env)
			if err != nil {
				return Value{}, err
			}
			args = append(args, v)
		}
		v, err := x.fn.call(args, env)
		if err != nil {
			return Value{}, fmt.Errorf("%s(): %w", x.name, err)
		}
		return v, nil
	case *caseNode:
		for i, c := range x.conds {
			cv, err := eval(c, env)
			if err != nil {
				return Value{}, err
			}
			if cv.Kind == Null {
				continue
			}
			b, err := cv.AsBool()
			if err != nil {
				return Value{}, err
			}
			if b {
				return eval(x.vals[i], env)
			}
		}
		if x.els != nil {
			return eval(x.els, env)
		}
		return Value{}, nil
	}
	return Value{}, fmt.Errorf("bad expression node %T", n)
}

func evalUnary(x *unaryNode, env Env) (Value, error) {
	v, err := eval(x.x, env)
	if err != nil {
		return Value{}, err
	}
	switch x.op {
	case "isnull":
		return BoolValue(v.Kind == Null), nil
	case "notnull":
		return BoolValue(v.Kind != Null), nil
	case "istrue", "isfalse":
		if v.Kind == Null {
			return BoolValue(false), nil
		}
		b, err := v.AsBool()
		if err != nil {
			return Value{}, err
		}
		return BoolValue(b == (x.op == "istrue")), nil
	case "not":
		if v.Kind == Null {
			return Value{}, nil
		}
		b, err := v.AsBool()
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil
	case "-":
		switch v.Kind {
		case Int:
			if v.I == math.MinInt64 {
				return Value{}, errors.New("bigint out of range")
			}
			return IntValue(-v.I), nil
		case Double:
			return DoubleValue(-v.F), nil
		case Null:
			return Value{}, nil
		}
		i, err := v.AsInt()
		if err != nil {
			return Value{}, err
		}
		return IntValue(-i), nil
	case "~":
		if v.Kind == Null {
			return Value{}, nil
		}
		i, err := v.AsInt()
		if err != nil {
			return Value{}, err
		}
		return IntValue(^i), nil
	}
	return Value{}, fmt.Errorf("unknown operator %s", x.op)
}

func evalBinary(x *binNode, env Env) (Value, error) {
	l, err := eval(x.l, env)
	if err != nil {
		return Value{}, err
	}
	// AND and OR short-circuit, with SQL's three-valued logic.
	if x.op == "and" || x.op == "or" {
		var lb bool
		if l.Kind != Null {
			if lb, err = l.AsBool(); err != nil {
				return Value{}, err
			}
			if x.op == "and" && !lb {
				return BoolValue(false), nil
			}
			if x.op == "or" && lb {
				return BoolValue(true), nil
			}
		}
		r, err := eval(x.r, env)
		if err != nil {
			return Value{}, err
		}
		if r.Kind == Null {
			return Value{}, nil
		}
		rb, err := r.AsBool()
		if err != nil {
			return Value{}, err
		}
		if l.Kind == Null {
			if x.op == "and" && !rb {
				return BoolValue(false), nil
			}
			if x.op == "or" && rb {
				return BoolValue(true), nil
			}
			return Value{}, nil
		}
		return BoolValue(rb), nil
	}
	r, err := eval(x.r, env)
	if err != nil {
		return Value{}, err
	}
	if l.Kind == Null || r.Kind == Null {
		return Value{}, nil
	}
	switch x.op {
	case "+", "-", "*", "/", "%", "<", ">", "=", "<=", ">=", "<>", "!=":
		if l.Kind == Double || r.Kind == Double {
			a, _ := l.AsDouble()
			b, _ := r.AsDouble()
			return doubleOp(x.op, a, b)
		}
		a, _ := l.AsInt()
		b, _ := r.AsInt()
		return intOp(x.op, a, b)
	case "&", "|", "#", "<<", ">>":
		a, err := l.AsInt()
		if err != nil {
			return Value{}, err
		}
		b, err := r.AsInt()
		if err != nil {
			return Value{}, err
		}
		switch x.op {
		case "&":
			return IntValue(a & b), nil
		case "|":
			return IntValue(a | b), nil
		case "#":
			return IntValue(a ^ b), nil
		case "<<":
			return IntValue(int64(uint64(a) << (uint64(b) & 63))), nil
		case ">>":
			return IntValue(a >> (uint64(b) & 63)), nil
		}
	}
	return Value{}, fmt.Errorf("unknown operator %s", x.op)
}

func doubleOp(op string, a, b float64) (Value, error) {
	switch op {
	case "+":
		return DoubleValue(a + b), nil
	case "-":
		return DoubleValue(a - b), nil
	case "*":
		return DoubleValue(a * b), nil
	case "/":
		if b == 0 {
			return Value{}, errDivZero
		}
		return DoubleValue(a / b), nil
	case "%":
		return Value{}, errors.New("% needs integer operands")
	case "<":
		return BoolValue(a < b), nil
	case ">":
		return BoolValue(a > b), nil
	case "=":
		return BoolValue(a == b), nil
	case "<=":
		return BoolValue(a <= b), nil
	case ">=":
		return BoolValue(a >= b), nil
	}
	return BoolValue(a != b), nil
}

var errOverflow = errors.New("bigint out of range")

func intOp(op string, a, b int64) (Value, error) {
	switch op {
	case "+":
		s := a + b
		if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
			return Value{}, errOverflow
		}
		return IntValue(s), nil
	case "-":
		s := a - b
		if (a >= 0) != (b >= 0) && (s >= 0) != (a >= 0) {
			return Value{}, errOverflow
		}
		return IntValue(s), nil
	case "*":
		r := a * b
		if a != 0 && (r/a != b || a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64) {
			return Value{}, errOverflow
		}
		return IntValue(r), nil
	case "/":
		if b == 0 {
			return Value{}, errDivZero
		}
		if b == -1 {
			if a == math.MinInt64 {
				return Value{}, errOverflow
			}
			return IntValue(-a), nil
		}
		return IntValue(a / b), nil
	case "%":
		if b == 0 {
			return Value{}, errDivZero
		}
		if b == -1 {
			return IntValue(0), nil
		}
		return IntValue(a % b), nil
	case "<":
		return BoolValue(a < b), nil
	case ">":
		return BoolValue(a > b), nil
	case "=":
		return BoolValue(a == b), nil
	case "<=":
		return BoolValue(a <= b), nil
	case ">=":
		return BoolValue(a >= b), nil
	}
	return BoolValue(a != b), nil
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

type function struct {
	min, max int // max < 0: variadic
	call     func(args []Value, env Env) (Value, error)
}

func (f *function) arity() string {
	switch {
	case f.max < 0:
		return fmt.Sprintf("at least %d arguments", f.min)
	case f.min == f.max:
		return fmt.Sprintf("%d argument%s", f.min, plural(f.min))
	}
	return fmt.Sprintf("%d to %d arguments", f.min, f.max)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Names lists the functions the language knows, for documentation.
func Names() []string {
	var out []string
	for n := range functions {
		out = append(out, n)
	}
	return out
}

var functions map[string]*function

func init() {
	functions = map[string]*function{
		"abs": {1, 1, func(a []Value, _ Env) (Value, error) {
			switch a[0].Kind {
			case Double:
				return DoubleValue(math.Abs(a[0].F)), nil
			case Null:
				return Value{}, nil
			}
			i, err := a[0].AsInt()
			if err != nil {
				return Value{}, err
			}
			if i == math.MinInt64 {
				return Value{}, errOverflow
			}
			return IntValue(abs64(i)), nil
		}},
		"debug": {1, 1, func(a []Value, _ Env) (Value, error) { return a[0], nil }},
		"double": {1, 1, func(a []Value, _ Env) (Value, error) {
			f, err := a[0].AsDouble()
			return DoubleValue(f), err
		}},
		"int": {1, 1, func(a []Value, _ Env) (Value, error) {
			i, err := a[0].AsInt()
			return IntValue(i), err
		}},
		"pi":   {0, 0, func([]Value, Env) (Value, error) { return DoubleValue(math.Pi), nil }},
		"sqrt": {1, 1, mathFn(math.Sqrt)},
		"exp":  {1, 1, mathFn(math.Exp)},
		"ln":   {1, 1, mathFn(math.Log)},
		"pow": {2, 2, func(a []Value, _ Env) (Value, error) {
			x, err := a[0].AsDouble()
			if err != nil {
				return Value{}, err
			}
			y, err := a[1].AsDouble()
			return DoubleValue(math.Pow(x, y)), err
		}},
		"mod": {2, 2, func(a []Value, _ Env) (Value, error) {
			x, err := a[0].AsInt()
			if err != nil {
				return Value{}, err
			}
			y, err := a[1].AsInt()
			if err != nil {
				return Value{}, err
			}
			return intOp("%", x, y)
		}},
		"least":    {1, -1, minMax(true)},
		"greatest": {1, -1, minMax(false)},
		"random": {2, 2, func(a []Value, env Env) (Value, error) {
			lo, hi, err := bounds(a)
			if err != nil {
				return Value{}, err
			}
			return IntValue(lo + int64(env.Rand().Uint64N(uint64(hi-lo)+1))), nil
		}},
		"random_gaussian":    {3, 3, randomDist("random_gaussian")},
		"random_exponential": {3, 3, randomDist("random_exponential")},
		"random_zipfian":     {3, 3, randomDist("random_zipfian")},
		"hash":               {1, 2, hashFn(datagen.HashMurmur2)},
		"hash_murmur2":       {1, 2, hashFn(datagen.HashMurmur2)},
		"hash_fnv1a":         {1, 2, hashFn(datagen.HashFNV1a)},
		"permute": {2, 3, func(a []Value, env Env) (Value, error) {
			v, err := a[0].AsInt()
			if err != nil {
				return Value{}, err
			}
			size, err := a[1].AsInt()
			if err != nil {
				return Value{}, err
			}
			if size <= 0 {
				return Value{}, errors.New("permute size parameter must be greater than zero")
			}
			seed, err := seedArg(a, 2, env)
			if err != nil {
				return Value{}, err
			}
			return IntValue(datagen.PermuteInt(v, size, seed)), nil
		}},
	}
	functions["power"] = functions["pow"]
}

func mathFn(f func(float64) float64) func([]Value, Env) (Value, error) {
	return func(a []Value, _ Env) (Value, error) {
		x, err := a[0].AsDouble()
		return DoubleValue(f(x)), err
	}
}

func minMax(least bool) func([]Value, Env) (Value, error) {
	return func(a []Value, _ Env) (Value, error) {
		anyDouble := false
		for _, v := range a {
			if v.Kind == Double {
				anyDouble = true
			}
		}
		var best Value
		for _, v := range a {
			if v.Kind == Null {
				continue
			}
			if anyDouble {
				f, _ := v.AsDouble()
				if best.Kind == Null || least && f < best.F || !least && f > best.F {
					best = DoubleValue(f)
				}
				continue
			}
			i, err := v.AsInt()
			if err != nil {
				return Value{}, err
			}
			if best.Kind == Null || least && i < best.I || !least && i > best.I {
				best = IntValue(i)
			}
		}
		return best, nil
	}
}

// maxRandomRange is pgbench's limit on random()'s range (MAX_RANDOM_VALUE64).
const maxRandomRange = math.MaxInt64

func bounds(a []Value) (lo, hi int64, err error) {
	if lo, err = a[0].AsInt(); err != nil {
		return
	}
	if hi, err = a[1].AsInt(); err != nil {
		return
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("empty range given to random: %d > %d", lo, hi)
	}
	if uint64(hi)-uint64(lo) >= maxRandomRange {
		return 0, 0, errors.New("random range is too large")
	}
	return lo, hi, nil
}

// pgbench's parameter limits (pgbench.c).
const (
	minZipfianParam = 1.001
	maxZipfianParam = 1000.0
)

func randomDist(name string) func([]Value, Env) (Value, error) {
	return func(a []Value, env Env) (Value, error) {
		lo, hi, err := bounds(a)
		if err != nil {
			return Value{}, err
		}
		p, err := a[2].AsDouble()
		if err != nil {
			return Value{}, err
		}
		key := DistKey{Fn: name, Lo: lo, Hi: hi, Param: p}
		cache := env.Cache()
		d := cache[key]
		if d == nil {
			switch name {
			case "random_gaussian":
				if p < datagen.MinGaussianParam {
					return Value{}, fmt.Errorf("gaussian parameter must be at least %v (not %v)", datagen.MinGaussianParam, p)
				}
				d, err = datagen.NewGaussianParam(lo, hi, p)
			case "random_exponential":
				if p <= 0 {
					return Value{}, fmt.Errorf("exponential parameter must be greater than zero (not %v)", p)
				}
				d, err = datagen.NewExponential(lo, hi, p)
			case "random_zipfian":
				if p < minZipfianParam || p > maxZipfianParam {
					return Value{}, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %v)", minZipfianParam, maxZipfianParam, p)
				}
				d, err = datagen.NewZipf(lo, hi, p)
			}
			if err != nil {
				return Value{}, err
			}
			if cache != nil && len(cache) < 1024 {
				cache[key] = d
			}
		}
		return IntValue(d.Int64(env.Rand())), nil
	}
}

func seedArg(a []Value, i int, env Env) (int64, error) {
	if len(a) > i {
		return a[i].AsInt()
	}
	v, ok, err := env.Var("default_seed")
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errors.New("variable default_seed is not set")
	}
	return v.AsInt()
}

func hashFn(h func(v, seed int64) int64) func([]Value, Env) (Value, error) {
	return func(a []Value, env Env) (Value, error) {
		v, err := a[0].AsInt()
		if err != nil {
			return Value{}, err
		}
		seed, err := seedArg(a, 1, env)
		if err != nil {
			return Value{}, err
		}
		return IntValue(h(v, seed)), nil
	}
}
