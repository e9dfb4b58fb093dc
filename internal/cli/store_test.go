package cli_test

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// sqliteSchema lists the schema objects of the SQLite file at path.
func sqliteSchema(t *testing.T, path string) string {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var s string
	if err := d.QueryRow(`SELECT coalesce(group_concat(type || ' ' || name, ', '), '') FROM sqlite_master`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAStoreThatCannotBeUsedStopsRunAndSweepBeforeTheyConnect(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "a-directory")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	random := filepath.Join(home, "random.db")
	junk := make([]byte, 8192)
	_, _ = rand.Read(junk)
	if err := os.WriteFile(random, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(home, "app.db")
	if err := testdb.SQLiteExec(foreign, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	schema := sqliteSchema(t, foreign)
	// Nothing listens on port 1: a command that connected before checking
	// the store would fail on the connection.
	unreachable := "postgres://postgres@127.0.0.1:1/none"
	for _, c := range []struct{ name, path, want string }{
		{"a directory", dir, "results store " + dir + " is a directory"},
		{"a path under a file", filepath.Join(random, "results.db"), "cannot be opened: not a directory"},
		{"random bytes", random, random + " is not a dbharness results store: it is not an SQLite database"},
		{"another program's SQLite file", foreign, foreign + " is not a dbharness results store: it is an SQLite database with other tables (customers)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{
				{"run", "null", "--db", unreachable, "-t", "1", "--results", c.path},
				{"sweep", "null", "--clients", "1", "-t", "1", "--db", unreachable, "--results", c.path},
			} {
				r := dbh(t, home, args...)
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "dbharness: ") || !strings.Contains(lines[0], c.want) {
					t.Errorf("%s: exit %d, want 1 and one sentence saying %q:\n%s", args[0], r.code, c.want, r.all())
				}
				if strings.Contains(r.all(), "refused") {
					t.Errorf("%s connected before checking the store:\n%s", args[0], r.all())
				}
			}
			r := dbh(t, home, "run", "null", "--db", testdb.SQLite(t), "-t", "1", "-P", "0", "--results", c.path, "--no-save")
			if r.code != 0 || strings.Contains(r.all(), "results store") || strings.Contains(r.all(), "saved as") {
				t.Errorf("--no-save: exit %d\n%s", r.code, r.all())
			}
		})
	}
	if got := sqliteSchema(t, foreign); got != schema {
		t.Errorf("another program's SQLite file changed from %q to %q", schema, got)
	}
}

// notSaved is the last line of a run whose store failed.
var notSaved = regexp.MustCompile(`^dbharness: (the run was not saved|run \S+ was saved in \S+ without part of what it measured): `)

func TestARunWhoseStoreFailsMidRunExitsOneAndKeepsItsJSON(t *testing.T) {
	t.Parallel()
	needBinary(t)
	home := t.TempDir()
	jsonPath := filepath.Join(home, "run.json")
	// A file size limit of 72 KiB, as a full disk (a new store takes 68
	// KiB): the store's log outgrows it during the run, at its fifth
	// interval on a quiet machine, while the run's JSON (49 KiB for the
	// run's 30 intervals) fits. A starved machine, whose late ticks take
	// in the boundaries they missed, wrote 7 intervals in a second beside a
	// load average of 19, and 5 in 1.5 s at 50 ms when the process got no
	// CPU for 1.4 s of it (load 20): the run lasts 3 s, its intervals are
	// 100 ms, so that it still writes enough of them, and its JSON never
	// more than 30.
	args := []string{"run", "null", "--db", testdb.SQLite(t), "--duration", "3s", "-P", "100ms", "--collect", "none",
		"--results", filepath.Join(home, "results.db"), "--json", jsonPath}
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -f 144 && exec "$0" "$@"`, bin}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	measuredNotSaved(t, result{code: code, stdout: out.String(), stderr: errb.String()}, jsonPath, 2)
}

// measuredNotSaved checks the end of a run whose store failed during it:
// exit 1, the summary, the last line saying the run was not (wholly)
// saved, no `saved as`, and its --json at jsonPath complete: at least
// intervals intervals that tile the measured phase from its start to its
// end, their transactions adding up to the summary's. (How many intervals
// a run of a given length has is not asserted: when a starved machine
// holds the tick loop back past the deadline, the run's last interval
// takes in the boundaries it missed.)
func measuredNotSaved(t *testing.T, r result, jsonPath string, intervals int) {
	t.Helper()
	all := r.all()
	if stackTrace.MatchString(all) {
		t.Fatalf("output has a stack trace:\n%s", all)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 1 || !notSaved.MatchString(lines[len(lines)-1]) || strings.Contains(all, "saved as") {
		t.Errorf("exit %d, want 1, no `saved as` and the last line saying the run was not saved:\n%s", r.code, all)
	}
	if !strings.Contains(r.stdout, "total") {
		t.Errorf("no summary:\n%s", all)
	}
	var run struct {
		Status  string `json:"status"`
		Summary struct {
			Transactions int64   `json:"transactions"`
			Seconds      float64 `json:"seconds"`
		} `json:"summary"`
		Intervals []struct {
			Phase   string  `json:"phase"`
			T       float64 `json:"t"`
			Seconds float64 `json:"seconds"`
			Count   int64   `json:"count"`
		} `json:"intervals"`
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != "completed" || run.Summary.Transactions == 0 || len(run.Intervals) < intervals {
		t.Fatalf("the JSON: status %s, %d transactions, %d intervals, want at least %d", run.Status, run.Summary.Transactions, len(run.Intervals), intervals)
	}
	// Interval times are rounded to the millisecond.
	const slack = 0.002
	end, sum := 0.0, int64(0)
	for i, iv := range run.Intervals {
		if iv.Phase != "measure" || math.Abs(iv.T-iv.Seconds-end) > slack {
			t.Fatalf("interval %d (%s) spans %.3f-%.3f s; the one before ended at %.3f s", i, iv.Phase, iv.T-iv.Seconds, iv.T, end)
		}
		end, sum = iv.T, sum+iv.Count
	}
	if math.Abs(end-run.Summary.Seconds) > slack || sum != run.Summary.Transactions {
		t.Errorf("the intervals end at %.3f s with %d transactions; the measured phase lasted %.3f s with %d", end, sum, run.Summary.Seconds, run.Summary.Transactions)
	}
}

// The commands that only read the results store, on a store that is not
// there: one sentence and exit 1, and no file or directory made, at a
// --results path, at $DBHARNESS_RESULTS and at the default location;
// completion offers nothing and makes nothing either.
func TestReadOnlyCommandsOnAMissingStoreCreateNothing(t *testing.T) {
	t.Parallel()
	home, out := t.TempDir(), t.TempDir()
	html := filepath.Join(out, "r.html")
	commands := [][]string{
		{"runs"}, {"runs", "--json"}, {"sweeps"}, {"show", "20260101-000000-abcd"},
		{"compare", "20260101-000000-abcd", "sweep-20260101-000000-abcd"},
		{"report", "20260101-000000-abcd", "--html", html},
		{"report", "20260101-000000-abcd", "20260101-000000-abce", "--markdown", "-"},
	}
	missing := filepath.Join(home, "x", "ro.db")
	xdg := t.TempDir()
	for _, c := range []struct {
		name, path string
		env        []string
		args       []string
	}{
		{"--results", missing, nil, []string{"--results", missing}},
		{"$DBHARNESS_RESULTS", missing, []string{"DBHARNESS_RESULTS=" + missing}, nil},
		{"the default location", filepath.Join(xdg, "dbharness", "results.db"), []string{"DBHARNESS_RESULTS=", "XDG_DATA_HOME=" + xdg}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := "dbharness: no results store at " + c.path + ": a run saves there first (`dbharness run ...`), or --results names another"
			for _, args := range commands {
				r := dbhEnv(t, bin, c.env, home, append(append([]string{}, args...), c.args...)...)
				if r.code != 1 || strings.TrimSpace(r.stderr) != want || r.stdout != "" {
					t.Errorf("%v: exit %d, want 1 and %q:\n%s", args, r.code, want, r.all())
				}
			}
			r := dbhEnv(t, bin, c.env, home, append([]string{"__complete", "show"}, append(c.args, "")...)...)
			if r.code != 0 || strings.Contains(r.stdout, "20") {
				t.Errorf("completion: exit %d\n%s", r.code, r.all())
			}
			for _, p := range []string{c.path, filepath.Dir(c.path), html} {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s was made (%v)", p, err)
				}
			}
		})
	}
	if got, _ := filepath.Glob(filepath.Join(home, "*")); len(got) != 0 {
		t.Errorf("files made in the test's home: %v", got)
	}
}
