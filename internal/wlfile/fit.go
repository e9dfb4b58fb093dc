package wlfile

import (
	"fmt"
	"math"
	"math/big"
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

// fits refuses a column generator that can make values the column's type
// cannot hold. rows is the table's row count, or -1 where it follows
// from a parent.
func (p *parser) fits(g *Gen, o *object, l typeLimits, what string, scale, rows int64) error {
	check := func(n *yaml.Node, field string, v any) error {
		if e := l.excess(v); e != "" {
			return p.errf(n, "%s: %s %s", what, field, e)
		}
		return nil
	}
	first := func(keys ...string) *yaml.Node {
		for _, k := range keys {
			if n, ok := o.fields[k]; ok {
				return n
			}
		}
		return o.fields["gen"]
	}
	tooLong := func(n *yaml.Node, subject string, length int64) error {
		if l.chars > 0 && length > l.chars {
			return p.errf(n, "%s: %s %d characters, but %s holds at most %d", what, subject, length, l.name, l.chars)
		}
		return nil
	}
	switch {
	case g.Kind == "choice":
		nodes := []*yaml.Node{o.fields["value"]}
		if vn, ok := o.fields["values"]; ok {
			nodes = vn.Content
		}
		for i, v := range g.choices {
			if err := check(nodes[i], "value", v); err != nil {
				return err
			}
		}
	case g.Kind == "sequence":
		if err := check(first("start"), "start", g.seqStart); err != nil || rows < 1 {
			return err
		}
		end := new(big.Int).Mul(big.NewInt(g.seqStep), big.NewInt(rows-1))
		end.Add(end, big.NewInt(g.seqStart))
		if !end.IsInt64() {
			return p.errf(first("step", "start"), "%s: the sequence reaches %s at row %d, which does not fit a 64-bit integer", what, end, rows-1)
		}
		return check(first("step", "start"), fmt.Sprintf("the sequence's last value (row %d)", rows-1), end.Int64())
	case g.dint != nil:
		return check(o.fields["distinct"], "distinct", g.dint.Max())
	case g.intd != nil:
		if err := check(first("min"), "min", g.intd.Min()); err != nil {
			return err
		}
		label := "max"
		if o.has("n") {
			label = "the largest value (min + n - 1)"
		}
		return check(first("max", "n"), label, g.intd.Max())
	case g.Kind == "geometric":
		if err := check(first("min"), "min", g.geomMin); err != nil || !l.isInt {
			return err
		}
		// Values above the type's maximum must be all but impossible:
		// P(X > hi) = (1-p)^(hi-min+1).
		if l.intHi < math.MaxInt64 && float64(l.intHi-g.geomMin+1)*math.Log1p(-g.geomP) > math.Log(1e-12) {
			return p.errf(first("mean"), "%s: a geometric mean this large draws values above %s's maximum %d; expected a smaller mean or a wider type", what, l.name, l.intHi)
		}
	case g.floatd != nil:
		for _, k := range []string{"min", "max"} {
			v, _, _ := p.number(o, k, what, scale)
			if err := check(o.fields[k], k, v); err != nil {
				return err
			}
		}
	case g.Kind == "string":
		return tooLong(o.fields["length"], "length may reach", g.strLen.Max())
	case g.Kind == "pattern":
		n := utf8.RuneCountInString(g.prefix) + utf8.RuneCountInString(g.suffix) +
			max(paddedLen(g.num.intd.Min(), g.width), paddedLen(g.num.intd.Max(), g.width))
		return tooLong(o.fields["gen"], "the pattern makes values up to", int64(n))
	case g.Kind == "uuid":
		return tooLong(o.fields["gen"], "UUIDs are", 36)
	}
	return nil
}

// paddedLen is the length of datagen.AppendPadded(nil, v, width).
func paddedLen(v int64, width int) int {
	s := strconv.FormatInt(v, 10)
	if v < 0 {
		return 1 + max(len(s)-1, width)
	}
	return max(len(s), width)
}
