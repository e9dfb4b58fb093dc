package mysql_test

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestInnoDBsPhysicalModesAgreeAndSayWhatInnoDBCannot(t *testing.T) {
	d, c := testdb.Connect(t, testdb.MySQL(t, "dbh_phys_modes"))
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (id binary(16) NOT NULL PRIMARY KEY, pad char(100), KEY t_pad (pad)) ENGINE=InnoDB",
		"INSERT INTO t SELECT unhex(md5(seq)), 'x' FROM seq_1_to_20000")
	pr := d.(evidence.PhysicalReader)
	if _, ok := d.(evidence.PhysicalStatsChanger); !ok {
		t.Fatal("InnoDB's leaf modes analyze the table: auto must know it")
	}
	got := map[string][]evidence.PhysicalItem{}
	for _, mode := range evidence.PhysicalModes {
		items, err := pr.Physical(ctx, c, "t", mode)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(items) != 3 || items[0].Index != nil || *items[1].Index != "PRIMARY" || !items[1].Primary || *items[2].Index != "t_pad" {
			t.Fatalf("%s: want the table, PRIMARY, then t_pad: %+v", mode, items)
		}
		got[mode] = items
	}
	for i := range got["detailed"] {
		l, s, dt := got["limited"][i], got["sampled"][i], got["detailed"][i]
		for _, x := range []evidence.PhysicalItem{l, s, dt} {
			// InnoDB cannot say: null, never 0.
			if x.Depth != nil || x.LeafFragmentationPct != nil || x.Error != "" {
				t.Errorf("%s: %+v", x.Method, x)
			}
		}
		// Limited reads the catalog only; the leaf modes analyze the
		// table, which reads pages InnoDB does not count for us.
		if l.PagesRead == nil || *l.PagesRead != 0 || s.PagesRead != nil || dt.PagesRead != nil {
			t.Errorf("%s: pages read limited %v sampled %v detailed %v", dt.Name(), l.PagesRead, s.PagesRead, dt.PagesRead)
		}
		// Sampled and detailed read the same freshly analyzed catalog.
		if *s.Pages != *dt.Pages || *s.SizeBytes != *dt.SizeBytes || (dt.Index != nil && *s.LeafPages != *dt.LeafPages) {
			t.Errorf("%s: sampled %d pages, detailed %d", dt.Name(), *s.Pages, *dt.Pages)
		}
		if dt.Index == nil {
			continue
		}
		// Only detailed reads the buffer pool's pages for the density.
		if l.LeafDensityPct != nil || s.LeafDensityPct != nil || dt.LeafDensityPct == nil || *dt.LeafDensityPct <= 0 || *dt.LeafDensityPct > 100 {
			t.Errorf("%s: density limited %v sampled %v detailed %v", dt.Name(), l.LeafDensityPct, s.LeafDensityPct, dt.LeafDensityPct)
		}
	}
}
