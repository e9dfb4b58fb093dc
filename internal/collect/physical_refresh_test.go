package collect

import (
	"context"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// On MariaDB, limited mode reads InnoDB's persistent statistics: the
// measurement after the run refreshes them first, so that rows inserted
// during the run show in its figures after it, and not before it.
func TestInnoDBsLimitedFiguresAfterTheRunAreRefreshed(t *testing.T) {
	d, c := testdb.Connect(t, testdb.MySQL(t, "dbh_phys_refresh"))
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (id bigint PRIMARY KEY, pad char(200))",
		"INSERT INTO t SELECT seq, 'x' FROM seq_1_to_1000", "ANALYZE TABLE t")
	p, rep := NewPhysical(d, []string{"t"}, evidence.PhysicalLimited, "", "test")
	if p == nil {
		t.Fatalf("no collector: %s", rep.Unavailable)
	}
	p.Before(ctx, c)
	// The run: forty times the rows, which InnoDB's own recount may or may
	// not have caught up with by the time the run ends.
	testdb.Exec(t, c, "INSERT INTO t SELECT seq, 'x' FROM seq_1001_to_40000")
	p.After(ctx, c)
	pages := func(items []evidence.PhysicalItem) int64 {
		for _, it := range items {
			if it.Primary && it.Pages != nil {
				return *it.Pages
			}
		}
		t.Fatalf("no primary key: %+v", items)
		return 0
	}
	if b, a := pages(rep.Before), pages(rep.After); a < 10*b {
		t.Errorf("the primary key has %d pages before and %d after forty times the rows: the figures after were not refreshed", b, a)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "after the run each table is refreshed first with ANALYZE TABLE") {
		t.Errorf("the notes do not say what was refreshed: %q", rep.Notes)
	}
}
