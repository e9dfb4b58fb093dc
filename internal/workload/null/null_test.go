package null_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/null"
)

func TestNullOnEveryEngine(t *testing.T) {
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_classic_null") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			env := &workload.Env{DB: d, Progress: workload.NopProgress{}}
			drivers := []string{loadgen.DriverGoroutine}
			if e.Name == "postgres" {
				drivers = append(drivers, loadgen.DriverLoop)
			}
			for _, driver := range drivers {
				for _, mix := range []string{null.MixAlternate, null.MixOneConstant, null.MixOneRow} {
					w := &null.Null{Mix: mix}
					if err := w.Setup(ctx, env, nil); err != nil {
						t.Fatal(err)
					}
					// 2 clients x 50: the mix alone decides the counts.
					res, err := loadgen.Run(ctx, d, w, loadgen.Config{Clients: 2, Transactions: 50, MaxTries: 1,
						Interval: 100 * time.Millisecond, Driver: driver}, nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Ops) != len(w.Ops()) || res.Driver != driver {
						t.Fatalf("%s on %s: %d ops on the %s driver", mix, driver, len(res.Ops), res.Driver)
					}
					want := int64(100 / len(res.Ops))
					for _, o := range res.Ops {
						if o.Hist.TotalCount() != want || o.Errors != 0 {
							t.Errorf("%s/%s on %s: %d transactions, %d errors %v; want %d and none", mix, o.Name, driver,
								o.Hist.TotalCount(), o.Errors, res.ErrorSamples, want)
						}
					}
				}
			}
			res, err := (&null.Null{}).Check(ctx, env)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				if !r.Pass {
					t.Errorf("check %s: %s", r.Name, r.Detail)
				}
			}
			if err := (&null.Null{Mix: "both"}).Setup(ctx, env, nil); err == nil {
				t.Error("--mix both was accepted")
			}
		})
	}
}
