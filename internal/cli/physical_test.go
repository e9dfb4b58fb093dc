package cli_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// direct reads the primary key's leaf pages and density of the inserts
// table with the engine's own catalog query, as a user would, for the
// comparison with what the run recorded. MariaDB's density is that of the
// index's pages in the buffer pool.
var direct = map[string]string{
	"postgres": "SELECT leaf_pages, avg_leaf_density FROM pgstatindex('inserts_pkey')",
	"mysql": `SELECT (SELECT CAST(stat_value AS SIGNED) FROM mysql.innodb_index_stats
		WHERE database_name = DATABASE() AND table_name = 'inserts' AND index_name = 'PRIMARY' AND stat_name = 'n_leaf_pages'),
		(SELECT CAST(100 * sum(data_size) / (count(*) * @@innodb_page_size) AS DOUBLE) FROM information_schema.innodb_buffer_page
		WHERE table_name = concat('` + "`" + `', DATABASE(), '` + "`.`inserts`" + `') AND index_name = 'PRIMARY' AND page_type = 'INDEX')`,
	"sqlite": "SELECT count(*), 100.0 * sum(pgsize - unused) / sum(pgsize) FROM dbstat WHERE name = 'inserts' AND aggregate = FALSE AND pagetype = 'leaf'",
}

func TestRandomUUIDKeysLeaveEmptierMoreScatteredLeavesThanSerialKeys(t *testing.T) {
	t.Parallel()
	for _, e := range testdb.Engines(t, "dbh_phys_keys") {
		t.Run(e.Name, func(t *testing.T) {
			home := t.TempDir()
			pk := map[string]evidence.PhysicalItem{}
			for _, key := range []string{"serial", "uuid-random"} {
				// The same prefill, then the same rows inserted by two
				// clients.
				if r := dbh(t, home, "init", "inserts", "--db", e.URL, "--key", key, "--prefill", "3000"); r.code != 0 {
					t.Fatalf("init %s: %s", key, r.all())
				}
				r := dbh(t, home, "run", "inserts", "--db", e.URL, "-c", "2", "-t", "150", "--batch", "10", "-P", "0",
					"--collect", "physical", "--physical", "detailed", "--json", "-")
				if r.code != 0 {
					t.Fatalf("run %s: %s", key, r.all())
				}
				var run results.Run
				if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
					t.Fatal(err)
				}
				p := run.Physical
				if p == nil || p.Mode != "detailed" || len(p.Before) == 0 || len(p.After) == 0 {
					t.Fatalf("%s: no physical measurement: %+v\n%s", key, p, r.stderr)
				}
				var got *evidence.PhysicalItem
				for i, it := range p.After {
					if it.Error != "" {
						t.Fatalf("%s: %s: %s", key, it.Name(), it.Error)
					}
					if it.Primary {
						got = &p.After[i]
					}
				}
				if got == nil || got.LeafPages == nil {
					t.Fatalf("%s: no primary key with leaf pages after the run: %+v", key, p.After)
				}
				// The run's figures are the catalog's, read directly.
				_, c := testdb.Connect(t, e.URL)
				var leaves int64
				var density *float64
				if _, err := db.QueryRow(context.Background(), c, direct[e.Name], nil, &leaves, &density); err != nil {
					t.Fatal(err)
				}
				if leaves != *got.LeafPages || (density == nil) != (got.LeafDensityPct == nil) ||
					density != nil && math.Abs(*density-*got.LeafDensityPct) > 0.01 {
					t.Errorf("%s: the run says %d leaf pages, %s full; the catalog says %d, %s", key, *got.LeafPages,
						evidence.PctText(got.LeafDensityPct), leaves, evidence.PctText(density))
				}
				t.Logf("%s: %s, %d leaf pages, %s full, %s out of order (%s)", key, results.BytesText(got.SizeBytes), *got.LeafPages,
					evidence.PctText(got.LeafDensityPct), evidence.PctText(got.LeafFragmentationPct), got.Method)
				pk[key] = *got
			}
			s, u := pk["serial"], pk["uuid-random"]
			if s.LeafDensityPct == nil || u.LeafDensityPct == nil || *u.LeafDensityPct >= *s.LeafDensityPct {
				t.Errorf("leaf density: uuid-random %s, serial %s; want uuid-random's lower", evidence.PctText(u.LeafDensityPct), evidence.PctText(s.LeafDensityPct))
			}
			if e.Name == "mysql" {
				// InnoDB cannot say how its leaves are ordered: null, not 0.
				if s.LeafFragmentationPct != nil || u.LeafFragmentationPct != nil {
					t.Errorf("InnoDB's fragmentation should be null: %v %v", s.LeafFragmentationPct, u.LeafFragmentationPct)
				}
				return
			}
			if s.LeafFragmentationPct == nil || u.LeafFragmentationPct == nil || *u.LeafFragmentationPct <= *s.LeafFragmentationPct {
				t.Errorf("leaf fragmentation: uuid-random %s, serial %s; want uuid-random's higher",
					evidence.PctText(u.LeafFragmentationPct), evidence.PctText(s.LeafFragmentationPct))
			}
		})
	}
}

func TestABadPhysicalModeIsOneSentence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--physical", "fast"}, `--physical "fast": use limited, sampled, detailed or auto`},
		{[]string{"--collect", "os", "--physical", "detailed"}, "--physical detailed is for --collect physical"},
	} {
		r := dbh(t, home, append([]string{"run", "tpcb", "--no-save"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line saying %q:\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
}

func TestAWorkloadWithoutTablesSaysPhysicalWasNotMeasured(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := dbh(t, home, "run", "null", "--db", testdb.SQLite(t), "-T", "0.2", "-P", "0", "--no-save", "--collect", "physical", "--json", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.all())
	}
	var run results.Run
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatal(err)
	}
	if run.Physical == nil || run.Physical.Unavailable != "workload null names no tables" || !strings.Contains(r.stderr, "physical: not measured (workload null names no tables)") {
		t.Errorf("physical %+v\n%s", run.Physical, r.stderr)
	}
}
