package cli_test

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// TestRunsAndSweepsAreNamedAndListedWithTheirMixAndDatabase labels runs
// and a sweep on PostgreSQL and the embedded default database, and finds
// the label, the mix and the database in runs, sweeps, show, compare and
// the reports' titles; a label that cannot be one is refused.
func TestRunsAndSweepsAreNamedAndListedWithTheirMixAndDatabase(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	pg := testdb.Postgres(t, "nm")
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	pgDB := "postgresql " + u.Host + u.Path
	ok := func(args ...string) result {
		t.Helper()
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.all())
		}
		return r
	}
	ok("init", "tpcb", "--db", pg)
	ok("init", "tpcb")
	ok("run", "tpcb", "--db", pg, "--mix", "select-only", "-t", "20", "--collect", "none", "--label", "sync off")
	ok("run", "tpcb", "-t", "20", "--collect", "none", "--label", "baseline")
	ok("sweep", "tpcb", "--db", pg, "--mix", "select-only", "--clients", "1", "-t", "20", "--collect", "none", "--label", "sweep A")

	var runs []struct {
		ID             string `json:"run_id"`
		Sweep          string `json:"sweep_id"`
		Label, Mix, DB string
	}
	if err := json.Unmarshal([]byte(ok("runs", "--json").stdout), &runs); err != nil || len(runs) != 3 {
		t.Fatalf("runs --json: %+v, %v", runs, err)
	}
	// Newest first: the sweep's run, the default's, PostgreSQL's.
	sweepRun, base, syncOff := runs[0], runs[1], runs[2]
	if sweepRun.Label != "sweep A" || sweepRun.Mix != "select-only" || sweepRun.DB != pgDB || sweepRun.Sweep == "" {
		t.Errorf("the sweep's run does not carry the sweep's label, mix and database: %+v", sweepRun)
	}
	if base.Label != "baseline" || base.Mix != "tpcb-like" || base.DB != "sqlite default.db" {
		t.Errorf("the default database's run: %+v", base)
	}
	if syncOff.Label != "sync off" || syncOff.Mix != "select-only" || syncOff.DB != pgDB {
		t.Errorf("PostgreSQL's run: %+v", syncOff)
	}
	list := ok("runs").stdout
	for _, want := range []string{"workload", "db", "label", "tpcb select-only", "tpcb tpcb-like", pgDB, "sqlite default.db", "sync off", "baseline", "sweep A"} {
		if !strings.Contains(list, want) {
			t.Errorf("runs lacks %q:\n%s", want, list)
		}
	}
	sweeps := ok("sweeps").stdout
	for _, want := range []string{"sweep A", "tpcb select-only", pgDB} {
		if !strings.Contains(sweeps, want) {
			t.Errorf("sweeps lacks %q:\n%s", want, sweeps)
		}
	}
	if s := ok("show", syncOff.ID).stdout; !strings.Contains(s, "run "+syncOff.ID+` "sync off"`) || !strings.Contains(s, "workload tpcb select-only") {
		t.Errorf("show lacks the label or the mix:\n%s", s)
	}
	if s := ok("show", sweepRun.Sweep).stdout; !strings.Contains(s, "sweep "+sweepRun.Sweep+` "sweep A"`) {
		t.Errorf("show SWEEP lacks the label:\n%s", s)
	}

	// Two mixes of one workload compare; a transaction type only one
	// side ran is no -100%.
	c := ok("compare", syncOff.ID, base.ID).stdout
	for _, want := range []string{"A: run " + syncOff.ID + ` "sync off" (tpcb select-only)`, "B: run " + base.ID + ` "baseline" (tpcb tpcb-like)`,
		"only in A", "only in B", "note: the mix changed: select-only in A, tpcb-like in B"} {
		if !strings.Contains(c, want) {
			t.Errorf("compare lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "-100.0%") || strings.Contains(c, "WARNING") {
		t.Errorf("compare of one workload:\n%s", c)
	}
	// The side that did not run a type shows no figure, not 0.
	for _, line := range strings.Split(c, "\n") {
		if strings.HasSuffix(line, "only in A") || strings.HasSuffix(line, "only in B") {
			if f := strings.Fields(line); f[1] != "-" && f[2] != "-" || strings.Contains(line, " 0.0 ") {
				t.Errorf("a type only one side ran shows a figure for both: %q", line)
			}
		}
	}
	html, csvDir := filepath.Join(dir, "c.html"), filepath.Join(dir, "csv")
	md := ok("report", syncOff.ID, base.ID, "--markdown", "-", "--html", html, "--csv", csvDir).stdout
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") && strings.Contains(line, "only in") {
			if f := strings.Split(line, "|"); len(f) < 4 || strings.TrimSpace(f[2]) != "-" && strings.TrimSpace(f[3]) != "-" {
				t.Errorf("the Markdown row of a type only one side ran shows a figure for both: %q", line)
			}
		}
	}
	if !strings.Contains(md, "### dbharness comparison: B `"+base.ID+"` \"baseline\" against A `"+syncOff.ID+"` \"sync off\"") {
		t.Errorf("the Markdown comparison's title lacks the labels:\n%s", md)
	}
	if p := readFile(t, html); !strings.Contains(p, "<title>dbharness comparison: B "+base.ID+" &#34;baseline&#34; against A "+syncOff.ID+" &#34;sync off&#34;</title>") {
		t.Error("the HTML comparison's title lacks the labels")
	}
	if p := readFile(t, filepath.Join(csvDir, "compare.csv")); !strings.Contains(strings.SplitN(p, "\n", 2)[0], "label_a,label_b") || !strings.Contains(p, "sync off,baseline") {
		t.Errorf("compare.csv lacks the labels:\n%s", p)
	}
	runHTML := filepath.Join(dir, "r.html")
	if r := ok("report", syncOff.ID, "--html", runHTML, "--markdown", "-"); !strings.Contains(r.stdout, "### dbharness run `"+syncOff.ID+"` \"sync off\": tpcb select-only on") {
		t.Errorf("the Markdown run's title lacks the label:\n%s", r.stdout)
	}
	if p := readFile(t, runHTML); !strings.Contains(p, "<title>dbharness run "+syncOff.ID+" &#34;sync off&#34;</title>") {
		t.Error("the HTML run's title lacks the label")
	}
	sweepHTML := filepath.Join(dir, "s.html")
	ok("report", sweepRun.Sweep, "--html", sweepHTML)
	if p := readFile(t, sweepHTML); !strings.Contains(p, "<title>dbharness sweep "+sweepRun.Sweep+" &#34;sweep A&#34;</title>") {
		t.Error("the HTML sweep's title lacks the label")
	}

	for _, bad := range []struct{ label, want string }{
		{"", "--label is empty"},
		{"a\nb", "holds a control character"},
		{strings.Repeat("x", 101), "--label is 101 characters long"},
		{"postgres://u:secret@h/db", "--label holds a password (postgres://u:xxxxx@h/db)"},
	} {
		for _, cmd := range []string{"run", "sweep"} {
			r := dbh(t, home, cmd, "tpcb", "-t", "1", "--label", bad.label)
			if r.code != 2 || !strings.Contains(r.stderr, bad.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 || strings.Contains(r.all(), "secret") {
				t.Errorf("%s --label %q: exit %d\n%s", cmd, bad.label, r.code, r.all())
			}
		}
	}
}

// TestCompareRefusesDifferentWorkloadsUnlessForced compares a tpcb run
// with a null run: refused in one sentence, exit 2; with --force, compared
// under a warning, each transaction type only in its side.
func TestCompareRefusesDifferentWorkloadsUnlessForced(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	pg := testdb.Postgres(t, "names_cmp")
	for _, args := range [][]string{{"init", "tpcb", "--db", pg}, {"run", "tpcb", "--db", pg, "-t", "20", "--collect", "none"},
		{"run", "null", "--db", pg, "-t", "20", "--collect", "none", "--mix", "one_row"}} {
		if r := dbh(t, home, args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.all())
		}
	}
	var runs []struct {
		ID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(dbh(t, home, "runs", "--json").stdout), &runs); err != nil || len(runs) != 2 {
		t.Fatalf("runs --json: %+v, %v", runs, err)
	}
	a, b := runs[1].ID, runs[0].ID
	for _, args := range [][]string{{"compare", a, b}, {"report", a, b, "--markdown", "-"}} {
		r := dbh(t, home, args...)
		want := "dbharness: A (" + a + ") ran tpcb and B (" + b + ") ran null: compare refuses different workloads, whose figures measure different work; give --force to compare them anyway\n"
		if r.code != 2 || r.stderr != want || r.stdout != "" {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.all())
		}
	}
	r := dbh(t, home, "compare", a, b, "--force")
	if r.code != 0 {
		t.Fatalf("compare --force: exit %d\n%s", r.code, r.all())
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "WARNING: the workloads differ: A ran tpcb tpcb-like, B null one_row") {
		t.Errorf("compare --force does not say first that the workloads differ:\n%s", r.stdout)
	}
	for _, want := range []string{"tpcb_like", "only in A", "one_row", "only in B"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("compare --force lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "-100.0%") {
		t.Errorf("a transaction type of one side is compared as -100%%:\n%s", r.stdout)
	}
	var c struct {
		WorkloadsDiffer bool `json:"workloads_differ"`
		Ops             []struct {
			Name     string   `json:"name"`
			OnlyIn   string   `json:"only_in"`
			DeltaPct *float64 `json:"tps_delta_pct"`
		} `json:"ops"`
	}
	if err := json.Unmarshal([]byte(dbh(t, home, "compare", a, b, "--force", "--json").stdout), &c); err != nil || !c.WorkloadsDiffer || len(c.Ops) != 3 {
		t.Fatalf("compare --force --json: %+v, %v", c, err)
	}
	if o := c.Ops[0]; o.Name != "tpcb_like" || o.OnlyIn != "A" || o.DeltaPct != nil {
		t.Errorf("the JSON's first op: %+v", o)
	}
}
