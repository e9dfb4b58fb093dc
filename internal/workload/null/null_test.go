package null_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/engine"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/null"
)

func TestNullOnEveryEngine(t *testing.T) {
	for _, e := range testdb.Engines(t, "dbh_classic_null") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			ctx := context.Background()
			env := &workload.Env{DB: d, Progress: workload.NopProgress{}}
			for _, mix := range []string{null.MixAlternate, null.MixOneConstant, null.MixOneRow} {
				w := &null.Null{Mix: mix}
				if err := w.Setup(ctx, env, nil); err != nil {
					t.Fatal(err)
				}
				res, err := engine.Run(ctx, d, w, engine.Config{Clients: 2, Duration: 300 * time.Millisecond, MaxTries: 1, Interval: 100 * time.Millisecond}, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Ops) != len(w.Ops()) {
					t.Fatalf("%s: %d ops", mix, len(res.Ops))
				}
				for _, o := range res.Ops {
					if o.Hist.TotalCount() < 20 || o.Errors != 0 {
						t.Errorf("%s/%s: %d transactions, %d errors %v", mix, o.Name, o.Hist.TotalCount(), o.Errors, res.ErrorSamples)
					}
				}
				if mix == null.MixAlternate {
					a, b := res.Ops[0].Hist.TotalCount(), res.Ops[1].Hist.TotalCount()
					if a == 0 || b == 0 || a > 2*b || b > 2*a {
						t.Errorf("alternate ran %d one_constant and %d one_row", a, b)
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
