package tablescan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/tablescan"
	"github.com/dbharness/dbharness/internal/testdb"
)

const rows = 20000

func TestScansReadTheWholeTableOnPostgreSQL(t *testing.T) {
	url := testdb.Postgres(t, "dbh_tablescan")
	d, c := testdb.Connect(t, url)
	testdb.Exec(t, c, "CREATE TABLE scanned (id int PRIMARY KEY, filler text)",
		"INSERT INTO scanned SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g",
		"CREATE INDEX ON scanned (filler)", "VACUUM ANALYZE scanned")
	size := testdb.QueryInt64(t, d, "SELECT pg_relation_size('scanned')")
	pages := testdb.QueryInt64(t, d, "SELECT relpages FROM pg_class WHERE relname = 'scanned'")
	r, err := tablescan.Measure(context.Background(), d, tablescan.Config{Table: "scanned", Parallel: []int{1, 2}, Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "completed" || r.IO == nil || r.IO.SizeBytes != size || size != pages*8192 || len(r.IO.Steps) != 2 {
		t.Fatalf("run %s, io %+v; the table has %d bytes in %d pages", r.Status, r.IO, size, pages)
	}
	for i, st := range r.IO.Steps {
		if st.Rows != 2*rows || st.Bytes != 2*size || st.Threads != i+1 || st.MiBPerS <= 0 || st.RowsPerS <= 0 || st.Cache != "warm" {
			t.Fatalf("step %+v", st)
		}
	}
	notes := strings.Join(r.IO.Notes, "\n")
	for _, want := range []string{"plan, parallel 1: Aggregate (Plain, Simple) [Seq Scan (on scanned", "plan, parallel 2: ", "Gather", "workers planned 1", "cold scans not measured"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "Index") {
		t.Errorf("a plan uses an index:\n%s", notes)
	}
}

func TestScansReadTheWholeTableOnMariaDB(t *testing.T) {
	url := testdb.MySQL(t, "dbh_tablescan")
	d, c := testdb.Connect(t, url)
	testdb.Exec(t, c, "CREATE TABLE scanned (id int PRIMARY KEY, filler varchar(200), KEY f (filler)) ENGINE=InnoDB",
		"INSERT INTO scanned SELECT seq, repeat('x', 100) FROM seq_1_to_20000")
	r, err := tablescan.Measure(context.Background(), d, tablescan.Config{Table: "scanned", Parallel: []int{1}, Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	// data_length after the ANALYZE TABLE the scan ran: the clustered
	// index's pages.
	size := testdb.QueryInt64(t, d, "SELECT data_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'scanned'")
	pageSize := testdb.QueryInt64(t, d, "SELECT @@innodb_page_size")
	if r.IO.SizeBytes != size || size%pageSize != 0 || size < rows*100 || len(r.IO.Steps) != 1 {
		t.Fatalf("io %+v; data_length %d", r.IO, size)
	}
	if st := r.IO.Steps[0]; st.Rows != 2*rows || st.Bytes != 2*size || st.MiBPerS <= 0 {
		t.Fatalf("step %+v", st)
	}
	notes := strings.Join(r.IO.Notes, "\n")
	if !strings.Contains(notes, `"key":"PRIMARY"`) || strings.Contains(notes, `"key":"f"`) {
		t.Fatalf("the plan does not scan the clustered index:\n%s", notes)
	}
	if _, err := tablescan.Measure(context.Background(), d, tablescan.Config{Table: "scanned", Parallel: []int{1, 2}, Repeat: 1}); err == nil || !strings.Contains(err.Error(), "no parallel scan") {
		t.Fatalf("--parallel 2 on MariaDB gave %v", err)
	}
}

func TestAScanOfWhatCannotBeScannedSaysWhy(t *testing.T) {
	for _, e := range testdb.Engines(t, "dbh_tablescan_missing") {
		t.Run(e.Name, func(t *testing.T) {
			d := testdb.Open(t, e.URL)
			_, err := tablescan.Measure(context.Background(), d, tablescan.Config{Table: "missing", Parallel: []int{1}, Repeat: 1})
			switch {
			case e.Name == "sqlite":
				if !errors.Is(err, tablescan.ErrUnsupported) {
					t.Fatalf("SQLite gave %v", err)
				}
			case err == nil || !strings.Contains(err.Error(), "does not exist"):
				t.Fatalf("a missing table gave %v", err)
			}
		})
	}
}
