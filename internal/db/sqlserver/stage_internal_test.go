package sqlserver

import (
	"strings"
	"testing"
)

// TestAStagingTableIsKnownByItsTable: a load's staging table is known as a
// load into its own table's, and not as one of a table whose name starts
// the same or of a name that only looks like one.
func TestAStagingTableIsKnownByItsTable(t *testing.T) {
	long := strings.Repeat("x", 128)
	for _, c := range []struct {
		name, table string
		want        bool
	}{
		{stageName("acct", 4242, 1), "acct", true},
		{stageName("acct", 4242, 1), "ACCT", true},
		{strings.ToUpper(stageName("acct", 7, 30)), "acct", true},
		{stageName("acct_x", 1, 1), "acct", false},
		{stageName("acct", 1, 1), "acct_x", false},
		{stageName("acctx", 1, 1), "acct", false},
		{stagePrefix + stageTable("acct") + "_1", "acct", false},
		{stagePrefix + stageTable("acct") + "_1_", "acct", false},
		{stagePrefix + stageTable("acct") + "_1_2_3", "acct", false},
		{stagePrefix + stageTable("acct") + "_a_2", "acct", false},
		{"dbh_load_acct_7_30", "acct", false},
		{"acct", "acct", false},
		{stageName("dbo.acct", 9, 2), "dbo.acct", true},
		// Names that became alike are told apart by the hash.
		{stageName("dbo_acct", 9, 2), "dbo.acct", false},
		{stageName("dbo.acct", 9, 2), "dbo_acct", false},
		// A long table's name is cut: the staging table's stays within
		// the 63 characters Babelfish keeps whole, and a table whose
		// name begins the same is another's.
		{stageName(long, 4194304, 99999999), long, true},
		{stageName(long+"_history", 4194304, 1), long, false},
		{stageName(long, 4194304, 1), long + "_history", false},
	} {
		if len(c.name) > 63 {
			t.Errorf("staging table %s: %d characters, more than the 63 Babelfish keeps", c.name, len(c.name))
		}
		if got := isStageOf(c.name, c.table); got != c.want {
			t.Errorf("isStageOf(%q, %q) = %v, want %v", c.name, c.table, got, c.want)
		}
	}
}
