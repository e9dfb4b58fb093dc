package sqlite_test

import (
	"testing"

	"github.com/dbharness/dbharness/internal/db/sqlite"
)

func TestTheNormalizerDropsEstimates(t *testing.T) {
	lite := sqlite.NormalizeSQLite([]sqlite.EQPRow{{2, 0, "SCAN a (~1000 rows)"}, {5, 0, "SEARCH b USING INDEX b_v (v=?)"}})
	if lite != "SCAN a; SEARCH b USING INDEX b_v (v=?)" {
		t.Errorf("sqlite: %s", lite)
	}
}
