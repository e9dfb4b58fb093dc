package db

import "context"

// OneShot is how QueryOnce sends a statement that the connection does not
// keep prepared, named after pgbench's query modes (-M).
type OneShot int

const (
	// Simple sends the text alone, values written into it: on PostgreSQL
	// one Query message of the simple query protocol (pgbench -M simple).
	Simple OneShot = iota
	// Unnamed parses, binds and executes an unnamed statement each time
	// (pgbench -M extended). On PostgreSQL the parameters travel as text of
	// unspecified type, as libpq's PQexecParams sends them, so the server
	// infers their types from the statement alone.
	Unnamed
)

// OneShotter is a Conn that can send a statement in either of the OneShot
// ways (PostgreSQL's connections).
type OneShotter interface {
	// QueryOnce runs sql once, as how says, and returns its rows, read
	// whole; every value scans into an *any as the server's text (a
	// string, or nil for NULL).
	QueryOnce(ctx context.Context, how OneShot, sql string, args []any) (Rows, error)
}

// QueryOnce runs sql once, as how says, and returns its rows. A connection
// that is a OneShotter (PostgreSQL) reads the rows whole, every value
// scanning into an *any as the server's text (a string, or nil for NULL);
// other engines run it through Conn.Query (database/sql), which sends a
// statement without arguments as text and prepares one with arguments for
// the call.
func QueryOnce(ctx context.Context, c Conn, how OneShot, sql string, args ...any) (Rows, error) {
	if o, ok := c.(OneShotter); ok {
		return o.QueryOnce(ctx, how, sql, args)
	}
	return c.Query(ctx, sql, args...)
}

// Multi is a Conn that runs a simple query of several statements (pgbench's
// \; compound commands) and returns every statement's rows (PostgreSQL's
// connections).
type Multi interface {
	// QueryEach runs sql in one Query message of the simple query
	// protocol and returns the rows of each statement, in order, read
	// whole as QueryOnce reads them; a statement that returns no rows
	// (an UPDATE) has no columns.
	QueryEach(ctx context.Context, sql string) ([]Rows, error)
}

// TxStatuser is a Conn that knows, after each statement, whether a
// transaction is open on it (PostgreSQL's ReadyForQuery status).
type TxStatuser interface {
	// InTx reports whether the session is inside a transaction block,
	// failed or not.
	InTx() bool
}
