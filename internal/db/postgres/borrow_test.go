package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// A connection that says it borrows a statement's text (db.TextBorrower)
// is done with it when Exec returns: the buffer behind the text may be
// written over at once, and neither what ran nor the error it returned
// changes. A prepared statement's Exec counts the rows it affected.
func TestTheLoopConnectionKeepsNothingOfTheTextItIsLent(t *testing.T) {
	ctx := context.Background()
	pc, lc := bothConns(t, "dbh_pg_borrow")
	testdb.Exec(t, pc, "CREATE TABLE t (k int, v text)")
	if _, ok := lc.(db.TextBorrower); !ok {
		t.Fatal("PostgreSQL's loop connection does not borrow text: scripts copy every statement")
	}
	buf := []byte("INSERT INTO t VALUES (1, 'lent')")
	lend := func() string { return unsafe.String(unsafe.SliceData(buf), len(buf)) }
	err := lc.Exec(ctx, lend())
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, "INSERT INTO t VALUES (2, 'over')")
	if n, err := db.QueryInt64(ctx, pc, "SELECT count(*) FROM t WHERE k = 1 AND v = 'lent'"); err != nil || n != 1 {
		t.Fatalf("the lent statement's row: %d, %v", n, err)
	}

	buf = []byte("INSERT INTO nowhere VALUES (1)")
	err = lc.Exec(ctx, lend())
	if err == nil {
		t.Fatal("an insert into a missing table succeeded")
	}
	before := err.Error()
	copy(buf, "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
	if after := err.Error(); after != before {
		t.Fatalf("the error changed with the lent buffer: %q, then %q", before, after)
	}

	st, err := lc.Prepare(ctx, "UPDATE t SET v = $1 WHERE k <= $2")
	if err != nil {
		t.Fatal(err)
	}
	testdb.Exec(t, pc, "INSERT INTO t VALUES (2, 'b'), (3, 'c')")
	if n, err := st.Exec(ctx, "x", int64(2)); err != nil || n != 2 {
		t.Fatalf("the update affected %d rows, %v; want 2", n, err)
	}
}

// A statement Prepare returned stays prepared while Query's one-off SQL
// fills the connection's statement cache and empties it to make room: the
// caller holds it (a script under -M prepared holds every command's).
func TestTheLoopConnectionKeepsWhatPrepareReturned(t *testing.T) {
	ctx := context.Background()
	_, lc := bothConns(t, "dbh_pg_kept")
	// Query first, so that the statement is in the cache when Prepare
	// asks for the same text.
	if n, err := db.QueryInt64(ctx, lc, "SELECT $1::int + 1", int64(1)); err != nil || n != 2 {
		t.Fatalf("query: %d, %v", n, err)
	}
	cached, err := lc.Prepare(ctx, "SELECT $1::int + 1")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := lc.Prepare(ctx, "SELECT $1::int * 2")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1100 {
		if _, err := db.QueryInt64(ctx, lc, fmt.Sprintf("SELECT %d + $1::int", i), int64(1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		st   db.Stmt
		want int64
	}{{cached, 8}, {fresh, 14}} {
		var got int64
		if err := c.st.QueryRow(ctx, []any{&got}, int64(7)); err != nil || got != c.want {
			t.Errorf("a prepared statement after 1,100 one-off queries: %d, %v; want %d", got, err, c.want)
		}
	}
}

// bothConns creates PostgreSQL database name and returns a connection of
// each kind to it: the goroutine driver's (pgx) and the event loop's.
func bothConns(t *testing.T, name string) (pgx, loop db.Conn) {
	t.Helper()
	d, pgx := testdb.Connect(t, testdb.Postgres(t, name))
	loop, err := d.(db.LoopDB).ConnectLoop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { loop.Close() })
	return pgx, loop
}

// The loop connection keeps the deadline of the context it was last given
// (bound) and looks it up again only for another context: a statement
// under a context without one waits past the deadline of the one before,
// and the first context's deadline holds again when it comes back.
func TestTheLoopConnectionTakesEachContextsDeadline(t *testing.T) {
	_, lc := bothConns(t, "dbh_pg_deadline")
	// 5 s: SELECT 1 ends well inside it even on a busy host.
	bounded, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := lc.Exec(bounded, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if err := lc.Exec(context.Background(), "SELECT pg_sleep(6)"); err != nil {
		t.Fatalf("a statement without a deadline, after one with a 5 s deadline: %v", err)
	}
	err := lc.Exec(bounded, "SELECT pg_sleep(30)")
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a 30 s statement under the 5 s context again: %v, want the deadline exceeded", err)
	}
}
