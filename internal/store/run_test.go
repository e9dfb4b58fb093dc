package store

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestStoreKeepsRunsAndIntervalsAsTheyArrive(t *testing.T) {
	eachStore(t, testStoreKeepsRunsAndIntervals)
}

func testStoreKeepsRunsAndIntervals(t *testing.T, loc string) {
	s := openStoreT(t, loc)
	r := sampleRun()
	ivs := r.Intervals
	r.Status = results.StatusRunning
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	for i := range ivs {
		if err := s.AddInterval(r.RunID, &ivs[i], map[string]string{"tpcb_like": r.Ops[0].Histogram}); err != nil {
			t.Fatal(err)
		}
	}
	// A run that never finished is still there, with its intervals.
	got, err := s.Get(context.Background(), "20261122-1000")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != results.StatusRunning || len(got.Intervals) != 1 || got.Intervals[0].Count != 1000 {
		t.Fatalf("got status %s with %d intervals", got.Status, len(got.Intervals))
	}
	r.Status = results.StatusInterrupted
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	rows, err := s.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Status != results.StatusInterrupted || rows[0].TPS != 1000 || rows[0].Clients != 8 {
		t.Fatalf("list = %+v", rows)
	}
	if _, err := s.Get(context.Background(), "nope"); err == nil {
		t.Fatal("found a run that does not exist")
	}
}
