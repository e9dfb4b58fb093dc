package tpch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpch"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

func env(d db.DB) *workload.Env {
	return &workload.Env{DB: d, Loaders: 2, Progress: workload.NopProgress{}}
}

// checkTheLoad checks init's SF 0.01 on one engine: the row counts of
// clause 4.2.5 pass, the rows are dbgen's (first customer, a line item's
// money and dates), and the scale reads back.
func checkTheLoad(t *testing.T, l loaded) {
	t.Helper()
	ctx := context.Background()
	d := l.d
	w := &tpch.TPCH{}
	res, err := w.Check(ctx, env(d))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 8 {
		t.Fatalf("%d checks, want one per table", len(res))
	}
	for _, r := range res {
		if !r.Pass {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
	}
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sf, err := tpch.ReadScale(ctx, env(d), c)
	if err != nil || sf != 0.01 {
		t.Errorf("scale read back: %v, %v; want 0.01", sf, err)
	}
	var name, addr, phone, seg string
	var bal float64
	if _, err := db.QueryRow(ctx, c, "SELECT c_name, c_address, c_phone, c_acctbal, c_mktsegment FROM customer WHERE c_custkey = 1", nil,
		&name, &addr, &phone, &bal, &seg); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s|%s|%s|%.2f|%s", name, addr, phone, bal, seg); got != "Customer#000000001|IVhzIApeRb ot,c,E|25-989-741-2988|711.56|BUILDING" {
		t.Errorf("customer 1 is %s", got)
	}
	// Sums over the generator's rows and the loaded ones agree.
	g, _ := dbgen.New(0.01)
	var cents, days int64
	for _, o := range g.Orders(1, g.RowCount(dbgen.Orders), nil) {
		for _, l := range o.Lines {
			cents += int64(l.ExtendedPrice)
			if l.ShipDate.String() <= "1995-06-17" {
				days++
			}
		}
	}
	var sum float64
	var shipped int64
	if _, err := db.QueryRow(ctx, c, "SELECT sum(l_extendedprice), sum(CASE WHEN l_shipdate <= '1995-06-17' THEN 1 ELSE 0 END) FROM lineitem", nil, &sum, &shipped); err != nil {
		t.Fatal(err)
	}
	if int64(sum*100+0.5) != cents || shipped != days {
		t.Errorf("lineitem: sum(l_extendedprice) %.2f and %d shipped by 1995-06-17; the generator's are %d cents and %d", sum, shipped, cents, days)
	}
}

// aMissingBatchFails deletes a batch of line items (orders 1..10,000's)
// and check must fail on LINEITEM.
func aMissingBatchFails(t *testing.T, l loaded) {
	t.Helper()
	ctx := context.Background()
	c, err := l.d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testdb.Exec(t, c, fmt.Sprintf("DELETE FROM lineitem WHERE l_orderkey <= %d", dbgen.OrderKey(10000)))
	res, err := (&tpch.TPCH{}).Check(ctx, env(l.d))
	if err != nil {
		t.Fatal(err)
	}
	if r := res[7]; r.Pass {
		t.Errorf("lineitem without a batch passes: %s", r.Detail)
	}
}
