// Package sqlconn adapts a database/sql connection to db.Conn, for the
// engines whose driver is a database/sql driver (MySQL, SQLite).
package sqlconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// Conn adapts a database/sql connection to db.Conn.
type Conn struct {
	C *sql.Conn
	// Rebind, where set, rewrites the $1..$n placeholders before a
	// statement is sent (db.Rebind: into ?).
	Rebind   func(string) string
	Classify func(error) db.ErrorClass
	// Dead is set once an error said the connection is lost.
	Dead bool
	// ID returns the server's session id (Conn.BackendID); nil for none.
	ID func(ctx context.Context, c *sql.Conn) int64
	// LockStmt is the statement that takes the write lock (SQLite's BEGIN
	// IMMEDIATE); its duration is recorded in Locks.
	LockStmt string
	Locks    *db.LockWaits
	// Timeout, when above 0, bounds each statement on the client's side
	// (an engine without a server to end it): one that runs longer is
	// interrupted and fails with db.ErrStatementTimeout.
	Timeout time.Duration
	// Reset, where set, readies the connection for the pool it goes back
	// to when closed (an engine that keeps idle connections: SQLite ends
	// a transaction a cancelled COMMIT left open, which would hold the
	// write lock while the connection sits idle). When it fails, the
	// connection is discarded instead.
	Reset func(ctx context.Context, c *sql.Conn) error
}

// bound gives a statement its timeout; done turns the error of a statement
// that ran out of time into db.ErrStatementTimeout, and releases it.
func (c *Conn) bound(ctx context.Context) (context.Context, func(error) error) {
	if c.Timeout <= 0 {
		return ctx, noBound
	}
	bctx, cancel := context.WithTimeout(ctx, c.Timeout)
	return bctx, func(err error) error {
		timedOut := bctx.Err() == context.DeadlineExceeded && ctx.Err() == nil
		cancel()
		if err != nil && timedOut {
			return fmt.Errorf("%w (over %s): %w", db.ErrStatementTimeout, c.Timeout, err)
		}
		return err
	}
}

func noBound(err error) error { return err }

// Note marks the connection dead when err says it is lost, and returns err.
func (c *Conn) Note(err error) error {
	if err != nil && !c.Dead && c.Classify(err).ConnLost {
		c.Dead = true
	}
	return err
}

func (c *Conn) sql(s string) string {
	if c.Rebind != nil {
		return c.Rebind(s)
	}
	return s
}

func (c *Conn) Exec(ctx context.Context, s string) error {
	ctx, done := c.bound(ctx)
	if c.Locks != nil && s == c.LockStmt {
		start := time.Now()
		_, err := c.C.ExecContext(ctx, s)
		// A failed attempt (SQLITE_BUSY after busy_timeout) waited too.
		c.Locks.Observe(time.Since(start))
		return c.Note(done(err))
	}
	_, err := c.C.ExecContext(ctx, c.sql(s))
	return c.Note(done(err))
}

func (c *Conn) Prepare(ctx context.Context, s string) (db.Stmt, error) {
	st, err := c.C.PrepareContext(ctx, c.sql(s))
	if err != nil {
		return nil, c.Note(err)
	}
	return &Stmt{S: st, C: c}, nil
}

func (c *Conn) Query(ctx context.Context, s string, args ...any) (db.Rows, error) {
	ctx, done := c.bound(ctx)
	rows, err := c.C.QueryContext(ctx, c.sql(s), args...)
	if err != nil {
		return nil, c.Note(done(err))
	}
	return Rows{R: rows, done: done}, nil
}

func (c *Conn) Close() error {
	if c.Reset != nil && !c.Dead {
		if err := c.Reset(context.Background(), c.C); err != nil {
			// database/sql closes a connection that Raw calls bad.
			_ = c.C.Raw(func(any) error { return driver.ErrBadConn })
			return nil
		}
	}
	return c.C.Close()
}

func (c *Conn) Alive() bool { return !c.Dead }

func (c *Conn) BackendID(ctx context.Context) int64 {
	if c.ID == nil {
		return 0
	}
	return c.ID(ctx, c.C)
}

// Cancel does nothing: database/sql cancels through the context.
func (c *Conn) Cancel(context.Context) error { return nil }

// Stmt adapts a database/sql statement prepared on C to db.Stmt.
type Stmt struct {
	S *sql.Stmt
	C *Conn
}

func (s *Stmt) Exec(ctx context.Context, args ...any) (int64, error) {
	ctx, done := s.C.bound(ctx)
	res, err := s.S.ExecContext(ctx, args...)
	if err = done(err); err != nil {
		return 0, s.C.Note(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func (s *Stmt) QueryRow(ctx context.Context, dest []any, args ...any) error {
	ctx, done := s.C.bound(ctx)
	err := done(s.S.QueryRowContext(ctx, args...).Scan(dest...))
	if errors.Is(err, sql.ErrNoRows) {
		return db.ErrNoRows
	}
	return s.C.Note(err)
}

func (s *Stmt) Query(ctx context.Context, args ...any) (db.Rows, error) {
	ctx, done := s.C.bound(ctx)
	rows, err := s.S.QueryContext(ctx, args...)
	if err != nil {
		return nil, s.C.Note(done(err))
	}
	return Rows{R: rows, done: done}, nil
}

// Rows adapts database/sql rows to db.Rows; done (nil for none) ends the
// statement's timeout when the rows are closed.
type Rows struct {
	R    *sql.Rows
	done func(error) error
}

func (r Rows) Next() bool { return r.R.Next() }
func (r Rows) Columns() []string {
	c, _ := r.R.Columns()
	return c
}
func (r Rows) Scan(dest ...any) error { return r.R.Scan(dest...) }
func (r Rows) Err() error {
	err := r.R.Err()
	if err != nil && r.done != nil {
		return r.done(err)
	}
	return err
}
func (r Rows) Close() {
	_ = r.R.Close()
	if r.done != nil {
		r.done(nil)
	}
}

// KillWait is how long KillThenClose waits for a statement to end after
// the kill before it closes the connection's socket.
const KillWait = time.Second

// KillThenClose ends the statement running on a connection from another
// goroutine: kill asks the server (KILL QUERY, KILL from a connection of
// its own), and when the statement still runs KillWait later (busy), or
// when ctx ends first, the socket nc is closed, so that the statement fails
// at once with a lost connection even on a server that does not answer. It
// does nothing when no statement runs, and returns kill's error.
func KillThenClose(ctx context.Context, busy func() bool, kill func(context.Context) error, nc net.Conn) error {
	if !busy() {
		return nil
	}
	err := kill(ctx)
	wait := time.NewTimer(KillWait)
	defer wait.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
wait:
	for busy() {
		select {
		case <-tick.C:
		case <-wait.C:
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	if busy() && nc != nil {
		_ = nc.Close()
	}
	return err
}
