package wlfile

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/dbharness/dbharness/internal/pgbexpr"
)

// posError is an error at a position of the workload file.
type posError struct {
	file         string
	line, column int
	msg          string
}

func (e *posError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.column, e.msg)
}

// parser walks the YAML tree and records the file name for errors.
type parser struct {
	file   string
	tables map[string]*Table
	// latests are the latest parameters, resolved once every transaction
	// has been read.
	latests []*latestState
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	line, col := 1, 1
	if n != nil {
		line, col = n.Line, n.Column
	}
	return &posError{file: p.file, line: line, column: col, msg: fmt.Sprintf(format, args...)}
}

// object is a YAML mapping whose keys have been checked against the allowed
// set.
type object struct {
	node   *yaml.Node
	fields map[string]*yaml.Node
	keys   map[string]*yaml.Node
}

// obj reads a mapping node; unknown keys are errors naming the allowed ones.
func (p *parser) obj(n *yaml.Node, what string, allowed ...string) (*object, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "%s must be a mapping (key: value lines), not %s", what, kindName(n))
	}
	o := &object{node: n, fields: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, p.errf(k, "%s: keys must be plain words", what)
		}
		if !ok[k.Value] {
			if strings.HasSuffix(k.Value, ")") && n.Style&yaml.FlowStyle != 0 {
				return nil, p.errf(k, "%s has no field %q; inside { } a value with a comma must be quoted, e.g. type: \"numeric(10,2)\"", what, k.Value)
			}
			s := append([]string(nil), allowed...)
			sort.Strings(s)
			return nil, p.errf(k, "%s has no field %q; expected one of: %s", what, k.Value, strings.Join(s, ", "))
		}
		o.fields[k.Value] = v
		o.keys[k.Value] = k
	}
	return o, nil
}

// duplicateKey refuses, in document order, the first key given twice in
// a mapping anywhere in the file: YAML would silently keep the last.
func (p *parser) duplicateKey(n *yaml.Node) error {
	var seen map[string]*yaml.Node
	if n.Kind == yaml.MappingNode {
		seen = map[string]*yaml.Node{}
	}
	for i, c := range n.Content {
		if seen != nil && i%2 == 0 && c.Kind == yaml.ScalarNode {
			if first, dup := seen[c.Value]; dup {
				return p.errf(c, "key %q is given twice in this mapping (first at line %d column %d); expected each key once", c.Value, first.Line, first.Column)
			}
			seen[c.Value] = c
		}
		if err := p.duplicateKey(c); err != nil {
			return err
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

func (o *object) has(k string) bool { _, ok := o.fields[k]; return ok }

func (p *parser) str(o *object, k, what string, required bool) (string, error) {
	n, ok := o.fields[k]
	if !ok {
		if required {
			return "", p.errf(o.node, "%s needs a %q field", what, k)
		}
		return "", nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.errf(n, "%s: %s must be a text value, not %s", what, k, kindName(n))
	}
	return n.Value, nil
}

func (p *parser) strList(o *object, k, what string) ([]string, *yaml.Node, error) {
	n, ok := o.fields[k]
	if !ok {
		return nil, nil, nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}, n, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, n, p.errf(n, "%s: %s must be a list, e.g. [a, b]", what, k)
	}
	var out []string
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return nil, n, p.errf(c, "%s: the items of %s must be plain values", what, k)
		}
		out = append(out, c.Value)
	}
	return out, n, nil
}

// number reads a numeric field: a number, or an expression of the scale
// such as "1000 * scale" (pgbench's expression language; scale may be
// written with or without the colon).
func (p *parser) number(o *object, k, what string, scale int64) (float64, bool, error) {
	n, ok := o.fields[k]
	if !ok {
		return 0, false, nil
	}
	v, err := p.numberNode(n, what+": "+k, scale)
	return v, true, err
}

func (p *parser) numberNode(n *yaml.Node, what string, scale int64) (float64, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return 0, p.errf(n, "%s must be a number or an expression of scale, not %s", what, kindName(n))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		if v, err = evalScale(n.Value, scale); err != nil {
			return 0, p.errf(n, "%s: %q is not a number or an expression of scale: %v", what, n.Value, err)
		}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p.errf(n, "%s: %s is not a finite number", what, shown(n))
	}
	return v, nil
}

// limit is a condition on a parameter and its expectation in words.
type limit struct {
	ok     func(float64) bool
	expect string
}

var (
	positive = limit{func(v float64) bool { return v > 0 }, "above 0"}
	fraction = limit{func(v float64) bool { return v >= 0 && v <= 1 }, "a fraction from 0 to 1"}
	share    = limit{func(v float64) bool { return v > 0 && v < 1 }, "a fraction strictly between 0 and 1"}
)

// bounded reads an optional numeric field that must be within l; a
// missing field gives def.
func (p *parser) bounded(o *object, k, what string, scale int64, def float64, l limit) (float64, error) {
	v, ok, err := p.number(o, k, what, scale)
	if err != nil || !ok {
		return def, err
	}
	if !l.ok(v) {
		return 0, p.errf(o.fields[k], "%s: %s must be %s, not %v", what, k, l.expect, v)
	}
	return v, nil
}

// weights reads relative weights into w: none negative, not all zero.
func (p *parser) weights(ns []*yaml.Node, w []float64, what string, scale int64) error {
	sum := 0.0
	for i, n := range ns {
		v, err := p.numberNode(n, what+": weight", scale)
		if err != nil {
			return err
		}
		if v < 0 {
			return p.errf(n, "%s: weight %v is negative; expected 0 or more", what, v)
		}
		w[i] = v
		sum += v
	}
	if sum == 0 && len(ns) > 0 {
		return p.errf(ns[0], "%s: every weight is 0; expected at least one above 0", what)
	}
	return nil
}

// shown is a scalar as written, quoted if it spans lines, so that an
// error stays one line.
func shown(n *yaml.Node) string {
	if strings.ContainsAny(n.Value, "\n\r") {
		return strconv.Quote(n.Value)
	}
	return n.Value
}

// intNode reads a whole number that fits int64: integer literals exactly,
// anything else through numberNode.
func (p *parser) intNode(n *yaml.Node, what string, scale int64) (int64, error) {
	if n.Kind == yaml.ScalarNode {
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64); err == nil {
			return v, nil
		}
	}
	f, err := p.numberNode(n, what, scale)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, p.errf(n, "%s must be a whole number, not %v", what, f)
	}
	return p.fitInt64(n, f, what)
}

// fitInt64 converts a whole number to int64, refusing one out of range
// (a plain conversion would overflow).
func (p *parser) fitInt64(n *yaml.Node, f float64, what string) (int64, error) {
	if f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, p.errf(n, "%s: %s does not fit a 64-bit integer; expected a whole number from %d to %d", what, shown(n), int64(math.MinInt64), int64(math.MaxInt64))
	}
	return int64(f), nil
}

// evalScale evaluates an expression in which scale is a variable.
func evalScale(src string, scale int64) (float64, error) {
	e, err := pgbexpr.Parse(scaleVar(src))
	if err != nil {
		return 0, err
	}
	for _, v := range e.Vars() {
		if v != "scale" {
			return 0, fmt.Errorf("unknown variable %q; only scale may be used", v)
		}
	}
	v, err := e.Eval(&constEnv{scale: scale})
	if err != nil {
		return 0, err
	}
	return v.AsDouble()
}

// scaleVar turns the word scale into the variable :scale.
func scaleVar(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "scale") && (i == 0 || !identByte(s[i-1]) && s[i-1] != ':') &&
			(i+5 == len(s) || !identByte(s[i+5])) {
			b.WriteString(":scale")
			i += 5
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// integer reads a field that holds a whole number (see intNode).
func (p *parser) integer(o *object, k, what string, scale int64) (int64, bool, error) {
	n, ok := o.fields[k]
	if !ok {
		return 0, false, nil
	}
	v, err := p.intNode(n, what+": "+k, scale)
	return v, true, err
}

func (p *parser) boolean(o *object, k, what string) (bool, error) {
	n, ok := o.fields[k]
	if !ok {
		return false, nil
	}
	var b bool
	if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
		return false, p.errf(n, "%s: %s must be true or false", what, k)
	}
	return b, nil
}

func (p *parser) duration(o *object, k, what string) (time.Duration, error) {
	n, ok := o.fields[k]
	if !ok {
		return 0, nil
	}
	if n.Kind == yaml.ScalarNode {
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Second)), nil
		}
		if d, err := time.ParseDuration(n.Value); err == nil && d >= 0 {
			return d, nil
		}
	}
	return 0, p.errf(n, "%s: %s must be a duration such as 10ms, 1.5s or a number of seconds", what, k)
}
