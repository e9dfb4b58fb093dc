package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestHostCPUNamesAProcessBesideTheRunAndWarns: a CPU-bound process (yes,
// under a name of its own so that no other process of a busy machine
// passes for it) beside a fixed-work run on PostgreSQL shows in the run's
// host account: the others' share is above the threshold, the process is
// named, and the run warns; the server's share is above 0. The same run
// without it does not name it. Only the attribution is asserted, never a
// throughput: other tests may load the machine at the same time.
func TestHostCPUNamesAProcessBesideTheRunAndWarns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_hostcpu")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	yes, err := exec.LookPath("yes")
	if err != nil {
		t.Fatalf("this test runs yes (coreutils) beside the run: %v", err)
	}
	// The kernel names a process after the file it executes.
	hog := fmt.Sprintf("dbhhog%d", os.Getpid()%100000)
	link := filepath.Join(t.TempDir(), hog)
	if err := os.Symlink(yes, link); err != nil {
		t.Fatal(err)
	}
	run := func() (*results.HostCPU, result) {
		t.Helper()
		h, r := runHostCPU(t, home, url)
		if h.ServerPct == nil || *h.ServerPct <= 0 || !strings.Contains(h.Server, "PostgreSQL postmaster") {
			t.Errorf("the server's share %v (%s): want PostgreSQL's postmaster and its backends above 0", h.ServerPct, h.Server)
		}
		return h, r
	}
	named := func(h *results.HostCPU) *results.CPUUse {
		i := slices.IndexFunc(h.TopOthers, func(u results.CPUUse) bool { return u.Comm == hog })
		if i < 0 {
			return nil
		}
		return &h.TopOthers[i]
	}

	cmd := exec.Command(link) // output to /dev/null
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	stop := func() {
		if pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = cmd.Wait()
			pid = 0
		}
	}
	t.Cleanup(stop)
	h, r := run()
	stop()
	t.Logf("with %s beside it: host CPU: %s", hog, h.Line())
	if u := named(h); u == nil || u.Pct <= 0 {
		t.Errorf("%s is not among the other processes: %+v", hog, h.TopOthers)
	}
	if h.OthersPct <= results.OthersWarnPct || !h.Interfered() || h.Warning == "" {
		t.Errorf("others %.1f%%, warning %q: want above %d%% and a warning", h.OthersPct, h.Warning, results.OthersWarnPct)
	}
	if !strings.Contains(r.all(), "host CPU: harness ") || !strings.Contains(r.all(), "warning: other processes used ") {
		t.Errorf("the run printed no host line or no warning:\n%s", r.all())
	}

	h, r = run()
	t.Logf("without it: host CPU: %s", h.Line())
	if u := named(h); u != nil {
		t.Errorf("%s, ended before the run, is named among the others: %+v", hog, h.TopOthers)
	}
	if strings.Contains(h.Warning, hog) || strings.Contains(r.all(), hog) {
		t.Errorf("the run without %s names it:\n%s", hog, r.all())
	}
}

// TestHostCPUCountsTheSQLServerEnginesServer: a run on the test Babelfish,
// on this host, counts its server's processes (Babelfish's postmaster and
// its backends) in the server's share, not among the others.
func TestHostCPUCountsTheSQLServerEnginesServer(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.SQLServer(t, "dbh_hostcpu_mssql")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	h, _ := runHostCPU(t, home, url)
	if h.ServerPct == nil || *h.ServerPct <= 0 || !strings.Contains(h.Server, "Babelfish's PostgreSQL postmaster") {
		t.Errorf("the server's share %v (%s): want Babelfish's postmaster and its backends above 0", h.ServerPct, h.Server)
	}
}

// runHostCPU runs 2 clients x 1,500 transactions of tpcb on url and returns
// the run's host account, failing the test when there is none.
func runHostCPU(t *testing.T, home, url string) (*results.HostCPU, result) {
	t.Helper()
	r := dbh(t, home, "run", "tpcb", "--db", url, "-c", "2", "-t", "1500", "--collect", "none", "--no-save", "-P", "0", "--json", "-")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	var run results.Run
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatal(err)
	}
	h := run.Summary.HostCPU
	if h == nil || h.NotMeasured != "" || h.CPUs < 1 {
		t.Fatalf("the host's CPU was not accounted for: %+v", h)
	}
	return h, r
}
