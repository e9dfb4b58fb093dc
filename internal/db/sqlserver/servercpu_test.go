package sqlserver_test

import (
	"context"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestTheServerProcessHoldsTheSessionsBackend: on the test Babelfish, on
// this host, the engine names the server's process, and its processes
// hold the backend that serves a session of the test's.
func TestTheServerProcessHoldsTheSessionsBackend(t *testing.T) {
	t.Parallel()
	d, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_serverproc"))
	ctx := context.Background()
	f, ok := d.(evidence.ServerProcessFinder)
	if !ok {
		t.Fatal("the sqlserver engine does not find its server's process")
	}
	sp, err := f.ServerProcess(ctx)
	if err != nil {
		t.Fatalf("the server's process: %v", err)
	}
	procs, err := procfs.Processes()
	if err != nil {
		t.Fatal(err)
	}
	set, err := sp.On(procs)
	if err != nil {
		t.Fatalf("%s (pid %d): %v", sp.What, sp.PID, err)
	}
	backend := int(c.BackendID(ctx))
	if !set[backend] {
		t.Errorf("%s (pid %d) and its %d processes do not hold the session's backend %d", sp.What, sp.PID, len(set), backend)
	}
}
