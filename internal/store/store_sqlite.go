package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite" // the default store is an embedded SQLite file
	sqlite3 "modernc.org/sqlite/lib"
)

// The results store is marked as dbharness's in its SQLite header: PRAGMA
// application_id holds storeApplicationID ("dbhr") and PRAGMA user_version
// the store's schema version. A store made before the mark (version 0) is
// recognised by its tables and stamped when it is opened.
const storeApplicationID = 0x64626872

// openFile opens the SQLite store at path for writing, creating it if
// needed: the file 0600 and the directories it creates 0700, for it keeps host
// names, settings and plans. It refuses, in one sentence, a directory, a
// file it cannot create or write, and a file that is not a dbharness store
// of a version it knows; it never adds its tables to another SQLite file.
func openFile(path string) (*Store, error) {
	if err := createStoreFile(path); err != nil {
		return nil, err
	}
	s, err := openStore(path, url.Values{"_pragma": {"busy_timeout(10000)", "synchronous(NORMAL)"}})
	if err != nil {
		return nil, err
	}
	if err := s.kind.setUp(context.Background(), s); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// createStoreFile makes a new store at path, and the directories above
// it, when nothing is there. The store is set up whole (tables, mark,
// WAL) under a private name beside path and then linked to path, so that
// another dbharness opening path at the same time finds either nothing
// or a finished store, never a file being set up, and a failed set-up
// removes only its own file. When another made path first, its store is
// kept and this one dropped.
func createStoreFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("results store %s is a directory", path)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("results store %s cannot be opened: %v", path, pathCause(err))
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("results store %s cannot be created: %v", path, pathCause(err))
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".new-*") // 0600
	if err != nil {
		return fmt.Errorf("results store %s cannot be created: %v", path, pathCause(err))
	}
	tmp := f.Name()
	defer func() {
		for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(f)
		}
	}()
	if err := f.Close(); err != nil {
		return fmt.Errorf("results store %s cannot be created: %v", path, pathCause(err))
	}
	s, err := openStore(tmp, url.Values{"_pragma": {"synchronous(NORMAL)"}})
	if err != nil {
		return err
	}
	s.path = path // its messages name the store the user asked for
	err = s.kind.setUp(context.Background(), s)
	if cerr := s.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("results store %s cannot be created: %v", path, cerr)
	}
	if err != nil {
		return err
	}
	switch err := linkFile(tmp, path); {
	case err == nil, errors.Is(err, fs.ErrExist):
		return nil // made here, or by another dbharness meanwhile
	default:
		// A file system without hard links: renaming replaces, so a
		// store another dbharness made in this instant would be lost;
		// look once more first.
		if _, serr := os.Stat(path); serr == nil {
			return nil
		}
		if rerr := os.Rename(tmp, path); rerr != nil {
			return fmt.Errorf("results store %s cannot be created: %v", path, pathCause(err))
		}
		return nil
	}
}

// linkFile is os.Link; a test stands in a file system without hard links.
var linkFile = os.Link

// pathCause is an error without the path that the message names already.
func pathCause(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	if le := (*os.LinkError)(nil); errors.As(err, &le) {
		return le.Err
	}
	return err
}

// sqliteStore is the kind of a store in an SQLite file.
type sqliteStore struct{}

// setUp checks, under the write lock, that the store's file is writable
// and is a dbharness store of a known version (or an empty file), creates
// the tables it lacks and stamps it.
func (k sqliteStore) setUp(ctx context.Context, s *Store) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return k.explain(s, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return k.explain(s, err)
	}
	done := false
	defer func() {
		if !done {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	if err := k.checkKind(ctx, s, conn); err != nil {
		return err
	}
	cols, err := k.columns(ctx, conn)
	if err != nil {
		return k.explain(s, err)
	}
	stamp := fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d;", storeApplicationID, storeVersion)
	if _, err := conn.ExecContext(ctx, addColumns(cols)+allSchema+stamp); err != nil {
		return k.explain(s, err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return k.explain(s, err)
	}
	done = true
	if _, err := conn.ExecContext(ctx, "PRAGMA journal_mode = WAL"); err != nil {
		return k.explain(s, err)
	}
	return nil
}

// checkKind says whether the open file is a dbharness store of a known
// version, an old one without the mark, or an empty database; otherwise
// it says what the file is.
func (k sqliteStore) checkKind(ctx context.Context, s *Store, conn *sql.Conn) error {
	var app, version int64
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return k.explain(s, err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return k.explain(s, err)
	}
	switch {
	case app == storeApplicationID && version > storeVersion:
		return fmt.Errorf("results store %s was made by a newer dbharness (store version %d; this one knows up to %d)", s.path, version, storeVersion)
	case app == storeApplicationID:
		return nil
	case app != 0:
		return fmt.Errorf("%s is not a dbharness results store: it is another application's SQLite database (application_id %#x)", s.path, app)
	}
	rows, err := conn.QueryContext(ctx, "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return k.explain(s, err)
	}
	var foreign []string
	objects, hasRuns := 0, false
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			rows.Close()
			return k.explain(s, err)
		}
		objects++
		if typ == "table" && !storeTables[name] {
			foreign = append(foreign, name)
		}
		hasRuns = hasRuns || (typ == "table" && name == "runs")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return k.explain(s, err)
	}
	if objects == 0 {
		return nil // a new store
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s is not a dbharness results store: it is an SQLite database with other tables (%s)", s.path, strings.Join(foreign, ", "))
	}
	// A store made before the mark has the runs table with its columns.
	cols := map[string]bool{}
	if hasRuns {
		rows, err := conn.QueryContext(ctx, "SELECT name FROM pragma_table_info('runs')")
		if err != nil {
			return k.explain(s, err)
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return k.explain(s, err)
			}
			cols[c] = true
		}
		rows.Close()
	}
	for _, c := range []string{"id", "started", "workload", "status", "run"} {
		if !cols[c] {
			return fmt.Errorf("%s is not a dbharness results store: it is an SQLite database whose tables are not a store's", s.path)
		}
	}
	return nil
}

// nowQuery reads this host's clock, to the millisecond.
func (sqliteStore) nowQuery() string { return `SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` }

// bind leaves the statement as it is: SQLite reads ? placeholders.
func (sqliteStore) bind(q string) string { return q }

// cause is the driver's error: SQLite's messages are one line and hold no
// secret.
func (sqliteStore) cause(err error) error { return err }

// explain says in one sentence why SQLite refused the store's file.
func (sqliteStore) explain(s *Store, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%s is not a dbharness results store: it is not an SQLite database", s.path)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("results store %s is damaged: %v", s.path, err)
		case sqlite3.SQLITE_READONLY:
			return fmt.Errorf("results store %s is not writable: %v", s.path, err)
		}
	}
	return fmt.Errorf("results store %s cannot be opened: %v", s.path, err)
}

// openFileReadOnly opens an existing SQLite store for reading; a file
// that is not there is ErrNoStore, and nothing is created.
func openFileReadOnly(path string) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w at %s", ErrNoStore, path)
	case err != nil:
		return nil, fmt.Errorf("results store %s cannot be opened: %v", path, pathCause(err))
	case fi.IsDir():
		return nil, fmt.Errorf("results store %s is a directory", path)
	}
	return openStore(path, url.Values{"mode": {"ro"}, "_pragma": {"busy_timeout(10000)"}})
}

// checkRead checks that the file is a dbharness store of a known version
// (checkKind) and which of its tables it holds (readTables): an empty
// file is no store.
func (k sqliteStore) checkRead(ctx context.Context, s *Store) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return k.explain(s, err)
	}
	defer conn.Close()
	if err := k.checkKind(ctx, s, conn); err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return k.explain(s, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return k.explain(s, err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return k.explain(s, err)
	}
	if err := readTables(s, names); err != nil {
		return err
	}
	cols, err := k.columns(ctx, conn)
	if err != nil {
		return k.explain(s, err)
	}
	if addColumns(cols) != "" {
		return errOlderStore
	}
	return nil
}

// columns reads the columns of the store's tables.
func (sqliteStore) columns(ctx context.Context, conn *sql.Conn) (map[string]map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, `SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`)
	if err != nil {
		return nil, err
	}
	return readColumns(rows)
}

// openStore opens the SQLite file at path, with the URI parameters q, on
// one connection.
func openStore(path string, q url.Values) (*Store, error) {
	d, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("results store %s: %v", path, err)
	}
	d.SetMaxOpenConns(1)
	return &Store{db: d, kind: sqliteStore{}, path: path, loc: path, timeout: storeTimeout}, nil
}
