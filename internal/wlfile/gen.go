package wlfile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

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
	// kind is the entry of genKindTable that draws the values; nil for a
	// nested constant, which is its intd.
	kind *genKind

	intd     datagen.IntDist
	seqStart int64
	seqStep  int64
	seq      *seqState // run time: one counter shared by all clients
	seqAfter bool      // after: was given
	// After, on a sequence parameter, is the column whose largest value
	// the sequence continues after when a run starts (ContinueAfter).
	After    *After
	latest   *latestState
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
	"width", "number", "from", "to", "resolution", "version", "sequence", "after"}

// parseGen reads a generator from a mapping (the column itself, or a
// nested spec such as a string's length) for values of class cl.
func (p *parser) parseGen(o *object, what string, cl class, scale int64, key uint64) (*Gen, error) {
	kind, err := p.str(o, "gen", what, true)
	if err != nil {
		return nil, err
	}
	g := &Gen{Kind: strings.ToLower(kind), class: cl, key: key}
	gn := o.fields["gen"]
	if g.Null, err = p.bounded(o, "null", what, scale, 0, fraction); err != nil {
		return nil, err
	}
	k := genKindByName[g.Kind]
	if k == nil {
		return nil, p.errf(gn, "%s: unknown gen %q; expected one of: %s", what, kind, genKindNames(func(*genKind) bool { return true }, ""))
	}
	a := &genArgs{p: p, g: g, k: k, o: o, what: what, cl: cl, scale: scale, gn: gn}
	if err := k.parse(a); err != nil {
		return nil, err
	}
	g.kind = genKindByName[g.Kind]
	if o.has("shape") && !o.has("distinct") {
		return nil, p.errf(o.keys["shape"], "%s: shape goes with distinct: N", what)
	}
	if o.has("distinct") {
		n, err := a.integer("distinct", 0)
		if err != nil {
			return nil, err
		}
		if n < 1 {
			return nil, p.errf(o.fields["distinct"], "%s: distinct must be at least 1, not %d", what, n)
		}
		g.distinct = n
		switch {
		case cl == cInt && k.numeric:
			if o.has("shape") {
				return nil, p.errf(o.keys["shape"], "%s: an integer generator is its own shape; drop shape", what)
			}
			if k.shape == nil {
				return nil, p.errf(gn, "%s: distinct does not apply to %s", what, g.Kind)
			}
			shape, err := k.shape(a.shape(), 1, n)
			if err != nil {
				return nil, err
			}
			if g.dint, err = datagen.NewDistinct(n, shape, key); err != nil {
				return nil, a.wrap(o.fields["distinct"], err)
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

// numericOver builds an integer shape of the named kind over [lo, hi]
// from o's parameters.
func (p *parser) numericOver(o *object, kind string, lo, hi int64, what string, scale int64) (datagen.IntDist, error) {
	k := genKindByName[kind]
	if k == nil || k.shape == nil {
		return nil, p.errf(o.fields["gen"], "%s: shape must be %s, not %q", what,
			genKindNames(func(k *genKind) bool { return k.shape != nil }, "or"), kind)
	}
	return k.shape(shapeArgs{p, o, what, scale}, lo, hi)
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
	if g.kind.nest != nil {
		g.intd = g.kind.nest(g)
	}
	if g.kind.unnested {
		return nil, p.errf(o.fields["gen"], "%s: a nested generator cannot be a %s", what, g.Kind)
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
	if g.kind != nil && g.kind.draw != nil {
		return g.kind.draw(g, c, r, row)
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

// After is a column of the loaded data, TABLE.COLUMN.
type After struct{ Table, Column string }

// ContinueAfter makes a sequence parameter with after: start after the
// largest value its column holds, when the run starts and before any
// value is drawn: at the larger of its start and largest + step.
func (g *Gen) ContinueAfter(largest int64) {
	if next := largest + g.seqStep; next > g.seqStart && next > largest {
		g.seqStart = next
	}
}

// Done says that the transaction that drew v from g has ended (committed
// or not): a latest parameter that follows g's sequence may then draw v.
// It does nothing for other generators, and is harmless twice.
func (d *Drawer) Done(g *Gen, v any) {
	if g.seq == nil || !g.seq.tracked {
		return
	}
	if x, ok := v.(int64); ok {
		g.seq.done((x - g.seqStart) / g.seqStep)
	}
}

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
