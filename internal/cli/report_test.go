package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestRunWritesReportsAndReportRereadsThem runs tpcb on PostgreSQL with
// --html, --csv and --markdown, then renders the saved run again with
// `report` from the results store and from the run's JSON file.
func TestRunWritesReportsAndReportRereadsThem(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_rep_cli")
	if r := dbh(t, home, "init", "tpcb", "--db", url, "--scale", "1"); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.all())
	}
	out := t.TempDir()
	html, csvDir, md, js := filepath.Join(out, "run.html"), filepath.Join(out, "csv"), filepath.Join(out, "run.md"), filepath.Join(out, "run.json")
	r := dbh(t, home, "run", "tpcb", "--db", url, "-T", "2", "--warmup", "1", "-c", "2", "--html", html, "--csv", csvDir, "--markdown", md, "--json", js)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	for _, s := range []string{"HTML report written to " + html, "CSV files written to " + csvDir, "Markdown summary written to " + md} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("run output lacks %q:\n%s", s, r.stdout)
		}
	}
	page := readFile(t, html)
	for _, s := range []string{`<section id="summary">`, `<section id="throughput">`, `<section id="latency">`, `<section id="spectrum">`,
		`<section id="config">`, "postgresql", "tpcb_like", ">warm-up</text>"} {
		if !strings.Contains(page, s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("HTML report holds a script")
	}
	for _, f := range []string{"intervals.csv", "interval_ops.csv", "ops.csv", "errors.csv"} {
		if b := readFile(t, filepath.Join(csvDir, f)); !strings.HasPrefix(b, "run_id,") {
			t.Errorf("%s: %q", f, b)
		}
	}
	if lines := strings.Count(readFile(t, filepath.Join(csvDir, "intervals.csv")), "\n"); lines < 4 {
		t.Errorf("intervals.csv has %d lines, want a header and at least 3 intervals (1 s warm-up + 2 s)", lines)
	}
	if m := readFile(t, md); !strings.Contains(m, "| tpcb_like | ") || !strings.Contains(m, "on postgresql") {
		t.Errorf("Markdown summary:\n%s", m)
	}
	var run struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(readFile(t, js)), &run); err != nil || run.RunID == "" {
		t.Fatalf("run JSON: %v", err)
	}

	t.Run("report from the store", func(t *testing.T) {
		again := filepath.Join(out, "again.html")
		r := dbh(t, home, "report", run.RunID[:15], "--html", again, "--markdown", "-")
		if r.code != 0 {
			t.Fatalf("report: exit %d\n%s", r.code, r.all())
		}
		if !strings.Contains(r.stdout, "### dbharness run `"+run.RunID+"`") || strings.Contains(r.stdout, "HTML report written") {
			t.Errorf("report --markdown - wrote to standard output:\n%s", r.stdout)
		}
		if p := readFile(t, again); !strings.Contains(p, run.RunID) || !strings.Contains(p, `<section id="spectrum">`) {
			t.Error("report from the store lacks the run or its spectrum")
		}
	})
	t.Run("report from the JSON file", func(t *testing.T) {
		dir := filepath.Join(out, "csv2")
		if r := dbh(t, home, "report", js, "--csv", dir); r.code != 0 {
			t.Fatalf("report: exit %d\n%s", r.code, r.all())
		}
		if readFile(t, filepath.Join(dir, "ops.csv")) != readFile(t, filepath.Join(csvDir, "ops.csv")) {
			t.Error("ops.csv from the JSON file differs from the one the run wrote")
		}
	})
}

func TestReportReadsSweepAndComparisonFiles(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	one, eff := 1.0, 0.9
	sw := results.Sweep{SchemaVersion: results.SweepSchemaVersion, SweepID: "sw-20261122-110000-beef", Workload: "tpcb", Clients: []int{1, 2, 4, 8},
		Repeat: 1, Status: results.StatusCompleted, StartTime: time.Now(), EndTime: time.Now(), USLError: "fewer than 4 distinct client counts"}
	for i, n := range []int{1, 2, 4} {
		sw.Points = append(sw.Points, results.SweepPoint{Clients: n, TPSMedian: 100 * float64(n) * 0.9, TPSCILow: 80 * float64(n), TPSCIHigh: 95 * float64(n),
			CIMethod: "intervals", Efficiency: &eff, Runs: []string{"r" + string(rune('0'+i))},
			Ops: []results.SweepOpStat{{Name: "tpcb_like", TPSMedian: 90 * float64(n), P50Ms: 1 + float64(n), P99Ms: 5 * float64(n), InflationP50: &one, InflationP99: &one}}})
	}
	cmp := results.Comparison{SchemaVersion: results.CompareSchemaVersion, A: results.CompareSide{Kind: "run", ID: "a1"}, B: results.CompareSide{Kind: "run", ID: "b1"},
		Method: "intervals", Level: 0.95, Ops: []results.CompareOp{{Name: "total", TPSA: 100, TPSB: 90, Verdict: "slower"}},
		ConfigDifferences: []results.ConfigDiff{{Key: "config.clients", A: "1", B: "2"}}}
	for name, v := range map[string]any{"sweep.json": sw, "compare.json": cmp, "other.json": map[string]int{"x": 1}} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := dbh(t, home, "report", filepath.Join(dir, "sweep.json"), "--html", filepath.Join(dir, "sweep.html"), "--csv", filepath.Join(dir, "sw"))
	if r.code != 0 {
		t.Fatalf("report sweep: exit %d\n%s", r.code, r.all())
	}
	if p := readFile(t, filepath.Join(dir, "sweep.html")); !strings.Contains(p, `<section id="scaling">`) || !strings.Contains(p, "fewer than 4 distinct client counts") {
		t.Error("sweep report lacks its scaling section or why there is no USL fit")
	}
	if !strings.HasPrefix(readFile(t, filepath.Join(dir, "sw", "sweep_points.csv")), "sweep_id,") {
		t.Error("sweep_points.csv missing")
	}
	r = dbh(t, home, "report", filepath.Join(dir, "compare.json"), "--html", filepath.Join(dir, "compare.html"), "--markdown", "-")
	if r.code != 0 {
		t.Fatalf("report comparison: exit %d\n%s", r.code, r.all())
	}
	if !strings.Contains(r.stdout, "**slower**") || !strings.Contains(readFile(t, filepath.Join(dir, "compare.html")), `<tr class="worse">`) {
		t.Errorf("comparison report lacks its verdict:\n%s", r.stdout)
	}
	r = dbh(t, home, "report", filepath.Join(dir, "other.json"), "--html", filepath.Join(dir, "x.html"))
	if r.code != 1 || !strings.Contains(r.stderr, "is not a dbharness run, sweep or comparison JSON file") {
		t.Errorf("a foreign JSON file: exit %d\n%s", r.code, r.all())
	}
}

func TestReportRejectsBadInputClearly(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report"}, 2, "takes a run or sweep id"},
		{[]string{"report", "20261122"}, 2, "needs an output: --html FILE, --csv DIR, --markdown FILE or --hdr-log FILE"},
		{[]string{"report", "nope", "--html", filepath.Join(dir, "x.html")}, 1, "no results store at " + filepath.Join(home, "results.db")},
		{[]string{"report", "a", "b", "c", "--markdown", "-"}, 2, "takes a run or sweep id"},
		{[]string{"report", "nope", "--html", filepath.Join(dir, "missing", "x.html")}, 2, "does not exist"},
		{[]string{"report", "nope", "--html", dir}, 2, "is a directory"},
		{[]string{"report", filepath.Join(dir, "gone.json"), "--markdown", "-"}, 1, "does not exist"},
		{[]string{"run", "tpcb", "--html", filepath.Join(dir, "missing", "x.html")}, 2, "directory"},
		{[]string{"run", "tpcb", "--json", "-", "--markdown", "-"}, 2, "both want standard output"},
	}
	for _, c := range cases {
		r := dbh(t, home, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, want %d with %q in one line:\n%s", c.args, r.code, c.code, c.msg, r.all())
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReportOfASavedSweepAndOfTwoRuns renders a sweep from the results
// store by id, and the comparison of two of its runs (`report A B`).
func TestReportOfASavedSweepAndOfTwoRuns(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	url := testdb.SQLite(t)
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.all())
	}
	if r := dbh(t, home, "sweep", "tpcb", "--db", url, "--clients", "1,2", "-T", "1", "-P", "0"); r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", r.code, r.all())
	}
	var sweeps []struct {
		ID string `json:"sweep_id"`
	}
	if err := json.Unmarshal([]byte(dbh(t, home, "sweeps", "--json").stdout), &sweeps); err != nil || len(sweeps) != 1 {
		t.Fatalf("sweeps --json: %v %v", sweeps, err)
	}
	html := filepath.Join(dir, "sweep.html")
	if r := dbh(t, home, "report", sweeps[0].ID, "--html", html); r.code != 0 {
		t.Fatalf("report sweep: exit %d\n%s", r.code, r.all())
	}
	if p := readFile(t, html); !strings.Contains(p, `<section id="scaling">`) || !strings.Contains(p, sweeps[0].ID) {
		t.Error("the sweep report lacks its scaling section or id")
	}
	var runs []struct {
		ID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(dbh(t, home, "runs", "--json").stdout), &runs); err != nil || len(runs) != 2 {
		t.Fatalf("runs --json: %v %v", runs, err)
	}
	cmp := filepath.Join(dir, "compare.html")
	r := dbh(t, home, "report", runs[1].ID, runs[0].ID, "--html", cmp, "--markdown", "-")
	if r.code != 0 {
		t.Fatalf("report A B: exit %d\n%s", r.code, r.all())
	}
	if p := readFile(t, cmp); !strings.Contains(p, `<section id="differences">`) || !strings.Contains(p, "config.clients") {
		t.Error("the comparison report lacks the client-count difference")
	}
	if !strings.Contains(r.stdout, "`config.clients`") {
		t.Errorf("comparison markdown:\n%s", r.stdout)
	}
}
