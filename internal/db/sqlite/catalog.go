package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// TableStorage implements db.Cataloger from dbstat.
func (d *liteDB) TableStorage(ctx context.Context, conn db.Conn, table string) (db.TableStorage, error) {
	ts := db.TableStorage{Source: "dbstat"}
	rs, err := conn.Query(ctx, "SELECT count(*), coalesce(sum(pgsize), 0), coalesce(sum(CASE WHEN pagetype = 'leaf' THEN ncell ELSE 0 END), 0), coalesce(sum(CASE WHEN pagetype = 'leaf' THEN 1 ELSE 0 END), 0), coalesce(sum(payload), 0) FROM dbstat WHERE name = $1", table)
	if err != nil {
		return ts, err
	}
	defer rs.Close()
	if rs.Next() {
		var pages, bytes, cells, leaves, payload int64
		if err := rs.Scan(&pages, &bytes, &cells, &leaves, &payload); err != nil {
			return ts, err
		}
		ts.Pages = pages
		if pages > 0 {
			ts.PageBytes = bytes / pages
		}
		ts.EstRows = float64(cells)
		if cells > 0 {
			ts.AvgRowBytes = float64(payload) / float64(cells)
		}
		if leaves > 0 {
			ts.RowsPerPage = float64(cells) / float64(leaves)
		}
	}
	return ts, rs.Err()
}

// ColumnStats implements db.Cataloger from sqlite_stat1.
func (d *liteDB) ColumnStats(ctx context.Context, conn db.Conn, table, col string, rows int64) (*db.ColumnStats, error) {
	// SQLite: sqlite_stat1 rows per key of an index starting with the
	// column.
	rs, err := conn.Query(ctx, "SELECT s.stat FROM sqlite_stat1 s, pragma_index_info(s.idx) i WHERE s.tbl = $1 AND i.seqno = 0 AND i.name = $2", table, col)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	if !rs.Next() {
		return nil, rs.Err()
	}
	var stat string
	if err := rs.Scan(&stat); err != nil {
		return nil, err
	}
	f := strings.Fields(stat)
	if len(f) < 2 {
		return nil, nil
	}
	var n, per float64
	fmt.Sscan(f[0], &n)
	fmt.Sscan(f[1], &per)
	if per <= 0 {
		return nil, nil
	}
	return &db.ColumnStats{Source: "sqlite_stat1", Distinct: n / per}, nil
}

// TableSize implements db.TableSizer: bytes from dbstat, rows counted
// (SQLite keeps no estimate worth the name).
func (d *liteDB) TableSize(ctx context.Context, conn db.Conn, table string) (db.TableSize, error) {
	ts := db.TableSize{Bytes: -1, IndexBytes: -1}
	if _, err := db.QueryRow(ctx, conn, `SELECT coalesce(sum(CASE WHEN name = $1 THEN pgsize END), 0), coalesce(sum(CASE WHEN name <> $1 THEN pgsize END), 0)
		FROM dbstat WHERE name = $1 OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = $1)`,
		[]any{table}, &ts.Bytes, &ts.IndexBytes); err != nil {
		return ts, err
	}
	return ts, db.SizeRows(ctx, conn, table, -1, &ts)
}
