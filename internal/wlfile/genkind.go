package wlfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gopkg.in/yaml.v3"

	"github.com/dbharness/dbharness/internal/datagen"
)

// genKind is one generator kind of a workload file: the fields it takes,
// how it is read, how it draws and what it can make at most. A new kind
// is one entry in genKindTable.
type genKind struct {
	name string
	// alias marks another name for a kind listed under its own name
	// ("fixed" for "constant"); aliases are left out of messages.
	alias bool
	// fields are the keys the kind takes besides gen, null, distinct and
	// shape, in the order messages list them.
	fields []string
	// parse reads the kind's fields into a.g. It may change a.g.Kind to
	// the kind that draws the values (a constant is a choice of one).
	parse func(a *genArgs) error
	// numeric marks the kinds that make numbers; with distinct: N on an
	// integer column they shape the N values.
	numeric bool
	// shape builds the kind's integer distribution over [lo, hi]; nil if
	// the kind cannot be a shape.
	shape func(s shapeArgs, lo, hi int64) (datagen.IntDist, error)
	// float builds the kind's float distribution over [lo, hi]; nil if the
	// kind makes only integers.
	float func(s shapeArgs, lo, hi float64) (datagen.FloatDist, error)
	// note adds the kind's parameters to an integer range's description.
	note func(s shapeArgs) string
	// draw makes one value (row is the row number at load time, or -1 at
	// run time); nil for kinds that draw from their distribution.
	draw func(g *Gen, c *genCtx, r *rand.Rand, row int64) any
	// nest makes the kind, nested under a string's length or a pattern's
	// number, an integer distribution; nil if it already is one.
	nest func(g *Gen) datagen.IntDist
	// unnested refuses the kind as a nested generator.
	unnested bool
	// runOnly marks a kind that draws only while transactions run, from
	// their state: a column cannot take it.
	runOnly bool
	// extremes lists what the kind makes at most, for fits; nil if no
	// column type can be too small for it.
	extremes func(p *parser, g *Gen, o *object, what string, scale, rows int64) ([]extreme, error)
	// param is the class of a parameter that gives gen but no type; nil
	// for integers.
	param func(o *object) class
}

// genKindTable lists the generator kinds, in the order messages list them.
var genKindTable []*genKind

// genKindByName finds a kind of genKindTable by its name.
var genKindByName = map[string]*genKind{}

func init() {
	genKindTable = []*genKind{
		{name: "sequence", fields: []string{"start", "step", "after"}, parse: parseSequence, draw: drawSequence, unnested: true, extremes: sequenceExtremes},
		{name: "constant", fields: []string{"value"}, parse: parseConstant},
		{name: "fixed", alias: true, fields: []string{"value"}, parse: parseConstant},
		{name: "uniform", fields: []string{"min", "max"}, parse: parseNumber, numeric: true, extremes: numberExtremes,
			shape: func(s shapeArgs, lo, hi int64) (datagen.IntDist, error) { return s.made(datagen.NewUniform(lo, hi)) },
			float: func(s shapeArgs, lo, hi float64) (datagen.FloatDist, error) {
				return s.madeFloat(datagen.NewUniformFloat(lo, hi))
			}},
		{name: "zipf", fields: []string{"min", "max", "n", "exponent"}, parse: parseZipf, numeric: true, extremes: numberExtremes,
			shape: zipfShape, note: zipfNote},
		{name: "gaussian", fields: []string{"min", "max", "mean", "stddev"}, parse: parseNumber, numeric: true, extremes: numberExtremes,
			shape: gaussianShape, float: gaussianFloat},
		{name: "exponential", fields: []string{"min", "max", "param"}, parse: parseNumber, numeric: true, extremes: numberExtremes,
			shape: exponentialShape},
		{name: "hotspot", fields: []string{"min", "max", "hot_fraction", "hot_share"}, parse: parseNumber, numeric: true, extremes: numberExtremes,
			shape: hotspotShape, note: hotspotNote},
		{name: "geometric", fields: []string{"min", "mean"}, parse: parseGeometric, numeric: true, draw: drawGeometric,
			nest: func(g *Gen) datagen.IntDist { return &geomDist{p: g.geomP, lo: g.geomMin} }, extremes: geometricExtremes},
		{name: "choice", fields: []string{"values", "weights"}, parse: parseChoice, draw: drawChoice, nest: nestChoice,
			extremes: choiceExtremes, param: choiceParam},
		{name: "string", fields: []string{"length"}, parse: parseString, draw: drawString, extremes: stringExtremes,
			param: func(*object) class { return cString }},
		{name: "pattern", fields: []string{"prefix", "suffix", "width", "number"}, parse: parsePattern, draw: drawPattern,
			extremes: patternExtremes, param: func(*object) class { return cString }},
		{name: "timestamp", fields: []string{"from", "to", "resolution"}, parse: parseTimestamp, draw: drawTimestamp,
			param: func(*object) class { return cTime }},
		{name: "uuid", fields: []string{"version"}, parse: parseUUID, draw: drawUUID, extremes: uuidExtremes,
			param: func(*object) class { return cUUID }},
		{name: "latest", fields: []string{"sequence", "min", "exponent"}, parse: parseLatest, draw: drawLatest, unnested: true, runOnly: true},
	}
	for _, k := range genKindTable {
		genKindByName[k.name] = k
	}
}

// genKindNames lists the kinds that satisfy has, for messages: "a, b, c"
// or, with last "or", "a, b or c".
func genKindNames(has func(*genKind) bool, last string) string {
	var names []string
	for _, k := range genKindTable {
		if !k.alias && has(k) {
			names = append(names, k.name)
		}
	}
	if last == "" || len(names) < 2 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + last + " " + names[len(names)-1]
}

// genArgs is what a kind's parse reads from: the mapping o of generator
// g, for values of class cl.
type genArgs struct {
	p     *parser
	g     *Gen
	k     *genKind
	o     *object
	what  string
	cl    class
	scale int64
	gn    *yaml.Node // the gen field
}

// num reads the number at k, or def if there is none.
func (a *genArgs) num(k string, def float64) (float64, error) {
	v, ok, err := a.p.number(a.o, k, a.what, a.scale)
	if !ok {
		return def, err
	}
	return v, err
}

// integer reads the integer at k, or def if there is none.
func (a *genArgs) integer(k string, def int64) (int64, error) {
	v, ok, err := a.p.integer(a.o, k, a.what, a.scale)
	if !ok {
		return def, err
	}
	return v, err
}

// need refuses a mapping without one of keys.
func (a *genArgs) need(keys ...string) error {
	for _, k := range keys {
		if !a.o.has(k) {
			return a.p.errf(a.gn, "%s: gen %s needs %q", a.what, a.g.Kind, k)
		}
	}
	return nil
}

// only refuses fields that the kind does not take.
func (a *genArgs) only() error {
	ok := map[string]bool{"gen": true, "null": true, "distinct": true, "shape": true}
	for _, f := range a.k.fields {
		ok[f] = true
	}
	for k := range a.o.fields {
		if !ok[k] && k != "name" && k != "type" {
			return a.p.errf(a.o.keys[k], "%s: gen %s takes no %q; it takes %s", a.what, a.g.Kind, k, strings.Join(a.k.fields, ", "))
		}
	}
	return nil
}

// wrap places err at n.
func (a *genArgs) wrap(n *yaml.Node, err error) error {
	if err == nil {
		return nil
	}
	return a.p.errf(n, "%s: %v", a.what, err)
}

// makes refuses a column of a class other than ok, saying that the kind
// makes noun.
func (a *genArgs) makes(noun string, ok ...class) error {
	for _, c := range ok {
		if a.cl == c {
			return nil
		}
	}
	return a.p.errf(a.gn, "%s: gen %s makes %s, but the column holds %s", a.what, a.g.Kind, noun, a.cl)
}

// shape returns the arguments of a distribution read from a's mapping.
func (a *genArgs) shape() shapeArgs { return shapeArgs{a.p, a.o, a.what, a.scale} }

// shapeArgs is what a kind's distribution reads its parameters from.
type shapeArgs struct {
	p     *parser
	o     *object
	what  string
	scale int64
}

// num reads the number at k, or def if there is none.
func (s shapeArgs) num(k string, def float64) (float64, error) {
	v, ok, err := s.p.number(s.o, k, s.what, s.scale)
	if !ok {
		return def, err
	}
	return v, err
}

// bounded reads the number at k within l, or def if there is none.
func (s shapeArgs) bounded(k string, def float64, l limit) (float64, error) {
	return s.p.bounded(s.o, k, s.what, s.scale, def, l)
}

// made places a distribution's construction error at the gen field.
func (s shapeArgs) made(d datagen.IntDist, err error) (datagen.IntDist, error) {
	if err != nil {
		return nil, s.p.errf(s.o.fields["gen"], "%s: %v", s.what, err)
	}
	return d, nil
}

// madeFloat places a float distribution's construction error at the gen
// field.
func (s shapeArgs) madeFloat(d datagen.FloatDist, err error) (datagen.FloatDist, error) {
	if err != nil {
		return nil, s.p.errf(s.o.fields["gen"], "%s: %v", s.what, err)
	}
	return d, nil
}

// firstOf is the first of o's fields keys that is set, or the gen field.
func firstOf(o *object, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n, ok := o.fields[k]; ok {
			return n
		}
	}
	return o.fields["gen"]
}

// sequence: start, start+step, ... by row, or from a shared counter at
// run time.

func parseSequence(a *genArgs) error {
	g := a.g
	if err := a.only(); err != nil {
		return err
	}
	if err := a.makes("integers", cInt); err != nil {
		return err
	}
	var err error
	if g.seqStart, err = a.integer("start", 1); err != nil {
		return err
	}
	if g.seqStep, err = a.integer("step", 1); err != nil {
		return err
	}
	g.seq = &seqState{}
	g.seqAfter = a.o.has("after")
	g.Desc = fmt.Sprintf("sequence from %d step %d", g.seqStart, g.seqStep)
	if a.o.has("distinct") {
		return a.p.errf(a.o.keys["distinct"], "%s: a sequence is already distinct; remove distinct", a.what)
	}
	return nil
}

func drawSequence(g *Gen, _ *genCtx, _ *rand.Rand, row int64) any {
	if row < 0 {
		row = g.seq.next.Add(1) - 1
	}
	return g.seqStart + g.seqStep*row
}

func sequenceExtremes(p *parser, g *Gen, o *object, what string, _, rows int64) ([]extreme, error) {
	out := []extreme{{n: firstOf(o, "start"), label: "start", v: g.seqStart}}
	if rows < 1 {
		return out, nil
	}
	end := new(big.Int).Mul(big.NewInt(g.seqStep), big.NewInt(rows-1))
	end.Add(end, big.NewInt(g.seqStart))
	if !end.IsInt64() {
		return out, p.errf(firstOf(o, "step", "start"), "%s: the sequence reaches %s at row %d, which does not fit a 64-bit integer", what, end, rows-1)
	}
	return append(out, extreme{n: firstOf(o, "step", "start"), label: fmt.Sprintf("the sequence's last value (row %d)", rows-1), v: end.Int64()}), nil
}

// constant (or fixed): one value, drawn as a choice of one.

func parseConstant(a *genArgs) error {
	g := a.g
	if err := a.only(); err != nil {
		return err
	}
	if err := a.need("value"); err != nil {
		return err
	}
	v, err := a.p.scalarValue(a.o.fields["value"], a.what, a.cl, a.scale)
	if err != nil {
		return err
	}
	g.Kind = "choice"
	g.choices = []any{v}
	g.weighted = datagen.Must(datagen.NewWeighted([]float64{1}))
	g.Desc = fmt.Sprintf("constant %v", v)
	return nil
}

// uniform, zipf, gaussian, exponential and hotspot: numbers over
// [min, max].

// makesNumbers refuses a column that does not hold numbers.
func (a *genArgs) makesNumbers() error {
	if a.cl != cInt && a.cl != cFloat {
		return a.p.errf(a.gn, "%s: gen %s makes numbers, but the column holds %s; use it under number: of a pattern, or as a string's length", a.what, a.g.Kind, a.cl)
	}
	return nil
}

func parseNumber(a *genArgs) error {
	if err := a.makesNumbers(); err != nil {
		return err
	}
	if err := a.only(); err != nil {
		return err
	}
	return a.numberRange()
}

// numberRange fills a numeric kind's distribution over [min, max].
func (a *genArgs) numberRange() error {
	g, o, k := a.g, a.o, a.k
	if o.has("distinct") && a.cl == cInt {
		// Min and max are set by distinct.
		if o.has("min") || o.has("max") {
			return a.p.errf(o.keys["distinct"], "%s: with distinct: N the values are 1..N; drop min and max", a.what)
		}
		return nil
	}
	if err := a.need("min", "max"); err != nil {
		return err
	}
	if a.cl == cFloat {
		lo, hi, err := minMax(a.p, o, a.what, a.num)
		if err != nil {
			return err
		}
		if k.float == nil {
			return a.p.errf(a.gn, "%s: float columns take %s; %s makes integers", a.what,
				genKindNames(func(k *genKind) bool { return k.float != nil }, "or"), g.Kind)
		}
		if g.floatd, err = k.float(a.shape(), lo, hi); err != nil {
			return err
		}
		g.Desc = fmt.Sprintf("%s float in [%g, %g]", g.Kind, lo, hi)
		return nil
	}
	lo, hi, err := minMax(a.p, o, a.what, a.integer)
	if err != nil {
		return err
	}
	if g.intd, err = k.shape(a.shape(), lo, hi); err != nil {
		return err
	}
	g.Desc = fmt.Sprintf("%s in [%d, %d]", g.Kind, lo, hi)
	if k.note != nil {
		g.Desc += k.note(a.shape())
	}
	return nil
}

func numberExtremes(p *parser, g *Gen, o *object, what string, scale, _ int64) ([]extreme, error) {
	switch {
	case g.dint != nil:
		return []extreme{{n: o.fields["distinct"], label: "distinct", v: g.dint.Max()}}, nil
	case g.intd != nil:
		label := "max"
		if o.has("n") {
			label = "the largest value (min + n - 1)"
		}
		return []extreme{{n: firstOf(o, "min"), label: "min", v: g.intd.Min()}, {n: firstOf(o, "max", "n"), label: label, v: g.intd.Max()}}, nil
	case g.floatd != nil:
		var out []extreme
		for _, k := range []string{"min", "max"} {
			v, _, _ := p.number(o, k, what, scale)
			out = append(out, extreme{n: o.fields[k], label: k, v: v})
		}
		return out, nil
	}
	return nil, nil
}

func parseZipf(a *genArgs) error {
	if err := a.makesNumbers(); err != nil {
		return err
	}
	if err := a.only(); err != nil {
		return err
	}
	if !a.o.has("n") {
		return a.numberRange()
	}
	g, o, what := a.g, a.o, a.what
	if o.has("max") {
		return a.p.errf(o.keys["n"], "%s: give zipf either n or max, not both", what)
	}
	n, err := a.integer("n", 0)
	if err != nil {
		return err
	}
	lo, err := a.integer("min", 1)
	if err != nil {
		return err
	}
	if n < 1 {
		return a.p.errf(o.fields["n"], "%s: n must be at least 1", what)
	}
	if n-1 > math.MaxInt64-lo {
		return a.p.errf(o.fields["n"], "%s: min + n - 1 does not fit a 64-bit integer; expected a smaller n", what)
	}
	s, err := a.p.bounded(o, "exponent", what, a.scale, 1, positive)
	if err != nil {
		return err
	}
	if g.intd, err = datagen.NewZipf(lo, lo+n-1, s); err != nil {
		return a.wrap(a.gn, err)
	}
	g.Desc = fmt.Sprintf("zipf over %d values from %d, exponent %g", n, lo, s)
	return nil
}

func zipfShape(s shapeArgs, lo, hi int64) (datagen.IntDist, error) {
	e, err := s.bounded("exponent", 1, positive)
	if err != nil {
		return nil, err
	}
	return s.made(datagen.NewZipf(lo, hi, e))
}

func zipfNote(s shapeArgs) string {
	e, _ := s.num("exponent", 1)
	return fmt.Sprintf(", exponent %g", e)
}

func gaussianShape(s shapeArgs, lo, hi int64) (datagen.IntDist, error) {
	mean, e1 := s.num("mean", (float64(lo)+float64(hi))/2)
	sd, e2 := s.bounded("stddev", (float64(hi)-float64(lo))/6, positive)
	if e := firstErr(e1, e2); e != nil {
		return nil, e
	}
	if sd == 0 { // the default over a range of one value
		sd = 1
	}
	return s.made(datagen.NewGaussian(lo, hi, mean, sd))
}

func gaussianFloat(s shapeArgs, lo, hi float64) (datagen.FloatDist, error) {
	mean, e1 := s.num("mean", (lo+hi)/2)
	sd, e2 := s.bounded("stddev", (hi-lo)/6, positive)
	if e := firstErr(e1, e2); e != nil {
		return nil, e
	}
	if sd == 0 { // the default over a range of one value
		sd = 1
	}
	return s.madeFloat(datagen.NewGaussianFloat(mean, sd, lo, hi))
}

func exponentialShape(s shapeArgs, lo, hi int64) (datagen.IntDist, error) {
	prm, err := s.bounded("param", 5, positive)
	if err != nil {
		return nil, err
	}
	return s.made(datagen.NewExponential(lo, hi, prm))
}

func hotspotShape(s shapeArgs, lo, hi int64) (datagen.IntDist, error) {
	f, e1 := s.bounded("hot_fraction", 0.2, share)
	sh, e2 := s.bounded("hot_share", 0.8, share)
	if e := firstErr(e1, e2); e != nil {
		return nil, e
	}
	return s.made(datagen.NewHotSpot(lo, hi, f, sh))
}

func hotspotNote(s shapeArgs) string {
	f, _ := s.num("hot_fraction", 0.2)
	sh, _ := s.num("hot_share", 0.8)
	return fmt.Sprintf(", %g%% of values get %g%% of rows", 100*f, 100*sh)
}

// geometric: min plus the failures before a success, with a given mean.

func parseGeometric(a *genArgs) error {
	g, o, what := a.g, a.o, a.what
	if err := a.makesNumbers(); err != nil {
		return err
	}
	if err := a.only(); err != nil {
		return err
	}
	if a.cl != cInt {
		return a.p.errf(a.gn, "%s: geometric makes integers, but the column holds %s", what, a.cl)
	}
	if err := a.need("mean"); err != nil {
		return err
	}
	var err error
	if g.geomMin, err = a.integer("min", 0); err != nil {
		return err
	}
	mean, err := a.num("mean", 0)
	if err != nil {
		return err
	}
	if !(mean > float64(g.geomMin)) {
		return a.p.errf(o.fields["mean"], "%s: geometric mean %v must be above min %d", what, mean, g.geomMin)
	}
	// Failures before a success: mean (1-p)/p = mean - min.
	g.geomP = 1 / (mean - float64(g.geomMin) + 1)
	g.Desc = fmt.Sprintf("geometric, min %d, mean %g", g.geomMin, mean)
	return nil
}

func drawGeometric(g *Gen, _ *genCtx, r *rand.Rand, _ int64) any {
	return (&geomDist{p: g.geomP, lo: g.geomMin}).Int64(r)
}

func geometricExtremes(_ *parser, g *Gen, o *object, _ string, _, _ int64) ([]extreme, error) {
	// Values above this one come in fewer than 1 in 10^12 draws:
	// P(X >= min+k) = (1-p)^k.
	k := math.Ceil(math.Log(1e-12) / math.Log1p(-g.geomP))
	top := int64(math.MaxInt64)
	if float64(g.geomMin)+k < math.MaxInt64 {
		top = g.geomMin + int64(k)
	}
	return []extreme{{n: firstOf(o, "min"), label: "min", v: g.geomMin}, {n: firstOf(o, "mean"), label: "the geometric's likely maximum", v: top}}, nil
}

// choice: one of a list of values, optionally weighted.

func parseChoice(a *genArgs) error {
	g, o, what, p := a.g, a.o, a.what, a.p
	if err := a.only(); err != nil {
		return err
	}
	if err := a.need("values"); err != nil {
		return err
	}
	vn := o.fields["values"]
	if vn.Kind != yaml.SequenceNode || len(vn.Content) == 0 {
		return p.errf(vn, "%s: values must be a non-empty list, e.g. [north, south]", what)
	}
	for _, c := range vn.Content {
		v, err := p.scalarValue(c, what, a.cl, a.scale)
		if err != nil {
			return err
		}
		g.choices = append(g.choices, v)
	}
	w := make([]float64, len(g.choices))
	for i := range w {
		w[i] = 1
	}
	if wn, ok := o.fields["weights"]; ok {
		if wn.Kind != yaml.SequenceNode || len(wn.Content) != len(g.choices) {
			return p.errf(wn, "%s: weights must be a list of %d numbers, one per value", what, len(g.choices))
		}
		if err := p.weights(wn.Content, w, what, a.scale); err != nil {
			return err
		}
	}
	var err error
	if g.weighted, err = datagen.NewWeighted(w); err != nil {
		return a.wrap(o.fields["weights"], err)
	}
	g.Desc = fmt.Sprintf("choice of %d values", len(g.choices))
	return nil
}

func drawChoice(g *Gen, _ *genCtx, r *rand.Rand, _ int64) any {
	return g.choices[g.weighted.Index(r)]
}

// nestChoice is a choice of integers as an IntDist.
func nestChoice(g *Gen) datagen.IntDist {
	vals := make([]int64, len(g.choices))
	for i, c := range g.choices {
		vals[i] = c.(int64)
	}
	return &choiceDist{w: g.weighted, vals: vals}
}

func choiceExtremes(_ *parser, g *Gen, o *object, _ string, _, _ int64) ([]extreme, error) {
	nodes := []*yaml.Node{o.fields["value"]}
	if vn, ok := o.fields["values"]; ok {
		nodes = vn.Content
	}
	var out []extreme
	for i, v := range g.choices {
		out = append(out, extreme{n: nodes[i], label: "value", v: v})
	}
	return out, nil
}

// choiceParam is text, or integers if the first value is one.
func choiceParam(o *object) class {
	if vn := o.fields["values"]; vn != nil && vn.Kind == yaml.SequenceNode && len(vn.Content) > 0 && vn.Content[0].Tag == "!!int" {
		return cInt
	}
	return cString
}

// string: random text of a length drawn from a nested generator.

func parseString(a *genArgs) error {
	g, o, what, p := a.g, a.o, a.what, a.p
	if err := a.only(); err != nil {
		return err
	}
	if err := a.makes("text", cString); err != nil {
		return err
	}
	if err := a.need("length"); err != nil {
		return err
	}
	lg, err := p.intSub(o.fields["length"], what+": length", a.scale)
	if err != nil {
		return err
	}
	if lg.intd == nil || lg.intd.Min() < 0 {
		return p.errf(o.fields["length"], "%s: length must be a number or a distribution of non-negative integers (constant, uniform, gaussian, ...)", what)
	}
	if lg.intd.Max() > MaxStringLength {
		return p.errf(o.fields["length"], "%s: length may reach %d; strings are limited to %d characters (give the length distribution a max)", what, lg.intd.Max(), MaxStringLength)
	}
	g.strLen = lg.intd
	g.Desc = "string, length " + lg.Desc
	return nil
}

func drawString(g *Gen, c *genCtx, r *rand.Rand, _ int64) any {
	c.buf = g.appendString(r, c.buf[:0])
	return string(c.buf)
}

func stringExtremes(_ *parser, g *Gen, o *object, _ string, _, _ int64) ([]extreme, error) {
	return []extreme{{n: o.fields["length"], label: "length may reach", chars: g.strLen.Max()}}, nil
}

// pattern: prefix, a zero-padded number from a nested generator, suffix.

func parsePattern(a *genArgs) error {
	g, o, what, p := a.g, a.o, a.what, a.p
	if err := a.only(); err != nil {
		return err
	}
	if err := a.makes("text", cString); err != nil {
		return err
	}
	var err error
	if g.prefix, err = p.str(o, "prefix", what, false); err != nil {
		return err
	}
	if g.suffix, err = p.str(o, "suffix", what, false); err != nil {
		return err
	}
	w, err := a.integer("width", 0)
	if err != nil {
		return err
	}
	if w < 0 || w > 40 {
		return p.errf(o.fields["width"], "%s: width must be between 0 and 40", what)
	}
	g.width = int(w)
	if err := a.need("number"); err != nil {
		return err
	}
	if g.num, err = p.intSub(o.fields["number"], what+": number", a.scale); err != nil {
		return err
	}
	g.Desc = fmt.Sprintf("pattern %q + number (%s)", g.prefix, g.num.Desc)
	return nil
}

func drawPattern(g *Gen, c *genCtx, r *rand.Rand, _ int64) any {
	c.buf = append(c.buf[:0], g.prefix...)
	c.buf = datagen.AppendPadded(c.buf, g.num.intd.Int64(r), g.width)
	c.buf = append(c.buf, g.suffix...)
	return string(c.buf)
}

func patternExtremes(_ *parser, g *Gen, o *object, _ string, _, _ int64) ([]extreme, error) {
	n := utf8.RuneCountInString(g.prefix) + utf8.RuneCountInString(g.suffix) +
		max(paddedLen(g.num.intd.Min(), g.width), paddedLen(g.num.intd.Max(), g.width))
	return []extreme{{n: o.fields["gen"], label: "the pattern makes values up to", chars: int64(n)}}, nil
}

// timestamp: uniform times from..to at a resolution.

func parseTimestamp(a *genArgs) error {
	g, o, what, p := a.g, a.o, a.what, a.p
	if err := a.only(); err != nil {
		return err
	}
	if err := a.makes("timestamps", cTime); err != nil {
		return err
	}
	if err := a.need("from", "to"); err != nil {
		return err
	}
	from, err := p.timeField(o, "from", what)
	if err != nil {
		return err
	}
	to, err := p.timeField(o, "to", what)
	if err != nil {
		return err
	}
	res := time.Second
	if o.has("resolution") {
		if res, err = p.duration(o, "resolution", what); err != nil {
			return err
		}
		if res <= 0 {
			return p.errf(o.fields["resolution"], "%s: resolution must be a positive duration such as 1s or 1ms", what)
		}
	}
	if g.times, err = datagen.NewTimeUniform(from, to, res); err != nil {
		return a.wrap(o.fields["to"], err)
	}
	g.Desc = fmt.Sprintf("timestamps from %s to %s", from.Format(time.DateTime), to.Format(time.DateTime))
	return nil
}

func drawTimestamp(g *Gen, _ *genCtx, r *rand.Rand, _ int64) any { return g.times.Time(r) }

// uuid: random (v4) or time-ordered (v7) UUIDs.

func parseUUID(a *genArgs) error {
	g, o, what, p := a.g, a.o, a.what, a.p
	if err := a.only(); err != nil {
		return err
	}
	if err := a.makes("UUIDs", cUUID, cString); err != nil {
		return err
	}
	v, err := p.str(o, "version", what, false)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "", "4", "v4", "random":
		g.Desc = "uuid v4 (random)"
	case "7", "v7", "time-ordered", "ordered":
		g.uuidV7 = true
		g.Desc = "uuid v7 (time-ordered)"
	default:
		return p.errf(o.fields["version"], "%s: uuid version must be 4 (random) or 7 (time-ordered), not %q", what, v)
	}
	return nil
}

func drawUUID(g *Gen, _ *genCtx, r *rand.Rand, row int64) any {
	var u uuid.UUID
	binary.LittleEndian.PutUint64(u[:8], r.Uint64())
	binary.LittleEndian.PutUint64(u[8:], r.Uint64())
	if g.uuidV7 {
		ms := uint64(time.Now().UnixMilli())
		if row >= 0 {
			ms = uint64(uuidEpochMs + row)
		}
		u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
		u[6] = u[6]&0x0f | 0x70
	} else {
		u[6] = u[6]&0x0f | 0x40
	}
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

func uuidExtremes(_ *parser, _ *Gen, o *object, _ string, _, _ int64) ([]extreme, error) {
	return []extreme{{n: o.fields["gen"], label: "UUIDs are", chars: 36}}, nil
}
