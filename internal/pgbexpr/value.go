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
// doubles with 15 significant digits (%.*g with DBL_DIG), NULL as NULL.
func (v Value) String() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Double:
		return strconv.FormatFloat(v.F, 'g', 15, 64)
	case Bool:
		if v.B {
			return "true"
		}
		return "false"
	}
	return "NULL"
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

// AsInt converts to an integer as pgbench's coerceToInt does.
func (v Value) AsInt() (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		f := math.Trunc(v.F)
		if math.IsNaN(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, fmt.Errorf("double to int overflow for %v", v.F)
		}
		return int64(f), nil
	case Bool:
		if v.B {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("cannot coerce NULL to int")
}

// AsDouble converts to a double.
func (v Value) AsDouble() (float64, error) {
	switch v.Kind {
	case Int:
		return float64(v.I), nil
	case Double:
		return v.F, nil
	case Bool:
		if v.B {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("cannot coerce NULL to double")
}

// AsBool converts to a boolean as pgbench's coerceToBool does.
func (v Value) AsBool() (bool, error) {
	switch v.Kind {
	case Bool:
		return v.B, nil
	case Int:
		return v.I != 0, nil
	case Double:
		return v.F != 0, nil
	}
	return false, fmt.Errorf("cannot coerce NULL to boolean")
}

// FromAny converts a value scanned from the database (\gset) or given on
// the command line: integers, floats, booleans, and text that parses as a
// number stay numbers.
func FromAny(x any) Value {
	switch v := x.(type) {
	case nil:
		return Value{}
	case int64:
		return IntValue(v)
	case int32:
		return IntValue(int64(v))
	case int16:
		return IntValue(int64(v))
	case int:
		return IntValue(int64(v))
	case uint64:
		return IntValue(int64(v))
	case float64:
		return DoubleValue(v)
	case float32:
		return DoubleValue(float64(v))
	case bool:
		return BoolValue(v)
	case []byte:
		return FromString(string(v))
	case string:
		return FromString(v)
	}
	return FromString(fmt.Sprint(x))
}

// FromString parses text as pgbench parses a variable's value: an integer,
// else a double, else it stays text (returned as ok=false).
func FromString(s string) Value {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return IntValue(i)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return DoubleValue(f)
	}
	switch s {
	case "true", "t":
		return BoolValue(true)
	case "false", "f":
		return BoolValue(false)
	}
	return Value{}
}
