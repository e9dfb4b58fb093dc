package cli_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestEveryRunGathersEvidenceOnTheRunsIntervals(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_ev_cli")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	// A measured phase four times the warm-up keeps the statistics lag
	// (up to a second of warm-up work) well inside the bound below.
	r := dbh(t, home, "run", "tpcb", "--db", url, "-c", "2", "-T", "4", "--warmup", "1", "--json", "-")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	var run results.Run
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.stderr, "evidence:") || !strings.Contains(r.stderr, "cpu (client host, database on this host)") ||
		!strings.Contains(r.stderr, "WAL ") || !strings.Contains(r.stderr, "plans: 5 statements") {
		t.Errorf("the summary lacks the evidence block:\n%s", r.stderr)
	}
	c := run.Collect
	if c == nil || c.Get("os") == nil || c.Get("server") == nil || run.Waits == nil || len(run.Plans) != 5 {
		t.Fatalf("evidence missing from the JSON: collect %+v waits %+v plans %d", c, run.Waits, len(run.Plans))
	}
	// One point per interval, with the same seq and phase, sampled when the
	// interval had ended (the collector samples on its own goroutine, on a
	// busy machine a while after the end: how long after is not bounded).
	for _, s := range []*evidence.Series{c.Get("os"), c.Get("server")} {
		if len(s.Intervals) != len(run.Intervals) {
			t.Fatalf("%s: %d points for %d intervals", s.Source, len(s.Intervals), len(run.Intervals))
		}
		for i, p := range s.Intervals {
			iv := run.Intervals[i]
			if p.Seq != iv.Seq || p.Phase != iv.Phase || p.T < iv.T-0.001 || i > 0 && p.T < s.Intervals[i-1].T {
				t.Errorf("%s point %d (seq %d %s t=%g) is not on interval %d (%s t=%g)", s.Source, i, p.Seq, p.Phase, p.T, iv.Seq, iv.Phase, iv.T)
			}
		}
	}
	// Each transaction inserts one history row. Backends publish their
	// statistics at most once a second, so up to a second of the warm-up's
	// rows can land in the measured phase, and up to a second of the
	// measured phase's can be published only as the sessions end, which
	// on a busy machine can be after the collector's last reading.
	var warm, failed, lastTwo float64
	for _, op := range run.Warmup {
		warm += float64(op.Count + op.Errors)
	}
	for _, op := range run.Ops {
		failed += float64(op.Errors)
	}
	end := run.Intervals[len(run.Intervals)-1].T
	for _, iv := range run.Intervals {
		if iv.Phase == "measure" && iv.T-iv.Seconds > end-2 {
			lastTwo += float64(iv.Count)
		}
	}
	if n, tx := c.Get("server").Totals["pg_stat_database.tup_inserted"], float64(run.Summary.Transactions); n < tx-lastTwo || n > tx+failed+warm+50 {
		t.Errorf("the server saw %g rows inserted in the measured phase, the run committed %g transactions (%g in its last two intervals), %g in its warm-up",
			n, tx, lastTwo, warm)
	}
	if len(run.Waits.Events) == 0 || run.Waits.Total <= 0 {
		t.Errorf("wait profile: %+v", run.Waits)
	}
	// One plan per statement before the run. A plan may change during it:
	// autovacuum can analyze the small, much-updated tellers and branches
	// tables mid-run (on a busy machine, it did), and the check rightly
	// reports that.
	for _, p := range run.Plans {
		flags := slices.DeleteFunc(slices.Clone(p.Flags), func(f string) bool { return f == "changed-during-run" })
		if len(p.Plans) != 1 || len(flags) != 0 || p.Error != "" {
			t.Errorf("tpcb's %s should have one plan: %+v", p.Statement, p)
		}
	}
	// The store holds the evidence.
	s := dbh(t, home, "show", run.RunID, "--json")
	var saved results.Run
	if err := json.Unmarshal([]byte(s.stdout), &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Collect == nil || saved.Collect.Get("os") == nil || len(saved.Plans) != 5 || saved.Waits == nil {
		t.Errorf("the stored run lacks its evidence")
	}

	r = dbh(t, home, "run", "tpcb", "--db", url, "-T", "1", "--collect", "none", "--json", "-")
	if r.code != 0 {
		t.Fatalf("run --collect none: %s", r.all())
	}
	if strings.Contains(r.stdout, `"collect"`) || strings.Contains(r.stdout, `"plans"`) || strings.Contains(r.stderr, "evidence:") {
		t.Errorf("--collect none still collects:\n%s", r.stderr)
	}
	r = dbh(t, home, "run", "tpcb", "--db", url, "-T", "1", "--collect", "plans", "--json", "-")
	var only results.Run
	if err := json.Unmarshal([]byte(r.stdout), &only); err != nil {
		t.Fatal(err)
	}
	if only.Collect == nil || only.Collect.Get("os") != nil || only.Waits != nil || len(only.Plans) != 5 {
		t.Errorf("--collect plans gathers something else: %+v", only.Collect)
	}
	r = dbh(t, home, "run", "tpcb", "--db", url, "--collect", "cpu")
	if r.code != 2 || !strings.Contains(r.stderr, `--collect "cpu"`) {
		t.Errorf("a bad --collect is not refused clearly: exit %d\n%s", r.code, r.stderr)
	}
}

// A harness killed mid-run (SIGKILL: no summary, no final save) leaves a run
// that reads back as failed, summarized from the intervals it saved, with
// its evidence up to the last interval.
func TestARunWhoseHarnessIsKilledKeepsWhatItMeasured(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_ev_kill")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	cmd := exec.Command(bin, "run", "tpcb", "--db", url, "--mix", "select-only", "-c", "2", "--duration", "60s", "--progress", "500ms")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home, "DBHARNESS_RESULTS="+filepath.Join(home, "results.db"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var id string
	for id == "" && sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "run ") {
			id = strings.TrimSuffix(strings.Fields(l)[1], ":")
		}
	}
	go io.Copy(io.Discard, out)
	if id == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("the run printed no run id")
	}
	// Kill the harness once the store holds a few intervals and the
	// evidence of two (the collectors store each point a moment after its
	// interval's end, on a busy machine a while after).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var run results.Run
		if r := dbh(t, home, "show", id, "--json"); r.code == 0 && json.Unmarshal([]byte(r.stdout), &run) == nil &&
			len(run.Intervals) >= 3 && run.Collect != nil && run.Waits != nil &&
			run.Collect.Get("os") != nil && len(run.Collect.Get("os").Intervals) >= 2 &&
			run.Collect.Get("server") != nil && len(run.Collect.Get("server").Intervals) >= 2 && len(run.Waits.Intervals) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the running run's intervals and evidence did not reach the store within a minute")
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	r := dbh(t, home, "show", id, "--json")
	if r.code != 0 {
		t.Fatalf("show: exit %d\n%s", r.code, r.all())
	}
	var run results.Run
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != results.StatusFailed || !strings.Contains(run.Error, "killed or crashed") {
		t.Errorf("status %s, error %q", run.Status, run.Error)
	}
	if len(run.Intervals) < 3 || run.Summary.Transactions == 0 || run.Summary.TPS <= 0 || len(run.Ops) != 1 || run.Ops[0].LatencyMs["p99"] <= 0 {
		t.Errorf("%d intervals, summary %+v, ops %+v", len(run.Intervals), run.Summary, run.Ops)
	}
	if run.Collect == nil || run.Collect.Get("os") == nil || len(run.Collect.Get("os").Intervals) < 2 || run.Collect.Get("os").Source == "" ||
		run.Collect.Get("server") == nil || len(run.Collect.Get("server").Intervals) < 2 || run.Waits == nil || len(run.Waits.Intervals) < 2 {
		t.Errorf("evidence not kept: collect %+v waits %+v", run.Collect, run.Waits)
	}
	if list := dbh(t, home, "runs"); !strings.Contains(list.stdout, id) || !strings.Contains(list.stdout, "failed") {
		t.Errorf("runs does not list the killed run as failed:\n%s", list.stdout)
	}
}
