package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestManyClientsCanOpenAFreshSQLiteDatabaseAtOnce(t *testing.T) {
	// Each new connection switches the file to WAL; done at once on a new
	// file, that used to fail with SQLITE_BUSY.
	for round := 0; round < 100; round++ {
		tg, _ := db.ParseURL(testdb.SQLite(t))
		d, err := db.Open(tg)
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 16)
		conns := make(chan db.Conn, 16)
		for i := 0; i < 16; i++ {
			go func() {
				c, err := d.Connect(context.Background())
				errs <- err
				conns <- c
			}()
		}
		for i := 0; i < 16; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if c := <-conns; c != nil {
				c.Close()
			}
		}
		d.Close()
	}
}

// Only a target made for creating (init's) creates a database file; any
// other open of a file that does not exist fails in one sentence and
// leaves nothing on disk, not even when the file vanishes after the check.
func TestASQLiteFileIsCreatedOnlyByInit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo", "bench.db")
	tg, err := db.ParseURL("sqlite://" + path)
	if err != nil {
		t.Fatal(err)
	}
	want := "--db sqlite://" + path + ": the database file " + path + " does not exist; check the path, or create it with `dbharness init WORKLOAD"
	if _, err := db.Open(tg); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("open: %v, want %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the open made its directory: %v", err)
	}
	// Checked, then removed: SQLite itself does not create it (mode=rw).
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(tg)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if c, err := d.Connect(context.Background()); err == nil {
		c.Close()
		t.Error("connected to a file that does not exist")
	}
	d.Close()
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the connection made the file: %v", err)
	}
	// init's target creates the directory and the file.
	os.RemoveAll(filepath.Join(dir, "typo"))
	d, err = db.Open(tg.Creating())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// The embedded default database's directory is dbharness's data directory,
// where the results store lives too: it is made private (0700).
func TestTheDefaultDatabasesDirectoryIsPrivate(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	tg, err := db.ParseURL("")
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(tg.Creating())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fi, err := os.Stat(filepath.Dir(tg.Path))
	if err != nil {
		t.Fatal(err)
	}
	if p := fi.Mode().Perm(); p != 0o700 {
		t.Errorf("%s is %o, want 700", filepath.Dir(tg.Path), p)
	}
}

// A connection closed with a write transaction open (a run's stop cancels
// a COMMIT, and SQLite leaves the transaction open) goes back to the pool
// without it: the transaction is rolled back, and another writer can take
// the write lock at once.
func TestAConnectionClosedInATransactionLeavesNoLockBehind(t *testing.T) {
	u := testdb.SQLite(t)
	path := strings.TrimPrefix(u, "sqlite://")
	d, c := testdb.Connect(t, u)
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (v integer)", "BEGIN IMMEDIATE", "INSERT INTO t VALUES (1)")
	// A cancelled COMMIT fails, and leaves the transaction open.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Exec(cancelled, "COMMIT"); err == nil {
		t.Fatal("a COMMIT with a cancelled context succeeded")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Another program's writer: a short busy timeout, so that a lock
	// still held fails the test at once.
	h, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	hc, err := h.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if _, err := hc.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("the write lock is still held after the connection was closed: %v", err)
	}
	var n int
	if err := hc.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows after the transaction was left open and the connection closed (want 0: rolled back), err %v", n, err)
	}
	if _, err := hc.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	// The pooled connections still work.
	for i := 0; i < 3; i++ {
		c, err := d.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Exec(ctx, "INSERT INTO t VALUES (2)"); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}
