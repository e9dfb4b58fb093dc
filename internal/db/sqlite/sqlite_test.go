package sqlite_test

import (
	"context"
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
