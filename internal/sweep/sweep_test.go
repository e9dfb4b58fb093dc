package sweep_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/sweep"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	_ "github.com/dbharness/dbharness/internal/workload/all"
)

// newSweep plans a sweep of workload name over clients and vary, with a
// configuration per planned run made by runFlags (the workload's run flags
// of a point).
func newSweep(t *testing.T, url, name string, clients []int, vary []results.VaryFlag, repeat int,
	runFlags func(pr results.SweepRun) []string) (*results.Sweep, []sweep.Point) {
	t.Helper()
	tg, err := db.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	sw := &results.Sweep{
		SchemaVersion: results.SweepSchemaVersion, SweepID: results.NewSweepID(time.Now()), Workload: name,
		Target: tg.String(), Clients: clients, Vary: vary, Repeat: repeat, OrderSeed: 1,
		Status: results.StatusRunning, StartTime: time.Now(), Plan: sweep.Plan(clients, vary, repeat, 1), RunIDs: []string{},
	}
	points := make([]sweep.Point, len(sw.Plan))
	for i, pr := range sw.Plan {
		points[i].Run = runner.Config{
			Target:      tg,
			Workload:    testdb.Workload(t, name, workload.CmdRun, runFlags(pr)...),
			Command:     []string{"dbharness", "run", name},
			Engine:      loadgen.Config{Clients: pr.Clients, Duration: 300 * time.Millisecond, MaxTries: 1, Interval: 100 * time.Millisecond, Seed: uint64(i + 1)},
			Percentiles: results.NormalizePercentiles(nil),
		}
	}
	return sw, points
}

func TestASweepRunsItsPlanAndAnalysesIt(t *testing.T) {
	url := testdb.SQLite(t)
	vary := []results.VaryFlag{{Flag: "mix", Values: []string{"one_constant", "one_row"}}}
	sw, points := newSweep(t, url, "null", []int{1, 2}, vary, 2, func(pr results.SweepRun) []string {
		return []string{"--mix=" + pr.Vary["mix"]}
	})
	var out, warn bytes.Buffer
	loc := filepath.Join(t.TempDir(), "results.db")
	oc, err := sweep.Run(context.Background(), sw, points, sweep.Options{Results: loc, Out: &out, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if oc.Failure != nil || oc.Interrupted || oc.Done != 8 || oc.Store != loc {
		t.Fatalf("outcome %+v\n%s%s", oc, out.String(), warn.String())
	}
	if sw.Status != results.StatusCompleted || len(sw.RunIDs) != 8 || len(sw.Points) != 4 {
		t.Errorf("status %s, %d runs, %d points", sw.Status, len(sw.RunIDs), len(sw.Points))
	}
	if n := strings.Count(out.String(), "\n["); n != 8 {
		t.Errorf("%d run lines, want 8:\n%s", n, out.String())
	}
	s, err := store.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saved, err := s.GetSweep(context.Background(), sw.SweepID)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := s.SweepRuns(context.Background(), saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range saved.Plan {
		r := runs[pr.RunID]
		if pr.Status != results.StatusCompleted || r == nil {
			t.Fatalf("planned run %d: status %s, run %q", pr.Seq, pr.Status, pr.RunID)
		}
		// Each run ran its point's configuration.
		if r.Config.Clients != pr.Clients || r.Ops[0].Name != pr.Vary["mix"] {
			t.Errorf("planned run %d (%d clients, %s) ran %d clients, %s", pr.Seq, pr.Clients, pr.Vary["mix"], r.Config.Clients, r.Ops[0].Name)
		}
	}
}

func TestAStoppedSweepResumesWhereItStopped(t *testing.T) {
	url := testdb.SQLite(t)
	sw, points := newSweep(t, url, "null", []int{1, 2}, nil, 1, func(results.SweepRun) []string { return nil })
	loc := filepath.Join(t.TempDir(), "results.db")
	stop := make(chan struct{})
	close(stop)
	oc, err := sweep.Run(context.Background(), sw, points, sweep.Options{Results: loc, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if !oc.Interrupted || oc.Done != 0 || sw.Status != results.StatusInterrupted {
		t.Fatalf("outcome %+v, status %s", oc, sw.Status)
	}
	// Resume from the saved sweep, as `sweep --resume` does.
	s, err := store.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := s.GetSweep(context.Background(), sw.SweepID)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := sweep.CheckResumable(saved); err != nil {
		t.Fatal(err)
	}
	saved.Status = results.StatusRunning
	var out bytes.Buffer
	oc, err = sweep.Run(context.Background(), saved, points, sweep.Options{Results: loc, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if oc.Interrupted || oc.Failure != nil || oc.Done != 2 || saved.Status != results.StatusCompleted {
		t.Fatalf("outcome %+v, status %s\n%s", oc, saved.Status, out.String())
	}
	// A complete sweep runs nothing more.
	oc, err = sweep.Run(context.Background(), saved, make([]sweep.Point, len(saved.Plan)), sweep.Options{Results: loc})
	if err != nil || oc.Done != 2 || len(saved.RunIDs) != 2 {
		t.Fatalf("again: %+v %v, %d runs", oc, err, len(saved.RunIDs))
	}
}

func TestASweepLoadsEachPointsDataBeforeItsRun(t *testing.T) {
	url := testdb.SQLite(t)
	vary := []results.VaryFlag{{Flag: "key", Values: []string{"serial", "uuid-random"}}}
	sw, points := newSweep(t, url, "inserts", []int{1}, vary, 2, func(pr results.SweepRun) []string {
		return []string{"--key=" + pr.Vary["key"]}
	})
	for i, pr := range sw.Plan {
		key := "--key=" + pr.Vary["key"]
		points[i].Init = &runner.InitConfig{Target: points[i].Run.Target, Workload: testdb.Workload(t, "inserts", workload.CmdInit, key), Seed: 1, Loaders: 1}
		points[i].InitKey = "inserts " + key
	}
	var out bytes.Buffer
	oc, err := sweep.Run(context.Background(), sw, points, sweep.Options{Results: filepath.Join(t.TempDir(), "results.db"), Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if oc.Failure != nil || oc.Done != 4 {
		t.Fatalf("outcome %+v\n%s", oc, out.String())
	}
	// The first run loads; a run loads again only when its key differs
	// from the one before.
	for i, pr := range sw.Plan {
		want := i == 0 || pr.Vary["key"] != sw.Plan[i-1].Vary["key"]
		if pr.Init != want {
			t.Errorf("planned run %d (%s): init %v, want %v", i, pr.Vary["key"], pr.Init, want)
		}
	}
	if !strings.Contains(out.String(), "init inserts --key=") {
		t.Errorf("no init line:\n%s", out.String())
	}
}

func TestAFailedRunStopsTheSweep(t *testing.T) {
	url := testdb.SQLite(t)
	// tpcb's tables are not loaded: the first run cannot start.
	sw, points := newSweep(t, url, "tpcb", []int{1, 2}, nil, 1, func(results.SweepRun) []string { return nil })
	oc, err := sweep.Run(context.Background(), sw, points, sweep.Options{Results: filepath.Join(t.TempDir(), "results.db")})
	if err != nil {
		t.Fatal(err)
	}
	if oc.Failure == nil || oc.Done != 0 || sw.Status != results.StatusFailed || sw.Error == "" {
		t.Fatalf("outcome %+v, status %s", oc, sw.Status)
	}
}

func TestARunNotWhollySavedStopsTheSweepAndIsMadeAgainOnResume(t *testing.T) {
	sw, points := newSweep(t, testdb.SQLite(t), "null", []int{1, 2}, nil, 1, func(results.SweepRun) []string { return nil })
	loc := filepath.Join(t.TempDir(), "results.db")
	var out bytes.Buffer
	// Another program replaces the intervals table by a view, which takes
	// no rows, once the sweep has started.
	var dropErr error
	w := testdb.BeforeFirstWrite(&out, func() {
		dropErr = testdb.SQLiteExec(loc, "DROP TABLE intervals", "CREATE VIEW intervals AS SELECT '' AS run_id, 0 AS seq, '' AS interval, '' AS hists")
	})
	oc, err := sweep.Run(context.Background(), sw, points, sweep.Options{Results: loc, Out: w, Verbose: true})
	if err != nil || dropErr != nil {
		t.Fatal(err, dropErr)
	}
	if oc.Failure == nil || !strings.Contains(oc.Failure.Error(), "without part of what it measured") || oc.Done != 0 || sw.Status != results.StatusFailed {
		t.Fatalf("outcome %+v, status %s\n%s", oc, sw.Status, out.String())
	}
	if pr := sw.Plan[0]; pr.RunID == "" || pr.Status != results.StatusFailed {
		t.Errorf("the run not wholly saved is planned as %s", pr.Status)
	}
	if strings.Contains(out.String(), "saved as run") {
		t.Errorf("`saved as run` printed:\n%s", out.String())
	}
}
