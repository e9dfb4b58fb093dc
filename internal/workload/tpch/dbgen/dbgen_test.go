package dbgen_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

func mustNew(t *testing.T, sf float64) *dbgen.Gen {
	t.Helper()
	g, err := dbgen.New(sf)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The first lines of dbgen's SF 1 files (dbgen -s 1, and -U 1 for the
// refresh set), as published with dbgen's output.
var dbgenFirstLines = []struct {
	t    dbgen.Table
	line string
}{
	{dbgen.Region, "0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final requests. regular accounts are according to |"},
	{dbgen.Nation, "0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|"},
	{dbgen.Supplier, "1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|each slyly above the careful|"},
	{dbgen.Customer, "1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular, ironic epitaphs nag e|"},
	{dbgen.Part, "1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED COPPER|7|JUMBO PKG|901.00|ly. slyly ironi|"},
	{dbgen.PartSupp, "1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the carefully pending foxes. furiously regular deposits sleep slyly. carefully bold realms above the ironic dependencies haggle careful|"},
	{dbgen.Orders, "1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |"},
	{dbgen.LineItem, "1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|"},
}

func TestFirstRowsAtScaleOneAreDbgens(t *testing.T) {
	t.Parallel()
	g := mustNew(t, 1)
	for _, c := range dbgenFirstLines {
		got, _, _ := strings.Cut(string(g.AppendTable(nil, c.t, 1, 1)), "\n")
		if got != c.line {
			t.Errorf("%s: first line\n got %s\nwant %s", c.t.Name(), got, c.line)
		}
	}
	// orders.tbl.u1's first line and delete.1's first keys.
	o := g.RF1(1, nil)
	if got, want := strings.TrimSuffix(string(o[0].Append(nil)), "\n"),
		"9|12658|O|129872.68|1998-07-06|4-NOT SPECIFIED|Clerk#000000248|0| blithely final packages cajole. regular waters are final requests. regular ac|"; got != want {
		t.Errorf("RF1 set 1: first order\n got %s\nwant %s", got, want)
	}
	if len(o) != 1500 {
		t.Errorf("RF1 set 1 has %d orders, want SF x 1,500", len(o))
	}
	del := g.RF2(1)
	if fmt.Sprint(del[:10]) != "[1 2 3 4 5 6 7 32 33 34]" || len(del) != 1500 {
		t.Errorf("RF2 set 1: %d keys starting %v, want 1500 starting [1 2 3 4 5 6 7 32 33 34]", len(del), del[:10])
	}
}

// digest hashes the .tbl lines of a table's rows generated in batches of
// size step (0: one batch).
func digest(g *dbgen.Gen, t dbgen.Table, rows, step int64) string {
	if step == 0 {
		step = rows
	}
	h := sha256.New()
	var b []byte
	for first := int64(1); first <= rows; first += step {
		b = g.AppendTable(b[:0], t, first, min(step, rows-first+1))
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestBatchesGiveTheSameBytesAsOnePass(t *testing.T) {
	t.Parallel()
	g := mustNew(t, 0.01)
	for _, tb := range []dbgen.Table{dbgen.Supplier, dbgen.Customer, dbgen.Part, dbgen.PartSupp, dbgen.Orders, dbgen.LineItem} {
		rows := g.Span(tb)
		one := digest(g, tb, rows, 0)
		for _, step := range []int64{1, 7, 333, 1000} {
			if tb >= dbgen.Orders && step == 1 {
				step = 13
			}
			if got := digest(g, tb, rows, step); got != one {
				t.Errorf("%s: batches of %d give other bytes than one pass", tb.Name(), step)
			}
		}
		// And again: the same scale gives the same bytes.
		if again := digest(mustNew(t, 0.01), tb, rows, 0); again != one {
			t.Errorf("%s: a second generator gives other bytes", tb.Name())
		}
	}
	// The refresh sets, one after another or each alone.
	var a, b []byte
	for k := 1; k <= 3; k++ {
		for _, o := range g.RF1(k, nil) {
			a = o.Append(a)
		}
	}
	for k := 3; k >= 1; k-- {
		var part []byte
		for _, o := range mustNew(t, 0.01).RF1(k, nil) {
			part = o.Append(part)
		}
		b = append(part, b...)
	}
	if string(a) != string(b) {
		t.Error("refresh sets generated alone differ from sets generated in order")
	}
}

func TestRowCountsOfClause425(t *testing.T) {
	t.Parallel()
	// LINEITEM's counts are dbgen's at those scales.
	for _, c := range []struct {
		sf                                 float64
		supp, cust, part, ps, orders, line int64
	}{
		{0.001, 10, 150, 200, 800, 1500, 6005},
		{0.01, 100, 1500, 2000, 8000, 15000, 60175},
		{0.1, 1000, 15000, 20000, 80000, 150000, 600572},
		{1, 10000, 150000, 200000, 800000, 1500000, 6001215},
		{10, 100000, 1500000, 2000000, 8000000, 15000000, 59986052},
	} {
		g := mustNew(t, c.sf)
		want := map[dbgen.Table]int64{dbgen.Region: 5, dbgen.Nation: 25, dbgen.Supplier: c.supp, dbgen.Customer: c.cust,
			dbgen.Part: c.part, dbgen.PartSupp: c.ps, dbgen.Orders: c.orders, dbgen.LineItem: c.line}
		for _, tb := range dbgen.Tables {
			if got := g.RowCount(tb); got != want[tb] {
				t.Errorf("SF %g: %s has %d rows, want %d", c.sf, tb.Name(), got, want[tb])
			}
		}
	}
	if got := mustNew(t, 0.01).RefreshSize(); got != 10 {
		t.Errorf("SF 0.01: refresh sets of %d orders, want dbgen's 10", got)
	}
	if got := mustNew(t, 10).RefreshSize(); got != 15000 {
		t.Errorf("SF 10: refresh sets of %d orders, want SF x 1,500", got)
	}
}

func TestScaleFactorsOutsideDbgensAreRefused(t *testing.T) {
	t.Parallel()
	for _, sf := range []float64{0, -1, 0.0009, 1.5, 30000} {
		if _, err := dbgen.New(sf); err == nil {
			t.Errorf("scale factor %g accepted", sf)
		}
	}
	for _, sf := range []float64{0.001, 0.01, 0.5, 1, 3, 100} {
		if err := dbgen.CheckScale(sf); err != nil {
			t.Errorf("scale factor %g refused: %v", sf, err)
		}
	}
}

func TestRefreshKeysAreNewAndDeletedKeysExist(t *testing.T) {
	t.Parallel()
	g := mustNew(t, 0.01)
	initial := map[int64]bool{}
	for _, o := range g.Orders(1, g.RowCount(dbgen.Orders), nil) {
		initial[o.OrderKey] = true
		if o.OrderKey != dbgen.OrderKey(int64(len(initial))) {
			t.Fatalf("order %d has key %d, OrderKey says %d", len(initial), o.OrderKey, dbgen.OrderKey(int64(len(initial))))
		}
	}
	seen := map[int64]bool{}
	for k := 1; k <= 4; k++ {
		for _, o := range g.RF1(k, nil) {
			if initial[o.OrderKey] || seen[o.OrderKey] {
				t.Errorf("RF1 set %d: key %d is taken", k, o.OrderKey)
			}
			seen[o.OrderKey] = true
			if len(o.Lines) < 1 || len(o.Lines) > 7 {
				t.Errorf("RF1 set %d: order %d has %d lines", k, o.OrderKey, len(o.Lines))
			}
		}
		for _, key := range g.RF2(k) {
			if !initial[key] {
				t.Errorf("RF2 set %d: key %d is not an initial order's", k, key)
			}
			delete(initial, key)
		}
	}
}
