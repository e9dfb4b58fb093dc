package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

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

// QueryOnce runs sql once, as how says, and returns its rows. On
// PostgreSQL the rows are read whole and every value scans into an *any as
// the server's text (a string, or nil for NULL); other engines run it
// through database/sql (Conn.Query), which sends a statement without
// arguments as text and prepares one with arguments for the call.
func QueryOnce(ctx context.Context, c Conn, how OneShot, sql string, args ...any) (Rows, error) {
	if lc, ok := c.(*pgLoopConn); ok {
		return lc.queryOnce(ctx, how, sql, args)
	}
	pc, ok := c.(*pgConn)
	if !ok {
		return c.Query(ctx, sql, args...)
	}
	pg := pc.c.PgConn()
	if how == Simple {
		if len(args) > 0 {
			return nil, errors.New("a simple query takes no parameters")
		}
		// Keep the rows of the last result that has columns.
		mrr := pg.Exec(ctx, sql)
		rows := &textRows{}
		var err error
		for mrr.NextResult() {
			r := readText(mrr.ResultReader())
			if r.cols != nil || rows.cols == nil {
				rows = r
			}
			if err == nil {
				err = r.err
			}
		}
		if cerr := mrr.Close(); err == nil {
			err = cerr
		}
		return rows, err
	}
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = textParam(a)
	}
	rows := readText(pg.ExecParams(ctx, sql, params, nil, nil, nil))
	return rows, rows.err
}

// textParam writes a parameter as text; nil is NULL.
func textParam(a any) []byte {
	switch v := a.(type) {
	case nil:
		return nil
	case string:
		return []byte(v)
	case []byte:
		return v
	case int64:
		return strconv.AppendInt(nil, v, 10)
	case float64:
		return strconv.AppendFloat(nil, v, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(nil, v)
	}
	return fmt.Append(nil, a)
}

// textRows are rows read whole, in text format.
type textRows struct {
	cols []string
	rows [][][]byte
	i    int
	err  error
}

// readText reads and closes one result.
func readText(rr *pgconn.ResultReader) *textRows {
	t := &textRows{}
	for _, f := range rr.FieldDescriptions() {
		t.cols = append(t.cols, f.Name)
	}
	for rr.NextRow() {
		vals := rr.Values()
		row := make([][]byte, len(vals))
		for i, v := range vals {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		t.rows = append(t.rows, row)
	}
	_, t.err = rr.Close()
	return t
}

func (t *textRows) Columns() []string { return t.cols }

func (t *textRows) Next() bool {
	if t.i >= len(t.rows) {
		return false
	}
	t.i++
	return true
}

func (t *textRows) Scan(dest ...any) error {
	if t.i == 0 || t.i > len(t.rows) {
		return errors.New("Scan called without a row")
	}
	return scanText(t.rows[t.i-1], dest)
}

func (t *textRows) Err() error { return t.err }

func (t *textRows) Close() {}
