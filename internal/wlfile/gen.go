package wlfile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"gopkg.in/yaml.v3"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/pgbexpr"
)

// class is the kind of value a column holds.
type class int

const (
	cInt class = iota
	cFloat
	cString
	cTime
	cUUID
	cBool
)

func (c class) String() string {
	return [...]string{"integer", "float", "text", "timestamp", "uuid", "boolean"}[c]
}

// Gen produces the values of one column or parameter. Load-time values
// depend only on (seed, table, column, row); run-time values on the
// worker's random stream.
type Gen struct {
	Kind string
	// Desc is the specification in one line, for the profile.
	Desc string
	// Null is the fraction of NULLs.
	Null  float64
	class class

	intd     datagen.IntDist
	seqStart int64
	seqStep  int64
	seqCtr   *atomic.Int64 // run time: one counter shared by all clients
	floatd   datagen.FloatDist
	choices  []any
	weighted *datagen.Weighted
	strLen   datagen.IntDist
	prefix   string
	suffix   string
	width    int
	num      *Gen
	times    *datagen.TimeUniform
	uuidV7   bool
	geomP    float64
	geomMin  int64
	// roundTo is 10^S for a numeric(P,S) column or parameter, whose values
	// are rounded to S decimals as the engines store them; 0 for no
	// rounding.
	roundTo float64

	// distinct: values come from N ranks drawn with shape; non-integer
	// values are a fixed function of the rank.
	distinct int64
	dint     *datagen.Distinct
	shape    datagen.IntDist
	key      uint64 // stream key for rank-derived values
}

// genFields are the keys a generator specification may use.
var genFields = []string{"gen", "null", "distinct", "shape", "start", "step", "value", "min", "max", "n", "exponent",
	"mean", "stddev", "param", "hot_fraction", "hot_share", "values", "weights", "length", "prefix", "suffix",
	"width", "number", "from", "to", "resolution", "version"}

// genKinds lists the generators, for error messages.
const genKinds = "sequence, constant, uniform, zipf, gaussian, exponential, hotspot, geometric, choice, string, pattern, timestamp, uuid"

// parseGen reads a generator from a mapping (the column itself, or a
// nested spec such as a string's length) for values of class cl.
func (p *parser) parseGen(o *object, what string, cl class, scale int64, key uint64) (*Gen, error) {
	kind, err := p.str(o, "gen", what, true)
	if err != nil {
		return nil, err
	}
	g := &Gen{Kind: strings.ToLower(kind), class: cl, key: key}
	num := func(k string, def float64) (float64, error) {
		v, ok, err := p.number(o, k, what, scale)
		if !ok {
			return def, err
		}
		return v, err
	}
	integer := func(k string, def int64) (int64, error) {
		v, ok, err := p.integer(o, k, what, scale)
		if !ok {
			return def, err
		}
		return v, err
	}
	need := func(keys ...string) error {
		for _, k := range keys {
			if !o.has(k) {
				return p.errf(o.fields["gen"], "%s: gen %s needs %q", what, g.Kind, k)
			}
		}
		return nil
	}
	only := func(allowed ...string) error {
		ok := map[string]bool{"gen": true, "null": true, "distinct": true, "shape": true}
		for _, a := range allowed {
			ok[a] = true
		}
		for k := range o.fields {
			if !ok[k] && k != "name" && k != "type" {
				return p.errf(o.keys[k], "%s: gen %s takes no %q; it takes %s", what, g.Kind, k, strings.Join(allowed, ", "))
			}
		}
		return nil
	}
	wrap := func(n *yaml.Node, err error) error {
		if err == nil {
			return nil
		}
		return p.errf(n, "%s: %v", what, err)
	}
	gn := o.fields["gen"]
	if g.Null, err = p.bounded(o, "null", what, scale, 0, fraction); err != nil {
		return nil, err
	}
	numericKind := false
	switch g.Kind {
	case "sequence":
		if err := only("start", "step"); err != nil {
			return nil, err
		}
		if cl != cInt {
			return nil, p.errf(gn, "%s: gen sequence makes integers, but the column holds %s", what, cl)
		}
		if g.seqStart, err = integer("start", 1); err != nil {
			return nil, err
		}
		if g.seqStep, err = integer("step", 1); err != nil {
			return nil, err
		}
		g.seqCtr = &atomic.Int64{}
		g.Desc = fmt.Sprintf("sequence from %d step %d", g.seqStart, g.seqStep)
		if o.has("distinct") {
			return nil, p.errf(o.keys["distinct"], "%s: a sequence is already distinct; remove distinct", what)
		}
	case "constant", "fixed":
		if err := only("value"); err != nil {
			return nil, err
		}
		if err := need("value"); err != nil {
			return nil, err
		}
		v, err := p.scalarValue(o.fields["value"], what, cl, scale)
		if err != nil {
			return nil, err
		}
		g.Kind = "choice"
		g.choices = []any{v}
		g.weighted = datagen.Must(datagen.NewWeighted([]float64{1}))
		g.Desc = fmt.Sprintf("constant %v", v)
	case "uniform", "zipf", "gaussian", "exponential", "hotspot", "geometric":
		numericKind = true
		if cl != cInt && cl != cFloat {
			return nil, p.errf(gn, "%s: gen %s makes numbers, but the column holds %s; use it under number: of a pattern, or as a string's length", what, g.Kind, cl)
		}
	case "choice":
		if err := only("values", "weights"); err != nil {
			return nil, err
		}
		if err := need("values"); err != nil {
			return nil, err
		}
		vn := o.fields["values"]
		if vn.Kind != yaml.SequenceNode || len(vn.Content) == 0 {
			return nil, p.errf(vn, "%s: values must be a non-empty list, e.g. [north, south]", what)
		}
		for _, c := range vn.Content {
			v, err := p.scalarValue(c, what, cl, scale)
			if err != nil {
				return nil, err
			}
			g.choices = append(g.choices, v)
		}
		w := make([]float64, len(g.choices))
		for i := range w {
			w[i] = 1
		}
		if wn, ok := o.fields["weights"]; ok {
			if wn.Kind != yaml.SequenceNode || len(wn.Content) != len(g.choices) {
				return nil, p.errf(wn, "%s: weights must be a list of %d numbers, one per value", what, len(g.choices))
			}
			if err := p.weights(wn.Content, w, what, scale); err != nil {
				return nil, err
			}
		}
		if g.weighted, err = datagen.NewWeighted(w); err != nil {
			return nil, wrap(o.fields["weights"], err)
		}
		g.Desc = fmt.Sprintf("choice of %d values", len(g.choices))
	case "string":
		if err := only("length"); err != nil {
			return nil, err
		}
		if cl != cString {
			return nil, p.errf(gn, "%s: gen string makes text, but the column holds %s", what, cl)
		}
		if err := need("length"); err != nil {
			return nil, err
		}
		lg, err := p.intSub(o.fields["length"], what+": length", scale)
		if err != nil {
			return nil, err
		}
		if lg.intd == nil || lg.intd.Min() < 0 {
			return nil, p.errf(o.fields["length"], "%s: length must be a number or a distribution of non-negative integers (constant, uniform, gaussian, ...)", what)
		}
		if lg.intd.Max() > MaxStringLength {
			return nil, p.errf(o.fields["length"], "%s: length may reach %d; strings are limited to %d characters (give the length distribution a max)", what, lg.intd.Max(), MaxStringLength)
		}
		g.strLen = lg.intd
		g.Desc = "string, length " + lg.Desc
	case "pattern":
		if err := only("prefix", "suffix", "width", "number"); err != nil {
			return nil, err
		}
		if cl != cString {
			return nil, p.errf(gn, "%s: gen pattern makes text, but the column holds %s", what, cl)
		}
		if g.prefix, err = p.str(o, "prefix", what, false); err != nil {
			return nil, err
		}
		if g.suffix, err = p.str(o, "suffix", what, false); err != nil {
			return nil, err
		}
		w, err := integer("width", 0)
		if err != nil {
			return nil, err
		}
		if w < 0 || w > 40 {
			return nil, p.errf(o.fields["width"], "%s: width must be between 0 and 40", what)
		}
		g.width = int(w)
		if err := need("number"); err != nil {
			return nil, err
		}
		if g.num, err = p.intSub(o.fields["number"], what+": number", scale); err != nil {
			return nil, err
		}
		g.Desc = fmt.Sprintf("pattern %q + number (%s)", g.prefix, g.num.Desc)
	case "timestamp":
		if err := only("from", "to", "resolution"); err != nil {
			return nil, err
		}
		if cl != cTime {
			return nil, p.errf(gn, "%s: gen timestamp makes timestamps, but the column holds %s", what, cl)
		}
		if err := need("from", "to"); err != nil {
			return nil, err
		}
		from, err := p.timeField(o, "from", what)
		if err != nil {
			return nil, err
		}
		to, err := p.timeField(o, "to", what)
		if err != nil {
			return nil, err
		}
		res := time.Second
		if o.has("resolution") {
			if res, err = p.duration(o, "resolution", what); err != nil {
				return nil, err
			}
			if res <= 0 {
				return nil, p.errf(o.fields["resolution"], "%s: resolution must be a positive duration such as 1s or 1ms", what)
			}
		}
		if g.times, err = datagen.NewTimeUniform(from, to, res); err != nil {
			return nil, wrap(o.fields["to"], err)
		}
		g.Desc = fmt.Sprintf("timestamps from %s to %s", from.Format(time.DateTime), to.Format(time.DateTime))
	case "uuid":
		if err := only("version"); err != nil {
			return nil, err
		}
		if cl != cUUID && cl != cString {
			return nil, p.errf(gn, "%s: gen uuid makes UUIDs, but the column holds %s", what, cl)
		}
		v, err := p.str(o, "version", what, false)
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(v) {
		case "", "4", "v4", "random":
			g.Desc = "uuid v4 (random)"
		case "7", "v7", "time-ordered", "ordered":
			g.uuidV7 = true
			g.Desc = "uuid v7 (time-ordered)"
		default:
			return nil, p.errf(o.fields["version"], "%s: uuid version must be 4 (random) or 7 (time-ordered), not %q", what, v)
		}
	default:
		return nil, p.errf(gn, "%s: unknown gen %q; expected one of: %s", what, kind, genKinds)
	}
	if numericKind {
		if err := p.numeric(g, o, what, cl, scale, num, integer, only, need, wrap); err != nil {
			return nil, err
		}
	}
	if o.has("shape") && !o.has("distinct") {
		return nil, p.errf(o.keys["shape"], "%s: shape goes with distinct: N", what)
	}
	if o.has("distinct") {
		n, err := integer("distinct", 0)
		if err != nil {
			return nil, err
		}
		if n < 1 {
			return nil, p.errf(o.fields["distinct"], "%s: distinct must be at least 1, not %d", what, n)
		}
		g.distinct = n
		switch {
		case cl == cInt && numericKind:
			if o.has("shape") {
				return nil, p.errf(o.keys["shape"], "%s: an integer generator is its own shape; drop shape", what)
			}
			if g.Kind == "geometric" {
				return nil, p.errf(gn, "%s: distinct does not apply to geometric", what)
			}
			shape, err := p.numericOver(o, g.Kind, 1, n, what, scale)
			if err != nil {
				return nil, err
			}
			if g.dint, err = datagen.NewDistinct(n, shape, key); err != nil {
				return nil, wrap(o.fields["distinct"], err)
			}
			g.Desc = fmt.Sprintf("%d distinct values 1..%d, %s-shaped", n, n, g.Kind)
		default:
			g.shape = datagen.Must(datagen.NewUniform(1, n))
			shapeDesc := "uniform"
			if sn, ok := o.fields["shape"]; ok {
				so, err := p.obj(sn, what+": shape", "gen", "exponent", "mean", "stddev", "param", "hot_fraction", "hot_share")
				if err != nil {
					return nil, err
				}
				k, err := p.str(so, "gen", what+": shape", true)
				if err != nil {
					return nil, err
				}
				if g.shape, err = p.numericOver(so, strings.ToLower(k), 1, n, what+": shape", scale); err != nil {
					return nil, err
				}
				shapeDesc = strings.ToLower(k)
			}
			g.Desc = fmt.Sprintf("%s; %d distinct values, %s-shaped", g.Desc, n, shapeDesc)
		}
	}
	if g.Null > 0 {
		g.Desc += fmt.Sprintf("; %g%% NULL", 100*g.Null)
	}
	return g, nil
}

// numeric fills the number distributions.
func (p *parser) numeric(g *Gen, o *object, what string, cl class, scale int64,
	num func(string, float64) (float64, error), integer func(string, int64) (int64, error),
	only func(...string) error, need func(...string) error, wrap func(*yaml.Node, error) error) error {
	var err error
	gn := o.fields["gen"]
	switch g.Kind {
	case "uniform":
		err = only("min", "max")
	case "zipf":
		err = only("min", "max", "n", "exponent")
	case "gaussian":
		err = only("min", "max", "mean", "stddev")
	case "exponential":
		err = only("min", "max", "param")
	case "hotspot":
		err = only("min", "max", "hot_fraction", "hot_share")
	case "geometric":
		err = only("min", "mean")
	}
	if err != nil {
		return err
	}
	if g.Kind == "geometric" {
		if cl != cInt {
			return p.errf(gn, "%s: geometric makes integers, but the column holds %s", what, cl)
		}
		if err := need("mean"); err != nil {
			return err
		}
		if g.geomMin, err = integer("min", 0); err != nil {
			return err
		}
		mean, err := num("mean", 0)
		if err != nil {
			return err
		}
		if !(mean > float64(g.geomMin)) {
			return p.errf(o.fields["mean"], "%s: geometric mean %v must be above min %d", what, mean, g.geomMin)
		}
		// Failures before a success: mean (1-p)/p = mean - min.
		g.geomP = 1 / (mean - float64(g.geomMin) + 1)
		g.Desc = fmt.Sprintf("geometric, min %d, mean %g", g.geomMin, mean)
		return nil
	}
	if g.Kind == "zipf" && o.has("n") {
		if o.has("max") {
			return p.errf(o.keys["n"], "%s: give zipf either n or max, not both", what)
		}
		n, err := integer("n", 0)
		if err != nil {
			return err
		}
		lo, err := integer("min", 1)
		if err != nil {
			return err
		}
		if n < 1 {
			return p.errf(o.fields["n"], "%s: n must be at least 1", what)
		}
		if n-1 > math.MaxInt64-lo {
			return p.errf(o.fields["n"], "%s: min + n - 1 does not fit a 64-bit integer; expected a smaller n", what)
		}
		s, err := p.bounded(o, "exponent", what, scale, 1, positive)
		if err != nil {
			return err
		}
		if g.intd, err = datagen.NewZipf(lo, lo+n-1, s); err != nil {
			return wrap(gn, err)
		}
		g.Desc = fmt.Sprintf("zipf over %d values from %d, exponent %g", n, lo, s)
		return nil
	}
	if o.has("distinct") && cl == cInt {
		// Min and max are set by distinct.
		if o.has("min") || o.has("max") {
			return p.errf(o.keys["distinct"], "%s: with distinct: N the values are 1..N; drop min and max", what)
		}
		return nil
	}
	if err := need("min", "max"); err != nil {
		return err
	}
	if cl == cFloat {
		lo, hi, err := minMax(p, o, what, num)
		if err != nil {
			return err
		}
		switch g.Kind {
		case "uniform":
			g.floatd, err = datagen.NewUniformFloat(lo, hi)
		case "gaussian":
			mean, e1 := num("mean", (lo+hi)/2)
			sd, e2 := p.bounded(o, "stddev", what, scale, (hi-lo)/6, positive)
			if e := firstErr(e1, e2); e != nil {
				return e
			}
			if sd == 0 { // the default over a range of one value
				sd = 1
			}
			g.floatd, err = datagen.NewGaussianFloat(mean, sd, lo, hi)
		default:
			return p.errf(gn, "%s: float columns take uniform or gaussian; %s makes integers", what, g.Kind)
		}
		if err != nil {
			return wrap(gn, err)
		}
		g.Desc = fmt.Sprintf("%s float in [%g, %g]", g.Kind, lo, hi)
		return nil
	}
	lo, hi, err := minMax(p, o, what, integer)
	if err != nil {
		return err
	}
	if g.intd, err = p.numericOver(o, g.Kind, lo, hi, what, scale); err != nil {
		return err
	}
	g.Desc = fmt.Sprintf("%s in [%d, %d]", g.Kind, lo, hi)
	switch g.Kind {
	case "zipf":
		s, _ := num("exponent", 1)
		g.Desc += fmt.Sprintf(", exponent %g", s)
	case "hotspot":
		f, _ := num("hot_fraction", 0.2)
		s, _ := num("hot_share", 0.8)
		g.Desc += fmt.Sprintf(", %g%% of values get %g%% of rows", 100*f, 100*s)
	}
	return nil
}

// minMax reads the fields min and max of o with read; max must not be
// below min.
func minMax[T int64 | float64](p *parser, o *object, what string, read func(string, T) (T, error)) (lo, hi T, err error) {
	if lo, err = read("min", 0); err != nil {
		return lo, hi, err
	}
	if hi, err = read("max", 0); err == nil && hi < lo {
		err = p.errf(o.fields["max"], "%s: max %v is below min %v; expected max >= min", what, hi, lo)
	}
	return lo, hi, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// numericOver builds an integer shape over [lo, hi] from o's parameters.
func (p *parser) numericOver(o *object, kind string, lo, hi int64, what string, scale int64) (datagen.IntDist, error) {
	num := func(k string, def float64) (float64, error) {
		v, ok, err := p.number(o, k, what, scale)
		if !ok {
			return def, err
		}
		return v, err
	}
	var (
		d   datagen.IntDist
		err error
	)
	switch kind {
	case "uniform":
		d, err = datagen.NewUniform(lo, hi)
	case "zipf":
		s, e := p.bounded(o, "exponent", what, scale, 1, positive)
		if e != nil {
			return nil, e
		}
		d, err = datagen.NewZipf(lo, hi, s)
	case "gaussian":
		mean, e1 := num("mean", (float64(lo)+float64(hi))/2)
		sd, e2 := p.bounded(o, "stddev", what, scale, (float64(hi)-float64(lo))/6, positive)
		if e := firstErr(e1, e2); e != nil {
			return nil, e
		}
		if sd == 0 { // the default over a range of one value
			sd = 1
		}
		d, err = datagen.NewGaussian(lo, hi, mean, sd)
	case "exponential":
		prm, e := p.bounded(o, "param", what, scale, 5, positive)
		if e != nil {
			return nil, e
		}
		d, err = datagen.NewExponential(lo, hi, prm)
	case "hotspot":
		f, e1 := p.bounded(o, "hot_fraction", what, scale, 0.2, share)
		s, e2 := p.bounded(o, "hot_share", what, scale, 0.8, share)
		if e := firstErr(e1, e2); e != nil {
			return nil, e
		}
		d, err = datagen.NewHotSpot(lo, hi, f, s)
	default:
		return nil, p.errf(o.fields["gen"], "%s: shape must be uniform, zipf, gaussian, exponential or hotspot, not %q", what, kind)
	}
	if err != nil {
		return nil, p.errf(o.fields["gen"], "%s: %v", what, err)
	}
	return d, nil
}

// intSub reads a nested integer generator: a plain number (constant) or a
// mapping with gen.
func (p *parser) intSub(n *yaml.Node, what string, scale int64) (*Gen, error) {
	if n.Kind == yaml.ScalarNode {
		v, err := p.intNode(n, what, scale)
		if err != nil {
			return nil, err
		}
		return &Gen{Kind: "constant", class: cInt, intd: datagen.NewConstant(v), Desc: strconv.FormatInt(v, 10)}, nil
	}
	o, err := p.obj(n, what, genFields...)
	if err != nil {
		return nil, err
	}
	g, err := p.parseGen(o, what, cInt, scale, 0)
	if err != nil {
		return nil, err
	}
	if g.Null > 0 || g.Kind == "choice" && g.distinct > 0 {
		return nil, p.errf(n, "%s: nested generators take no null or distinct", what)
	}
	if g.Kind == "choice" {
		// A choice of integers as an IntDist.
		vals := make([]int64, len(g.choices))
		for i, c := range g.choices {
			vals[i] = c.(int64)
		}
		g.intd = &choiceDist{w: g.weighted, vals: vals}
	}
	if g.Kind == "geometric" {
		g.intd = &geomDist{p: g.geomP, lo: g.geomMin}
	}
	if g.Kind == "sequence" {
		return nil, p.errf(o.fields["gen"], "%s: a nested generator cannot be a sequence", what)
	}
	if g.intd == nil && g.dint != nil {
		g.intd = g.dint
	}
	return g, nil
}

// choiceDist is a weighted choice of integers as an IntDist.
type choiceDist struct {
	w    *datagen.Weighted
	vals []int64
}

func (c *choiceDist) Int64(r *rand.Rand) int64 { return c.vals[c.w.Index(r)] }
func (c *choiceDist) Min() int64 {
	m := c.vals[0]
	for _, v := range c.vals {
		m = min(m, v)
	}
	return m
}
func (c *choiceDist) Max() int64 {
	m := c.vals[0]
	for _, v := range c.vals {
		m = max(m, v)
	}
	return m
}

// geomDist is lo + the number of failures before the first success of
// trials with success probability p (mean lo + (1-p)/p).
type geomDist struct {
	p  float64
	lo int64
}

func (g *geomDist) Int64(r *rand.Rand) int64 {
	if g.p >= 1 {
		return g.lo
	}
	u := 1 - r.Float64() // (0, 1]
	k := math.Floor(math.Log(u) / math.Log1p(-g.p))
	if k > 1e15 {
		k = 1e15
	}
	return g.lo + int64(k)
}
func (g *geomDist) Min() int64 { return g.lo }
func (g *geomDist) Max() int64 { return math.MaxInt64 }

func (p *parser) scalarValue(n *yaml.Node, what string, cl class, scale int64) (any, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, p.errf(n, "%s: values must be plain scalars, not %s", what, kindName(n))
	}
	switch cl {
	case cInt:
		return p.intNode(n, what+": value", scale)
	case cFloat:
		return p.numberNode(n, what, scale)
	case cBool:
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, p.errf(n, "%s: %q is not true or false", what, n.Value)
		}
		return b, nil
	case cTime:
		t, err := parseTime(n.Value)
		if err != nil {
			return nil, p.errf(n, "%s: %v", what, err)
		}
		return t, nil
	}
	if n.Tag == "!!null" {
		return nil, nil
	}
	return n.Value, nil
}

func (p *parser) timeField(o *object, k, what string) (time.Time, error) {
	s, err := p.str(o, k, what, true)
	if err != nil {
		return time.Time{}, err
	}
	t, err := parseTime(s)
	if err != nil {
		return time.Time{}, p.errf(o.fields[k], "%s: %s: %v", what, k, err)
	}
	return t, nil
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time; write 2024-01-31, 2024-01-31 12:00:00 or RFC 3339", s)
}

// MaxStringLength bounds generated strings (1 MiB).
const MaxStringLength = 1 << 20

// genCtx is a per-goroutine scratch space for drawing values.
type genCtx struct {
	seed uint64
	pcg  *rand.PCG
	r    *rand.Rand
	sub  *rand.PCG
	subR *rand.Rand
	buf  []byte
}

func newGenCtx(seed uint64) *genCtx {
	c := &genCtx{seed: seed, pcg: rand.NewPCG(0, 0), sub: rand.NewPCG(0, 0)}
	c.r, c.subR = rand.New(c.pcg), rand.New(c.sub)
	return c
}

// uuidEpochMs is the timestamp of row 0 of a loaded time-ordered UUID
// column (2024-01-01); row i is i milliseconds later.
const uuidEpochMs = 1704067200000

// value draws one value from r. row is the row number at load time, or -1
// at run time.
func (g *Gen) value(c *genCtx, r *rand.Rand, row int64) any {
	if g.Null > 0 && r.Float64() < g.Null {
		return nil
	}
	if g.dint != nil {
		return g.dint.Int64(r)
	}
	if g.shape != nil {
		rank := g.shape.Int64(r) - 1
		datagen.SeedPCG(c.sub, c.seed, g.key, uint64(rank))
		return g.base(c, c.subR, rank)
	}
	return g.base(c, r, row)
}

func (g *Gen) base(c *genCtx, r *rand.Rand, row int64) any {
	switch g.Kind {
	case "sequence":
		if row < 0 {
			row = g.seqCtr.Add(1) - 1
		}
		return g.seqStart + g.seqStep*row
	case "choice":
		return g.choices[g.weighted.Index(r)]
	case "geometric":
		return (&geomDist{p: g.geomP, lo: g.geomMin}).Int64(r)
	case "string":
		c.buf = g.appendString(r, c.buf[:0])
		return string(c.buf)
	case "pattern":
		c.buf = append(c.buf[:0], g.prefix...)
		c.buf = datagen.AppendPadded(c.buf, g.num.intd.Int64(r), g.width)
		c.buf = append(c.buf, g.suffix...)
		return string(c.buf)
	case "timestamp":
		return g.times.Time(r)
	case "uuid":
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
	if g.floatd != nil {
		return g.round(g.floatd.Float64(r))
	}
	v := g.intd.Int64(r)
	if g.class == cFloat {
		return float64(v)
	}
	return v
}

// setDecimals makes g round its floats to the scale of a numeric(P,S) or
// decimal(P,S) type (numeric(P) has scale 0), so that every engine stores
// the same values: PostgreSQL and MySQL round to the scale, SQLite would
// keep the float as it is.
func (g *Gen) setDecimals(typ string) {
	m := typeRE.FindStringSubmatch(strings.TrimSpace(typ))
	if m == nil || m[4] == "" {
		return
	}
	scale, _ := strconv.Atoi(m[7]) // "" (no scale) is 0
	g.roundTo = math.Pow10(scale)
	for i, c := range g.choices {
		if f, ok := c.(float64); ok {
			g.choices[i] = g.round(f)
		}
	}
}

// round rounds v to g's decimals; a value too large to have that many
// decimals in a float64 stays as it is.
func (g *Gen) round(v float64) float64 {
	if g.roundTo == 0 {
		return v
	}
	x := v * g.roundTo
	if math.Abs(x) >= 1<<53 {
		return v
	}
	return math.Round(x) / g.roundTo
}

func (g *Gen) appendString(r *rand.Rand, dst []byte) []byte {
	return datagen.RandString(r, dst, int(g.strLen.Int64(r)))
}

// Drawer draws run-time values (transaction parameters); one per
// goroutine.
type Drawer struct{ c *genCtx }

// NewDrawer returns a Drawer whose rank-derived values (distinct strings)
// match the loaded data of the same seed.
func NewDrawer(seed uint64) *Drawer { return &Drawer{c: newGenCtx(seed)} }

// Draw draws one run-time value from r: sequences count on from a counter
// shared by all drawers, time-ordered UUIDs use the clock.
func (d *Drawer) Draw(g *Gen, r *rand.Rand) any { return g.value(d.c, r, -1) }

// constEnv evaluates scale expressions.
type constEnv struct{ scale int64 }

func (e *constEnv) Var(n string) (pgbexpr.Value, bool, error) {
	if n == "scale" {
		return pgbexpr.IntValue(e.scale), true, nil
	}
	return pgbexpr.Value{}, false, nil
}
func (e *constEnv) Rand() *rand.Rand                           { return rand.New(rand.NewPCG(1, 1)) }
func (e *constEnv) Cache() map[pgbexpr.DistKey]datagen.IntDist { return nil }
