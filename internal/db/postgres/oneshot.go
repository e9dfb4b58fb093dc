package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbharness/dbharness/internal/db"
)

// QueryOnce implements db.OneShotter: the rows are read whole, and every
// value scans into an *any as the server's text.
func (c *pgConn) QueryOnce(ctx context.Context, how db.OneShot, sql string, args []any) (db.Rows, error) {
	pg := c.c.PgConn()
	if how == db.Simple {
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

// QueryEach implements db.Multi.
func (c *pgConn) QueryEach(ctx context.Context, sql string) ([]db.Rows, error) {
	mrr := c.c.PgConn().Exec(ctx, sql)
	var out []db.Rows
	var err error
	for mrr.NextResult() {
		r := readText(mrr.ResultReader())
		out = append(out, r)
		if err == nil {
			err = r.err
		}
	}
	if cerr := mrr.Close(); err == nil {
		err = cerr
	}
	return out, err
}

// InTx implements db.TxStatuser.
func (c *pgConn) InTx() bool { return c.c.PgConn().TxStatus() != 'I' }

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

var (
	_ db.OneShotter = (*pgConn)(nil)
	_ db.OneShotter = (*pgLoopConn)(nil)
	_ db.Multi      = (*pgConn)(nil)
	_ db.Multi      = (*pgLoopConn)(nil)
	_ db.TxStatuser = (*pgConn)(nil)
	_ db.TxStatuser = (*pgLoopConn)(nil)
)
