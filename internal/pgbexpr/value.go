// Package pgbexpr is pgbench's expression language (the right-hand side of
// \set): integer, double, boolean and NULL values, variables (:name),
// arithmetic, bitwise, comparison and boolean operators, CASE, and
// pgbench's functions (random, random_exponential, random_gaussian,
// random_zipfian, hash, hash_fnv1a, hash_murmur2, permute, abs, least,
// greatest, int, double, sqrt, exp, ln, pow, pi, mod, debug).
//
// Parse builds an expression tree once; Eval evaluates it with a variable
// lookup and a random source. The semantics follow pgbench (PostgreSQL 15):
// integer arithmetic fails on overflow and division by zero, an integer and
// a double give a double, comparisons give booleans. hash and permute give
// the same values as pgbench; the random functions have pgbench's
// distributions but draw from math/rand/v2 rather than pgbench's generator.
package pgbexpr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is a value's type.
type Kind uint8

// The value kinds of pgbench's expressions.
const (
	Null Kind = iota
	Int
	Double
	Bool
)

// Value is an expression value.
type Value struct {
	Kind Kind
	I    int64
	F    float64
	B    bool
}

// IntValue, DoubleValue and BoolValue build values.
func IntValue(i int64) Value      { return Value{Kind: Int, I: i} }
func DoubleValue(f float64) Value { return Value{Kind: Double, F: f} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, B: b} }

// String renders the value as pgbench writes it into SQL (getVariable):
// doubles with 15 significant digits (%.*g with DBL_DIG, infinities and
// NaN spelt as PostgreSQL's printf spells them), NULL as NULL.
func (v Value) String() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Double:
		return formatDouble(v.F)
	case Bool:
		if v.B {
			return "true"
		}
		return "false"
	}
	return "NULL"
}

// formatDouble is C's %.15g as PostgreSQL's snprintf does it.
func formatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

// Debug is the line pgbench's debug() prints for the value, after
// "debug(script=N,command=M): ".
func (v Value) Debug() string {
	switch v.Kind {
	case Int:
		return "int " + v.String()
	case Double:
		return "double " + v.String()
	case Bool:
		return "boolean " + v.String()
	}
	return "null"
}

// TypeName names the value's type as pgbench's messages do.
func (v Value) TypeName() string {
	switch v.Kind {
	case Int:
		return "int"
	case Double:
		return "double"
	case Bool:
		return "boolean"
	}
	return "null"
}

// Any returns the value as a Go value for a statement parameter.
func (v Value) Any() any {
	switch v.Kind {
	case Int:
		return v.I
	case Double:
		return v.F
	case Bool:
		return v.B
	}
	return nil
}

// AsInt converts to an integer as pgbench's coerceToInt does: a double is
// rounded to the nearest integer (half to even, as rint); a boolean or NULL
// is an error.
func (v Value) AsInt() (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		f := math.RoundToEven(v.F)
		if math.IsNaN(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, fmt.Errorf("double to int overflow for %f", f)
		}
		return int64(f), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.TypeName())
}

// AsDouble converts to a double as pgbench's coerceToDouble does: a boolean
// or NULL is an error.
func (v Value) AsDouble() (float64, error) {
	switch v.Kind {
	case Int:
		return float64(v.I), nil
	case Double:
		return v.F, nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.TypeName())
}

// AsBool converts to a boolean as pgbench's coerceToBool does: only a
// boolean is one (NOT, AND, OR refuse numbers).
func (v Value) AsBool() (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.TypeName())
}

// Truth is the value as a condition (\if, \elif, CASE WHEN), as pgbench's
// valueTruth: NULL, false, 0 and 0.0 are false.
func (v Value) Truth() bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	}
	return false
}

// FromAny converts a value scanned from the database or given as a Go
// value: integers, floats and booleans as they are, text as FromString
// reads it. ok is false for text that is not a value.
func FromAny(x any) (Value, bool) {
	switch v := x.(type) {
	case nil:
		return Value{}, true
	case int64:
		return IntValue(v), true
	case int32:
		return IntValue(int64(v)), true
	case int16:
		return IntValue(int64(v)), true
	case int:
		return IntValue(int64(v)), true
	case float64:
		return DoubleValue(v), true
	case float32:
		return DoubleValue(float64(v)), true
	case bool:
		return BoolValue(v), true
	case []byte:
		return FromString(string(v))
	case string:
		return FromString(v)
	}
	return FromString(fmt.Sprint(x))
}

// FromString parses text as pgbench reads a variable given as text (-D,
// \gset) in an expression (makeVariableValue): "null" in any case is NULL;
// a prefix of "true" or "yes", or "on", is true; a prefix of "false" or
// "no", or "off" or "of", is false; then an integer (one that overflows is
// an error), then a double. ok is false for text that is none of these.
func FromString(s string) (v Value, ok bool) {
	if s == "" {
		return Value{}, false
	}
	prefixOf := func(word string) bool { return len(s) <= len(word) && strings.EqualFold(s, word[:len(s)]) }
	switch {
	case strings.EqualFold(s, "null"):
		return Value{}, true
	case prefixOf("true") || prefixOf("yes") || strings.EqualFold(s, "on"):
		return BoolValue(true), true
	case prefixOf("false") || prefixOf("no") || strings.EqualFold(s, "off") || strings.EqualFold(s, "of"):
		return BoolValue(false), true
	case isInt(s):
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return IntValue(i), err == nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		// strtod reads "infinity", "inf" and "nan" in any case, as Go
		// does; an out-of-range value is an error there too.
		return Value{}, false
	}
	return DoubleValue(f), true
}

// isInt reports whether s looks like an integer as pgbench's is_an_int
// sees it: blanks, a sign, digits, blanks.
func isInt(s string) bool {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "+"), "-")
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
