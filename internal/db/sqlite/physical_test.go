package sqlite_test

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestSQLitesPhysicalModesAgreeAndLimitedReadsOnlyThePathToALeaf(t *testing.T) {
	d, c := testdb.Connect(t, testdb.SQLite(t))
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (id blob PRIMARY KEY, pad text) WITHOUT ROWID", "CREATE INDEX t_pad ON t (pad)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO t SELECT randomblob(16), hex(randomblob(20)) FROM n")
	pr := d.(evidence.PhysicalReader)
	got := map[string][]evidence.PhysicalItem{}
	for _, mode := range evidence.PhysicalModes {
		items, err := pr.Physical(ctx, c, "t", mode)
		if err != nil {
			t.Fatal(err)
		}
		// The table's b-tree is its primary key's (WITHOUT ROWID), then
		// the index.
		if len(items) != 2 || items[0].Index != nil || !items[0].Primary || items[1].Index == nil || *items[1].Index != "t_pad" {
			t.Fatalf("%s: %+v", mode, items)
		}
		got[mode] = items
	}
	for i := range got["detailed"] {
		l, s, dt := got["limited"][i], got["sampled"][i], got["detailed"][i]
		if dt.Pages == nil || *dt.Pages < 100 || *dt.PagesRead != *dt.Pages || dt.LeafDensityPct == nil || dt.LeafFragmentationPct == nil {
			t.Fatalf("detailed: %+v", dt)
		}
		if *l.PagesRead != *dt.Depth || *l.Depth != *dt.Depth || *l.PagesRead >= *dt.PagesRead || l.LeafDensityPct != nil {
			t.Errorf("%s: limited read %d pages to depth %d; detailed read %d to depth %d", dt.Name(), *l.PagesRead, *l.Depth, *dt.PagesRead, *dt.Depth)
		}
		if *s.PagesRead != *dt.PagesRead || *s.LeafDensityPct != *dt.LeafDensityPct || *s.LeafFragmentationPct != *dt.LeafFragmentationPct {
			t.Errorf("%s: sampled (which reads every page on SQLite) %+v differs from detailed %+v", dt.Name(), s, dt)
		}
	}
}
