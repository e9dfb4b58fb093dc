package postgres

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbharness/dbharness/internal/db"
)

// CopyInFrozen implements db.FreezeLoader with text-format COPY FREEZE, as
// pgbench -i does.
func (d *pgDB) CopyInFrozen(ctx context.Context, c db.Conn, table string, columns []string, next func() db.RowSource, progress func(int64)) (n int64, err error) {
	pc := c.(*pgConn).c
	if _, err := pc.Exec(ctx, "BEGIN"); err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_, _ = pc.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	ident := pgx.Identifier{table}.Sanitize()
	if _, err = pc.Exec(ctx, "TRUNCATE "+ident); err != nil {
		return 0, err
	}
	cols := make([]string, len(columns))
	for i, col := range columns {
		cols[i] = pgx.Identifier{col}.Sanitize()
	}
	sql := "COPY " + ident + " (" + strings.Join(cols, ", ") + ") FROM STDIN (FREEZE)"
	// One COPY for every batch: the reader moves on to the next batch
	// when one is done.
	r := &textCopyReader{next: next, progress: progress}
	tag, err := pc.PgConn().CopyFrom(ctx, r, sql)
	if err == nil {
		err = r.err
	}
	if err != nil {
		return 0, err
	}
	n = tag.RowsAffected()
	_, err = pc.Exec(ctx, "COMMIT")
	return n, err
}

// textCopyReader renders the rows of successive sources in COPY's text
// format, reporting each source's rows to progress when it is done.
type textCopyReader struct {
	next     func() db.RowSource
	progress func(int64)
	src      db.RowSource
	rows     int64
	buf      []byte
	off      int
	err      error
}

func (r *textCopyReader) Read(p []byte) (int, error) {
	for r.off >= len(r.buf) {
		r.buf, r.off = r.buf[:0], 0
		for len(r.buf) < 64<<10 {
			if r.src == nil {
				if r.src = r.next(); r.src == nil {
					break
				}
			}
			if !r.src.Next() {
				if err := r.src.Err(); err != nil {
					r.err = err
					return 0, err
				}
				r.progress(r.rows)
				r.src, r.rows = nil, 0
				continue
			}
			for i, v := range r.src.Values() {
				if i > 0 {
					r.buf = append(r.buf, '\t')
				}
				if r.buf, r.err = appendCopyText(r.buf, v); r.err != nil {
					return 0, r.err
				}
			}
			r.buf = append(r.buf, '\n')
			r.rows++
		}
		if len(r.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// appendCopyText appends v in COPY's text format.
func appendCopyText(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, `\N`...), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	case db.Decimal:
		return append(b, x.String()...), nil
	case bool:
		if x {
			return append(b, 't'), nil
		}
		return append(b, 'f'), nil
	case time.Time:
		return x.AppendFormat(b, "2006-01-02 15:04:05.999999Z07:00"), nil
	case string:
		for i := 0; i < len(x); i++ {
			switch c := x[i]; c {
			case '\\':
				b = append(b, '\\', '\\')
			case '\t':
				b = append(b, '\\', 't')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, c)
			}
		}
		return b, nil
	}
	return b, fmt.Errorf("COPY FREEZE cannot encode a %T value", v)
}
