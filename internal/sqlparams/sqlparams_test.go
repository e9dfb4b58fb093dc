package sqlparams

import (
	"reflect"
	"testing"
)

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		names         []string
	}{
		{"parameters are numbered in order, once per occurrence", "SELECT a FROM t WHERE b = :x AND c = :y OR d = :x", "SELECT a FROM t WHERE b = $1 AND c = $2 OR d = $3", []string{"x", "y", "x"}},
		{"casts are left alone", "SELECT :v::int", "SELECT $1::int", []string{"v"}},
		{"quoted text is left alone", `SELECT ':no', ":no", x FROM t WHERE y = :yes`, `SELECT ':no', ":no", x FROM t WHERE y = $1`, []string{"yes"}},
		{"comments are left alone", "SELECT 1 -- :no\nWHERE a = :aid", "SELECT 1 -- :no\nWHERE a = $1", []string{"aid"}},
		{"a colon after an identifier is not a parameter", "SELECT a:b, :c2_d", "SELECT a:b, $1", []string{"c2_d"}},
		{"a lone colon at the end stays", "SELECT :", "SELECT :", nil},
		{"dollar-quoted text is left alone", "SELECT $$:no$$, $f$ :no $f$, a$b, $1, :yes", "SELECT $$:no$$, $f$ :no $f$, a$b, $1, $1", []string{"yes"}},
		{"an unterminated dollar quote holds no parameter", "SELECT $q$ :no", "SELECT $q$ :no", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, names := Number(tc.in)
			if out != tc.out || !reflect.DeepEqual(names, tc.names) {
				t.Fatalf("Number(%q) = %q %v, want %q %v", tc.in, out, names, tc.out, tc.names)
			}
		})
	}
}

func TestFindGivesWhereEachParameterStands(t *testing.T) {
	got := Find("SELECT :a, ':b' -- :c\n  , x::int, :dd2 FROM t WHERE y=:a")
	want := []Ref{{"a", 7}, {"dd2", 34}, {"a", 54}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %v, want %v", got, want)
	}
}
