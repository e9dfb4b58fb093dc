package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// parallelCosts talk PostgreSQL's planner into a parallel plan on the
// tiny tables of a test.
var parallelCosts = []string{"--set", "parallel_setup_cost=0", "--set", "parallel_tuple_cost=0", "--set", "min_parallel_table_scan_size=0"}

// dopRun is what a run's JSON says of --dop and its plans' workers.
type dopRun struct {
	Config struct {
		DOP int `json:"dop"`
	} `json:"config"`
	Engine struct {
		Settings map[string]string `json:"settings"`
	} `json:"engine"`
	Plans []struct {
		Statement string `json:"statement"`
		Workers   *struct {
			Planned     *int   `json:"planned"`
			Launched    *int   `json:"launched"`
			NotMeasured string `json:"not_measured"`
		} `json:"workers"`
	} `json:"plans"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestDOPOnPostgres: run --dop 1 plans no parallel worker, --dop 2 plans
// them (max_parallel_workers_per_gather = 1), each recorded in the run's
// JSON and summary; transtats's --parallel is --dop; a sweep --dop 1,2
// makes both points, with their workers in its per-point table.
func TestDOPOnPostgres(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_cli_dop")
	if r := dbh(t, home, "init", "transtats", "--db", url, "--rows", "10"); r.code != 0 {
		t.Fatal(r.all())
	}
	runDOP := func(args ...string) dopRun {
		t.Helper()
		js := filepath.Join(t.TempDir(), "run.json")
		r := dbh(t, home, append(append([]string{"run", "transtats", "--db", url, "--query", "mix", "-t", "2", "-P", "0", "--collect", "plans", "--json", js}, parallelCosts...), args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "parallel workers (one EXPLAIN ANALYZE of each statement") {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.all())
		}
		var run dopRun
		readJSON(t, js, &run)
		if len(run.Plans) != 2 {
			t.Fatalf("%v: plans %+v", args, run.Plans)
		}
		return run
	}
	t.Run("--dop 1 plans no worker", func(t *testing.T) {
		run := runDOP("--dop", "1")
		if run.Config.DOP != 1 || run.Engine.Settings["max_parallel_workers_per_gather"] != "0" {
			t.Errorf("config dop %d, max_parallel_workers_per_gather %q", run.Config.DOP, run.Engine.Settings["max_parallel_workers_per_gather"])
		}
		for _, p := range run.Plans {
			if w := p.Workers; w == nil || w.NotMeasured != "" || w.Planned == nil || *w.Planned != 0 || *w.Launched != 0 {
				t.Errorf("%s: workers %+v; want 0 planned and launched", p.Statement, w)
			}
		}
	})
	t.Run("--parallel 2 is --dop 2 and plans workers", func(t *testing.T) {
		run := runDOP("--parallel", "2")
		if run.Config.DOP != 2 || run.Engine.Settings["max_parallel_workers_per_gather"] != "1" {
			t.Errorf("config dop %d, max_parallel_workers_per_gather %q", run.Config.DOP, run.Engine.Settings["max_parallel_workers_per_gather"])
		}
		for _, p := range run.Plans {
			// Launched may fall short of planned when the shared server's
			// pool of workers (max_parallel_workers) is busy.
			if w := p.Workers; w == nil || w.NotMeasured != "" || w.Planned == nil || *w.Planned < 1 || w.Launched == nil || *w.Launched > *w.Planned {
				t.Errorf("%s: workers %+v; want at least 1 planned, and launched no more", p.Statement, w)
			}
		}
	})
	t.Run("conflicting values are refused", func(t *testing.T) {
		for _, args := range [][]string{
			{"--dop", "2", "--parallel", "3"},
			{"--dop", "2", "--set", "max_parallel_workers_per_gather=3"},
		} {
			r := dbh(t, home, append([]string{"run", "transtats", "--db", url, "-t", "1", "-P", "0"}, args...)...)
			if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "give one of them") {
				t.Errorf("%v: exit %d, want 2 and one sentence\n%s", args, r.code, r.all())
			}
		}
	})
	t.Run("a sweep --dop 1,2 makes both points", func(t *testing.T) {
		js := filepath.Join(t.TempDir(), "sweep.json")
		r := dbh(t, home, append([]string{"sweep", "transtats", "--db", url, "--dop", "1,2", "--clients", "1", "-t", "1", "--collect", "plans", "--json", js}, parallelCosts...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "workers: parallel workers planned/launched") {
			t.Fatalf("exit %d\n%s", r.code, r.all())
		}
		var sw struct {
			Vary []struct {
				Flag   string   `json:"flag"`
				Values []string `json:"values"`
			} `json:"vary"`
			Points []struct {
				Vary    map[string]string `json:"vary"`
				Runs    []string          `json:"runs"`
				Workers *struct {
					Planned float64 `json:"planned"`
				} `json:"workers"`
			} `json:"points"`
		}
		readJSON(t, js, &sw)
		if len(sw.Vary) != 1 || sw.Vary[0].Flag != "dop" || strings.Join(sw.Vary[0].Values, ",") != "1,2" || len(sw.Points) != 2 {
			t.Fatalf("vary %+v, %d points", sw.Vary, len(sw.Points))
		}
		for _, p := range sw.Points {
			if len(p.Runs) != 1 || p.Workers == nil || (p.Vary["dop"] == "1") != (p.Workers.Planned == 0) {
				t.Errorf("point %v: runs %v, workers %+v", p.Vary, p.Runs, p.Workers)
			}
		}
	})
}

// TestDOPRefused: --dop on an engine without intra-query parallelism, and
// a --dop that is not a degree, are each one sentence and exit 2.
func TestDOPRefused(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	sqlite := testdb.SQLite(t)
	if r := dbh(t, home, "init", "transtats", "--db", sqlite, "--rows", "8"); r.code != 0 {
		t.Fatal(r.all())
	}
	maria := testdb.MySQL(t, "dbh_cli_dop")
	oneSentence := func(t *testing.T, args []string, want string) {
		t.Helper()
		r := dbh(t, home, args...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, want 2 and one sentence with %q\n%s", args, r.code, want, r.all())
		}
	}
	oneSentence(t, []string{"run", "transtats", "--db", sqlite, "--parallel", "4", "-T", "0.2"}, "--parallel 4 is --dop 4: the sqlite engine runs every query on one thread")
	for _, args := range [][]string{
		{"run", "transtats", "--db", sqlite, "--dop", "2", "-T", "0.2"},
		{"run", "tpcb", "--db", maria, "--dop", "2", "-T", "0.2"},
		{"sweep", "tpcb", "--db", maria, "--dop", "1,2", "--clients", "1", "-T", "0.2"},
	} {
		oneSentence(t, args, "no intra-query parallelism")
	}
	for _, v := range []string{"0", "-1", "x", "", "1025"} {
		oneSentence(t, []string{"run", "transtats", "--db", sqlite, "--dop=" + v, "-T", "0.2"}, "--dop")
	}
	for _, v := range []string{"0", "-2", "1,x", "", ",", "1,2000"} {
		oneSentence(t, []string{"sweep", "transtats", "--db", sqlite, "--dop=" + v, "--clients", "1", "-T", "0.2"}, "--dop")
	}
	oneSentence(t, []string{"sweep", "transtats", "--db", sqlite, "--dop", "1,2", "--vary", "dop=4", "--clients", "1", "-T", "0.2"}, "give one of them")
}
