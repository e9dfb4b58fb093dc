package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpcc"
)

// loadSmallTPCC loads one warehouse of a small TPC-C population (the
// command line loads the specification's, which takes longer) with its
// server-side routines.
func loadSmallTPCC(t *testing.T, url string) {
	t.Helper()
	d := testdb.Open(t, url)
	err := (&tpcc.TPCC{Warehouses: 1, Population: tpcc.Population{Items: 1000, Customers: 300, Undelivered: 90}}).
		Init(context.Background(), &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}})
	if err != nil {
		t.Fatal(err)
	}
}

type tpccRun struct {
	Config struct {
		WorkloadFlags map[string]string `json:"workload_flags"`
	} `json:"config"`
	Summary map[string]any `json:"summary"`
}

func readRun(t *testing.T, path string) tpccRun {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r tpccRun
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTPCCModesThroughTheCommandLine: server mode is the default, is
// recorded with the run and compared; HammerDB's figures are in the
// summary and the JSON; a database without the routines gets one sentence
// naming the init to run, and that init makes server mode work.
func TestTPCCModesThroughTheCommandLine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_cli_tpcc_modes")
	loadSmallTPCC(t, url)
	var ids []string
	for _, mode := range []string{"", "client"} {
		js := filepath.Join(home, "run-"+mode+".json")
		args := []string{"run", "tpcc", "--db", url, "-c", "2", "-t", "20", "-P", "0", "--collect", "none", "--json", js}
		if mode != "" {
			args = append(args, "--mode", mode)
		}
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("run %v: exit %d\n%s", args, r.code, r.all())
		}
		want := map[string]string{"": "server", "client": "client"}[mode]
		run := readRun(t, js)
		if got := run.Config.WorkloadFlags["mode"]; got != want {
			t.Errorf("--mode %q: recorded workload_flags.mode %q, want %q", mode, got, want)
		}
		for _, k := range []string{"nopm", "tpm", "tpmc", "hammerdb_nopm", "hammerdb_tpm", "server_tpm"} {
			// hammerdb_tpm counts every database of the server, which the
			// suite's other tests create, drop and reset (inserts' init
			// runs pg_stat_reset) meanwhile: another database's reset
			// leaves it, saying so, and a reset of this one's counters
			// leaves it out, saying so, as the run must.
			if k == "hammerdb_tpm" && strings.Contains(r.stderr, "hammerdb_tpm left out: its counter went down during the run") {
				continue
			}
			if _, ok := run.Summary[k].(float64); !ok {
				t.Errorf("%s mode: summary.%s missing from the JSON: %v", want, k, run.Summary)
			}
			if !strings.Contains(r.stdout, "\n"+k+": ") {
				t.Errorf("%s mode: the summary does not show %s:\n%s", want, k, r.stdout)
			}
		}
		// The two NOPMs, equal here, are told apart by their labels, in
		// the JSON and the summary; NOPM is the result a sweep tabulates.
		labels, _ := run.Summary["metric_labels"].(map[string]any)
		ln, _ := labels["nopm"].(string)
		lh, _ := labels["hammerdb_nopm"].(string)
		if ln == "" || lh == "" || ln == lh || run.Summary["headline_metric"] != "nopm" ||
			!strings.Contains(r.stdout, "  ("+ln+")\n") || !strings.Contains(r.stdout, "  ("+lh+")\n") {
			t.Errorf("%s mode: labels %v, headline %v:\n%s", want, labels, run.Summary["headline_metric"], r.stdout)
		}
		if run.Summary["hammerdb_nopm"] != run.Summary["nopm"] {
			t.Errorf("%s mode: hammerdb_nopm %v differs from nopm %v (no warm-up: they count the same New-Orders)", want,
				run.Summary["hammerdb_nopm"], run.Summary["nopm"])
		}
		ids = append(ids, strings.Fields(r.stdout[strings.Index(r.stdout, "saved as run "):])[3])
	}
	if r := dbh(t, home, "compare", ids[0], ids[1]); r.code != 0 || !strings.Contains(r.stdout, "workload.mode") ||
		!strings.Contains(r.stdout, "server") || !strings.Contains(r.stdout, "client") {
		t.Errorf("compare does not show the modes: exit %d\n%s", r.code, r.all())
	}
	// compare shows the workload's own figures of both runs, NOPM, the
	// headline, first: in the text and in the JSON, as each run saved it.
	r := dbh(t, home, "compare", ids[0], ids[1])
	if !strings.Contains(r.stdout, "Workload figures, B against A") ||
		!regexp.MustCompile(`(?m)^  nopm \*\s+[\d,.]+\s+[\d,.]+\s+\S+\s+\S`).MatchString(r.stdout) || !strings.Contains(r.stdout, "\n  hammerdb_nopm ") {
		t.Errorf("compare does not show the workload figures: exit %d\n%s", r.code, r.all())
	}
	r = dbh(t, home, "compare", ids[0], ids[1], "--json")
	var cmp results.Comparison
	if err := json.Unmarshal([]byte(r.stdout), &cmp); err != nil || len(cmp.Figures) == 0 {
		t.Fatalf("compare --json: %v, figures %+v\n%s", err, cmp.Figures, r.all())
	}
	if f := cmp.Figures[0]; f.Name != "nopm" || !f.Headline || f.A == nil || f.B == nil ||
		*f.A != readRun(t, filepath.Join(home, "run-.json")).Summary["nopm"] || *f.B != readRun(t, filepath.Join(home, "run-client.json")).Summary["nopm"] {
		t.Errorf("compare --json: first figure %+v, want nopm of both runs, the headline", f)
	}

	_, c := testdb.Connect(t, url)
	if err := c.Exec(context.Background(), "DROP FUNCTION tpcc_routines_version"); err != nil {
		t.Fatal(err)
	}
	r = dbh(t, home, "run", "tpcc", "--db", url, "-t", "20", "-P", "0", "--no-save")
	msg := strings.TrimSpace(r.stderr)
	if r.code != 1 || strings.Contains(msg, "\n") || !strings.Contains(msg, "run `dbharness init tpcc --routines-only --db "+url+"`") {
		t.Errorf("server mode without the routines: exit %d, want 1 and one sentence naming the init to run:\n%s", r.code, r.all())
	}
	if r := dbh(t, home, "init", "tpcc", "--routines-only", "--db", url); r.code != 0 {
		t.Fatalf("init --routines-only: exit %d\n%s", r.code, r.all())
	}
	if r := dbh(t, home, "run", "tpcc", "--db", url, "-c", "2", "-t", "20", "--warmup", "1s", "-P", "0", "--no-save"); r.code != 0 ||
		!strings.Contains(r.stdout, "hammerdb_nopm: ") {
		t.Errorf("server mode after init --routines-only, with a warm-up: exit %d\n%s", r.code, r.all())
	}
	if r := dbh(t, home, "check", "tpcc", "--db", url); r.code != 0 {
		t.Errorf("check after the runs: exit %d\n%s", r.code, r.all())
	}
}

// TestTPCCOnSQLiteRunsClientModeAndSaysSo: SQLite has no routines, so
// server mode (the default) runs as client mode, says so, and records it.
func TestTPCCOnSQLiteRunsClientModeAndSaysSo(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.SQLite(t)
	loadSmallTPCC(t, url)
	js := filepath.Join(home, "run.json")
	r := dbh(t, home, "run", "tpcc", "--db", url, "--mode", "server", "-t", "20", "-P", "0", "--no-save", "--json", js)
	if r.code != 0 || !strings.Contains(r.stderr, "note: tpcc: sqlite has no server-side functions or procedures; running --mode client") {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	run := readRun(t, js)
	if run.Config.WorkloadFlags["mode"] != "client" {
		t.Errorf("recorded mode %q, want client", run.Config.WorkloadFlags["mode"])
	}
	if _, ok := run.Summary["hammerdb_nopm"]; !ok {
		t.Errorf("no hammerdb_nopm on SQLite: %v", run.Summary)
	}
	if _, ok := run.Summary["hammerdb_tpm"]; ok {
		t.Errorf("hammerdb_tpm on SQLite, which counts no transactions: %v", run.Summary)
	}
}
