package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
		WHERE table_name = concat('` + "`" + `', DATABASE(), '` + "`.`inserts`" + `') AND index_name = 'PRIMARY' AND page_type = 'INDEX'),
		(SELECT count(*) FROM information_schema.innodb_buffer_page
		WHERE table_name = concat('` + "`" + `', DATABASE(), '` + "`.`inserts`" + `') AND index_name = 'PRIMARY' AND page_type = 'INDEX')`,
	"sqlite": "SELECT count(*), 100.0 * sum(pgsize - unused) / sum(pgsize) FROM dbstat WHERE name = 'inserts' AND aggregate = FALSE AND pagetype = 'leaf'",
}

// cachedPages reads how many of the index's pages were in MariaDB's buffer
// pool when the run measured it, from its method ("... innodb_buffer_page
// (66 of 97 pages cached)"); -1 when it does not say.
func cachedPages(method string) int64 {
	_, rest, ok := strings.Cut(method, "innodb_buffer_page (")
	var n, of int64
	if !ok {
		return -1
	}
	if _, err := fmt.Sscanf(rest, "%d of %d pages cached", &n, &of); err != nil {
		return -1
	}
	return n
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
					"--collect", "physical", "--physical", "detailed", "--create-extensions", "--json", "-")
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
				dest := []any{&leaves, &density}
				// MariaDB's density is that of the pages in its buffer
				// pool, which the other tests' loads on the shared server
				// may evict between the run's read and this one: it is
				// compared when the same pages are cached (none is read
				// in meanwhile: nothing reads the table).
				cached := int64(-1)
				if e.Name == "mysql" {
					dest = append(dest, &cached)
				}
				if _, err := db.QueryRow(context.Background(), c, direct[e.Name], nil, dest...); err != nil {
					t.Fatal(err)
				}
				if e.Name == "mysql" && cachedPages(got.Method) < 0 {
					t.Fatalf("%s: the method does not say how many pages were cached: %q", key, got.Method)
				}
				sameCache := e.Name != "mysql" || cached == cachedPages(got.Method)
				if !sameCache {
					t.Logf("%s: %d pages cached now, the run's method says %q: the density is not compared", key, cached, got.Method)
				}
				if leaves != *got.LeafPages || sameCache && ((density == nil) != (got.LeafDensityPct == nil) ||
					density != nil && math.Abs(*density-*got.LeafDensityPct) > 0.01) {
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

// pgExtensions lists the extensions of the database at url other than
// plpgsql.
func pgExtensions(t *testing.T, url string) []string {
	t.Helper()
	_, c := testdb.Connect(t, url)
	got, err := db.QueryStrings(context.Background(), c, "SELECT extname::text FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY extname")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestCollectAllCreatesNoExtensionUnlessTold(t *testing.T) {
	t.Parallel()
	url := testdb.Postgres(t, "dbh_phys_consent")
	home := t.TempDir()
	if r := dbh(t, home, "init", "inserts", "--db", url, "--prefill", "2000"); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	run := func(extra ...string) (result, results.Run) {
		t.Helper()
		js := filepath.Join(t.TempDir(), "run.json")
		r := dbh(t, home, append([]string{"run", "inserts", "--db", url, "-c", "2", "-t", "100", "-P", "0", "--json", js}, extra...)...)
		if r.code != 0 {
			t.Fatalf("run %v: %s", extra, r.all())
		}
		var got results.Run
		b, err := os.ReadFile(js)
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil || got.Physical == nil || len(got.Physical.After) == 0 {
			t.Fatalf("run %v: %v, physical %+v\n%s", extra, err, got.Physical, r.all())
		}
		return r, got
	}

	// --collect all (the default) on a database without pgstattuple: the
	// run measures what it can, says in one line what it would need, and
	// leaves the database as it was.
	r, got := run("--collect", "all")
	if ext := pgExtensions(t, url); len(ext) > 0 {
		t.Fatalf("a run without --create-extensions created %v", ext)
	}
	need := "note: this database has no pgstattuple or pageinspect"
	if strings.Count(r.stdout, need) != 1 || !strings.Contains(r.stdout, "--create-extensions creates them, or run CREATE EXTENSION pgstattuple; CREATE EXTENSION pageinspect") ||
		len(got.Physical.CreatedExtensions) > 0 || strings.Contains(r.all(), "created the extension") {
		t.Errorf("the run does not say once what it would need, or says it created something:\n%s", r.all())
	}
	for _, it := range got.Physical.After {
		if it.Error != "" || it.SizeBytes == nil {
			t.Errorf("without the extensions, %s was not measured: %+v", it.Name(), it)
		}
	}

	// With --create-extensions: created, said as the run goes and in its
	// summary, and recorded; --verbose shows every row of the table.
	r, got = run("--collect", "physical", "--create-extensions", "--verbose")
	if ext := pgExtensions(t, url); strings.Join(ext, ",") != "pageinspect,pgstattuple" {
		t.Fatalf("--create-extensions left %v", ext)
	}
	said := "created the extensions pgstattuple and pageinspect in the target database"
	if strings.Join(got.Physical.CreatedExtensions, ",") != "pgstattuple,pageinspect" || !strings.Contains(r.stderr, "dbharness: note: "+said) || !strings.Contains(r.stdout, "    "+said) {
		t.Errorf("created %v; the run says:\n%s", got.Physical.CreatedExtensions, r.all())
	}
	rows := 0
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, " before ") || strings.Contains(l, " after ") {
			rows++
		}
	}
	if n := len(got.Physical.Before) + len(got.Physical.After); rows != n || strings.Contains(r.stdout, "changed notably") {
		t.Errorf("--verbose shows %d rows of the physical table, want all %d:\n%s", rows, n, r.stdout)
	}

	// Without --verbose, only the items that changed notably: 100 rows
	// inserted by each of 2 clients are below the thresholds.
	r, got = run("--collect", "physical")
	notable := got.Physical.Notable()
	if len(got.Physical.CreatedExtensions) > 0 || strings.Contains(r.all(), "created the extension") {
		t.Errorf("extensions already there are reported created again:\n%s", r.all())
	}
	if len(notable) == 0 && !strings.Contains(r.stdout, "none of the 2 tables and indexes measured changed notably over the run (--verbose shows them)") {
		t.Errorf("nothing changed notably, but the summary does not say so in one line:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, " before ") && len(notable) == 0 {
		t.Errorf("rows shown though nothing changed notably:\n%s", r.stdout)
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
	r := dbh(t, home, "run", "null", "--db", testdb.SQLite(t), "-t", "50", "-P", "0", "--no-save", "--collect", "physical", "--json", "-")
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
