package collect_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// skewStatement reads rows of a value that is common (1) or rare (the
// others).
var skewStatement = workload.Statement{Name: "by_v", SQL: "SELECT id, pad FROM skew WHERE v = $1",
	Params: []workload.ParamDomain{{Name: "v", Min: int64(1), Median: int64(1), Max: int64(5000),
		Sample: func(rng *rand.Rand) any { return int64(1 + rng.IntN(5000)) }}}}

func TestASkewedColumnIsFlaggedParameterSensitiveOnPostgres(t *testing.T) {
	d, c := testdb.Connect(t, testdb.Postgres(t, "dbh_ev_plans"))
	// 99% of the rows have v = 1; the others have rare values. PostgreSQL
	// reads the whole table for v = 1 and uses the index for a rare value.
	testdb.Exec(t, c,
		"CREATE TABLE skew (id int PRIMARY KEY, v int NOT NULL, pad text)",
		"INSERT INTO skew SELECT g, CASE WHEN g % 100 = 0 THEN g / 100 ELSE 1 END, repeat('x', 50) FROM generate_series(1, 200000) g",
		"CREATE INDEX skew_v ON skew (v)",
		"ANALYZE skew")
	ctx := context.Background()
	pc := &collect.PlanCheck{DB: d, Stmts: []workload.Statement{skewStatement}, Seed: 7}
	rep := pc.Before(ctx, c)
	if len(rep) != 1 || rep[0].Error != "" {
		t.Fatalf("report: %+v", rep)
	}
	sp := rep[0]
	if len(sp.Plans) < 2 || !has(sp.Flags, collect.FlagParameterSensitive) {
		t.Fatalf("the skewed statement is not flagged parameter-sensitive: %+v", sp)
	}
	var seq, idx bool
	for _, p := range sp.Plans {
		for _, ex := range p.Examples {
			v := ex.Params["v"].(int64)
			switch {
			case v == 1 && strings.HasPrefix(p.Shape, "Seq Scan (on skew)"):
				seq = true
			case v != 1 && strings.Contains(p.Shape, "using skew_v"):
				idx = true
			}
		}
		if strings.Contains(p.Shape, "cost") || strings.Contains(p.Shape, "rows") {
			t.Errorf("the shape keeps estimates: %s", p.Shape)
		}
	}
	if !seq || !idx {
		t.Fatalf("expected a seq scan for v=1 and an index scan for rare values: %+v", sp.Plans)
	}
	// The generic plan of the prepared statement reads through the index
	// for every value, v=1 included, expecting 1/2000 of the rows. Drawn
	// mostly rare (uniform over 1..5000), the first executions' custom
	// plans are cheaper, so the plan cache keeps planning each value.
	g := sp.Generic
	if g == nil || !strings.Contains(g.Shape, "skew_v") || !has(sp.Flags, collect.FlagGenericDiffers) || g.Chosen {
		t.Errorf("generic plan %+v, flags %v", g, sp.Flags)
	}
	// Drawn as the data is (v=1 for 99 of 100), the custom plans are
	// sequential scans, dearer than the generic index scan: the plan cache
	// switches to it, and then reads 99% of the table through the index.
	common := skewStatement
	common.Params = []workload.ParamDomain{{Name: "v", Min: int64(1), Median: int64(1), Max: int64(5000),
		Sample: func(rng *rand.Rand) any {
			if rng.IntN(100) == 0 {
				return int64(2 + rng.IntN(4999))
			}
			return int64(1)
		}}}
	rc := (&collect.PlanCheck{DB: d, Stmts: []workload.Statement{common}, Seed: 7}).Before(ctx, c)
	if g := rc[0].Generic; g == nil || !g.Chosen || !has(rc[0].Flags, collect.FlagGenericDiffers) {
		t.Errorf("drawn as the data is: generic plan %+v, flags %v", g, rc[0].Flags)
	}
	// Sent afresh each time (pgbench's simple and extended modes), the
	// statement is planned for its values every time: no generic plan.
	oneShot := common
	oneShot.OneShot = true
	ro := (&collect.PlanCheck{DB: d, Stmts: []workload.Statement{oneShot}, Seed: 7}).Before(ctx, c)
	if ro[0].Generic != nil || has(ro[0].Flags, collect.FlagGenericDiffers) || !has(ro[0].Flags, collect.FlagParameterSensitive) {
		t.Errorf("a one-shot statement: generic plan %+v, flags %v", ro[0].Generic, ro[0].Flags)
	}
	if left, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'dbharness_plan_check%'"); err != nil || left != 0 {
		t.Errorf("%d plan-check statements left prepared (%v)", left, err)
	}
	if mode, err := db.QueryString(ctx, c, "SELECT current_setting('plan_cache_mode')"); err != nil || mode != "auto" {
		t.Errorf("plan_cache_mode left at %q (%v)", mode, err)
	}
	// Nothing changed: no flag. Then the index goes away: the rare values'
	// plan changes and is flagged.
	if rep = pc.After(ctx, c); has(rep[0].Flags, collect.FlagChanged) {
		t.Fatalf("flagged as changed although nothing changed: %+v", rep[0])
	}
	testdb.Exec(t, c, "DROP INDEX skew_v")
	pc2 := &collect.PlanCheck{DB: d, Stmts: pc.Stmts, Seed: 7}
	pc2.Before(ctx, c)
	testdb.Exec(t, c, "CREATE INDEX skew_v ON skew (v)", "ANALYZE skew")
	rep = pc2.After(ctx, c)
	if !has(rep[0].Flags, collect.FlagChanged) || len(rep[0].Changed) == 0 {
		t.Fatalf("a plan that changed during the run is not flagged: %+v", rep[0])
	}
	for _, ch := range rep[0].Changed {
		if ch.Params["v"].(int64) == 1 {
			t.Errorf("v=1 still reads the whole table and should not be listed as changed: %+v", ch)
		}
	}
	// The statement's session settings are the clients': with index
	// scans off every value reads the whole table, and nothing is flagged.
	st := skewStatement
	st.Session = []string{"SET enable_indexscan = off", "SET enable_bitmapscan = off"}
	rep = (&collect.PlanCheck{DB: d, Stmts: []workload.Statement{st}, Seed: 7}).Before(ctx, c)
	if rep[0].Error != "" || len(rep[0].Plans) != 1 || !strings.HasPrefix(rep[0].Plans[0].Shape, "Seq Scan (on skew)") || len(rep[0].Flags) != 0 {
		t.Errorf("with index scans off in the session: %+v", rep[0])
	}
}

func TestPlansAreCapturedAndStableOnEveryEngine(t *testing.T) {
	for _, e := range testdb.Engines(t, "dbh_ev_plans_all") {
		t.Run(e.Name, func(t *testing.T) {
			d, c := testdb.Connect(t, e.URL)
			testdb.Exec(t, c, "CREATE TABLE acc (aid int NOT NULL PRIMARY KEY, bal int)")
			for i := 0; i < 20; i++ {
				testdb.Exec(t, c, "INSERT INTO acc VALUES ("+strconv.Itoa(i*50+1)+", 0)")
			}
			aid := workload.ParamDomain{Name: "aid", Min: int64(1), Median: int64(501), Max: int64(951),
				Sample: func(rng *rand.Rand) any { return int64(1 + 50*rng.IntN(20)) }}
			delta := workload.ParamDomain{Name: "delta", Min: int64(-5), Max: int64(5),
				Sample: func(rng *rand.Rand) any { return int64(rng.IntN(11) - 5) }}
			stmts := []workload.Statement{
				{Name: "select", SQL: "SELECT bal FROM acc WHERE aid = $1", Params: []workload.ParamDomain{aid}},
				{Name: "update", SQL: "UPDATE acc SET bal = bal + $1 WHERE aid = $2", Params: []workload.ParamDomain{delta, aid}},
			}
			pc := &collect.PlanCheck{DB: d, Stmts: stmts, Seed: 1}
			rep := pc.Before(context.Background(), c)
			rep = pc.After(context.Background(), c)
			for _, sp := range rep {
				if sp.Error != "" {
					t.Fatalf("%s: %s", sp.Statement, sp.Error)
				}
				if len(sp.Plans) != 1 || len(sp.Flags) != 0 {
					t.Errorf("%s: a primary-key lookup should have one stable plan: %+v", sp.Statement, sp)
				}
				if sp.Plans[0].Count < 4 || len(sp.Plans[0].Shape) == 0 || len(sp.Plans[0].Fingerprint) != 16 {
					t.Errorf("%s: plan %+v", sp.Statement, sp.Plans[0])
				}
				t.Logf("%s: %s", sp.Statement, sp.Plans[0].Shape)
			}
		})
	}
}

func TestDrawsCoverTheBoundsTheMedianAndRandomValues(t *testing.T) {
	st := workload.Statement{Params: []workload.ParamDomain{
		{Name: "a", Min: int64(1), Max: int64(100), Sample: func(r *rand.Rand) any { return int64(1 + r.IntN(100)) }},
		{Name: "b", Min: int64(-5), Max: int64(5), Sample: func(r *rand.Rand) any { return int64(r.IntN(11) - 5) }},
	}}
	ds := collect.Draws(st, rand.New(rand.NewPCG(1, 2)), 3)
	labels := map[string][]any{}
	for _, d := range ds {
		labels[d.Label] = d.Values
	}
	want := map[string][]any{"min": {int64(1), int64(-5)}, "max": {int64(100), int64(5)}, "median": {int64(50), int64(0)},
		"min a": {int64(1), int64(0)}, "max b": {int64(50), int64(5)}}
	for k, v := range want {
		if got := labels[k]; len(got) != 2 || got[0] != v[0] || got[1] != v[1] {
			t.Errorf("draw %q = %v, want %v", k, got, v)
		}
	}
	if len(ds) < 8 || ds[len(ds)-1].Label != "random" {
		t.Errorf("expected bounds, medians and random draws: %+v", ds)
	}
}

func TestDerivedParametersFollowTheOthersInEveryDraw(t *testing.T) {
	// A range [lo, lo+20): drawing hi on its own would explain ranges the
	// workload never sends.
	st := workload.Statement{Params: []workload.ParamDomain{
		{Name: "lo", Min: int64(1), Max: int64(1000), Sample: func(r *rand.Rand) any { return int64(1 + r.IntN(1000)) }},
		{Name: "hi", Derive: func(e []any) any { return e[0].(int64) + 20 }},
		{Name: "k", Min: int64(0), Max: int64(9), Sample: func(r *rand.Rand) any { return int64(r.IntN(10)) }},
	}}
	ds := collect.Draws(st, rand.New(rand.NewPCG(3, 4)), 5)
	labels := map[string]bool{}
	for _, d := range ds {
		labels[d.Label] = true
		lo, ok1 := d.Values[0].(int64)
		hi, ok2 := d.Values[1].(int64)
		if !ok1 || !ok2 || hi != lo+20 {
			t.Errorf("draw %q = %v: hi is not lo+20", d.Label, d.Values)
		}
	}
	if labels["min hi"] || labels["max hi"] {
		t.Errorf("the derived parameter was drawn at its own bounds: %v", labels)
	}
	if !labels["min lo"] || !labels["max k"] {
		t.Errorf("the free parameters were not drawn at their bounds: %v", labels)
	}
}

func has(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
