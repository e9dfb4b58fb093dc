package runner_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	_ "github.com/dbharness/dbharness/internal/workload/all"
)

func target(t *testing.T, url string) *db.Target {
	t.Helper()
	tg, err := db.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// shortRun is a run of 2 clients, 50 transactions each, with no evidence.
func shortRun(t *testing.T, wl workload.Generator, url string) (runner.Config, *bytes.Buffer, *bytes.Buffer) {
	var out, warn bytes.Buffer
	return runner.Config{
		Target:      target(t, url),
		Workload:    wl,
		Command:     []string{"dbharness", "run", wl.Name(), "--db=" + url},
		Engine:      loadgen.Config{Clients: 2, Transactions: 50, MaxTries: 1, Interval: 100 * time.Millisecond, Seed: 7},
		Progress:    100 * time.Millisecond,
		Percentiles: results.NormalizePercentiles([]float64{50, 99}),
		Results:     filepath.Join(t.TempDir(), "results.db"),
		Out:         &out,
		Warn:        &warn,
	}, &out, &warn
}

func TestARunIsMeasuredSavedAndReturned(t *testing.T) {
	url := testdb.SQLite(t)
	cfg, out, warn := shortRun(t, testdb.Workload(t, "null", workload.CmdRun, "--mix=one_row"), url)
	cfg.WorkloadFlags = func() map[string]string { return map[string]string{"mix": "one_row"} }
	run, err := runner.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, warn)
	}
	if run.Status != results.StatusCompleted || run.Summary.Transactions != 100 || run.Config.Clients != 2 || run.Config.Seed != 7 {
		t.Errorf("status %s, %d transactions, %d clients, seed %d", run.Status, run.Summary.Transactions, run.Config.Clients, run.Config.Seed)
	}
	if run.Workload != "null" || len(run.Ops) != 1 || run.Ops[0].Name != "one_row" || run.Config.WorkloadFlags["mix"] != "one_row" {
		t.Errorf("workload %s, ops %+v", run.Workload, run.Ops)
	}
	if run.Config.Driver == "" {
		t.Error("the driver was not resolved")
	}
	text := out.String()
	for _, want := range []string{"run " + run.RunID + ": null on sqlite", "2 clients, 50 transactions per client", "saved as run " + run.RunID + " in " + cfg.Results} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	if run.Collect != nil {
		t.Errorf("evidence gathered without being asked: %+v", run.Collect)
	}
	s, err := store.Open(cfg.Results)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saved, err := s.Get(context.Background(), run.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Status != results.StatusCompleted || saved.Summary.Transactions != 100 {
		t.Errorf("saved: status %s, %d transactions", saved.Status, saved.Summary.Transactions)
	}
}

func TestARunNotSavedSaysNothingOfSaving(t *testing.T) {
	cfg, out, _ := shortRun(t, testdb.Workload(t, "null", workload.CmdRun), testdb.SQLite(t))
	cfg.NoSave, cfg.Progress = true, 0
	run, err := runner.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "saved as") {
		t.Errorf("a run not saved says it was:\n%s", out)
	}
	if run.Summary.Transactions != 100 {
		t.Errorf("%d transactions", run.Summary.Transactions)
	}
}

func TestARunGathersTheEvidenceAsked(t *testing.T) {
	cfg, out, warn := shortRun(t, testdb.Workload(t, "null", workload.CmdRun), testdb.SQLite(t))
	cfg.Collect = map[string]bool{collect.KindOS: true}
	run, err := runner.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, warn)
	}
	if run.Collect == nil || len(run.Collect.Enabled) != 1 || run.Collect.Enabled[0] != collect.KindOS {
		t.Fatalf("collect %+v", run.Collect)
	}
}

func TestInitLoadsTheDataARunReads(t *testing.T) {
	url := testdb.SQLite(t)
	ctx := context.Background()
	planned := false
	err := runner.Init(ctx, runner.InitConfig{Target: target(t, url), Workload: testdb.Workload(t, "tpcb", workload.CmdInit), Seed: 1, Loaders: 2,
		Progress: func() (workload.LoadProgress, func()) { return workload.NopProgress{}, func() { planned = true } }})
	if err != nil {
		t.Fatal(err)
	}
	if !planned {
		t.Error("the load's progress was not ended")
	}
	cfg, out, warn := shortRun(t, testdb.Workload(t, "tpcb", workload.CmdRun), url)
	run, err := runner.Run(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, warn)
	}
	if run.Summary.Transactions+run.Summary.Errors != 100 || run.Summary.Transactions == 0 {
		t.Errorf("%d transactions, %d errors\n%s", run.Summary.Transactions, run.Summary.Errors, warn)
	}
}

func TestAStoppedInitIsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := runner.Init(ctx, runner.InitConfig{Target: target(t, testdb.SQLite(t)), Workload: testdb.Workload(t, "tpcb", workload.CmdInit), Seed: 1, Loaders: 1,
		Progress: func() (workload.LoadProgress, func()) { cancel(); return workload.NopProgress{}, func() {} }})
	var ie *runner.Interrupted
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "init tpcb interrupted") {
		t.Fatalf("%v", err)
	}
}

// Stopped before it could connect (a sweep interrupted as its next point's
// init connects), init is interrupted, not a connection that failed: the
// sweep then ends as interrupted (exit 130), not failed.
func TestAnInitStoppedWhileItConnectsIsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := runner.Init(ctx, runner.InitConfig{Target: target(t, testdb.Postgres(t, "dbh_runner_init_stopped")), Workload: testdb.Workload(t, "tpcb", workload.CmdInit), Seed: 1, Loaders: 1})
	var ie *runner.Interrupted
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "init tpcb interrupted before it connected") {
		t.Fatalf("%v", err)
	}
}

func TestAWorkloadWithoutDataCannotBeInitialized(t *testing.T) {
	err := runner.Init(context.Background(), runner.InitConfig{Target: target(t, testdb.SQLite(t)), Workload: testdb.Workload(t, "null", workload.CmdInit)})
	var ue *runner.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("%v", err)
	}
}

func TestAStoppedRunIsInterruptedAndKept(t *testing.T) {
	cfg, out, _ := shortRun(t, testdb.Workload(t, "null", workload.CmdRun), testdb.SQLite(t))
	cfg.Engine.Transactions, cfg.Engine.Duration = 0, time.Minute
	// Stopped mid-run: at its first progress line of the measured phase.
	stop := make(chan struct{})
	cfg.Out = &stopAt{w: out, mark: " measure ", stop: stop}
	run, err := runner.Run(context.Background(), cfg, stop)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != results.StatusInterrupted || !strings.Contains(out.String(), "saved as run") {
		t.Errorf("status %s\n%s", run.Status, out)
	}
}

// stopAt passes writes on to w and closes stop at the first that holds
// mark.
type stopAt struct {
	w    io.Writer
	mark string
	stop chan struct{}
	once sync.Once
}

func (s *stopAt) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(s.mark)) {
		s.once.Do(func() { close(s.stop) })
	}
	return s.w.Write(p)
}
