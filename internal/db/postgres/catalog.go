package postgres

import (
	"context"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// TableStorage implements db.Cataloger from pg_class.
func (d *pgDB) TableStorage(ctx context.Context, conn db.Conn, table string) (db.TableStorage, error) {
	ts := db.TableStorage{Source: "pg_class"}
	rs, err := conn.Query(ctx, "SELECT relpages::bigint, reltuples::float8, pg_relation_size(oid)::bigint, current_setting('block_size')::bigint FROM pg_class WHERE relname = $1 AND relkind = 'r' AND pg_table_is_visible(oid)", strings.ToLower(table))
	if err != nil {
		return ts, err
	}
	defer rs.Close()
	if rs.Next() {
		var size int64
		if err := rs.Scan(&ts.Pages, &ts.EstRows, &size, &ts.PageBytes); err != nil {
			return ts, err
		}
		if ts.EstRows > 0 {
			ts.AvgRowBytes = float64(size) / ts.EstRows
		}
		if ts.Pages > 0 {
			ts.RowsPerPage = ts.EstRows / float64(ts.Pages)
		}
	}
	return ts, rs.Err()
}

// ColumnStats implements db.Cataloger from pg_stats.
func (d *pgDB) ColumnStats(ctx context.Context, conn db.Conn, table, col string, rows int64) (*db.ColumnStats, error) {
	// most_common_freqs is NULL where PostgreSQL keeps no list of most
	// common values (a unique column, or no value notably more common
	// than the others): the top share is then unknown, not 0.
	rs, err := conn.Query(ctx, `SELECT n_distinct::float8, null_frac::float8, most_common_freqs[1]::float8, avg_width::float8,
		(SELECT reltuples::float8 FROM pg_class WHERE relname = $1 AND pg_table_is_visible(oid))
		FROM pg_stats WHERE tablename = $1 AND attname = $2 AND schemaname = ANY(current_schemas(false))`, strings.ToLower(table), strings.ToLower(col))
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	if !rs.Next() {
		return nil, rs.Err()
	}
	var nd, nf, aw, reltuples float64
	var mcf *float64
	if err := rs.Scan(&nd, &nf, &mcf, &aw, &reltuples); err != nil {
		return nil, err
	}
	if nd < 0 {
		// A negative n_distinct is a fraction of the rows.
		nd = -nd * reltuples * (1 - nf)
	}
	return &db.ColumnStats{Source: "pg_stats", Distinct: nd, NullFrac: &nf, TopShare: mcf, AvgWidth: &aw}, nil
}

// TableSize implements db.TableSizer from pg_class: pg_table_size (with
// TOAST) and pg_indexes_size; reltuples is -1 until the table is analyzed.
func (d *pgDB) TableSize(ctx context.Context, conn db.Conn, table string) (db.TableSize, error) {
	ts := db.TableSize{Bytes: -1, IndexBytes: -1}
	est := -1.0
	if _, err := db.QueryRow(ctx, conn, "SELECT reltuples::float8, pg_table_size(oid)::bigint, pg_indexes_size(oid)::bigint FROM pg_class WHERE relname = $1 AND relkind IN ('r', 'p') AND pg_table_is_visible(oid)",
		[]any{strings.ToLower(table)}, &est, &ts.Bytes, &ts.IndexBytes); err != nil {
		return ts, err
	}
	return ts, db.SizeRows(ctx, conn, table, est, &ts)
}
