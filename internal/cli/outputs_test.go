package cli_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// unwritableDir is a directory in which this user cannot create files.
func unwritableDir(t *testing.T) string {
	if os.Geteuid() == 0 {
		return "/sys" // root writes anywhere else
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	return dir
}

// Output paths are checked before anything runs: a directory that does
// not exist or takes no file, a directory given for a file or a file for
// a directory is a usage error in one sentence, and the check leaves
// nothing on disk.
func TestOutputPathsAreCheckedBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_outputs")
	lite := testdb.SQLite(t)
	home, out := t.TempDir(), t.TempDir()
	file := filepath.Join(out, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro := unwritableDir(t)
	if r := dbh(t, home, "run", "null", "--db", lite, "-t", "50", "-P", "0", "--json", filepath.Join(out, "run.json")); r.code != 0 {
		t.Fatal(r.all())
	}
	os.Remove(filepath.Join(out, "run.json"))
	r := dbh(t, home, "runs", "--json")
	runID := r.stdout[strings.Index(r.stdout, `"run_id": "`)+11:][:24]
	missing := filepath.Join(out, "no-such-dir", "x")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run --json in a missing directory", []string{"run", "null", "--db", pg, "--json", missing}, "--json " + missing + ": directory " + filepath.Dir(missing) + " does not exist"},
		{"run --json naming a directory", []string{"run", "null", "--db", pg, "--json", out}, "--json " + out + " is a directory; give a file name"},
		{"run --json in a directory that takes no file", []string{"run", "null", "--db", pg, "--json", filepath.Join(ro, "r.json")}, "--json " + filepath.Join(ro, "r.json") + " cannot be written: "},
		{"run --html in a directory that takes no file", []string{"run", "null", "--db", lite, "--html", filepath.Join(ro, "r.html")}, "--html " + filepath.Join(ro, "r.html") + " cannot be written: "},
		{"run --markdown in a missing directory", []string{"run", "null", "--db", lite, "--markdown", missing}, "--markdown " + missing + ": directory"},
		{"run --csv naming a file", []string{"run", "null", "--db", pg, "--csv", file}, "--csv " + file + " is a file; give a directory"},
		{"run --csv under a file", []string{"run", "null", "--db", pg, "--csv", filepath.Join(file, "csv")}, "--csv " + filepath.Join(file, "csv") + " cannot be "},
		{"run --csv where no directory can be made", []string{"run", "null", "--db", pg, "--csv", filepath.Join(ro, "a", "b")}, "--csv " + filepath.Join(ro, "a", "b") + " cannot be created in " + ro + ": "},
		{"sweep --json in a missing directory", []string{"sweep", "null", "--db", pg, "-c", "1", "-T", "1", "--json", missing}, "--json " + missing + ": directory"},
		{"sweep --csv naming a file", []string{"sweep", "null", "--db", pg, "-c", "1", "-T", "1", "--csv", file}, "--csv " + file + " is a file"},
		{"check --json naming a directory", []string{"check", "null", "--db", pg, "--json", out}, "--json " + out + " is a directory"},
		{"report --html in a directory that takes no file", []string{"report", runID, "--html", filepath.Join(ro, "r.html")}, "--html " + filepath.Join(ro, "r.html") + " cannot be written: "},
		{"compare --markdown naming a directory", []string{"compare", runID, runID, "--markdown", out}, "--markdown " + out + " is a directory"},
	} {
		t.Run(tc.name+" is refused before anything runs", func(t *testing.T) {
			before := listDir(t, out)
			refusedBeforeAnything(t, dbh(t, home, tc.args...), tc.want)
			if after := listDir(t, out); !slices.Equal(before, after) {
				t.Errorf("the check left files behind: %v, was %v", after, before)
			}
			var rows []map[string]any
			if err := json.Unmarshal([]byte(dbh(t, home, "runs", "--json").stdout), &rows); err != nil || len(rows) != 1 {
				t.Errorf("a run was saved: %d runs (%v)", len(rows), err)
			}
		})
	}
	t.Run("a CSV directory to be made and a file that exists pass, and are written", func(t *testing.T) {
		csv, js := filepath.Join(out, "new", "csv"), filepath.Join(out, "old.json")
		if err := os.WriteFile(js, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := dbh(t, home, "run", "null", "--db", pg, "-t", "50", "-P", "0", "--csv", csv, "--json", js); r.code != 0 {
			t.Fatal(r.all())
		}
		if b, err := os.ReadFile(js); err != nil || !strings.Contains(string(b), `"run_id"`) {
			t.Errorf("--json not written: %s %v", b, err)
		}
		if _, err := os.Stat(filepath.Join(csv, "intervals.csv")); err != nil {
			t.Error(err)
		}
	})
}

// listDir lists every path under dir.
func listDir(t *testing.T, dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		out = append(out, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dbhTo runs the binary as dbh does, with its standard output the file
// stdout; closed: with standard output closed (nil stdout).
func dbhTo(t *testing.T, home string, stdout *os.File, args ...string) result {
	t.Helper()
	needBinary(t)
	cmd := exec.Command(bin, args...)
	if stdout == nil {
		cmd = exec.Command("sh", append([]string{"-c", `exec "$0" "$@" >&-`, bin}, args...)...)
	}
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home, "DBHARNESS_RESULTS="+filepath.Join(home, "results.db"))
	var errb strings.Builder
	cmd.Stdout, cmd.Stderr = stdout, &errb
	err := cmd.Run()
	r := result{stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// What cannot reach standard output is not lost without a word: a closed
// standard output is refused before the run, and a write that fails (a
// full device) makes the command fail, in one sentence.
func TestOutputThatCannotReachStandardOutputIsAnError(t *testing.T) {
	t.Parallel()
	home, url := t.TempDir(), testdb.Postgres(t, "dbh_cli_stdout")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	lastLine := func(r result) string {
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		return lines[len(lines)-1]
	}
	t.Run("run --json - to a closed standard output is refused before the run", func(t *testing.T) {
		r := dbhTo(t, home, nil, "run", "null", "--db", url, "-T", "0.2", "--json", "-")
		if r.code != 2 || strings.TrimSpace(r.stderr) != "dbharness: --json -: standard output is closed, so the output would be lost; give a file name" {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(home, "results.db")); err == nil {
			t.Error("the run started")
		}
	})
	t.Run("runs --json to a closed standard output is refused", func(t *testing.T) {
		if r := dbhTo(t, home, nil, "runs", "--json"); r.code != 2 || !strings.Contains(r.stderr, "standard output is closed") {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	})
	t.Run("run --json - to a full device exits 1", func(t *testing.T) {
		r := dbhTo(t, home, full, "run", "null", "--db", url, "-t", "50", "-P", "0", "--json", "-")
		if r.code != 1 || lastLine(r) != "dbharness: cannot write to standard output: no space left on device" {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	})
	for _, args := range [][]string{{"runs"}, {"runs", "--json"}, {"report", "", "--markdown", "-"}} {
		t.Run(strings.Join(args, " ")+" to a full device exits 1", func(t *testing.T) {
			if args[0] == "report" {
				var rows []map[string]any
				if err := json.Unmarshal([]byte(dbh(t, home, "runs", "--json").stdout), &rows); err != nil || len(rows) == 0 {
					t.Fatalf("no saved run: %v", err)
				}
				args[1] = rows[0]["run_id"].(string)
			}
			r := dbhTo(t, home, full, args...)
			if r.code != 1 || !strings.HasPrefix(lastLine(r), "dbharness: cannot write to standard output: no space left on device") {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// A transaction type named after a script file that starts a formula
// (=HYPERLINK(1).sql) is written into the CSV files as text, a single
// quote before it; the numbers stay numbers.
func TestCSVFilesNeutraliseNamesThatStartAFormula(t *testing.T) {
	t.Parallel()
	url := testdb.Postgres(t, "dbh_cli_csvsafe")
	home, dir := t.TempDir(), t.TempDir()
	for name, sql := range map[string]string{"=HYPERLINK(1).sql": "SELECT 1;\n", "-2+3.sql": "SELECT 2;\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scripts := []string{"--script", filepath.Join(dir, "=HYPERLINK(1).sql"), "--script", filepath.Join(dir, "-2+3.sql"), "--db", url, "-t", "20", "-P", "0"}
	if r := dbh(t, home, append(append([]string{"run"}, scripts...), "--csv", filepath.Join(dir, "run"))...); r.code != 0 {
		t.Fatal(r.all())
	}
	if r := dbh(t, home, append(append([]string{"sweep"}, scripts...), "-c", "1", "--csv", filepath.Join(dir, "sweep"))...); r.code != 0 {
		t.Fatal(r.all())
	}
	for _, f := range []string{"run/ops.csv", "run/interval_ops.csv", "sweep/sweep_ops.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, row := range rows[1:] {
			for i, cell := range row {
				if rows[0][i] == "op" {
					names[cell] = true
				} else if strings.HasSuffix(rows[0][i], "_ms") || rows[0][i] == "tps" || rows[0][i] == "count" {
					if _, err := strconv.ParseFloat(cell, 64); err != nil && cell != "" {
						t.Errorf("%s: %s %q is not a number", f, rows[0][i], cell)
					}
				}
			}
		}
		if !names["'=HYPERLINK(1)"] || !names["'-2+3"] || names["=HYPERLINK(1)"] {
			t.Errorf("%s: transaction names %v, want '=HYPERLINK(1) and '-2+3", f, names)
		}
	}
}
