package store

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// deadPID returns the process id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestARunLeftRunningByAKilledHarnessIsRecoveredFromItsRows(t *testing.T) {
	eachStore(t, testRecover)
}

func testRecover(t *testing.T, loc string) {
	s := openStoreT(t, loc)
	ctx := context.Background()
	done := sampleRun()
	r := sampleRun()
	r.Host.Hostname, _ = os.Hostname()
	r.Status, r.Ops, r.Summary, r.ErrorClasses = results.StatusRunning, nil, results.Summary{}, nil
	// os and a collector the store knows nothing about: both are series.
	r.Collect = &results.Collect{Enabled: []string{"os", "waits", "netstat"}}
	r.Collect.Set("os", &evidence.Series{Source: "/proc", Intervals: []evidence.Point{}})
	r.Collect.Set("netstat", &evidence.Series{Source: "/proc/net/snmp", Intervals: []evidence.Point{}})
	r.Waits = &results.Waits{Method: "sampled", Unit: "samples", Events: []results.WaitShare{}}
	ivs := r.Intervals
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	for i := range ivs {
		if err := s.AddInterval(r.RunID, &ivs[i], map[string]string{"tpcb_like": done.Ops[0].Histogram}); err != nil {
			t.Fatal(err)
		}
	}
	pt := evidence.Point{Seq: 0, Phase: "measure", T: 1, Seconds: 1, Rates: map[string]float64{"cpu.user": 40}}
	wi := results.WaitInterval{Seq: 0, Phase: "measure", T: 1, Total: 10, Shares: map[string]float64{"CPU": 0.7, "IO:WALSync": 0.3}}
	for _, kind := range []string{"os", "netstat"} {
		if err := s.AddEvidence(r.RunID, kind, 0, pt); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddEvidence(r.RunID, results.EvidenceWaits, 0, wi); err != nil {
		t.Fatal(err)
	}

	// While its harness lives (here: this process), the run is running and
	// its evidence so far is readable.
	got, err := s.Get(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	hostS, netS := got.Collect.Get("os"), got.Collect.Get("netstat")
	if got.Status != results.StatusRunning || len(hostS.Intervals) != 1 || hostS.Source != "/proc" || len(got.Waits.Intervals) != 1 ||
		len(netS.Intervals) != 1 || netS.Source != "/proc/net/snmp" {
		t.Fatalf("a live run: status %s, evidence %+v %+v %+v", got.Status, hostS, netS, got.Waits)
	}

	// The harness is gone: the run reads as failed, summarized from what
	// it saved.
	pid := deadPID(t)
	if _, err := s.exec(`UPDATE runs SET pid = ? WHERE id = ?`, pid, r.RunID); err != nil {
		t.Fatal(err)
	}
	got, err = s.Get(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != results.StatusFailed || !strings.Contains(got.Error, "killed or crashed") {
		t.Fatalf("status %s, error %q", got.Status, got.Error)
	}
	if got.Summary.Transactions != done.Summary.Transactions || got.Summary.TPS != done.Summary.TPS ||
		got.Summary.LatencyMs["p99"] != done.Summary.LatencyMs["p99"] || done.Summary.LatencyMs["p99"] == 0 || len(got.Ops) != 1 || got.Ops[0].Errors != 2 {
		t.Errorf("recovered summary %+v ops %+v; the finished run has %+v", got.Summary, got.Ops, done.Summary)
	}
	hostS, netS = got.Collect.Get("os"), got.Collect.Get("netstat")
	if hostS.Totals["cpu.user"] != 40 || netS.Totals["cpu.user"] != 40 || len(got.Waits.Events) != 2 || got.Waits.Events[0].Event != "CPU" ||
		got.Waits.Events[0].Share != 0.7 {
		t.Errorf("recovered evidence %+v %+v %+v", hostS, netS, got.Waits)
	}
	rows, err := s.List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Status != results.StatusFailed || rows[0].TPS != done.Summary.TPS {
		t.Errorf("list %+v", rows)
	}

	// Saved finished, the run carries its series and the rows go.
	done.Host = r.Host
	if err := s.Save(done); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.queryRow(ctx, `SELECT count(*) FROM evidence WHERE run_id = ?`, r.RunID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d evidence rows left after the finished run was saved (%v)", n, err)
	}
}
