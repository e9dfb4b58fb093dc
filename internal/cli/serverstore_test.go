package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/dbharness/dbharness/internal/testdb"
)

// storePassword is the password given in the store's URL: the servers
// trust their local users and ignore it, so that a test can look for it
// everywhere it must not be.
const storePassword = "S3cretStorePw"

// withPassword puts storePassword in a postgres:// URL's user.
func withPassword(url string) string {
	return strings.Replace(url, "postgres://postgres@", "postgres://postgres:"+storePassword+"@", 1)
}

// dbhStore runs the binary as dbh does, with $DBHARNESS_RESULTS set to
// results.
func dbhStore(t *testing.T, home, results string, args ...string) result {
	t.Helper()
	return dbhEnv(t, bin, []string{"DBHARNESS_RESULTS=" + results}, home, args...)
}

// storeRows is every run and sweep document of the store in the database
// at url.
func storeRows(t *testing.T, url string) string {
	t.Helper()
	d, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var s string
	if err := d.QueryRow(`SELECT COALESCE((SELECT string_agg(run, ' ') FROM dbharness.runs), '') ||
		COALESCE((SELECT string_agg(sweep, ' ') FROM dbharness.sweeps), '') ||
		COALESCE((SELECT string_agg(interval, ' ') FROM dbharness.intervals), '')`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

var runIDLine = regexp.MustCompile(`(?m)^run (\d{8}-\d{6}-[0-9a-f]{4}):`)

func TestAResultsStoreOnPostgreSQLServesEveryCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	store := withPassword(testdb.Postgres(t, "dbh_cli_store"))
	target := testdb.SQLite(t)
	var all strings.Builder
	var ids []string
	for range 2 {
		r := dbh(t, home, "run", "null", "--db", target, "-t", "50", "-P", "0", "--collect", "none", "--results", store)
		all.WriteString(r.all())
		m := runIDLine.FindStringSubmatch(r.stdout)
		if r.code != 0 || m == nil || !strings.Contains(r.stdout, "saved as run "+m[1]+" in postgres://postgres:xxxxx@") {
			t.Fatalf("run: exit %d\n%s", r.code, r.all())
		}
		ids = append(ids, m[1])
	}
	sw := dbh(t, home, "sweep", "null", "--clients", "1,2", "-t", "20", "--db", target, "--collect", "none", "--results", store)
	all.WriteString(sw.all())
	if sw.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", sw.code, sw.all())
	}
	// $DBHARNESS_RESULTS names the store as --results does.
	runs := dbhStore(t, home, store, "runs", "--json")
	all.WriteString(runs.all())
	var rows []struct {
		ID    string `json:"run_id"`
		Sweep string `json:"sweep_id"`
	}
	if err := json.Unmarshal([]byte(runs.stdout), &rows); err != nil || runs.code != 0 {
		t.Fatalf("runs: exit %d, %v\n%s", runs.code, err, runs.all())
	}
	inSweep := 0
	for _, r := range rows {
		if r.Sweep != "" {
			inSweep++
		}
	}
	if len(rows) != 4 || inSweep != 2 {
		t.Errorf("runs lists %d runs, %d of the sweep; want the 2 runs and the sweep's 2", len(rows), inSweep)
	}
	html := filepath.Join(home, "r.html")
	for _, args := range [][]string{
		{"show", ids[0], "--results", store},
		{"compare", ids[0], ids[1], "--results", store},
		{"report", ids[1], "--html", html, "--results", store},
		{"sweeps", "--results", store},
	} {
		r := dbh(t, home, args...)
		all.WriteString(r.all())
		if r.code != 0 {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.all())
		}
	}
	help := dbhStore(t, home, store, "run", "null", "--help")
	all.WriteString(help.all())
	if !strings.Contains(help.stdout, "postgres://postgres:xxxxx@") {
		t.Errorf("run --help does not show the store of $DBHARNESS_RESULTS:\n%s", help.stdout)
	}
	b, _ := os.ReadFile(html)
	all.Write(b)
	all.WriteString(storeRows(t, store))
	if strings.Contains(all.String(), storePassword) {
		t.Error("the store's password appears in output, a report or the store")
	}
	// Nothing went to the default store.
	if _, err := os.Stat(filepath.Join(home, "results.db")); err == nil {
		t.Error("a results.db was made beside the server's store")
	}
}

func TestAStoreServerThatRefusesStopsEveryCommandInOneSentence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	store := "postgres://postgres:" + storePassword + "@127.0.0.1:1/none"
	want := "results store postgres://postgres:xxxxx@127.0.0.1:1/none cannot be reached: connection refused"
	for _, args := range [][]string{
		{"run", "null", "--db", testdb.SQLite(t), "-t", "1", "--results", store},
		{"sweep", "null", "--clients", "1", "-t", "1", "--db", testdb.SQLite(t), "--results", store},
		{"runs", "--results", store},
		{"show", "20260101-000000-abcd", "--results", store},
	} {
		r := dbh(t, home, args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "dbharness: ") || !strings.Contains(lines[0], want) {
			t.Errorf("%s: exit %d, want 1 and one sentence saying %q:\n%s", args[0], r.code, want, r.all())
		}
		if strings.Contains(r.all(), storePassword) {
			t.Errorf("%s printed the store's password:\n%s", args[0], r.all())
		}
	}
}

func TestARunWhoseStoreServerGoesAwayOrStallsKeepsItsMeasurement(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		fault func(*testdb.PrivatePG)
	}{
		{"goes away", (*testdb.PrivatePG).Stop},
		{"stalls", (*testdb.PrivatePG).Freeze},
	} {
		t.Run(c.name, func(t *testing.T) { storeFaultMidRun(t, c.fault) })
	}
}

// storeFaultMidRun has a run's store server fail once it has saved a few
// intervals: the run goes on, its every interval is measured and written
// to its --json, and it ends saying it was not saved. A write waits at
// most 3 s (connect_timeout=1), and none holds the run's interval tick.
func storeFaultMidRun(t *testing.T, fault func(*testdb.PrivatePG)) {
	pg := testdb.PrivatePostgres(t)
	store := withPassword(pg.URL()) + "&connect_timeout=1"
	home := t.TempDir()
	jsonPath := filepath.Join(home, "run.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "null", "--db", testdb.SQLite(t), "--duration", "3s", "-P", "50ms",
		"--collect", "none", "--results", store, "--json", jsonPath)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The fault comes once the run has saved a few intervals.
	d, err := sql.Open("pgx", pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	saved := 0
	for deadline := time.Now().Add(time.Minute); saved < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_ = d.QueryRow(`SELECT count(*) FROM dbharness.intervals`).Scan(&saved)
	}
	d.Close()
	if saved < 3 {
		t.Fatalf("the run saved %d intervals in a minute:\n%s%s", saved, out.String(), errb.String())
	}
	fault(pg)
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	if strings.Contains(r.all(), storePassword) {
		t.Errorf("output has the store's password:\n%s", r.all())
	}
	if n := strings.Count(r.stderr, "warning: results store"); n != 1 {
		t.Errorf("%d warnings about the store, want one:\n%s", n, r.all())
	}
	// The 3 intervals saved before the fault and at least one after it.
	measuredNotSaved(t, r, jsonPath, 4)
}
