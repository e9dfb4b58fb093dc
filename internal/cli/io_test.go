package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/testdb"
)

// ioArgs is a small, quick probe of dir.
func ioArgs(dir string, more ...string) []string {
	return append([]string{"io", "--dir", dir, "--size", "2MiB", "--depth", "1,2", "--log-block", "512,4KiB", "--log-writes", "20",
		"--keep-free", "0", "--progress", "100ms"}, more...)
}

type savedRun struct {
	ID       string `json:"run_id"`
	Workload string `json:"workload"`
	Status   string `json:"status"`
}

func savedRuns(t *testing.T, home string) []savedRun {
	t.Helper()
	r := dbh(t, home, "runs", "--json")
	var rows []savedRun
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, r.all())
	}
	return rows
}

func TestIOSavesEachPatternAsARunThatShowReportAndCompareRead(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	r := dbh(t, home, ioArgs(dir)...)
	if r.code != 0 {
		t.Fatalf("io: exit %d\n%s", r.code, r.all())
	}
	for _, want := range []string{"workload io-seqwrite", "workload io-seqread", "workload io-randread", "workload io-logwrite",
		"commit ceiling", "read 8KiB qd2", "log 4KiB x1", "MiB/cpu-s"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, r.stdout)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the probe left %v in %s", entries, dir)
	}
	rows := savedRuns(t, home)
	if len(rows) != 4 {
		t.Fatalf("%d runs saved: %+v", len(rows), rows)
	}
	byWorkload := map[string]string{}
	for _, row := range rows {
		if row.Status != "completed" {
			t.Fatalf("run %+v", row)
		}
		byWorkload[row.Workload] = row.ID
	}
	id := byWorkload["io-randread"]
	s := dbh(t, home, "show", id, "--json")
	var run struct {
		Ops []struct {
			Name  string `json:"name"`
			Count int64  `json:"count"`
		} `json:"ops"`
		IO struct {
			Pattern string `json:"pattern"`
			Steps   []struct {
				Name    string  `json:"name"`
				Bytes   int64   `json:"bytes"`
				IOs     int64   `json:"ios"`
				MiBPerS float64 `json:"mib_per_s"`
			} `json:"steps"`
		} `json:"io"`
		Intervals []json.RawMessage `json:"intervals"`
	}
	if err := json.Unmarshal([]byte(s.stdout), &run); err != nil {
		t.Fatalf("show --json: %v\n%s", err, s.all())
	}
	if run.IO.Pattern != "randread" || len(run.IO.Steps) != 2 || len(run.Ops) != 2 || len(run.Intervals) == 0 {
		t.Fatalf("saved run: %+v", run)
	}
	for _, st := range run.IO.Steps {
		if st.Bytes != 2<<20 || st.IOs != 256 || st.MiBPerS <= 0 {
			t.Fatalf("step %+v", st)
		}
	}
	if s := dbh(t, home, "show", id); s.code != 0 || !strings.Contains(s.stdout, "storage: randread") {
		t.Fatalf("show: exit %d\n%s", s.code, s.all())
	}
	html := filepath.Join(home, "io.html")
	if rep := dbh(t, home, "report", byWorkload["io-logwrite"], "--html", html); rep.code != 0 {
		t.Fatalf("report: exit %d\n%s", rep.code, rep.all())
	}
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), `id="storage"`) || !strings.Contains(string(b), "Bandwidth per step") {
		t.Fatalf("the report lacks the storage section (%v)", err)
	}
	// A second randread run compares with the first.
	if r := dbh(t, home, ioArgs(dir, "--pattern", "randread")...); r.code != 0 {
		t.Fatalf("io: exit %d\n%s", r.code, r.all())
	}
	var second string
	for _, row := range savedRuns(t, home) {
		if row.Workload == "io-randread" && row.ID != id {
			second = row.ID
		}
	}
	if c := dbh(t, home, "compare", id, second); c.code != 0 || !strings.Contains(c.all(), "read 8KiB qd1") {
		t.Fatalf("compare: exit %d\n%s", c.code, c.all())
	}
}

func TestIOSetsTheLogCeilingBesideASingleClientTPCBRunOnTheSameDevice(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	url := "sqlite://" + filepath.Join(dir, "tpcb.db")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	if r := dbh(t, home, "run", "tpcb", "--db", url, "--clients", "1", "-t", "50", "--collect", "none"); r.code != 0 {
		t.Fatalf("run: %s", r.all())
	}
	var tpcbID string
	for _, row := range savedRuns(t, home) {
		tpcbID = row.ID
	}
	r := dbh(t, home, ioArgs(dir, "--pattern", "logwrite")...)
	if r.code != 0 || !strings.Contains(r.stdout, "tpcb, 1 client") || !strings.Contains(r.stdout, tpcbID) {
		t.Fatalf("io: exit %d, no tpcb run beside the ceiling:\n%s", r.code, r.all())
	}
}

func TestIORefusesBadFlagsAndTooLittleSpace(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"io"}, 2, "needs --dir"},
		{[]string{"io", "--dir", filepath.Join(dir, "nope")}, 2, "is not a directory"},
		{ioArgs(dir, "--extend", "--overwrite"), 2, "exclude each other"},
		{ioArgs(dir, "--depth", "0"), 2, "--depth"},
		{ioArgs(dir, "--size", "lots"), 2, "--size"},
		{ioArgs(dir, "--log-block", "700"), 2, "multiples of 512"},
		{ioArgs(dir, "--pattern", "scan"), 2, "--pattern"},
		{ioArgs(dir, "--keep-free", "1000TiB"), 1, "not enough free space"},
	} {
		r := dbh(t, home, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, want %d and one line with %q:\n%s", tc.args, r.code, tc.code, tc.want, r.all())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("refused probes left %v", entries)
	}
}

func TestIOAfterCtrlCRemovesItsFilesAndSavesWhatItMeasured(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	// Far more log writes than the test waits for (256 MB at most: 500,000
	// of 512 bytes; the free-space guard counts them all).
	cmd, out, errb := startBin(t, home, "", false, "io", "--dir", dir, "--pattern", "logwrite", "--log-block", "512", "--log-writes", "500000",
		"--extend", "--keep-free", "0", "--step-time", "10m")
	defer out.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		entries, _ := os.ReadDir(dir)
		if len(entries) == 1 {
			if files, _ := os.ReadDir(filepath.Join(dir, entries[0].Name())); len(files) > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the probe wrote nothing within a minute: %s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 130 {
		t.Fatalf("exit %d after SIGINT: %s", code, errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("after SIGINT the probe left %v", entries)
	}
	rows := savedRuns(t, home)
	if len(rows) != 1 || rows[0].Status != "interrupted" || rows[0].Workload != "io-logwrite" {
		t.Fatalf("saved: %+v", rows)
	}
}

func TestScanSavesARunAndRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_cli_scan")
	_, c := testdb.Connect(t, url)
	testdb.Exec(t, c, "CREATE TABLE scanned AS SELECT g AS id, repeat('x', 50) AS filler FROM generate_series(1, 5000) g")
	r := dbh(t, home, "scan", "--db", url, "--table", "scanned", "--parallel", "1,2", "--repeat", "1")
	if r.code != 0 || !strings.Contains(r.stdout, "warm, parallel 2") || !strings.Contains(r.stdout, "rows/s") {
		t.Fatalf("scan: exit %d\n%s", r.code, r.all())
	}
	if rows := savedRuns(t, home); len(rows) != 1 || rows[0].Workload != "scan" || rows[0].Status != "completed" {
		t.Fatalf("saved %+v", rows)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"scan", "--db", url}, 2, "needs --table"},
		{[]string{"scan", "--db", url, "--table", "scanned", "--parallel", "0"}, 2, "--parallel"},
		{[]string{"scan", "--db", testdb.SQLite(t), "--table", "t"}, 2, "PostgreSQL, MySQL and MariaDB"},
		{[]string{"scan", "--db", url, "--table", "nope"}, 1, "does not exist"},
	} {
		r := dbh(t, home, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s", tc.args, r.code, tc.code, tc.want, r.all())
		}
	}
}
