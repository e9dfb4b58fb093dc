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

// ArgStacker is an Env that lends the evaluation a stack for function
// arguments, which it keeps between evaluations, so that a function call
// allocates nothing.
type ArgStacker interface {
	ArgStack() *[]Value
}

// Slotter is an Env that keeps its variables by number, as Bind numbered
// them: a bound variable is read by VarSlot, without looking its name up.
type Slotter interface {
	VarSlot(slot int) (v Value, ok bool, err error)
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

type litNode struct {
	v   Value
	pos int
}

type varNode struct {
	name string
	pos  int
	// slot is the variable's number (Bind), or -1.
	slot int
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
	pos         int
}

var errDivZero = errors.New("division by zero")

// Debugger is an Env that shows the values debug() is given; pgbench prints
// them on stderr.
type Debugger interface {
	Debug(v Value)
}

func eval(n node, env Env) (Value, error) {
	switch x := n.(type) {
	case *litNode:
		return x.v, nil
	case *varNode:
		var v Value
		var ok bool
		var err error
		if st, is := env.(Slotter); is && x.slot >= 0 {
			v, ok, err = st.VarSlot(x.slot)
		} else {
			v, ok, err = env.Var(x.name)
		}
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
		if st, ok := env.(ArgStacker); ok {
			return evalCallOn(x, env, st.ArgStack())
		}
		var buf [4]Value
		args := buf[:0]
		hasNull := false
		for _, a := range x.args {
			v, err := eval(a, env)
			if err != nil {
				return Value{}, err
			}
			hasNull = hasNull || v.Kind == Null
			args = append(args, v)
		}
		return call(x, env, args, hasNull)
	case *caseNode:
		for i, c := range x.conds {
			cv, err := eval(c, env)
			if err != nil {
				return Value{}, err
			}
			if cv.Truth() {
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

// evalCallOn evaluates a call with its arguments on the env's stack: each
// argument is evaluated (nested calls use the stack above it and give it
// back) and then pushed; the call's own arguments are popped afterwards.
func evalCallOn(x *callNode, env Env, stack *[]Value) (Value, error) {
	start := len(*stack)
	hasNull := false
	for _, a := range x.args {
		v, err := eval(a, env)
		if err != nil {
			*stack = (*stack)[:start]
			return Value{}, err
		}
		hasNull = hasNull || v.Kind == Null
		*stack = append(*stack, v)
	}
	v, err := call(x, env, (*stack)[start:], hasNull)
	*stack = (*stack)[:start]
	return v, err
}

// call applies the function to its evaluated arguments, which it does not
// keep.
func call(x *callNode, env Env, args []Value, hasNull bool) (Value, error) {
	if x.name == "debug" {
		if d, ok := env.(Debugger); ok {
			d.Debug(args[0])
		}
		return args[0], nil
	}
	// As in pgbench, a NULL argument makes every function NULL.
	if hasNull {
		return Value{}, nil
	}
	v, err := x.fn.call(args, env)
	if err != nil {
		return Value{}, fmt.Errorf("%s(): %w", x.name, err)
	}
	return v, nil
}

// evalUnary follows pgbench, which parses -x as 0 - x, ~x as x # -1 and
// x IS NOT y as NOT (x IS y): NULL gives NULL but for IS.
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
		// pgbench's IS compares the type and the value: only a boolean is
		// TRUE or FALSE.
		return BoolValue(v.Kind == Bool && v.B == (x.op == "istrue")), nil
	}
	if v.Kind == Null {
		return Value{}, nil
	}
	switch x.op {
	case "not":
		b, err := v.AsBool()
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil
	case "-":
		if v.Kind == Double {
			return DoubleValue(0 - v.F), nil
		}
		i, err := v.AsInt()
		if err != nil {
			return Value{}, err
		}
		return intOp("-", 0, i)
	case "~":
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
	// AND and OR are lazy, as in pgbench: a NULL left operand gives NULL,
	// a boolean one may decide alone; operands must be booleans.
	if x.op == "and" || x.op == "or" {
		if l.Kind == Null {
			return Value{}, nil
		}
		lb, err := l.AsBool()
		if err != nil {
			return Value{}, err
		}
		if x.op == "and" && !lb || x.op == "or" && lb {
			return BoolValue(lb), nil
		}
		r, err := eval(x.r, env)
		if err != nil || r.Kind == Null {
			return Value{}, err
		}
		rb, err := r.AsBool()
		if err != nil {
			return Value{}, err
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
	case "+", "-", "*", "/", "<", ">", "=", "<=", ">=", "<>", "!=":
		if l.Kind == Double || r.Kind == Double {
			a, err := l.AsDouble()
			if err != nil {
				return Value{}, err
			}
			b, err := r.AsDouble()
			if err != nil {
				return Value{}, err
			}
			return doubleOp(x.op, a, b), nil
		}
	}
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
	return intOp(x.op, a, b)
}

// doubleOp is arithmetic and comparison on doubles: as in pgbench (and
// IEEE 754), dividing by zero gives an infinity or NaN.
func doubleOp(op string, a, b float64) Value {
	switch op {
	case "+":
		return DoubleValue(a + b)
	case "-":
		return DoubleValue(a - b)
	case "*":
		return DoubleValue(a * b)
	case "/":
		return DoubleValue(a / b)
	case "<":
		return BoolValue(a < b)
	case ">":
		return BoolValue(a > b)
	case "=":
		return BoolValue(a == b)
	case "<=":
		return BoolValue(a <= b)
	case ">=":
		return BoolValue(a >= b)
	}
	return BoolValue(a != b)
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
			case Bool:
				// pgbench reads a boolean's bits as a double here.
				return Value{}, errors.New("cannot coerce boolean to double")
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
		// debug is evaluated by eval, which shows its value.
		"debug": {1, 1, nil},
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
			if err != nil {
				return Value{}, err
			}
			return DoubleValue(math.Pow(x, y)), nil
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
		"least":    {1, MaxArgs, minMax(true)},
		"greatest": {1, MaxArgs, minMax(false)},
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
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(f(x)), nil
	}
}

// MaxArgs is the most arguments pgbench evaluates for a function
// (MAX_FARGS): least() and greatest() with more fail in pgbench, and are
// refused when the script is read here.
const MaxArgs = 16

// minMax is least() or greatest(): doubles if any argument is one, else
// integers (NULL arguments give NULL before this is called).
func minMax(least bool) func([]Value, Env) (Value, error) {
	return func(a []Value, _ Env) (Value, error) {
		anyDouble := false
		for _, v := range a {
			if v.Kind == Double {
				anyDouble = true
			}
		}
		var best Value
		for i, v := range a {
			if anyDouble {
				f, err := v.AsDouble()
				if err != nil {
					return Value{}, err
				}
				// C's Min and Max, NaN included.
				if i == 0 || least && !(best.F < f) || !least && !(best.F > f) {
					best = DoubleValue(f)
				}
				continue
			}
			n, err := v.AsInt()
			if err != nil {
				return Value{}, err
			}
			if i == 0 || least && n < best.I || !least && n > best.I {
				best = IntValue(n)
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
