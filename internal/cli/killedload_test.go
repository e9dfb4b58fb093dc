package cli_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// TestTheNextInitDropsWhatAKilledLoadLeft kills `init tpcb` on SQL Server
// while a load's staging table is there (a load through a staging table,
// as every load on Babelfish goes), sees that the table stays, and then
// that the next init of the same tables leaves no staging table behind.
func TestTheNextInitDropsWhatAKilledLoadLeft(t *testing.T) {
	t.Parallel()
	url := testdb.SQLServer(t, "dbh_killed_load")
	home := t.TempDir()
	_, c := testdb.Connect(t, url)
	staging := func() []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		names, err := db.QueryStrings(ctx, c, "SELECT name FROM sys.tables WHERE name LIKE 'dbh[_]load[_]%'")
		if err != nil {
			t.Fatal(err)
		}
		return names
	}

	cmd, out, _ := startBin(t, home, "", true, "init", "tpcb", "--db", url, "--scale", "2")
	defer out.Close()
	deadline := time.Now().Add(3 * time.Minute)
	for len(staging()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no staging table seen within 3 minutes of init's start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != -1 {
		t.Fatalf("init ended with %d before it was killed: the test saw its staging table too late", code)
	}
	left := staging()
	if len(left) == 0 {
		t.Fatal("the killed init left no staging table: the case this test is for did not happen")
	}
	for _, n := range left {
		if !strings.HasPrefix(strings.ToLower(n), "dbh_load_pgbench_") {
			t.Errorf("staging table %s is not one of a pgbench table's loads", n)
		}
	}

	if r := dbh(t, home, "init", "tpcb", "--db", url, "--scale", "1"); r.code != 0 {
		t.Fatalf("the second init: exit %d\n%s", r.code, r.all())
	}
	if left := staging(); len(left) != 0 {
		t.Errorf("after the second init, staging tables %v are still there", left)
	}
}
