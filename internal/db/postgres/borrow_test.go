package postgres_test

import (
	"context"
	"testing"
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
	d, pc := testdb.Connect(t, testdb.Postgres(t, "dbh_pg_borrow"))
	testdb.Exec(t, pc, "CREATE TABLE t (k int, v text)")
	lc, err := d.(db.LoopDB).ConnectLoop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.Close() })
	if _, ok := lc.(db.TextBorrower); !ok {
		t.Fatal("PostgreSQL's loop connection does not borrow text: scripts copy every statement")
	}
	buf := []byte("INSERT INTO t VALUES (1, 'lent')")
	lend := func() string { return unsafe.String(unsafe.SliceData(buf), len(buf)) }
	if err := lc.Exec(ctx, lend()); err != nil {
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
