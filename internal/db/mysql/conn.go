package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlconn"
)

// myConn is a MySQL/MariaDB connection. Everything goes through
// database/sql's *sql.Conn, except the statements a workload runs in its
// loop: prepared statements' Exec and QueryRow, and Exec of a statement
// without parameters (BEGIN, COMMIT). Those call the driver directly
// through sql.Conn.Raw, which skips database/sql's per-statement work (the
// statement's and the result's bookkeeping under the pool's mutex, which
// all clients share, and the goroutine that watches a cancellable context
// for the result set's lifetime).
//
// The driver runs statements under context.Background() (the engine uses
// Caps.CancelByRequest), so it does not hand each statement to its watcher
// goroutine either; a statement is cancelled with Cancel instead.
type myConn struct {
	*sqlconn.Conn
	d *myDB
	// id is the server's connection id, the target of KILL QUERY.
	id int64
	// nc is the connection's socket, closed by Cancel when the server
	// does not end the statement itself.
	nc net.Conn
	// busy is true while a statement runs on the raw path.
	busy  atomic.Bool
	stmts []*myStmt
	exec  rawExec
}

// rawExec is the state of one Conn.Exec on the raw path; its method value
// is made once, so that a call allocates no closure.
type rawExec struct {
	ctx context.Context
	sql string
	fn  func(any) error
}

func (e *rawExec) run(dc any) error {
	ex, ok := dc.(driver.ExecerContext)
	if !ok {
		return driver.ErrSkip
	}
	_, err := ex.ExecContext(e.ctx, e.sql, nil)
	return err
}

func newMyConn(d *myDB, c *sql.Conn, id int64, nc net.Conn) *myConn {
	mc := &myConn{Conn: &sqlconn.Conn{C: c, Rebind: db.Rebind, Classify: d.Classify}, d: d, id: id, nc: nc}
	mc.exec.fn = mc.exec.run
	return mc
}

// sql rebinds $n placeholders; statements without any are kept as they are.
func (c *myConn) sql(s string) string {
	if strings.IndexByte(s, '$') < 0 {
		return s
	}
	return db.Rebind(s)
}

// Exec runs a statement without parameters on the raw path.
func (c *myConn) Exec(ctx context.Context, s string) error {
	c.exec.ctx, c.exec.sql = ctx, c.sql(s)
	c.busy.Store(true)
	err := c.C.Raw(c.exec.fn)
	c.busy.Store(false)
	c.exec.ctx = nil
	if errors.Is(err, driver.ErrSkip) {
		_, err = c.C.ExecContext(ctx, c.exec.sql)
	}
	return c.Note(err)
}

// Prepare prepares the statement on the server once, for the raw path.
// database/sql prepares its own copy only if the statement is used in a way
// the raw path leaves to it (Query, or QueryRow into other types).
func (c *myConn) Prepare(ctx context.Context, s string) (db.Stmt, error) {
	st := &myStmt{c: c, sql: c.sql(s)}
	err := c.C.Raw(func(dc any) error {
		p, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the MySQL driver's connection (%T) cannot prepare statements", dc)
		}
		var err error
		st.ds, err = p.PrepareContext(ctx, st.sql)
		return err
	})
	if err != nil {
		return nil, c.Note(err)
	}
	var ok bool
	if st.q, ok = st.ds.(driver.StmtQueryContext); !ok {
		return nil, fmt.Errorf("the MySQL driver's statement (%T) cannot run queries", st.ds)
	}
	if st.x, ok = st.ds.(driver.StmtExecContext); !ok {
		return nil, fmt.Errorf("the MySQL driver's statement (%T) cannot run statements", st.ds)
	}
	st.nvc, _ = st.ds.(driver.NamedValueChecker)
	st.queryRowFn, st.execFn = st.rawQueryRow, st.rawExec
	c.stmts = append(c.stmts, st)
	return st, nil
}

// Close releases the raw statements on the server, then the connection.
func (c *myConn) Close() error {
	if len(c.stmts) > 0 && !c.Dead {
		_ = c.C.Raw(func(any) error {
			for _, st := range c.stmts {
				_ = st.ds.Close()
			}
			return nil
		})
	}
	c.stmts = nil
	return c.C.Close()
}

// BackendID returns the server's connection id, read when connecting.
func (c *myConn) BackendID(context.Context) int64 { return c.id }

// Cancel asks the server to end the running statement (KILL QUERY on
// another connection); the statement then fails with error 1317. A server
// that does not answer cannot end it, so when the statement still runs a
// moment later (or when ctx ends first), Cancel closes the socket, and the
// statement fails at once with a lost connection (sqlconn.KillThenClose).
// It may be called from another goroutine.
func (c *myConn) Cancel(ctx context.Context) error {
	return sqlconn.KillThenClose(ctx, c.busy.Load, func(ctx context.Context) error { return c.d.kill(ctx, c.id) }, c.nc)
}

// Abort implements db.Aborter: it closes the connection's socket.
func (c *myConn) Abort() {
	if c.nc != nil {
		_ = c.nc.Close()
	}
}

// myStmt is a statement prepared on the server for the raw path.
type myStmt struct {
	c   *myConn
	sql string
	ds  driver.Stmt
	q   driver.StmtQueryContext
	x   driver.StmtExecContext
	nvc driver.NamedValueChecker
	// st is database/sql's copy, prepared on first use.
	st *sql.Stmt

	// The state of the call in progress, read by the Raw callbacks (a
	// statement is used by one goroutine at a time), whose method values
	// are made once, so that a call allocates no closure.
	ctx                context.Context
	args               []driver.NamedValue
	vals               []driver.Value
	dest               []any
	affected           int64
	queryRowFn, execFn func(any) error
}

// bind converts the arguments as database/sql does: with the driver's
// NamedValueChecker, else the default converter.
func (s *myStmt) bind(ctx context.Context, args []any) error {
	s.ctx = ctx
	s.args = s.args[:0]
	for i, a := range args {
		nv := driver.NamedValue{Ordinal: i + 1, Value: a}
		var err error
		if s.nvc != nil {
			err = s.nvc.CheckNamedValue(&nv)
		}
		if s.nvc == nil || errors.Is(err, driver.ErrSkip) {
			nv.Value, err = driver.DefaultParameterConverter.ConvertValue(a)
		}
		if err != nil {
			return fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		s.args = append(s.args, nv)
	}
	return nil
}

func (s *myStmt) done() {
	s.ctx, s.dest = nil, nil
	clear(s.args)
}

func (s *myStmt) rawExec(any) error {
	res, err := s.x.ExecContext(s.ctx, s.args)
	if err != nil {
		return err
	}
	s.affected, _ = res.RowsAffected()
	return nil
}

func (s *myStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	if err := s.bind(ctx, args); err != nil {
		return 0, err
	}
	s.c.busy.Store(true)
	err := s.c.C.Raw(s.execFn)
	s.c.busy.Store(false)
	s.done()
	if err != nil {
		return 0, s.c.Note(err)
	}
	return s.affected, nil
}

// errScan marks a Scan error, which leaves the connection usable.
type errScan struct{ err error }

func (e errScan) Error() string { return e.err.Error() }
func (e errScan) Unwrap() error { return e.err }

func (s *myStmt) rawQueryRow(any) error {
	rows, err := s.q.QueryContext(s.ctx, s.args)
	if err != nil {
		return err
	}
	cols := rows.Columns()
	if cap(s.vals) < len(cols) {
		s.vals = make([]driver.Value, len(cols))
	}
	s.vals = s.vals[:len(cols)]
	err = rows.Next(s.vals)
	switch {
	case err == io.EOF:
		err = db.ErrNoRows
	case err != nil:
	case len(s.dest) != len(cols):
		err = errScan{fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(cols), len(s.dest))}
	default:
		for i, v := range s.vals {
			if e := assign(s.dest[i], v); e != nil {
				err = errScan{fmt.Errorf(`sql: Scan error on column index %d, name %q: %w`, i, cols[i], e)}
				break
			}
		}
	}
	clear(s.vals)
	// Close reads whatever the server still sends (further rows); its
	// error counts when nothing failed before, as in database/sql's Row.
	if cerr := rows.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

func (s *myStmt) QueryRow(ctx context.Context, dest []any, args ...any) error {
	if !fastDest(dest) {
		return s.c.sqlStmtQueryRow(ctx, s, dest, args)
	}
	if err := s.bind(ctx, args); err != nil {
		return err
	}
	s.dest = dest
	s.c.busy.Store(true)
	err := s.c.C.Raw(s.queryRowFn)
	s.c.busy.Store(false)
	s.done()
	var se errScan
	switch {
	case err == nil, err == db.ErrNoRows:
		return err
	case errors.As(err, &se):
		return se.err
	}
	return s.c.Note(err)
}

// prepared returns database/sql's copy of the statement.
func (s *myStmt) prepared(ctx context.Context) (*sql.Stmt, error) {
	if s.st == nil {
		st, err := s.c.C.PrepareContext(ctx, s.sql)
		if err != nil {
			return nil, s.c.Note(err)
		}
		s.st = st
	}
	return s.st, nil
}

// sqlStmtQueryRow runs QueryRow through database/sql, for destinations the
// raw path does not convert.
func (c *myConn) sqlStmtQueryRow(ctx context.Context, s *myStmt, dest []any, args []any) error {
	st, err := s.prepared(ctx)
	if err != nil {
		return err
	}
	return (&sqlconn.Stmt{S: st, C: c.Conn}).QueryRow(ctx, dest, args...)
}

func (s *myStmt) Query(ctx context.Context, args ...any) (db.Rows, error) {
	st, err := s.prepared(ctx)
	if err != nil {
		return nil, err
	}
	return (&sqlconn.Stmt{S: st, C: s.c.Conn}).Query(ctx, args...)
}

// fastDest reports whether every destination is a non-nil pointer of a
// type assign converts.
func fastDest(dest []any) bool {
	for _, d := range dest {
		var ok bool
		switch p := d.(type) {
		case *int64:
			ok = p != nil
		case *int:
			ok = p != nil
		case *int32:
			ok = p != nil
		case *float64:
			ok = p != nil
		case *string:
			ok = p != nil
		case *[]byte:
			ok = p != nil
		case *any:
			ok = p != nil
		case *bool:
			ok = p != nil
		case *time.Time:
			ok = p != nil
		}
		if !ok {
			return false
		}
	}
	return true
}

// assign stores a driver value in one of the destinations fastDest accepts,
// with database/sql's conversions and error messages (convertAssign, under
// Rows.Scan), so that a workload sees the same values on both paths.
func assign(dest any, src driver.Value) error {
	switch d := dest.(type) {
	case *int64:
		if v, ok := src.(int64); ok {
			*d = v
			return nil
		}
		v, err := parseInt(src, 64, "int64")
		if err == nil {
			*d = v
		}
		return err
	case *int:
		v, err := parseInt(src, strconv.IntSize, "int")
		if err == nil {
			*d = int(v)
		}
		return err
	case *int32:
		v, err := parseInt(src, 32, "int32")
		if err == nil {
			*d = int32(v)
		}
		return err
	case *float64:
		if v, ok := src.(float64); ok {
			*d = v
			return nil
		}
		if src == nil {
			return errors.New("converting NULL to float64 is unsupported")
		}
		s := asString(src)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a float64: %v", src, s, numErr(err))
		}
		*d = v
		return nil
	case *string:
		switch v := src.(type) {
		case string:
			*d = v
		case []byte:
			*d = string(v)
		case time.Time:
			*d = v.Format(time.RFC3339Nano)
		case nil:
			return errors.New("converting NULL to string is unsupported")
		default:
			if !numOrBool(v) {
				return unsupported(src, dest)
			}
			*d = asString(v)
		}
		return nil
	case *[]byte:
		switch v := src.(type) {
		case []byte:
			*d = bytes.Clone(v)
		case string:
			*d = []byte(v)
		case nil:
			*d = nil
		case time.Time:
			*d = v.AppendFormat(make([]byte, 0, len(time.RFC3339Nano)), time.RFC3339Nano)
		default:
			if !numOrBool(v) {
				return unsupported(src, dest)
			}
			*d = []byte(asString(v))
		}
		return nil
	case *any:
		if b, ok := src.([]byte); ok {
			*d = bytes.Clone(b)
		} else {
			*d = src
		}
		return nil
	case *bool:
		v, err := driver.Bool.ConvertValue(src)
		if err == nil {
			*d = v.(bool)
		}
		return err
	case *time.Time:
		if v, ok := src.(time.Time); ok {
			*d = v
			return nil
		}
	}
	return unsupported(src, dest)
}

func unsupported(src, dest any) error {
	return fmt.Errorf("unsupported Scan, storing driver.Value type %T into type %T", src, dest)
}

// parseInt converts src to an integer of the given size as database/sql
// does: through its decimal text.
func parseInt(src driver.Value, bits int, kind string) (int64, error) {
	if v, ok := src.(int64); ok && (bits == 64 || v == int64(int32(v))) {
		return v, nil
	}
	if src == nil {
		return 0, fmt.Errorf("converting NULL to %s is unsupported", kind)
	}
	s := asString(src)
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("converting driver.Value type %T (%q) to a %s: %v", src, s, kind, numErr(err))
	}
	return v, nil
}

// numOrBool reports whether v is of a type the driver returns that
// database/sql turns into text with asString.
func numOrBool(v any) bool {
	switch v.(type) {
	case int64, uint64, float64, float32, bool:
		return true
	}
	return false
}

// asString is the text database/sql converts a value through.
func asString(src any) string {
	switch v := src.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%v", src)
}

func numErr(err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err
	}
	return err
}
