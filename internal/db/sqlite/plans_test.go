package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db/sqlite"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestTheNormalizerDropsEstimates(t *testing.T) {
	lite := sqlite.NormalizeSQLite([]sqlite.EQPRow{{2, 0, "SCAN a (~1000 rows)"}, {5, 0, "SEARCH b USING INDEX b_v (v=?)"}})
	if lite != "SCAN a; SEARCH b USING INDEX b_v (v=?)" {
		t.Errorf("sqlite: %s", lite)
	}
}

// An INSERT has no query plan on SQLite: the check says so instead of
// showing an empty plan.
func TestAnInsertHasNoQueryPlanAndSaysSo(t *testing.T) {
	ctx := context.Background()
	d, c := testdb.Connect(t, testdb.SQLite(t))
	testdb.Exec(t, c, "CREATE TABLE t (k integer PRIMARY KEY, v text)")
	ex := d.(evidence.Explainer)
	ins, err := ex.Explain(ctx, c, "INSERT INTO t (k, v) VALUES ($1, $2)", []any{1, "x"})
	if err != nil {
		t.Fatal(err)
	}
	if ins != sqlite.NoQueryPlan {
		t.Errorf("INSERT's plan: %q", ins)
	}
	sel, err := ex.Explain(ctx, c, "SELECT v FROM t WHERE k = $1", []any{1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sel, "SEARCH t USING INTEGER PRIMARY KEY") {
		t.Errorf("SELECT's plan: %q", sel)
	}
}
