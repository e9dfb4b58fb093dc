package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

func TestTheStoreIsCheckedBeforeAnythingConnects(t *testing.T) {
	// Nothing listens on port 1: a run that connected first would fail
	// on the connection, not on the store.
	cfg, out, _ := shortRun(t, testdb.Workload(t, "null", workload.CmdRun), "postgres://postgres@127.0.0.1:1/none")
	dir := t.TempDir()
	foreign := filepath.Join(dir, "app.db")
	if err := testdb.SQLiteExec(foreign, "CREATE TABLE customers (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:     "results store " + dir + " is a directory",
		foreign: foreign + " is not a dbharness results store",
	} {
		cfg.Results = path
		run, err := runner.Run(context.Background(), cfg, nil)
		if run != nil || err == nil {
			t.Fatalf("%s: a run (%v) or no error (%v)", path, run, err)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, store.OtherStore+", or run with --no-save") {
			t.Errorf("error %q, want it to say %q and what to do", msg, want)
		}
		if out.Len() > 0 {
			t.Errorf("a run refused printed:\n%s", out)
		}
	}
}

func TestAStoreThatFailsMidRunIsReportedAtTheEndNotSaved(t *testing.T) {
	cfg, out, warn := shortRun(t, testdb.Workload(t, "null", workload.CmdRun), testdb.SQLite(t))
	cfg.Engine.Transactions, cfg.Engine.Duration = 0, 500*time.Millisecond
	// Another program drops the store's tables once the run has started
	// (its first line is printed after its first save).
	var dropErr error
	cfg.Out = testdb.BeforeFirstWrite(out, func() { dropErr = testdb.SQLiteExec(cfg.Results, "DROP TABLE intervals", "DROP TABLE runs") })
	run, err := runner.Run(context.Background(), cfg, nil)
	if dropErr != nil {
		t.Fatal(dropErr)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "the run was not saved: ") || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("error %v", err)
	}
	if run == nil || run.Status != results.StatusCompleted || run.Summary.Transactions == 0 || len(run.Intervals) == 0 {
		t.Fatalf("the measured run is not returned: %+v", run)
	}
	text := out.String()
	if strings.Contains(text, "saved as") || !strings.Contains(text, "total") {
		t.Errorf("want the summary and no `saved as`:\n%s", text)
	}
	if n := strings.Count(warn.String(), "warning: results store"); n != 1 {
		t.Errorf("%d warnings of the store:\n%s", n, warn)
	}
}

// intervalsView replaces a store's intervals table by a view, which takes
// no rows.
const intervalsView = "CREATE VIEW intervals AS SELECT '' AS run_id, 0 AS seq, '' AS interval, '' AS hists"

func TestAnIntervalLostMidRunIsReportedAtTheEnd(t *testing.T) {
	cfg, out, _ := shortRun(t, testdb.Workload(t, "null", workload.CmdRun), testdb.SQLite(t))
	cfg.Engine.Transactions, cfg.Engine.Duration = 0, 500*time.Millisecond
	// The intervals table is replaced by a view, which takes no rows:
	// the run's record is saved, some of its intervals are not.
	var dropErr error
	cfg.Out = testdb.BeforeFirstWrite(out, func() { dropErr = testdb.SQLiteExec(cfg.Results, "DROP TABLE intervals", intervalsView) })
	run, err := runner.Run(context.Background(), cfg, nil)
	if dropErr != nil {
		t.Fatal(dropErr)
	}
	if run == nil {
		t.Fatalf("no run: %v", err)
	}
	want := "run " + run.RunID + " was saved in " + cfg.Results + " without part of what it measured: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q...", err, want)
	}
	if strings.Contains(out.String(), "saved as") {
		t.Errorf("`saved as` printed:\n%s", out)
	}
	if _, err := os.Stat(cfg.Results); err != nil {
		t.Fatal(err)
	}
}
