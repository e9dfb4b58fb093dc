package results

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestStoreKeepsSweepsAndLinksTheirRuns(t *testing.T) {
	eachStore(t, testStoreKeepsSweeps)
}

func testStoreKeepsSweeps(t *testing.T, loc string) {
	s := openStoreT(t, loc)
	ctx := context.Background()
	r := sampleRun()
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	sw := &Sweep{SchemaVersion: SweepSchemaVersion, SweepID: NewSweepID(time.Now()), Workload: "tpcb", Clients: []int{1, 8},
		Repeat: 1, Status: StatusRunning, StartTime: time.Now(),
		Plan:   []SweepRun{{Seq: 0, Round: 1, Clients: 8, RunID: r.RunID, Status: StatusCompleted}, {Seq: 1, Round: 1, Clients: 1}},
		RunIDs: []string{r.RunID}}
	if err := s.SaveSweep(sw); err != nil {
		t.Fatal(err)
	}
	sw.Status = StatusInterrupted
	if err := s.SaveSweep(sw); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSweep(ctx, sw.SweepID[:12])
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusInterrupted || len(got.Plan) != 2 || got.Plan[0].RunID != r.RunID || got.Plan[1].RunID != "" {
		t.Fatalf("got %+v", got)
	}
	rows, err := s.ListSweeps(ctx, 0)
	if err != nil || len(rows) != 1 || rows[0].Runs != 1 || rows[0].Status != StatusInterrupted || rows[0].Started.IsZero() {
		t.Fatalf("sweeps = %+v, %v", rows, err)
	}
	runs, err := s.List(ctx, 0)
	if err != nil || len(runs) != 1 || runs[0].Sweep != sw.SweepID {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	if id, err := s.SweepOf(ctx, r.RunID); err != nil || id != sw.SweepID {
		t.Fatalf("SweepOf = %q, %v", id, err)
	}
	if _, err := s.GetSweep(ctx, "sw-nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown sweep: %v", err)
	}
}

func TestSweepJSONHasTheKeysOtherToolsRead(t *testing.T) {
	v := 2.5
	sw := Sweep{Points: []SweepPoint{{Clients: 1, TPSMedian: 10, TPSCILow: 9, TPSCIHigh: 11, Runs: []string{"a"}}},
		USL: &USLModel{Sigma: 0.1, Kappa: 0.01, PeakClients: &v, PeakTPS: &v, R2: 0.9}}
	b, err := json.Marshal(sw)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	p := m["points"].([]any)[0].(map[string]any)
	for _, k := range []string{"clients", "tps_median", "tps_ci_low", "tps_ci_high", "runs"} {
		if _, ok := p[k]; !ok {
			t.Errorf("points[] lacks %q", k)
		}
	}
	u := m["usl"].(map[string]any)
	for _, k := range []string{"sigma", "kappa", "peak_clients", "peak_tps", "r2"} {
		if _, ok := u[k]; !ok {
			t.Errorf("usl lacks %q", k)
		}
	}
	d := 1.0
	c := Comparison{Ops: []CompareOp{{Name: "total", TPSDeltaPct: &d, P99DeltaPct: &d, Verdict: "faster"}}}
	b, _ = json.Marshal(c)
	for _, k := range []string{`"name":"total"`, `"tps_delta_pct":1`, `"p99_delta_pct":1`, `"verdict":"faster"`, `"config_differences"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("comparison JSON lacks %s: %s", k, b)
		}
	}
}
