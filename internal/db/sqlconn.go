package db

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// sqlConn adapts a database/sql connection (MySQL, SQLite) to Conn.
type sqlConn struct {
	c        *sql.Conn
	rebind   bool
	classify func(error) ErrorClass
	dead     bool
	id       func(ctx context.Context, c *sql.Conn) int64
	// lockStmt is the statement that takes the write lock (SQLite's BEGIN
	// IMMEDIATE); its duration is recorded in locks.
	lockStmt string
	locks    *LockWaits
}

// note marks the connection dead when err says it is lost.
func (c *sqlConn) note(err error) error {
	if err != nil && !c.dead && c.classify(err).ConnLost {
		c.dead = true
	}
	return err
}

func (c *sqlConn) sql(s string) string {
	if c.rebind {
		return Rebind(s)
	}
	return s
}

func (c *sqlConn) Exec(ctx context.Context, s string) error {
	if c.locks != nil && s == c.lockStmt {
		start := time.Now()
		_, err := c.c.ExecContext(ctx, s)
		// A failed attempt (SQLITE_BUSY after busy_timeout) waited too.
		c.locks.Observe(time.Since(start))
		return c.note(err)
	}
	_, err := c.c.ExecContext(ctx, c.sql(s))
	return c.note(err)
}

func (c *sqlConn) Prepare(ctx context.Context, s string) (Stmt, error) {
	st, err := c.c.PrepareContext(ctx, c.sql(s))
	if err != nil {
		return nil, c.note(err)
	}
	return &sqlStmt{s: st, c: c}, nil
}

func (c *sqlConn) Query(ctx context.Context, s string, args ...any) (Rows, error) {
	rows, err := c.c.QueryContext(ctx, c.sql(s), args...)
	if err != nil {
		return nil, c.note(err)
	}
	return sqlRows{rows}, nil
}

func (c *sqlConn) Close() error { return c.c.Close() }

func (c *sqlConn) Alive() bool { return !c.dead }

func (c *sqlConn) BackendID(ctx context.Context) int64 {
	if c.id == nil {
		return 0
	}
	return c.id(ctx, c.c)
}

// Cancel does nothing: database/sql cancels through the context.
func (c *sqlConn) Cancel(context.Context) error { return nil }

type sqlStmt struct {
	s *sql.Stmt
	c *sqlConn
}

func (s *sqlStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	res, err := s.s.ExecContext(ctx, args...)
	if err != nil {
		return 0, s.c.note(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func (s *sqlStmt) QueryRow(ctx context.Context, dest []any, args ...any) error {
	err := s.s.QueryRowContext(ctx, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoRows
	}
	return s.c.note(err)
}

func (s *sqlStmt) Query(ctx context.Context, args ...any) (Rows, error) {
	rows, err := s.s.QueryContext(ctx, args...)
	if err != nil {
		return nil, s.c.note(err)
	}
	return sqlRows{rows}, nil
}

type sqlRows struct{ r *sql.Rows }

func (r sqlRows) Next() bool { return r.r.Next() }
func (r sqlRows) Columns() []string {
	c, _ := r.r.Columns()
	return c
}
func (r sqlRows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r sqlRows) Err() error             { return r.r.Err() }
func (r sqlRows) Close()                 { _ = r.r.Close() }
