package wlfile

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// typeLimits is what a portable column type can hold, so that a generator
// that would make values the engine refuses is refused when the file is
// read, not by the engine in the middle of a load.
type typeLimits struct {
	name string // the type as written
	// chars bounds varchar(N) and char(N); 0 for no bound.
	chars int64
	// intLo, intHi bound integer types (int is 32-bit on PostgreSQL and
	// MySQL).
	isInt        bool
	intLo, intHi int64
	// precision and scale of numeric(P,S); precision 0 for other types.
	precision, scale int64
}

var typeSizeRE = regexp.MustCompile(`\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)`)

// limitsOf reads the limits of a type that typeClass accepted; a size
// that makes no sense (varchar(0), numeric(3,5)) is an error.
func limitsOf(typ string) (typeLimits, error) {
	l := typeLimits{name: strings.ToLower(strings.TrimSpace(typ))}
	switch l.name {
	case "smallint":
		l.isInt, l.intLo, l.intHi = true, math.MinInt16, math.MaxInt16
	case "int", "integer", "int4":
		l.isInt, l.intLo, l.intHi = true, math.MinInt32, math.MaxInt32
	case "bigint", "int8":
		l.isInt, l.intLo, l.intHi = true, math.MinInt64, math.MaxInt64
	}
	m := typeSizeRE.FindStringSubmatch(l.name)
	if m == nil {
		return l, nil
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n < 1 {
		return l, fmt.Errorf("%s: the size must be a whole number of at least 1", l.name)
	}
	if !strings.HasPrefix(l.name, "numeric") && !strings.HasPrefix(l.name, "decimal") {
		l.chars = n
		return l, nil
	}
	l.precision = n
	if m[2] != "" {
		if l.scale, err = strconv.ParseInt(m[2], 10, 64); err != nil || l.scale > n {
			return l, fmt.Errorf("%s: the scale (digits after the point) must not exceed the precision (all digits)", l.name)
		}
	}
	return l, nil
}

// excess says how value v breaks the limits, or "" if it fits.
func (l typeLimits) excess(v any) string {
	switch x := v.(type) {
	case int64:
		if l.isInt && (x < l.intLo || x > l.intHi) {
			return fmt.Sprintf("%d is outside %s's range %d to %d", x, l.name, l.intLo, l.intHi)
		}
	case float64:
		// Stored rounded to scale digits, below 10^(precision-scale).
		if l.precision > 0 && math.Round(math.Abs(x)*math.Pow10(int(l.scale))) >= math.Pow10(int(l.precision)) {
			largest := strconv.FormatFloat((math.Pow10(int(l.precision))-1)/math.Pow10(int(l.scale)), 'f', int(l.scale), 64)
			return fmt.Sprintf("%v does not fit %s, whose largest value is %s", x, l.name, largest)
		}
	case string:
		if n := int64(utf8.RuneCountInString(x)); l.chars > 0 && n > l.chars {
			return fmt.Sprintf("%q is %d characters long, but %s holds at most %d", x, n, l.name, l.chars)
		}
	}
	return ""
}

// extreme is the most a generator can make, set by the field at n: a
// value v (int64, float64 or string), or for text without v the longest
// length in characters.
type extreme struct {
	n     *yaml.Node
	label string
	v     any
	chars int64
}

// breaks says how e breaks the limits, or "" if it fits.
func (l typeLimits) breaks(e extreme) string {
	if e.v != nil {
		return l.excess(e.v)
	}
	if l.chars > 0 && e.chars > l.chars {
		return fmt.Sprintf("%d characters, but %s holds at most %d", e.chars, l.name, l.chars)
	}
	return ""
}

// fits refuses a column generator, read from o, that can make values the
// column's type cannot hold. rows is the table's row count, or -1 where
// it follows from a parent.
func (p *parser) fits(g *Gen, o *object, l typeLimits, what string, scale, rows int64) error {
	ex, err := p.extremes(g, o, what, scale, rows)
	for _, e := range ex {
		if b := l.breaks(e); b != "" {
			return p.errf(e.n, "%s: %s %s", what, e.label, b)
		}
	}
	return err
}

// referenceFits refuses a foreign key column whose type cannot hold the
// values of the parent column it references.
func (p *parser) referenceFits(fk *Column, rel *Parent, what string, scale int64) error {
	rows := rel.Table.Rows
	if rel.Table.Parent != nil {
		rows = -1
	}
	// An overflow of the parent's own values was refused with the parent.
	ex, _ := p.extremes(rel.ref.Gen, rel.ref.src, what, scale, rows)
	for _, e := range ex {
		if b := fk.lim.breaks(e); b != "" {
			return p.errf(fk.src.fields["type"], "%s: the values of %s.%s do not fit: %s %s", what, rel.Table.Name, rel.ref.Name, e.label, b)
		}
	}
	return nil
}

// extremes lists the values at the edges of what g makes (and the
// longest text), each with the field that sets it.
func (p *parser) extremes(g *Gen, o *object, what string, scale, rows int64) ([]extreme, error) {
	if g.kind == nil || g.kind.extremes == nil {
		return nil, nil
	}
	return g.kind.extremes(p, g, o, what, scale, rows)
}

// paddedLen is the length of datagen.AppendPadded(nil, v, width).
func paddedLen(v int64, width int) int {
	s := strconv.FormatInt(v, 10)
	if v < 0 {
		return 1 + max(len(s)-1, width)
	}
	return max(len(s), width)
}
