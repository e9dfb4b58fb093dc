package file

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// A file workload's statements are plan-checked with values drawn from
// their generators: a skewed choice gives a sequential scan for the common
// value and the index for the rare one, which is flagged.
func TestAFileWorkloadsSkewedParameterIsFlaggedParameterSensitive(t *testing.T) {
	src := skewFile + `transactions:
  - name: by_kind
    params:
      k: {gen: choice, values: [view, click, buy], weights: [90, 9, 1]}
      lo: {gen: uniform, min: 1, max: 199990}
    statements:
      - SELECT count(*) AS n FROM events WHERE kind = :k
      - SELECT id FROM events WHERE id = :n
      - SELECT count(*) FROM events WHERE id >= :lo AND id < :lo + 10
`
	w := openFile(t, src)
	url := testdb.Postgres(t, "dbh_cus_plans")
	initAndProfile(t, url, w)
	d := testdb.Open(t, url)
	ctx := context.Background()
	conn, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := w.Setup(ctx, &workload.Env{DB: d, Seed: 3, Progress: workload.NopProgress{}, Note: func(string) {}}, conn); err != nil {
		t.Fatal(err)
	}
	stmts := w.Statements()
	// by_kind.2 uses :n, returned by by_kind.1: left out.
	if len(stmts) != 2 || stmts[0].Name != "by_kind.1" || stmts[1].Name != "by_kind.3" {
		t.Fatalf("statements %+v", stmts)
	}
	k := stmts[0].Params[0]
	if k.Min != "buy" || k.Median != "view" || k.Max != "view" {
		t.Errorf(":k domain min %v median %v max %v, want buy, view, view", k.Min, k.Median, k.Max)
	}
	if p := stmts[1].Params; len(p) != 2 || p[0].Derive != nil || p[1].Derive == nil {
		t.Errorf(":lo used twice should be drawn once: %+v", p)
	}
	rep := (&collect.PlanCheck{DB: d, Stmts: stmts, Seed: 1}).Before(ctx, conn)
	// The generic plan (PostgreSQL) cannot be both plans: flagged too.
	if rep[0].Error != "" || len(rep[0].Plans) < 2 || !slices.Equal(rep[0].Flags, []string{collect.FlagParameterSensitive, collect.FlagGenericDiffers}) ||
		rep[0].Generic == nil {
		t.Fatalf("by_kind.1 is not flagged parameter-sensitive: %+v", rep[0])
	}
	for _, p := range rep[0].Plans {
		for _, ex := range p.Examples {
			common := ex.Params["k"] == "view"
			if common != strings.Contains(p.Shape, "Seq Scan") {
				t.Errorf("k=%v explains as %s", ex.Params["k"], p.Shape)
			}
		}
	}
	if rep[1].Error != "" || len(rep[1].Plans) != 1 || len(rep[1].Flags) != 0 {
		t.Errorf("by_kind.3: %+v", rep[1])
	}
	for _, p := range rep[1].Plans {
		for _, ex := range p.Examples {
			if ex.Params["lo"] == nil {
				t.Errorf("by_kind.3 example without :lo: %+v", ex)
			}
		}
	}
}
