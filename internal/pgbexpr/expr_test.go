package pgbexpr

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/datagen"
)

type testEnv struct {
	vars  map[string]Value
	r     *rand.Rand
	cache map[DistKey]datagen.IntDist
}

func newEnv() *testEnv {
	return &testEnv{vars: map[string]Value{"scale": IntValue(10), "default_seed": IntValue(5432), "x": DoubleValue(2.5)},
		r: rand.New(rand.NewPCG(1, 2)), cache: map[DistKey]datagen.IntDist{}}
}

func (e *testEnv) Var(n string) (Value, bool, error)  { v, ok := e.vars[n]; return v, ok, nil }
func (e *testEnv) Rand() *rand.Rand                   { return e.r }
func (e *testEnv) Cache() map[DistKey]datagen.IntDist { return e.cache }

func TestEvaluatesLikePgbench(t *testing.T) {
	cases := []struct{ src, want string }{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"-7 % 3", "-1"},
		{"7.0 / 2", "3.5"},
		{"100000 * :scale", "1000000"},
		{":x * 2", "5"},
		{"1 << 4 | 1", "17"},
		{"5 # 3", "6"},
		{"~0", "-1"},
		{"2 < 3 and 3 < 2", "false"},
		{"not (1 = 1) or true", "true"},
		{"abs(-5)", "5"},
		{"least(5, 2, 9)", "2"},
		{"greatest(5, 2.5, 9)", "9"},
		// pgbench rounds as rint does, half to even.
		{"int(3.9)", "4"},
		{"int(-3.9)", "-4"},
		{"int(2.5)", "2"},
		{"int(-2.5)", "-2"},
		{"5.5 % 2", "0"},
		{"~2.5", "-3"},
		{"double(3)", "3"},
		{"sqrt(16)", "4"},
		{"pow(2, 10)", "1024"},
		{"mod(10, 3)", "1"},
		{"case when :scale > 5 then 1 else 2 end", "1"},
		{"case when :scale > 50 then 1 end IS NULL", "true"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"hash(10)", itoa(datagen.HashMurmur2(10, 5432))},
		{"hash_fnv1a(10, 7)", itoa(datagen.HashFNV1a(10, 7))},
		{"hash_murmur2(10, 7)", itoa(datagen.HashMurmur2(10, 7))},
		{"permute(3, 100)", itoa(datagen.PermuteInt(3, 100, 5432))},
		{"permute(3, 100, 1)", itoa(datagen.PermuteInt(3, 100, 1))},
		{"pi() > 3.14 AND pi() < 3.15", "true"},
		{"NULL IS NULL", "true"},
		{"5 IS NOT NULL", "true"},
		{"1 = 1 IS TRUE", "true"},
		// Values as pgbench 15 writes them into SQL (pgbench -d shows
		// "sending SELECT 0.3, 1e+21, ...").
		{"0.1 + 0.2", "0.3"},
		{"1e20 * 10.0", "1e+21"},
		{"123456789012345.678", "123456789012346"},
		{"1e15 * 1.0", "1e+15"},
		{"0.00001", "1e-05"},
		{"100.0", "100"},
		{"NULL", "NULL"},
		// Values pgbench 15 printed with debug() for the same expressions.
		{"least(-5.18, .0E0, 1.0/0)", "-5.18"},
		{"1.0 / 0", "Infinity"},
		{"-(1.0 / 0)", "-Infinity"},
		{"1e300 * 1e300", "Infinity"},
		{"exp(NULL)", "NULL"},
		{"least(1, NULL)", "NULL"},
		{"NULL AND FALSE", "NULL"},
		{"FALSE AND NULL", "false"},
		{"TRUE OR NULL", "true"},
		{"NOT NULL", "NULL"},
		{"-NULL", "NULL"},
		{"1 IS TRUE", "false"},
		{"TRUE IS TRUE", "true"},
		{"NULL IS NULL", "true"},
		{"CASE WHEN 1 THEN 2 END", "2"},
		{"CASE WHEN 0.0 THEN 2 ELSE 3 END", "3"},
		{"2 > 1.5", "true"},
		{"9223372036854775807", "9223372036854775807"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			e, err := Parse(c.src)
			if err != nil {
				t.Fatal(err)
			}
			v, err := e.Eval(newEnv())
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != c.want {
				t.Fatalf("%s = %s, want %s", c.src, v, c.want)
			}
			// The same on an env that lends its argument stack, which
			// the evaluation leaves empty.
			st := &stackEnv{testEnv: newEnv()}
			if v, err = e.Eval(st); err != nil {
				t.Fatal(err)
			}
			if v.String() != c.want || len(st.stack) != 0 {
				t.Fatalf("%s = %s with an argument stack (%d left on it), want %s", c.src, v, len(st.stack), c.want)
			}
		})
	}
}

// stackEnv is a testEnv that lends its argument stack.
type stackEnv struct {
	*testEnv
	stack []Value
}

func (e *stackEnv) ArgStack() *[]Value { return &e.stack }

func TestArgStackNestsCalls(t *testing.T) {
	env := &stackEnv{testEnv: newEnv()}
	for src, want := range map[string]string{
		"least(greatest(1, mod(17, 5), 3), abs(-7), pow(2, least(3, 9)))": "3",
		"mod(greatest(least(40, 50), 30), least(abs(-7), 100))":           "5",
		"abs(mod(1, 0))": "",
	} {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Eval(env)
		if want == "" {
			if err == nil {
				t.Errorf("%s succeeded, want an error", src)
			}
		} else if err != nil || v.String() != want {
			t.Errorf("%s = %s, %v; want %s", src, v, err, want)
		}
		if len(env.stack) != 0 {
			t.Errorf("%s left %d values on the stack", src, len(env.stack))
		}
	}
}

func itoa(i int64) string { return IntValue(i).String() }

func TestRejectsWhatPgbenchRejects(t *testing.T) {
	cases := []struct{ src, want string }{
		{"1 +", "unexpected end"},
		{"foo(1)", "unknown function"},
		{"random(1)", "takes 2 arguments"},
		{"(1 + 2", "expected ')'"},
		{"1 < 2 < 3", "do not associate"},
		{"scale * 2", "variables are written :scale"},
		{"1 $ 2", "unexpected character"},
		{strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), "nested too deeply"},
	}
	for _, c := range cases {
		_, err := Parse(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.src, err, c.want)
		}
	}
	for _, src := range []string{"1 / 0", "9223372036854775807 + 1", ":nope", "random(5, 1)", "random_zipfian(1, 10, 0.5)", "random_gaussian(1, 10, 1)", "permute(1, 0)"} {
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		if _, err := e.Eval(newEnv()); err == nil {
			t.Errorf("Eval(%q) succeeded; pgbench fails it", src)
		}
	}
}

// Coercions pgbench refuses when it runs; Check finds them when the
// operands are constants, at the operator's column.
func TestRefusesPgbenchsCoercionErrors(t *testing.T) {
	for _, c := range []struct {
		src, want string
		col       int
	}{
		{"NOT 0.0", "cannot coerce double to boolean", 1},
		{"TRUE + 2", "cannot coerce boolean to int", 6},
		{"ln(TRUE)", "cannot coerce boolean to double", 1},
		{"random(FALSE, TRUE)", "cannot coerce boolean to int", 1},
		{"1 AND TRUE", "cannot coerce int to boolean", 3},
		{"1 = TRUE", "cannot coerce boolean to int", 3},
		{"-TRUE", "cannot coerce boolean to int", 1},
		{"abs(TRUE)", "cannot coerce boolean to double", 1},
		{"1 + 1 / 0", "division by zero", 7},
		{"random(10, 1)", "empty range", 1},
		{"3 * random_gaussian(1, 10, 1)", "gaussian parameter", 5},
	} {
		e, err := Parse(c.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.src, err)
		}
		if _, err := e.Eval(newEnv()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Eval(%q) = %v, want %q", c.src, err, c.want)
		}
		err = e.Check()
		se, ok := err.(*SyntaxError)
		if !ok || !strings.Contains(se.Msg, c.want) || se.Pos+1 != c.col {
			t.Errorf("Check(%q) = %v, want %q at column %d", c.src, err, c.want, c.col)
		}
	}
	// What only some values or paths fail is left to the run.
	for _, src := range []string{":x + TRUE", "CASE WHEN :x > 1 THEN 1 / 0 ELSE 1 END", "FALSE AND 1", ":x = 1 AND 1",
		"random(1, 2) / (random(1, 2) - 1)", "hash(TRUE + :x)", "NULL + TRUE", "debug(1)"} {
		e, err := Parse(src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		if err := e.Check(); err != nil {
			t.Errorf("Check(%q) = %v; pgbench may run it", src, err)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"100000000000000000000", "bigint constant overflow"},
		{"9223372036854775808", "bigint constant overflow"},
		{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "at most 16 arguments"},
	} {
		if _, err := Parse(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.src, err, c.want)
		}
	}
}

// Text given with -D or fetched with \gset reads as pgbench's
// makeVariableValue reads it.
func TestFromStringReadsTextAsPgbench(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"t", "true", true}, {"ye", "true", true}, {"On", "true", true}, {"TRUE", "true", true},
		{"f", "false", true}, {"of", "false", true}, {"no", "false", true}, {"OFF", "false", true},
		{"null", "NULL", true}, {"NULL", "NULL", true}, {"1e3", "1000", true}, {"-12", "-12", true},
		{"o", "", false}, {"", "", false}, {"a;b", "", false}, {"truex", "", false},
		{"99999999999999999999", "", false},
	} {
		v, ok := FromString(c.in)
		if ok != c.ok || ok && v.String() != c.want {
			t.Errorf("FromString(%q) = %v, %v; want %s, %v", c.in, v, ok, c.want, c.ok)
		}
	}
}

func TestRandomFunctionsStayInRangeAndHaveTheirShape(t *testing.T) {
	env := newEnv()
	check := func(src string, lo, hi int64) []int64 {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int64, hi-lo+1)
		for i := 0; i < 20000; i++ {
			v, err := e.Eval(env)
			if err != nil {
				t.Fatal(err)
			}
			if v.I < lo || v.I > hi {
				t.Fatalf("%s gave %d", src, v.I)
			}
			counts[v.I-lo]++
		}
		return counts
	}
	u := check("random(1, 10)", 1, 10)
	for i, c := range u {
		if c < 1700 || c > 2300 {
			t.Errorf("random(1,10): value %d drawn %d times of 20000", i+1, c)
		}
	}
	z := check("random_zipfian(1, 10, 1.5)", 1, 10)
	if !(z[0] > z[1] && z[1] > z[2] && z[0] > 5*z[9]) {
		t.Errorf("random_zipfian counts not decreasing: %v", z)
	}
	x := check("random_exponential(1, 10, 3)", 1, 10)
	if !(x[0] > x[4] && x[4] > x[9]) {
		t.Errorf("random_exponential counts not decreasing: %v", x)
	}
	g := check("random_gaussian(1, 9, 3)", 1, 9)
	if !(g[4] > g[0] && g[4] > g[8]) {
		t.Errorf("random_gaussian not centred: %v", g)
	}
}

func TestIntegerOverflowIsAnError(t *testing.T) {
	for _, src := range []string{"9223372036854775807 * 2", "-9223372036854775808 / -1", "-(-9223372036854775808)", "abs(-9223372036854775808)"} {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := e.Eval(newEnv()); err == nil {
			t.Errorf("%s = %v, want overflow", src, v)
		}
	}
	if v, _ := (&Expr{root: &litNode{v: IntValue(math.MaxInt64)}}).Eval(newEnv()); v.I != math.MaxInt64 {
		t.Fatal("literal")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1 + 2 * :scale", "random_zipfian(1, 100000 * :scale, 1.07)", "case when :a > 1 then 2 else 3 end",
		"hash(:aid) % 10", "permute(:x, 100, 7)", "greatest(1.5, -2, 3) << 2", "NOT :a IS NULL", "-9223372036854775808", "1e10 / 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("Parse(%q) returned %T, want *SyntaxError", src, err)
			}
			return
		}
		_, _ = e.Eval(newEnv()) // must not panic
		_ = e.Vars()
	})
}

func TestRefsGiveEveryVariableWithItsColumn(t *testing.T) {
	e, err := Parse("CASE WHEN :b > 1 THEN random(:lo, :hi) ELSE -:b END")
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{"b", 10}, {"lo", 29}, {"hi", 34}, {"b", 45}}
	if got := e.Refs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Refs = %v, want %v", got, want)
	}
	if got := e.Vars(); !reflect.DeepEqual(got, []string{"b", "lo", "hi"}) {
		t.Fatalf("Vars = %v", got)
	}
}

func TestRandomCallFindsAPlainDraw(t *testing.T) {
	for _, c := range []struct {
		src   string
		fn    string // "" when it is not a plain random call
		draws bool
		args  string // the arguments evaluated, with :scale = 10
	}{
		{"random(1, 100000 * :scale)", "random", true, "1 1000000"},
		{"Random_Zipfian(1, 10, 1.5)", "random_zipfian", true, "1 10 1.5"},
		{"random_gaussian(:scale, 2 * :scale, 2.5)", "random_gaussian", true, "10 20 2.5"},
		{"random_exponential(0, 9, 3)", "random_exponential", true, "0 9 3"},
		{"random(1, 10) + 1", "", true, ""},
		{"random(1, random(2, 3))", "", true, ""},
		{"hash(random(1, 10))", "", true, ""},
		{"5 * :scale", "", false, ""},
		{"hash(:scale)", "", false, ""},
	} {
		e, err := Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		if e.Draws() != c.draws {
			t.Errorf("%s: Draws() = %v", c.src, e.Draws())
		}
		fn, args, ok := e.RandomCall()
		if ok != (c.fn != "") || fn != c.fn {
			t.Errorf("%s: RandomCall() = %q, %v", c.src, fn, ok)
			continue
		}
		var vals []string
		for _, a := range args {
			v, err := a.Eval(newEnv())
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, v.String())
		}
		if got := strings.Join(vals, " "); got != c.args {
			t.Errorf("%s: arguments %q, want %q", c.src, got, c.args)
		}
	}
}

// slotEnv keeps variables by number too; by name they read otherwise, so
// that a test sees which way a variable was read.
type slotEnv struct {
	*testEnv
	slots []Value
}

func (e *slotEnv) VarSlot(i int) (Value, bool, error) { return e.slots[i], true, nil }

func TestBoundVariablesAreReadByNumber(t *testing.T) {
	e, err := Parse(":scale * 100 + :x")
	if err != nil {
		t.Fatal(err)
	}
	env := &slotEnv{testEnv: newEnv(), slots: []Value{IntValue(7)}}
	// Unbound, every variable is read by name: 10 * 100 + 2.5.
	if v, err := e.Eval(env); err != nil || v.String() != "1002.5" {
		t.Fatalf("unbound: %v, %v; want 1002.5", v, err)
	}
	// :scale bound to slot 0 (7), :x left to its name (2.5).
	e.Bind(func(name string) int {
		if name == "scale" {
			return 0
		}
		return -1
	})
	if v, err := e.Eval(env); err != nil || v.String() != "702.5" {
		t.Fatalf("bound: %v, %v; want 702.5", v, err)
	}
	// An Env that keeps no slots reads a bound variable by its name.
	if v, err := e.Eval(newEnv()); err != nil || v.String() != "1002.5" {
		t.Fatalf("bound, read by an Env without slots: %v, %v; want 1002.5", v, err)
	}
}
