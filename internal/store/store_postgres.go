package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/dbharness/dbharness/internal/redact"
)

// A store on a PostgreSQL server keeps the same tables as an SQLite one,
// in the schema serverSchema of the URL's database, so that it shares the
// database with other applications' tables without touching them. The
// schema's comment marks it as a store and holds its version, as an SQLite
// store's header does.
const (
	serverSchema = "dbharness"
	serverMark   = "dbharness results store, version "
	// serverLockKey is the advisory lock under which harnesses set the
	// store up one at a time ("dbhrstor").
	serverLockKey int64 = 0x6462687273746f72
	// serverConns bounds the connections of one harness to the store: its
	// writers are the run's interval tick and its collectors.
	serverConns = 4
	// serverConnectTimeout bounds a connection to the store when the URL
	// gives no connect_timeout; a write waits writeTimeouts times as long.
	serverConnectTimeout = 10 * time.Second
)

// pgStore is the kind of a store on a PostgreSQL server.
type pgStore struct{}

// openServer opens the store in the database of a postgres:// URL, and,
// unless readOnly, sets it up. Every message names the URL without its
// secrets.
func openServer(loc string, readOnly bool) (*Store, error) {
	shown := redact.String(loc)
	cfg, err := pgx.ParseConfig(loc)
	if err != nil {
		// pgx's message quotes the URL, which this one names already.
		msg := err.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		return nil, fmt.Errorf("results store %s is not a valid URL: %s", shown, redact.String(msg))
	}
	cfg.RuntimeParams["search_path"] = serverSchema
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "dbharness results store"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = serverConnectTimeout
	}
	d := stdlib.OpenDB(*cfg)
	d.SetMaxOpenConns(serverConns)
	d.SetMaxIdleConns(serverConns)
	s := &Store{db: d, kind: pgStore{}, path: shown, loc: loc, timeout: writeTimeouts * cfg.ConnectTimeout}
	if readOnly {
		return s, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	if err := s.kind.setUp(ctx, s); err != nil {
		d.Close()
		return nil, err
	}
	return s, nil
}

// setUp checks, under an advisory lock that other harnesses setting the
// store up wait for, that the schema is a dbharness store of a known
// version (or absent, or empty), and creates the tables it lacks. A store
// already set up is only read, so that a user who may write rows but not
// create tables can use it.
func (k pgStore) setUp(ctx context.Context, s *Store) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return k.explain(s, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", serverLockKey); err != nil {
		return k.explain(s, err)
	}
	var comment sql.NullString
	var tables string
	err = tx.QueryRowContext(ctx, `SELECT obj_description(n.oid, 'pg_namespace'),
		COALESCE((SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c
			WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f')), '')
		FROM pg_namespace n WHERE n.nspname = $1`, serverSchema).Scan(&comment, &tables)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return k.explain(s, err)
	}
	added := ""
	if exists {
		names, version, err := pgSchemaOf(s, comment, tables)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, pgColumns, serverSchema)
		if err != nil {
			return k.explain(s, err)
		}
		cols, err := readColumns(rows)
		if err != nil {
			return k.explain(s, err)
		}
		added = addColumns(cols)
		if version == storeVersion && added == "" && len(names) == len(storeTables) && !slices.ContainsFunc(names, func(n string) bool { return !storeTables[n] }) {
			return k.explain(s, tx.Commit())
		}
	}
	ddl := "CREATE SCHEMA IF NOT EXISTS " + serverSchema + "; SET LOCAL search_path = " + serverSchema + ";" +
		added + allSchema +
		"COMMENT ON SCHEMA " + serverSchema + " IS '" + serverMark + strconv.Itoa(storeVersion) + "';"
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return k.explain(s, err)
	}
	if err := tx.Commit(); err != nil {
		return k.explain(s, err)
	}
	return nil
}

// checkRead checks, in a read-only transaction, that the schema is a
// dbharness store of a known version and which of its tables it holds
// (readTables): a database without the schema, or with an empty one, is
// no store.
func (k pgStore) checkRead(ctx context.Context, s *Store) error {
	var comment sql.NullString
	var tables string
	err := s.db.QueryRowContext(ctx, `SELECT obj_description(n.oid, 'pg_namespace'),
		COALESCE((SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c
			WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f')), '')
		FROM pg_namespace n WHERE n.nspname = $1`, serverSchema).Scan(&comment, &tables)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w at %s", ErrNoStore, s.path)
	}
	if err != nil {
		return k.explain(s, err)
	}
	names, _, err := pgSchemaOf(s, comment, tables)
	if err != nil {
		return err
	}
	if err := readTables(s, names); err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, pgColumns, serverSchema)
	if err != nil {
		return k.explain(s, err)
	}
	cols, err := readColumns(rows)
	if err != nil {
		return k.explain(s, err)
	}
	if addColumns(cols) != "" {
		return errOlderStore
	}
	return nil
}

// pgColumns reads the columns of the tables of a schema, as (table,
// column).
const pgColumns = `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`

// pgSchemaOf reads the store's schema from its comment (the mark and version)
// and its tables (comma-separated): the tables, and the version (0 when
// unmarked, as markVersion gives it). It refuses a store of a newer dbharness, and a schema of that
// name that holds tables but no mark (not a results store).
func pgSchemaOf(s *Store, comment sql.NullString, tables string) ([]string, int, error) {
	var names []string
	if tables != "" {
		names = strings.Split(tables, ",")
	}
	version, marked := markVersion(comment.String)
	switch {
	case marked && version > storeVersion:
		return nil, 0, fmt.Errorf("results store %s was made by a newer dbharness (store version %d; this one knows up to %d)", s.path, version, storeVersion)
	case !marked && len(names) > 0:
		return nil, 0, fmt.Errorf("results store %s: the schema %s of its database is not a dbharness results store (it holds %s)", s.path, serverSchema, strings.Join(names, ", "))
	}
	return names, version, nil
}

// markVersion reads the store's version from its schema's comment.
func markVersion(comment string) (int, bool) {
	v, ok := strings.CutPrefix(comment, serverMark)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// nowQuery reads the server's clock, to the microsecond.
func (pgStore) nowQuery() string {
	return `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
}

// bind numbers the statement's ? placeholders $1, $2, ... (the store's
// statements hold no ? of their own).
func (pgStore) bind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// explain says in one sentence why the server refused the store.
func (k pgStore) explain(s *Store, err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return fmt.Errorf("results store %s refused the login: %v", s.path, k.cause(err))
		case "42501", "25006":
			return fmt.Errorf("results store %s is not writable: %v", s.path, k.cause(err))
		}
		return fmt.Errorf("results store %s cannot be opened: %v", s.path, k.cause(err))
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("results store %s cannot be reached: %v", s.path, k.cause(err))
	}
	return fmt.Errorf("results store %s cannot be opened: %v", s.path, k.cause(err))
}

// cause is the heart of a pgx error, on one line and without secrets: the
// server's message, or what the network said (connection refused, no
// such host), rather than the driver's chain of contexts.
func (pgStore) cause(err error) error {
	var pe *pgconn.PgError
	var oe *net.OpError
	var se *os.SyscallError
	switch {
	case errors.As(err, &pe):
		return errors.New(redact.String(pe.Message))
	case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
		return errors.New("the server did not answer in time")
	case errors.As(err, &se):
		return se.Err
	case errors.As(err, &oe):
		return errors.New(redact.String(oe.Err.Error()))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return errors.New("the server closed the connection")
	}
	return errors.New(redact.String(strings.Join(strings.Fields(err.Error()), " ")))
}
