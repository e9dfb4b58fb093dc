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
		{"int(3.9)", "3"},
		{"int(-3.9)", "-3"},
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
		})
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
	if v, _ := (&Expr{root: &litNode{IntValue(math.MaxInt64)}}).Eval(newEnv()); v.I != math.MaxInt64 {
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
