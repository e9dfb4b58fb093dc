package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// execSQL runs statements on the SQLite file at path, as another program
// would.
func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	execOn(t, "sqlite", "file:"+path, stmts...)
}

// execOn runs statements on the database of a driver's data source.
func execOn(t *testing.T, driver, dsn string, stmts ...string) {
	t.Helper()
	d, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, q := range stmts {
		if _, err := d.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// schemaOf lists the SQLite file's schema objects.
func schemaOf(t *testing.T, path string) string {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query(`SELECT type || ' ' || name FROM sqlite_master ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// immutable makes path immutable (chattr +i), which stops root too, and
// undoes it at the end of the test; it skips the test where it cannot.
func immutable(t *testing.T, path string) {
	t.Helper()
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not available here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
}

func TestAStoreIsCreatedForItsOwnerOnly(t *testing.T) {
	top := t.TempDir()
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(top, "a", "b", "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Save(sampleRun()); err != nil {
		t.Fatal(err)
	}
	modes := map[string]fs.FileMode{top: 0o755, filepath.Join(top, "a"): 0o700, filepath.Join(top, "a", "b"): 0o700, path: 0o600}
	// SQLite's side files, there while the store is open, are private too.
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Stat(side); err != nil {
			t.Errorf("%s: %v (the store is not in WAL mode?)", side, err)
		}
		modes[side] = 0o600
	}
	for p, want := range modes {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %#o, want %#o", p, got, want)
		}
	}
	onlyStoreFiles(t, path)
}

// onlyStoreFiles fails when the directory of the SQLite store at path
// holds anything but the store and SQLite's side files: the private
// file a new store is set up in is gone once it is linked.
func onlyStoreFiles(t *testing.T, path string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(path)
	for _, e := range entries {
		if n := e.Name(); n != base && n != base+"-wal" && n != base+"-shm" {
			t.Errorf("%s is left beside the store", n)
		}
	}
}

func TestOpenRefusesWhatIsNotAWritableStore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	random := filepath.Join(dir, "random.db")
	junk := make([]byte, 8192)
	_, _ = rand.Read(junk)
	if err := os.WriteFile(random, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	execSQL(t, other, "PRAGMA application_id = 1234", "CREATE TABLE things (id INTEGER)")
	newer := filepath.Join(dir, "newer.db")
	execSQL(t, newer, "PRAGMA application_id = 1684170866", "PRAGMA user_version = 99", "CREATE TABLE runs (id TEXT)")
	lookalike := filepath.Join(dir, "lookalike.db")
	execSQL(t, lookalike, "CREATE TABLE runs (n INTEGER)")
	immutableDir := filepath.Join(dir, "frozen")
	if err := os.Mkdir(immutableDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, want string }{
		{"a directory", dir, "is a directory"},
		{"a path under a file", filepath.Join(file, "results.db"), "cannot be opened: not a directory"},
		{"a path in /proc", "/proc/dbharness-results.db", "cannot be created"},
		{"random bytes", random, "is not a dbharness results store: it is not an SQLite database"},
		{"another application's database", other, "another application's SQLite database"},
		{"a store of a newer dbharness", newer, "newer dbharness (store version 99; this one knows up to 1)"},
		{"a runs table that is not a store's", lookalike, "whose tables are not a store's"},
		{"a file in an immutable directory", filepath.Join(immutableDir, "results.db"), "cannot be created: operation not permitted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.path == filepath.Join(immutableDir, "results.db") {
				immutable(t, immutableDir)
			}
			before, _ := os.ReadFile(c.path)
			s, err := Open(c.path)
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, c.path) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line naming %s and saying %q", msg, c.path, c.want)
			}
			if after, _ := os.ReadFile(c.path); !bytes.Equal(before, after) {
				t.Error("the file was changed")
			}
		})
	}
}

func TestASQLiteURLNamesTheStoresFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	s := openStoreT(t, "sqlite://"+path)
	if err := s.Save(sampleRun()); err != nil {
		t.Fatal(err)
	}
	if s.Path() != path || !strings.Contains(schemaOf(t, path), "table runs") {
		t.Errorf("the store is %s, with %q in %s", s.Path(), schemaOf(t, path), path)
	}
}

func TestOpenNeverAddsTablesToAnotherSQLiteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	execSQL(t, path, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO customers VALUES (1, 'a')")
	schema := schemaOf(t, path)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("opened another program's database as a results store")
	}
	if want := path + " is not a dbharness results store: it is an SQLite database with other tables (customers)"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got := schemaOf(t, path); got != schema {
		t.Errorf("schema changed from %q to %q", schema, got)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the file was changed")
	}
}

func TestAnImmutableStoreIsNotWritable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	immutable(t, path)
	s, err = Open(path)
	if err == nil {
		s.Close()
		t.Fatal("opened")
	}
	if !strings.Contains(err.Error(), "results store "+path+" is not writable") {
		t.Errorf("error %q", err)
	}
}

// oldSchema is the store as dbharness made it before it marked its files.
const oldSchema = `
CREATE TABLE runs (id TEXT PRIMARY KEY, started TEXT NOT NULL, workload TEXT NOT NULL, engine TEXT NOT NULL,
	clients INTEGER NOT NULL, status TEXT NOT NULL, tps REAL NOT NULL DEFAULT 0, pid INTEGER NOT NULL DEFAULT 0, run TEXT NOT NULL);
CREATE TABLE intervals (run_id TEXT NOT NULL, seq INTEGER NOT NULL, interval TEXT NOT NULL, hists TEXT, PRIMARY KEY (run_id, seq));
CREATE INDEX runs_started ON runs (started);
`

func TestAStoreMadeBeforeTheMarkIsAcceptedAndStamped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	execSQL(t, path, oldSchema,
		`INSERT INTO runs (id, started, workload, engine, clients, status, tps, run)
		VALUES ('20260101-000000-abcd', '2026-01-01T00:00:00Z', 'tpcb', 'sqlite', 1, 'completed', 10,
		'{"run_id":"20260101-000000-abcd","status":"completed","workload":"tpcb"}')`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Get(context.Background(), "20260101-000000-abcd")
	if err != nil || r.Workload != "tpcb" {
		t.Fatalf("the old run: %+v, %v", r, err)
	}
	if err := s.Save(sampleRun()); err != nil {
		t.Fatal(err)
	}
	var app, version int
	if err := s.db.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if app != storeApplicationID || version != storeVersion {
		t.Errorf("application_id %#x, user_version %d", app, version)
	}
	if got := schemaOf(t, path); !strings.Contains(got, "table evidence") || !strings.Contains(got, "table sweeps") {
		t.Errorf("the old store lacks the new tables: %s", got)
	}
}

// TestANewStoreIsMadeWhereFilesCannotBeLinked stands in a file system
// without hard links: the new store is renamed into place instead, and
// a store another harness made at that instant is kept, not replaced.
func TestANewStoreIsMadeWhereFilesCannotBeLinked(t *testing.T) {
	t.Cleanup(func() { linkFile = os.Link })
	noLink := func(old, new string) error {
		return &os.LinkError{Op: "link", Old: old, New: new, Err: syscall.EPERM}
	}
	ctx := context.Background()

	path := filepath.Join(t.TempDir(), "results.db")
	linkFile = noLink
	s := openStoreT(t, path)
	r := sampleRun()
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, r.RunID); err != nil || got.RunID != r.RunID {
		t.Fatalf("the renamed store reads back %v, %v", got, err)
	}
	onlyStoreFiles(t, path)

	// Another harness makes the store while this one sets up its own.
	path = filepath.Join(t.TempDir(), "results.db")
	other := sampleRun()
	linkFile = func(old, new string) error {
		linkFile = os.Link
		o, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Save(other); err != nil {
			t.Fatal(err)
		}
		if err := o.Close(); err != nil { // the run is in the file, not a WAL beside it
			t.Fatal(err)
		}
		return noLink(old, new)
	}
	s = openStoreT(t, path)
	if got, err := s.Get(ctx, other.RunID); err != nil || got.RunID != other.RunID {
		t.Fatalf("the other harness's run is gone: %v, %v", got, err)
	}
	onlyStoreFiles(t, path)
}

// TestOpenReadOnlyCreatesNothing opens, for reading, a store that is not
// there (a missing file and directory, an empty file, a database without
// the schema): ErrNoStore, and nothing made; then the same store once a
// run is saved in it, and an older store, which is brought up to date.
func TestOpenReadOnlyCreatesNothing(t *testing.T) {
	eachStore(t, func(t *testing.T, loc string) {
		if !IsServer(loc) {
			loc = filepath.Join(filepath.Dir(loc), "sub", "r.db")
		}
		s, err := OpenReadOnly(loc)
		if !errors.Is(err, ErrNoStore) || err.Error() != "no results store at "+Describe(loc) {
			t.Fatalf("a missing store: %v, %v", s, err)
		}
		if IsServer(loc) {
			d, err := sql.Open("pgx", loc)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var n int
			if err := d.QueryRow("SELECT count(*) FROM pg_namespace WHERE nspname = $1", serverSchema).Scan(&n); err != nil || n != 0 {
				t.Errorf("the schema was made: %d, %v", n, err)
			}
		} else {
			if _, err := os.Stat(filepath.Dir(loc)); !os.IsNotExist(err) {
				t.Errorf("the store's directory was made: %v", err)
			}
			empty := filepath.Join(t.TempDir(), "empty.db")
			if err := os.WriteFile(empty, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := OpenReadOnly(empty); !errors.Is(err, ErrNoStore) {
				t.Errorf("an empty file: %v", err)
			}
			if got := schemaOf(t, empty); got != "" {
				t.Errorf("the empty file got %s", got)
			}
		}
		r := sampleRun()
		if err := openStoreT(t, loc).Save(r); err != nil {
			t.Fatal(err)
		}
		s = readOnlyT(t, loc)
		if got, err := s.Get(context.Background(), r.RunID); err != nil || got.RunID != r.RunID {
			t.Errorf("the saved run reads back %v, %v", got, err)
		}
	})
	path := filepath.Join(t.TempDir(), "old.db")
	execSQL(t, path, oldSchema)
	s := readOnlyT(t, path)
	if rows, err := s.ListSweeps(context.Background(), 0); err != nil || len(rows) != 0 {
		t.Errorf("the older store's sweeps: %v, %v", rows, err)
	}
}

// readOnlyT opens the store at loc for reading and closes it at the
// test's end.
func readOnlyT(t *testing.T, loc string) *Store {
	t.Helper()
	s, err := OpenReadOnly(loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
