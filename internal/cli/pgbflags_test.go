package cli_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// -r times each statement of a script: one histogram per SQL command, each
// counting every transaction, in the JSON and in the text summary; on both
// drivers.
func TestReportPerStatementTimesEachStatementOfAScript(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_pgb_r")
	home := t.TempDir()
	script := filepath.Join(t.TempDir(), "three.sql")
	if err := os.WriteFile(script, []byte("\\set a random(1, 10)\nSELECT :a;\nSELECT 2;\nSELECT pg_sleep(0.001);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, driver := range []string{"loop", "goroutine"} {
		run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), "run", "-f", script, "--db", pg, "-c", "2", "-t", "15", "-r",
			"--driver", driver, "--no-save", "--collect", "none", "--no-doctor", "-P", "0")
		if !run.Config.ReportStatements {
			t.Errorf("%s: the run does not record -r", driver)
		}
		if len(run.Statements) != 3 {
			t.Fatalf("%s: %d statements timed, want the script's 3: %+v", driver, len(run.Statements), run.Statements)
		}
		for i, st := range run.Statements {
			if st.Count != 30 || st.Op != "three" || st.LatencyMs["mean"] <= 0 || st.Histogram == "" {
				t.Errorf("%s: statement %d: %+v; want 30 (2 clients x 15) with a latency", driver, i, st)
			}
		}
		if !strings.Contains(run.Statements[2].Name, "three:4 SELECT pg_sleep(0.001)") {
			t.Errorf("%s: the third statement is named %q", driver, run.Statements[2].Name)
		}
	}
	r := dbh(t, home, "run", "-f", script, "--db", pg, "-c", "1", "-t", "5", "-r", "--no-save", "--collect", "none", "--no-doctor", "-P", "0")
	if r.code != 0 || !strings.Contains(r.stdout, "statement latencies in milliseconds (-r)") || !strings.Contains(r.stdout, "three:3 SELECT 2") {
		t.Errorf("the text summary has no statement latencies (exit %d):\n%s", r.code, r.all())
	}
	// Without -r nothing is timed.
	run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), "run", "-f", script, "--db", pg, "-t", "3", "--no-save", "--collect", "none", "--no-doctor", "-P", "0")
	if len(run.Statements) != 0 || run.Config.ReportStatements {
		t.Errorf("a run without -r has statement latencies: %+v", run.Statements)
	}
}

// -r on tpcb times the built-in script's statements.
func TestReportPerStatementTimesTpcbStatements(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_pgb_rtpcb")
	home := t.TempDir()
	if r := dbh(t, home, "init", "tpcb", "--db", pg); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), "run", "tpcb", "--db", pg, "-c", "2", "-t", "10", "-r",
		"--no-save", "--collect", "none", "--no-doctor", "-P", "0")
	var names []string
	for _, st := range run.Statements {
		names = append(names, st.Name)
		if st.Count != 20 {
			t.Errorf("%s: %d, want 20", st.Name, st.Count)
		}
	}
	if got := strings.Join(names, ","); got != "BEGIN,update_account,select_account,update_teller,update_branch,insert_history,COMMIT" {
		t.Errorf("statements %s", got)
	}
}

// sessions is pg_stat_database.sessions of the database of url (PostgreSQL
// 14 and later): the sessions the server has started on it.
func sessions(t *testing.T, url string) int64 {
	t.Helper()
	d := testdb.Open(t, url)
	defer d.Close()
	return testdb.QueryInt64(t, d, "SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
}

// -C opens a connection for each transaction, as the server counts them,
// on both drivers; without it the clients keep theirs.
func TestConnectOpensAConnectionPerTransaction(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_pgb_c")
	home := t.TempDir()
	if r := dbh(t, home, "init", "tpcb", "--db", pg); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	const clients, tx = 2, 25
	for _, driver := range []string{"loop", "goroutine"} {
		for _, perTx := range []bool{true, false} {
			args := []string{"run", "tpcb", "--db", pg, "-c", fmt.Sprint(clients), "-t", fmt.Sprint(tx), "--driver", driver,
				"--no-save", "--collect", "none", "--no-doctor", "-P", "0", "-n"}
			if perTx {
				args = append(args, "-C")
			}
			before := sessions(t, pg)
			run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), args...)
			// pg_stat_database counts a session when it ends.
			started := sessions(t, pg) - before
			if run.Summary.Transactions != clients*tx {
				t.Fatalf("%s: %d transactions", driver, run.Summary.Transactions)
			}
			if perTx {
				if started < clients*tx || !run.Config.ConnectPerTx || run.Summary.Connections != clients*(tx-1) || run.Summary.ConnectMs["mean"] <= 0 {
					t.Errorf("%s -C: %d sessions for %d transactions; recorded %v, %d connections %v", driver, started, clients*tx,
						run.Config.ConnectPerTx, run.Summary.Connections, run.Summary.ConnectMs)
				}
			} else if started >= clients*tx || run.Config.ConnectPerTx {
				t.Errorf("%s without -C: %d sessions for %d transactions", driver, started, clients*tx)
			}
		}
	}
	if r := dbh(t, home, "run", "null", "--db", pg, "-C", "-t", "1"); r.code != 2 || !strings.Contains(r.stderr, "-C (--connect)") {
		t.Errorf("-C on a workload that cannot: exit %d\n%s", r.code, r.all())
	}
}

// -b takes weighted built-in scripts, as pgbench: over a fixed number of
// transactions the shares are the weights' within sampling error, on tpcb
// and beside a script.
func TestWeightedBuiltinMixes(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_pgb_b")
	home := t.TempDir()
	if r := dbh(t, home, "init", "tpcb", "--db", pg); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	const n = 1000 // 2 clients x 500
	share := func(t *testing.T, got int64, p float64) {
		t.Helper()
		// Four standard deviations of a binomial share.
		sd := math.Sqrt(n * p * (1 - p))
		if math.Abs(float64(got)-n*p) > 4*sd {
			t.Errorf("%d of %d, want about %.0f (±%.0f)", got, n, n*p, 4*sd)
		}
	}
	run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), "run", "tpcb", "--db", pg, "-c", "2", "-t", "500",
		"-b", "select-only@9", "-b", "simple-update@1", "--no-save", "--collect", "none", "--no-doctor", "-P", "0")
	counts := map[string]int64{}
	for _, o := range run.Ops {
		counts[o.Name] = o.Count
	}
	if len(run.Ops) != 2 || counts["select_only"]+counts["simple_update"] != n {
		t.Fatalf("ops %+v", run.Ops)
	}
	share(t, counts["simple_update"], 0.1)
	if got := run.Config.WorkloadFlags["mix"]; got != "select-only@9,simple-update@1" {
		t.Errorf("the mix is recorded as %q", got)
	}
	script := filepath.Join(t.TempDir(), "one.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run = runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), "run", "-f", script+"@3", "-b", "select-only@1", "--db", pg, "-c", "2", "-t", "500",
		"--no-save", "--collect", "none", "--no-doctor", "-P", "0")
	counts = map[string]int64{}
	for _, o := range run.Ops {
		counts[o.Name] = o.Count
	}
	if counts["one"]+counts["select-only"] != n {
		t.Fatalf("ops %+v", run.Ops)
	}
	share(t, counts["select-only"], 0.25)
	if r := dbh(t, home, "run", "tpcb", "--db", pg, "-b", "select-only@x"); r.code != 2 || !strings.Contains(r.stderr, `the weight "x" is not a number`) {
		t.Errorf("a bad weight: exit %d\n%s", r.code, r.all())
	}
}

// tpcb empties pgbench_history (and vacuums the small tables) before the
// run, as pgbench does, and records it; -n does neither.
func TestTpcbTruncatesHistoryBeforeTheRunUnlessNoVacuum(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			// One database per engine: the other engine's subtest runs
			// at the same time.
			var url string
			if engine == "mysql" {
				url = testdb.MySQL(t, "dbh_cli_pgb_n")
			} else {
				url = testdb.Postgres(t, "dbh_cli_pgb_n")
			}
			home := t.TempDir()
			if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
				t.Fatalf("init: %s", r.all())
			}
			d := testdb.Open(t, url)
			defer d.Close()
			history := func() int64 { return testdb.QueryInt64(t, d, "SELECT count(*) FROM pgbench_history") }
			args := []string{"run", "tpcb", "--db", url, "-c", "1", "-t", "20", "--no-save", "--collect", "none", "--no-doctor", "-P", "0", "-b", "simple-update"}
			run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), args...)
			if h := history(); h != 20 {
				t.Errorf("%d history rows after a first run of 20", h)
			}
			run = runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), args...)
			if h := history(); h != 20 {
				t.Errorf("%d history rows after a second run of 20: the first run's were not emptied", h)
			}
			want := "vacuum pgbench_branches, pgbench_tellers; truncate pgbench_history"
			if engine == "mysql" {
				want = "truncate pgbench_history"
			}
			if got := run.Dataset.Params["pre_run"]; got != want {
				t.Errorf("pre_run %v, want %q", got, want)
			}
			run = runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), append(args, "-n")...)
			if h := history(); h != 40 {
				t.Errorf("%d history rows after a run with -n: it emptied them", h)
			}
			if got := run.Dataset.Params["pre_run"]; got != "none (--no-vacuum)" {
				t.Errorf("-n: pre_run %v", got)
			}
		})
	}
}

// With -f, :scale is pgbench_branches' row count when that table is there,
// unless -s says otherwise; without the table it is 1, and the summary says
// where it came from.
func TestScriptScaleIsReadFromPgbenchBranches(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_pgb_s")
	home := t.TempDir()
	script := filepath.Join(t.TempDir(), "scale.sql")
	if err := os.WriteFile(script, []byte("SELECT :scale;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "-f", script, "--db", pg, "-t", "1", "--no-save", "--collect", "none", "--no-doctor", "-P", "0"}
	run := runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), args...)
	if run.Dataset.Params["scale"] != int64(1) || !strings.Contains(fmt.Sprint(run.Dataset.Params["scale_from"]), "-s N sets it") {
		t.Errorf("without pgbench_branches: %v", run.Dataset.Params)
	}
	if r := dbh(t, home, "init", "tpcb", "--db", pg, "-s", "2"); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	run = runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), args...)
	if run.Dataset.Params["scale"] != int64(2) || run.Dataset.Params["scale_from"] != "count(*) of pgbench_branches" {
		t.Errorf("with pgbench_branches of 2 rows: %v", run.Dataset.Params)
	}
	run = runJSON(t, home, filepath.Join(t.TempDir(), "r.json"), append(args, "-s", "5")...)
	if run.Dataset.Params["scale"] != int64(5) {
		t.Errorf("-s 5: %v", run.Dataset.Params)
	}
}
