package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// writeScript writes a pgbench script into dir and returns its path.
func writeScript(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pgbenchRun runs pgbench -n on url with args and returns its exit status
// and output.
func pgbenchRun(t *testing.T, url string, args ...string) (int, string) {
	t.Helper()
	path, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench is not installed; install postgresql-client to run this test")
	}
	out, err := exec.Command(path, append(append([]string{"-n"}, args...), url)...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestScriptWithAnUndefinedVariableIsAUsageError(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_sc_undef")
	script := writeScript(t, home, "undef.sql", "\\set a 1\nSELECT :a, :undefined;\n")
	r := dbh(t, home, "run", "-f", script, "-t", "1", "--db", url, "--no-save")
	if r.code != 2 || !strings.Contains(r.stderr, script+":2:12: undefined variable :undefined") {
		t.Fatalf("run: exit %d, want 2 and FILE:LINE:COLUMN\n%s", r.code, r.all())
	}
	if strings.Contains(r.stdout, "run ") {
		t.Errorf("the run started:\n%s", r.stdout)
	}
	// pgbench (simple query mode, its default) aborts the client and exits 2.
	if code, out := pgbenchRun(t, url, "-t", "1", "-f", script); code != 2 {
		t.Errorf("pgbench exits %d:\n%s", code, out)
	}
}

func TestScriptRunWhoseTransactionsAllFailExitsOne(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_sc_allfail")
	script := writeScript(t, home, "zero.sql", "\\set z 0\nSELECT 1 / :z;\n")
	r := dbh(t, home, "run", "-f", script, "-c", "2", "-t", "5", "--db", url, "--json", filepath.Join(home, "run.json"))
	if r.code != 1 {
		t.Fatalf("run: exit %d, want 1\n%s", r.code, r.all())
	}
	for _, want := range []string{"no transaction succeeded: all 10 failed", "division by zero", "every transaction failed (10 errors, none succeeded)"} {
		if !strings.Contains(r.all(), want) {
			t.Errorf("output lacks %q:\n%s", want, r.all())
		}
	}
	// The run is kept, with its errors, and --json is written.
	if _, err := os.Stat(filepath.Join(home, "run.json")); err != nil {
		t.Errorf("--json: %v", err)
	}
	if s := dbh(t, home, "runs"); s.code != 0 || !strings.Contains(s.stdout, "script") {
		t.Errorf("runs: exit %d\n%s", s.code, s.all())
	}
	// pgbench aborts the client and exits 2.
	if code, out := pgbenchRun(t, url, "-t", "5", "-f", script); code != 2 {
		t.Errorf("pgbench exits %d:\n%s", code, out)
	}
}

func TestScriptStatementsHaveTheirPlansChecked(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_sc_plans")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.all())
	}
	script := writeScript(t, home, "tpcb-like.sql", pgbenchTPCB)
	r := dbh(t, home, "run", "-f", script, "-t", "5", "--collect", "plans", "--db", url, "--no-save", "--json", "-")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	var run struct {
		Plans []struct {
			Statement string `json:"statement"`
			SQL       string `json:"sql"`
			Error     string `json:"error"`
			Plans     []struct {
				Shape string `json:"shape"`
			} `json:"plans"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatalf("JSON: %v\n%s", err, r.stdout)
	}
	if len(run.Plans) != 5 || run.Plans[1].Statement != "tpcb-like:8:1" || run.Plans[1].SQL != "SELECT abalance FROM pgbench_accounts WHERE aid = $1" {
		t.Fatalf("plans: %+v", run.Plans)
	}
	for _, p := range run.Plans {
		if p.Error != "" || len(p.Plans) == 0 {
			t.Errorf("%s: %+v", p.Statement, p)
		}
	}
	if !strings.Contains(run.Plans[1].Plans[0].Shape, "pgbench_accounts_pkey") {
		t.Errorf("the account read does not use the primary key: %+v", run.Plans[1])
	}
	if !strings.Contains(r.stderr, "plans: 5 statements") {
		t.Errorf("the summary lacks the plans line:\n%s", r.stderr)
	}

	// A script whose only explainable statement reads a \gset value:
	// nothing to check, and the summary says why instead of printing an
	// empty "evidence:".
	only := writeScript(t, home, "only.sql", "SHOW max_connections \\gset\nBEGIN;\nSELECT :max_connections + 1;\nEND;\n")
	r = dbh(t, home, "run", "-f", only, "-t", "2", "--collect", "plans", "--db", url, "--no-save")
	why := "only:3:1: :max_connections is set by \\gset or \\aset, whose values exist only in a running script"
	if r.code != 0 || !strings.Contains(r.stdout, "evidence:\n  plans: not checked (workload script gave no statement whose parameters the check can draw; left out: "+why+")") ||
		!strings.Contains(r.stderr, "warning: plan check leaves out "+why) {
		t.Errorf("run: exit %d\n%s", r.code, r.all())
	}
}
