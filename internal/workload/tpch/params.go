package tpch

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

// lit is a substitution parameter before it is written in a dialect: a
// date (YYYY-MM-DD), a string, or a number as written.
type lit struct {
	kind byte // 'd' date, 's' string, 'n' number
	v    string
}

// Draw is one query's substitution parameters (clause 2.4.x.3), drawn and
// not yet written in a dialect.
type Draw struct {
	Query int
	lits  map[string]lit
}

// Params writes the draw's parameters as literals of caps' dialect.
func (d Draw) Params(caps db.Caps) Params {
	p := make(Params, len(d.lits))
	for k, l := range d.lits {
		switch l.kind {
		case 'd':
			p[k] = caps.DateConst(l.v)
		case 's':
			p[k] = quote(l.v)
		default:
			p[k] = l.v
		}
	}
	return p
}

// String lists the parameters as name=value, sorted by name, for logs and
// test failures.
func (d Draw) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d.lits)) {
		parts = append(parts, k+"="+d.lits[k].v)
	}
	return fmt.Sprintf("Q%d(%s)", d.Query, strings.Join(parts, ", "))
}

const dateFmt = "2006-01-02"

func ymd(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }

// dates adds name (the date t) and name_end (t moved on by years, months
// and days) to the draw: the two ends of the specification's
// DATE ':n' + INTERVAL 'k' unit.
func (d Draw) dates(t time.Time, years, months, days int) {
	d.lits["date"] = lit{'d', t.Format(dateFmt)}
	d.lits["date_end"] = lit{'d', t.AddDate(years, months, days).Format(dateFmt)}
}

// lists are the value lists of clause 4.2.2.13 the parameters draw from.
type lists struct {
	regions, nations, types, containers, segments, modes, colors []string
	// nationRegion is each nation's region key (clause 4.2.3).
	nationRegion []int
}

var valueLists = func() *lists {
	get := func(name string) ([]string, []int64) {
		w, wt, ok := dbgen.Distribution(name)
		if !ok {
			panic("tpch: no distribution " + name)
		}
		return w, wt
	}
	l := &lists{}
	l.regions, _ = get("regions")
	var steps []int64
	l.nations, steps = get("nations")
	r := int64(0)
	for _, s := range steps {
		r += s
		l.nationRegion = append(l.nationRegion, int(r))
	}
	l.types, _ = get("p_types")
	l.containers, _ = get("p_cntr")
	l.segments, _ = get("msegmnt")
	l.modes, _ = get("smode")
	l.colors, _ = get("colors")
	return l
}()

// The words of Q13's pattern (clause 2.4.13.3).
var (
	q13Word1 = []string{"special", "pending", "unusual", "express"}
	q13Word2 = []string{"packages", "requests", "accounts", "deposits"}
)

// drawRNG is the random stream of query q in stream s of a run seeded
// with seed: each query of each stream has its own, so that a query's
// parameters do not depend on the order the stream runs the queries in.
func drawRNG(seed uint64, stream, q int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(stream)<<8|uint64(q)))
}

// DrawParams draws query q's substitution parameters for stream s of a run
// seeded with seed, as clause 2.4.q.3 says; sf is the scale factor (Q11's
// fraction is 0.0001/SF).
func DrawParams(q, stream int, seed uint64, sf float64) Draw {
	rng := drawRNG(seed, stream, q)
	l := valueLists
	d := Draw{Query: q, lits: map[string]lit{}}
	set := func(k string, kind byte, v string) { d.lits[k] = lit{kind, v} }
	in := func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	month := func(first, last int) time.Time { // months counted from 1993-01 = 0
		m := in(first, last)
		return ymd(1993+m/12, m%12+1, 1)
	}
	year := func() time.Time { return ymd(in(1993, 1997), 1, 1) }
	brand := func() string { return fmt.Sprintf("Brand#%d%d", in(1, 5), in(1, 5)) }
	distinct := func(xs []string, n int) []string {
		idx := rng.Perm(len(xs))[:n]
		out := make([]string, n)
		for i, j := range idx {
			out[i] = xs[j]
		}
		return out
	}
	switch q {
	case 1:
		d.lits["date"] = lit{'d', ymd(1998, 12, 1).AddDate(0, 0, -in(60, 120)).Format(dateFmt)}
	case 2:
		set("size", 'n', strconv.Itoa(in(1, 50)))
		w := strings.Fields(pick(l.types))
		set("type", 's', "%"+w[len(w)-1])
		set("region", 's', pick(l.regions))
	case 3:
		set("segment", 's', pick(l.segments))
		d.lits["date"] = lit{'d', ymd(1995, 3, in(1, 31)).Format(dateFmt)}
	case 4:
		d.dates(month(0, 57), 0, 3, 0)
	case 5:
		set("region", 's', pick(l.regions))
		d.dates(year(), 1, 0, 0)
	case 6:
		d.dates(year(), 1, 0, 0)
		disc := in(2, 9)
		set("discount_lo", 'n', fmt.Sprintf("0.%02d", disc-1))
		set("discount_hi", 'n', fmt.Sprintf("0.%02d", disc+1))
		set("quantity", 'n', strconv.Itoa(in(24, 25)))
	case 7:
		ns := distinct(l.nations, 2)
		set("nation1", 's', ns[0])
		set("nation2", 's', ns[1])
		set("date_lo", 'd', "1995-01-01")
		set("date_hi", 'd', "1996-12-31")
	case 8:
		n := rng.IntN(len(l.nations))
		set("nation", 's', l.nations[n])
		set("region", 's', l.regions[l.nationRegion[n]])
		set("type", 's', pick(l.types))
		set("date_lo", 'd', "1995-01-01")
		set("date_hi", 'd', "1996-12-31")
	case 9:
		set("color", 's', "%"+pick(l.colors)+"%")
	case 10:
		d.dates(month(1, 24), 0, 3, 0)
	case 11:
		set("nation", 's', pick(l.nations))
		set("fraction", 'n', strconv.FormatFloat(0.0001/sf, 'f', 10, 64))
	case 12:
		ms := distinct(l.modes, 2)
		set("shipmode1", 's', ms[0])
		set("shipmode2", 's', ms[1])
		d.dates(year(), 1, 0, 0)
	case 13:
		set("pattern", 's', "%"+pick(q13Word1)+"%"+pick(q13Word2)+"%")
	case 14:
		d.dates(month(0, 59), 0, 1, 0)
	case 15:
		d.dates(month(0, 57), 0, 3, 0)
	case 16:
		set("brand", 's', brand())
		w := strings.Fields(pick(l.types))
		set("type", 's', w[0]+" "+w[1]+"%")
		for i, sz := range rng.Perm(50)[:8] {
			set("size"+strconv.Itoa(i+1), 'n', strconv.Itoa(sz+1))
		}
	case 17:
		set("brand", 's', brand())
		set("container", 's', pick(l.containers))
	case 18:
		set("quantity", 'n', strconv.Itoa(in(312, 315)))
	case 19:
		for i, r := range [3][2]int{{1, 10}, {10, 20}, {20, 30}} {
			n := strconv.Itoa(i + 1)
			qty := in(r[0], r[1])
			set("brand"+n, 's', brand())
			set("quantity"+n, 'n', strconv.Itoa(qty))
			set("quantity"+n+"_hi", 'n', strconv.Itoa(qty+10))
		}
	case 20:
		set("color", 's', pick(l.colors)+"%")
		d.dates(year(), 1, 0, 0)
		set("nation", 's', pick(l.nations))
	case 21:
		set("nation", 's', pick(l.nations))
	case 22:
		for i, c := range rng.Perm(25)[:7] {
			set("code"+strconv.Itoa(i+1), 's', strconv.Itoa(10+c))
		}
	default:
		panic(fmt.Sprintf("tpch: no query %d", q))
	}
	return d
}

// Qualification is query q's parameters for the validation of clause
// 2.4.q.4 (qgen -d): the values with which the specification's answer set
// was made.
func Qualification(q int, sf float64) Draw {
	d := Draw{Query: q, lits: map[string]lit{}}
	set := func(k string, kind byte, v string) { d.lits[k] = lit{kind, v} }
	date := func(s string, years, months, days int) {
		t, _ := time.Parse(dateFmt, s)
		d.dates(t, years, months, days)
	}
	switch q {
	case 1:
		set("date", 'd', "1998-09-02") // 1998-12-01 - 90 days
	case 2:
		set("size", 'n', "15")
		set("type", 's', "%BRASS")
		set("region", 's', "EUROPE")
	case 3:
		set("segment", 's', "BUILDING")
		set("date", 'd', "1995-03-15")
	case 4:
		date("1993-07-01", 0, 3, 0)
	case 5:
		set("region", 's', "ASIA")
		date("1994-01-01", 1, 0, 0)
	case 6:
		date("1994-01-01", 1, 0, 0)
		set("discount_lo", 'n', "0.05")
		set("discount_hi", 'n', "0.07")
		set("quantity", 'n', "24")
	case 7:
		set("nation1", 's', "FRANCE")
		set("nation2", 's', "GERMANY")
		set("date_lo", 'd', "1995-01-01")
		set("date_hi", 'd', "1996-12-31")
	case 8:
		set("nation", 's', "BRAZIL")
		set("region", 's', "AMERICA")
		set("type", 's', "ECONOMY ANODIZED STEEL")
		set("date_lo", 'd', "1995-01-01")
		set("date_hi", 'd', "1996-12-31")
	case 9:
		set("color", 's', "%green%")
	case 10:
		date("1993-10-01", 0, 3, 0)
	case 11:
		set("nation", 's', "GERMANY")
		set("fraction", 'n', strconv.FormatFloat(0.0001/sf, 'f', 10, 64))
	case 12:
		set("shipmode1", 's', "MAIL")
		set("shipmode2", 's', "SHIP")
		date("1994-01-01", 1, 0, 0)
	case 13:
		set("pattern", 's', "%special%requests%")
	case 14:
		date("1995-09-01", 0, 1, 0)
	case 15:
		date("1996-01-01", 0, 3, 0)
	case 16:
		set("brand", 's', "Brand#45")
		set("type", 's', "MEDIUM POLISHED%")
		for i, sz := range []string{"49", "14", "23", "45", "19", "3", "36", "9"} {
			set("size"+strconv.Itoa(i+1), 'n', sz)
		}
	case 17:
		set("brand", 's', "Brand#23")
		set("container", 's', "MED BOX")
	case 18:
		set("quantity", 'n', "300")
	case 19:
		for i, b := range []string{"Brand#12", "Brand#23", "Brand#34"} {
			n := strconv.Itoa(i + 1)
			qty := []int{1, 10, 20}[i]
			set("brand"+n, 's', b)
			set("quantity"+n, 'n', strconv.Itoa(qty))
			set("quantity"+n+"_hi", 'n', strconv.Itoa(qty+10))
		}
	case 20:
		set("color", 's', "forest%")
		date("1994-01-01", 1, 0, 0)
		set("nation", 's', "CANADA")
	case 21:
		set("nation", 's', "SAUDI ARABIA")
	case 22:
		for i, c := range []string{"13", "31", "23", "29", "30", "18", "17"} {
			set("code"+strconv.Itoa(i+1), 's', c)
		}
	default:
		panic(fmt.Sprintf("tpch: no query %d", q))
	}
	return d
}

// streamOrders is the order in which query stream s runs the 22 queries
// (Appendix A); a stream beyond the table takes row s mod 41.
var streamOrders = [41][22]int{
	{14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12},
	{21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4},
	{6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21},
	{8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3},
	{5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20},
	{21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9},
	{10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21},
	{18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12},
	{19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11},
	{8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16},
	{6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5},
	{15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7},
	{1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15},
	{21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19},
	{2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6},
	{16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18},
	{1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21},
	{3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12},
	{14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16},
	{4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1},
	{16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8},
	{20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2},
	{16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17},
	{18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7},
	{7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16},
	{18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9},
	{13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16},
	{14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19},
	{10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11},
	{10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4},
	{7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2},
	{2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22},
	{15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2},
	{15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1},
	{1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2},
	{14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11},
	{9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19},
	{13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20},
	{20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9},
	{3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2},
	{13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19},
}

// StreamOrder is the order of the 22 queries in query stream s (0 is the
// power test's).
func StreamOrder(s int) [22]int { return streamOrders[s%len(streamOrders)] }
