package mysql

import (
	"context"
	"fmt"

	"github.com/dbharness/dbharness/internal/db"
)

// TableStorage implements db.Cataloger from information_schema.
func (d *myDB) TableStorage(ctx context.Context, conn db.Conn, table string) (db.TableStorage, error) {
	ts := db.TableStorage{Source: "information_schema"}
	rs, err := conn.Query(ctx, "SELECT CAST(table_rows AS SIGNED), CAST(avg_row_length AS SIGNED), CAST(data_length AS SIGNED), CAST(@@innodb_page_size AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1", table)
	if err != nil {
		return ts, err
	}
	defer rs.Close()
	if rs.Next() {
		var est, avg, data int64
		if err := rs.Scan(&est, &avg, &data, &ts.PageBytes); err != nil {
			return ts, err
		}
		ts.EstRows, ts.AvgRowBytes = float64(est), float64(avg)
		if ts.PageBytes > 0 {
			ts.Pages = data / ts.PageBytes
		}
		if ts.Pages > 0 {
			ts.RowsPerPage = ts.EstRows / float64(ts.Pages)
		}
	}
	return ts, rs.Err()
}

// ColumnStats implements db.Cataloger from mysql.column_stats or InnoDB's index cardinality.
func (d *myDB) ColumnStats(ctx context.Context, conn db.Conn, table, col string, rows int64) (*db.ColumnStats, error) {
	// MariaDB's engine-independent statistics, if collected.
	rs, err := conn.Query(ctx, "SELECT avg_frequency, nulls_ratio, avg_length FROM mysql.column_stats WHERE db_name = DATABASE() AND table_name = $1 AND column_name = $2", table, col)
	if err == nil {
		var es *db.ColumnStats
		if rs.Next() {
			var af, nr, al any
			if err := rs.Scan(&af, &nr, &al); err == nil {
				f, _ := toFloat(af)
				n, _ := toFloat(nr)
				l, _ := toFloat(al)
				es = &db.ColumnStats{Source: "mysql.column_stats", NullFrac: &n, AvgWidth: &l}
				if f > 0 {
					es.Distinct = float64(rows) * (1 - n) / f
				}
			}
		}
		rs.Close()
		if es != nil {
			return es, nil
		}
	}
	// InnoDB's index statistics: the cardinality of an index that
	// starts with the column.
	card, err := queryFloat(ctx, conn, "SELECT max(cardinality) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = $1 AND column_name = $2 AND seq_in_index = 1", table, col)
	if err != nil || card == 0 {
		return nil, err
	}
	return &db.ColumnStats{Source: "index cardinality", Distinct: card}, nil
}

func queryFloat(ctx context.Context, conn db.Conn, q string, args ...any) (float64, error) {
	rs, err := conn.Query(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	var v *float64
	if rs.Next() {
		var x any
		if err := rs.Scan(&x); err != nil {
			return 0, err
		}
		f, ok := toFloat(x)
		if ok {
			v = &f
		}
	}
	if err := rs.Err(); err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

func toFloat(x any) (float64, bool) {
	switch v := x.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case int:
		return float64(v), true
	case []byte:
		var f float64
		_, err := fmt.Sscan(string(v), &f)
		return f, err == nil
	case string:
		var f float64
		_, err := fmt.Sscan(v, &f)
		return f, err == nil
	}
	if s, ok := x.(fmt.Stringer); ok {
		var f float64
		_, err := fmt.Sscan(s.String(), &f)
		return f, err == nil
	}
	return 0, false
}

// TableSize implements db.TableSizer from information_schema.tables
// (InnoDB's row count there is an estimate).
func (d *myDB) TableSize(ctx context.Context, conn db.Conn, table string) (db.TableSize, error) {
	ts := db.TableSize{Bytes: -1, IndexBytes: -1}
	est := int64(-1)
	if _, err := db.QueryRow(ctx, conn, "SELECT CAST(coalesce(table_rows, -1) AS SIGNED), CAST(coalesce(data_length, -1) AS SIGNED), CAST(coalesce(index_length, -1) AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1",
		[]any{table}, &est, &ts.Bytes, &ts.IndexBytes); err != nil {
		return ts, err
	}
	return ts, db.SizeRows(ctx, conn, table, float64(est), &ts)
}
