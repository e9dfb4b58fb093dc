package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestNormalizeUnitKnowsPostgresUnits(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want db.Setting
	}{
		{16384, "8kB", db.Setting{Value: 128 << 20, Unit: "bytes"}},
		{4096, "kB", db.Setting{Value: 4 << 20, Unit: "bytes"}},
		{1024, "MB", db.Setting{Value: 1 << 30, Unit: "bytes"}},
		{512, "B", db.Setting{Value: 512, Unit: "bytes"}},
		{300, "s", db.Setting{Value: 300000, Unit: "ms"}},
		{5, "min", db.Setting{Value: 300000, Unit: "ms"}},
		{200, "ms", db.Setting{Value: 200, Unit: "ms"}},
	} {
		got, ok := db.NormalizeUnit(c.v, c.unit)
		if !ok || got != c.want {
			t.Errorf("%v %s: %+v %v, want %+v", c.v, c.unit, got, ok, c.want)
		}
	}
	if _, ok := db.NormalizeUnit(1, "furlongs"); ok {
		t.Error("an unknown unit was normalised")
	}
}

// Every engine shows its settings as the server does and normalises the
// sizes to bytes: the figures agree with what the server says directly.
func TestInfoShowsAndNormalisesSettingsAsTheServerDoes(t *testing.T) {
	ctx := context.Background()
	checks := map[string][]struct{ name, shown, normalized string }{
		"postgres": {
			{"shared_buffers", "SHOW shared_buffers", "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'"},
			{"work_mem", "SHOW work_mem", "SELECT setting::bigint * 1024 FROM pg_settings WHERE name = 'work_mem'"},
			{"checkpoint_timeout", "SHOW checkpoint_timeout", "SELECT setting::bigint * 1000 FROM pg_settings WHERE name = 'checkpoint_timeout'"},
			{"max_connections", "SHOW max_connections", "SELECT setting::bigint FROM pg_settings WHERE name = 'max_connections'"},
		},
		"mysql": {
			{"innodb_buffer_pool_size", "", "SELECT @@innodb_buffer_pool_size"},
			{"max_connections", "SELECT @@max_connections", "SELECT @@max_connections"},
		},
		"sqlite": {
			{"page_size", "PRAGMA page_size", "PRAGMA page_size"},
		},
	}
	for _, e := range testdb.Engines(t, "dbh_db_settings") {
		t.Run(e.Name, func(t *testing.T) {
			d, c := testdb.Connect(t, e.URL)
			info, err := d.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range checks[e.Name] {
				n, ok := info.Normalized[ch.name]
				if !ok {
					t.Errorf("%s is not normalised: %+v", ch.name, info.Normalized)
					continue
				}
				want, err := db.QueryInt64(ctx, c, ch.normalized)
				if err != nil {
					t.Fatal(err)
				}
				if n.Value != float64(want) {
					t.Errorf("%s normalised to %v %s, the server says %d", ch.name, n.Value, n.Unit, want)
				}
				if ch.shown != "" {
					shown, err := db.QueryString(ctx, c, ch.shown)
					if err != nil {
						t.Fatal(err)
					}
					if info.Settings[ch.name] != shown {
						t.Errorf("%s shown as %q, the server shows %q", ch.name, info.Settings[ch.name], shown)
					}
				}
			}
			if e.Name == "mysql" {
				// Shown in the largest unit that divides it, as PostgreSQL does.
				want := fmt.Sprintf("%.0f", info.Normalized["innodb_buffer_pool_size"].Value/(1<<20)) + "MB"
				if got := info.Settings["innodb_buffer_pool_size"]; got != want {
					t.Errorf("innodb_buffer_pool_size shown as %q, want %q", got, want)
				}
			}
		})
	}
}

// TableSize counts small tables and gives their bytes.
func TestTableSizeCountsRowsAndBytes(t *testing.T) {
	ctx := context.Background()
	for _, e := range testdb.Engines(t, "dbh_db_tablesize") {
		t.Run(e.Name, func(t *testing.T) {
			d, c := testdb.Connect(t, e.URL)
			testdb.Exec(t, c, "CREATE TABLE sized (k int PRIMARY KEY, v varchar(100))")
			for i := 0; i < 250; i++ {
				testdb.Exec(t, c, fmt.Sprintf("INSERT INTO sized VALUES (%d, 'row %d padded out to some width')", i, i))
			}
			ts, err := d.(db.TableSizer).TableSize(ctx, c, "sized")
			if err != nil {
				t.Fatal(err)
			}
			if ts.Rows != 250 || !ts.RowsExact {
				t.Errorf("rows %d exact %v, want 250 counted", ts.Rows, ts.RowsExact)
			}
			if ts.Bytes <= 0 || ts.IndexBytes < 0 {
				t.Errorf("bytes %d, index bytes %d", ts.Bytes, ts.IndexBytes)
			}
		})
	}
}
