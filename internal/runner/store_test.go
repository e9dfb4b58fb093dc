package runner_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/runner"
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
		if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "give another file with --results, or run with --no-save") {
			t.Errorf("error %q, want it to say %q and what to do", msg, want)
		}
		if out.Len() > 0 {
			t.Errorf("a run refused printed:\n%s", out)
		}
	}
}
