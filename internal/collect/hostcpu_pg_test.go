package collect

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	_ "github.com/dbharness/dbharness/internal/db/all" // every engine
	"github.com/dbharness/dbharness/internal/procfs"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestHostAccountCountsThePostmastersBackendsAsTheServer: on the
// PostgreSQL of this host the account finds the postmaster, its tree holds
// the backend of a connection, and the CPU that backend spends on a query
// is the server's: the server's share is above 0.
func TestHostAccountCountsThePostmastersBackendsAsTheServer(t *testing.T) {
	d, c := testdb.Connect(t, testdb.Postgres(t, "dbh_hostcpu_server"))
	ctx := context.Background()
	h := StartHostAccount(ctx, d, 200*time.Millisecond, 0)
	if h.notMeasured != "" || h.server == 0 || !h.children {
		t.Fatalf("no server process: not measured %q, server %d (%s)", h.notMeasured, h.server, h.serverNote)
	}
	backend, err := db.QueryInt64(ctx, c, "SELECT pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := procfs.Processes()
	if err != nil {
		t.Fatal(err)
	}
	if !procfs.Tree(procs, h.server)[int(backend)] {
		t.Fatalf("backend %d is not in the tree of the server's process %d", backend, h.server)
	}
	h.ClockStarted(time.Now())
	// About a second of one backend's CPU.
	if _, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM generate_series(1, 3000000) g WHERE md5(g::text) LIKE 'a%'"); err != nil {
		t.Fatal(err)
	}
	out := h.End()
	if out.NotMeasured != "" || out.ServerPct == nil || *out.ServerPct <= 0 || !strings.Contains(out.Server, "PostgreSQL postmaster") {
		t.Fatalf("account %+v: want the server's share above 0", out)
	}
	// The harness is named as /proc names it, which is how another
	// harness on this host counts it among its others.
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(comm)); out.Harness != want {
		t.Errorf("the account names the harness %q; want %q", out.Harness, want)
	}
	t.Logf("host CPU: %s", out.Line())
}
