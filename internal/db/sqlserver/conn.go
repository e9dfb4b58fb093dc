package sqlserver

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlconn"
)

// msConn is a connection to SQL Server. Its statements run under the
// context they are given, which the load generator never cancels
// (Caps.CancelByRequest): a statement is ended with Cancel instead.
type msConn struct {
	*sqlconn.Conn
	d *msDB
	// id is the session id (@@SPID), the target of KILL.
	id int64
	// nc is the connection's socket, closed by Cancel when the server does
	// not end the statement, and by Abort.
	nc net.Conn
	// busy counts the statements running on the connection (a result set
	// open counts until it is closed).
	busy atomic.Int32
}

func (c *msConn) enter() { c.busy.Add(1) }
func (c *msConn) leave() { c.busy.Add(-1) }

func (c *msConn) Exec(ctx context.Context, s string) error {
	c.enter()
	defer c.leave()
	return c.Conn.Exec(ctx, s)
}

func (c *msConn) Query(ctx context.Context, s string, args ...any) (db.Rows, error) {
	c.enter()
	r, err := c.Conn.Query(ctx, withMaxDOP(s, c.d.maxdop), args...)
	if err != nil {
		c.leave()
		return nil, err
	}
	return &msRows{Rows: r, c: c}, nil
}

func (c *msConn) Prepare(ctx context.Context, s string) (db.Stmt, error) {
	st, err := c.Conn.Prepare(ctx, withMaxDOP(s, c.d.maxdop))
	if err != nil {
		return nil, err
	}
	return &msStmt{Stmt: st.(*sqlconn.Stmt), c: c}, nil
}

// BackendID returns the session id, read when connecting.
func (c *msConn) BackendID(context.Context) int64 { return c.id }

// Cancel ends the running statement: KILL of the session from another
// connection (SQL Server has no way to end only the statement from
// outside, and go-mssqldb's attention is not confirmed by every server
// that speaks TDS), then, when the statement still runs a moment later,
// the socket is closed and the statement fails at once with a lost
// connection (sqlconn.KillThenClose). Either way the connection is gone.
// It may be called from another goroutine.
func (c *msConn) Cancel(ctx context.Context) error {
	return sqlconn.KillThenClose(ctx, c.running, func(ctx context.Context) error { return c.d.kill(ctx, c.id) }, c.nc)
}

func (c *msConn) running() bool { return c.busy.Load() > 0 }

// Abort implements db.Aborter: it closes the connection's socket.
func (c *msConn) Abort() {
	if c.nc != nil {
		_ = c.nc.Close()
	}
}

// msStmt is a statement on an msConn; it counts as running while it runs.
type msStmt struct {
	*sqlconn.Stmt
	c *msConn
}

func (s *msStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	s.c.enter()
	defer s.c.leave()
	return s.Stmt.Exec(ctx, args...)
}

func (s *msStmt) QueryRow(ctx context.Context, dest []any, args ...any) error {
	s.c.enter()
	defer s.c.leave()
	return s.Stmt.QueryRow(ctx, dest, args...)
}

func (s *msStmt) Query(ctx context.Context, args ...any) (db.Rows, error) {
	s.c.enter()
	r, err := s.Stmt.Query(ctx, args...)
	if err != nil {
		s.c.leave()
		return nil, err
	}
	return &msRows{Rows: r, c: s.c}, nil
}

// msRows keeps its connection busy until it is closed.
type msRows struct {
	db.Rows
	c    *msConn
	done bool
}

func (r *msRows) Close() {
	r.Rows.Close()
	if !r.done {
		r.done = true
		r.c.leave()
	}
}
