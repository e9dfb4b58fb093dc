package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
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
	sw := &results.Sweep{SchemaVersion: results.SweepSchemaVersion, SweepID: results.NewSweepID(time.Now()), Workload: "tpcb", Clients: []int{1, 8},
		Repeat: 1, Status: results.StatusRunning, StartTime: time.Now(),
		Plan:   []results.SweepRun{{Seq: 0, Round: 1, Clients: 8, RunID: r.RunID, Status: results.StatusCompleted}, {Seq: 1, Round: 1, Clients: 1}},
		RunIDs: []string{r.RunID}}
	if err := s.SaveSweep(sw); err != nil {
		t.Fatal(err)
	}
	sw.Status = results.StatusInterrupted
	if err := s.SaveSweep(sw); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSweep(ctx, sw.SweepID[:12])
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != results.StatusInterrupted || len(got.Plan) != 2 || got.Plan[0].RunID != r.RunID || got.Plan[1].RunID != "" {
		t.Fatalf("got %+v", got)
	}
	rows, err := s.ListSweeps(ctx, 0)
	if err != nil || len(rows) != 1 || rows[0].Runs != 1 || rows[0].Status != results.StatusInterrupted || rows[0].Started.IsZero() {
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
