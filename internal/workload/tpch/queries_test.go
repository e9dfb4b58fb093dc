package tpch

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// Every query renders in every dialect with each of its parameters
// substituted and no marker left.
func TestEveryQueryRendersInEveryDialect(t *testing.T) {
	dialects := map[string]db.Caps{
		"standard":  {},
		"sqlite":    {DateLiteral: "'%s'", YearOf: "CAST(substr(%s, 1, 4) AS INTEGER)"},
		"sqlserver": {Limit: " OFFSET 0 ROWS FETCH NEXT %d ROWS ONLY", DateLiteral: "CAST('%s' AS date)", YearOf: "DATEPART(year, %s)"},
	}
	for name, caps := range dialects {
		for q := 1; q <= 22; q++ {
			for _, d := range []Draw{DrawParams(q, 1, 9, 0.01), Qualification(q, 0.01)} {
				s := Text(q, caps, d.Params(caps))
				if paramRE.MatchString(s) || strings.ContainsAny(s, "{}") {
					t.Errorf("%s Q%d: a marker is left in %s", name, q, s)
				}
				if len(queries[q].kinds) == 0 {
					t.Errorf("Q%d has no column kinds", q)
				}
			}
		}
	}
	s := Text(1, db.Caps{DateLiteral: "'%s'"}, Qualification(1, 1).Params(db.Caps{DateLiteral: "'%s'"}))
	if !strings.Contains(s, "l_shipdate <= '1998-09-02'") {
		t.Errorf("Q1's validation date (1998-12-01 less 90 days) in SQLite's dialect is missing: %s", s)
	}
}

// Appendix A's rows are each an order of the 22 queries.
func TestEveryStreamOrderIsAPermutationOfThe22Queries(t *testing.T) {
	for s := range streamOrders {
		o := StreamOrder(s)
		sorted := slices.Clone(o[:])
		slices.Sort(sorted)
		for i, q := range sorted {
			if q != i+1 {
				t.Fatalf("stream %d's order %v is not a permutation of 1..22", s, o)
			}
		}
	}
	if StreamOrder(0)[0] != 14 || StreamOrder(1)[0] != 21 || StreamOrder(41) != StreamOrder(0) {
		t.Errorf("stream orders do not follow Appendix A")
	}
}

// A stream's parameters are the same for the same seed, differ between
// streams, and stay within clause 2.4's ranges.
func TestParametersAreDeterministicPerSeedAndStreamAndInRange(t *testing.T) {
	for q := 1; q <= 22; q++ {
		if DrawParams(q, 2, 5, 1).String() != DrawParams(q, 2, 5, 1).String() {
			t.Errorf("Q%d: two draws with one seed differ", q)
		}
	}
	differ := 0
	for q := 1; q <= 22; q++ {
		if DrawParams(q, 1, 5, 1).String() != DrawParams(q, 2, 5, 1).String() {
			differ++
		}
	}
	if differ < 15 {
		t.Errorf("only %d of 22 queries draw other parameters in another stream", differ)
	}
	for s := range 200 {
		d := DrawParams(1, s, 3, 1)
		day, _ := time.Parse(dateFmt, d.lits["date"].v)
		if delta := ymd(1998, 12, 1).Sub(day).Hours() / 24; delta < 60 || delta > 120 {
			t.Fatalf("Q1's DELTA %v is outside [60, 120]", delta)
		}
		d = DrawParams(4, s, 3, 1)
		if v := d.lits["date"].v; v < "1993-01-01" || v > "1997-10-01" || !strings.HasSuffix(v, "-01") {
			t.Fatalf("Q4's date %s is not the first of a month of 1993-01..1997-10", v)
		}
		d = DrawParams(22, s, 3, 1)
		seen := map[string]bool{}
		for i := 1; i <= 7; i++ {
			c := d.lits["code"+string(rune('0'+i))].v
			if c < "10" || c > "34" || seen[c] {
				t.Fatalf("Q22's codes %v are not 7 distinct codes of 10..34", d)
			}
			seen[c] = true
		}
	}
	if f := DrawParams(11, 0, 1, 10).lits["fraction"].v; f != "0.0000100000" {
		t.Errorf("Q11's fraction at SF 10 is %s, want 0.0001/10", f)
	}
}

// The figures follow clause 5.4's formulas.
func TestFiguresFollowClause54(t *testing.T) {
	var qs [22]time.Duration
	for i := range qs {
		qs[i] = 2 * time.Second
	}
	// All 24 intervals 2 s: the geometric mean is 2, Power@Size 3600 x SF / 2.
	if p := PowerAtSize(10, qs, 2*time.Second, 2*time.Second); math.Abs(p-18000) > 1e-6 {
		t.Errorf("Power@Size %v, want 18000", p)
	}
	// A query under a thousandth of the longest counts as that.
	qs[0], qs[1] = time.Microsecond, 2000*time.Second
	adj := adjustIntervals(qs[:])
	if adj[0] != 2 {
		t.Errorf("a 1 µs query beside a 2000 s one counts %v s, want 2", adj[0])
	}
	if tp := ThroughputAtSize(1, 2, 88*time.Second); math.Abs(tp-1800) > 1e-9 {
		t.Errorf("Throughput@Size %v, want 2 x 22 x 3600 / 88", tp)
	}
	if q := QphHAtSize(100, 400); q != 200 {
		t.Errorf("QphH@Size %v, want 200", q)
	}
}

// Answers compare under clause 2.1.3.5's rules.
func TestAnswersCompareWithinTheRoundingRules(t *testing.T) {
	a := Answer{{"R", "F", "100", "1000.00", "900", "950", "25.50", "100", "0.05", "3"}}
	ok := Answer{{"R", "F", "100.00", "1050.50", "900", "950", "25.7", "100", "0.0500", "3"}}
	if err := CompareAnswers(1, a, ok); err != nil {
		t.Errorf("within the rules: %v", err)
	}
	for _, bad := range []Answer{
		{{"R", "F", "100", "1000.00", "900", "950", "25.50", "100", "0.05", "4"}}, // a count
		{{"R", "F", "100", "1100.01", "900", "950", "25.50", "100", "0.05", "3"}}, // a sum off by more than 100
		{{"R", "F", "100", "1000.00", "900", "950", "25.90", "100", "0.05", "3"}}, // an average off by more than 1%
		{{"A", "F", "100", "1000.00", "900", "950", "25.50", "100", "0.05", "3"}}, // a value
		{},
	} {
		if CompareAnswers(1, a, bad) == nil {
			t.Errorf("%v passed against %v", bad, a)
		}
	}
	// Tied rows may come in either order.
	x := Answer{{"1", "5"}, {"2", "5"}}
	y := Answer{{"2", "5"}, {"1", "5"}}
	if err := CompareAnswers(13, x, y); err != nil {
		t.Errorf("rows in another order: %v", err)
	}
}
