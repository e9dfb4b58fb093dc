package mysql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// Explain implements evidence.Explainer with EXPLAIN FORMAT=JSON.
func (d *myDB) Explain(ctx context.Context, conn db.Conn, sql string, args []any) (string, error) {
	doc, err := db.QueryString(ctx, conn, "EXPLAIN FORMAT=JSON "+sql, args...)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	return NormalizeMySQL([]byte(doc))
}

// mysqlDrop are EXPLAIN FORMAT=JSON keys that hold estimates, costs,
// timings, candidate keys or conditions (with the parameter values), not
// the plan's shape.
var mysqlDrop = map[string]bool{
	"rows": true, "filtered": true, "cost_info": true, "query_cost": true, "cost": true, "possible_keys": true,
	"attached_condition": true, "key_length": true, "ref": true, "used_columns": true, "index_condition": true,
	"rows_examined_per_scan": true, "rows_produced_per_join": true, "r_loops": true, "r_rows": true,
	"r_total_time_ms": true, "r_filtered": true, "r_other_time_ms": true, "buffer_size": true,
	"join_buffer_size": true, "pushed_index_condition": true, "r_buffer_size": true, "loops": true,
	"data_read_per_join": true, "prefix_cost": true, "read_cost": true, "eval_cost": true, "sort_cost": true,
	"r_index_rows": true, "r_icp_filtered": true, "r_table_time_ms": true, "r_engine_stats": true,
}

// NormalizeMySQL reduces EXPLAIN FORMAT=JSON output (MySQL or MariaDB) to
// its structure: query blocks, tables in join order, access types, chosen
// keys and key parts, and the operations (filesort, temporary tables),
// dropping estimates, costs and conditions.
func NormalizeMySQL(doc []byte) (string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return "", fmt.Errorf("unexpected EXPLAIN output: %.80s", doc)
	}
	var clean func(x any) any
	clean = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			m := map[string]any{}
			for k, v := range t {
				if mysqlDrop[k] {
					continue
				}
				if _, num := v.(float64); num && k != "select_id" {
					continue
				}
				m[k] = clean(v)
			}
			return m
		case []any:
			out := make([]any, len(t))
			for i, e := range t {
				out[i] = clean(e)
			}
			return out
		}
		return x
	}
	b, err := json.Marshal(clean(v)) // map keys come out sorted
	return string(b), err
}

// PrepareScan implements db.TableScanner: a COUNT(*) over the clustered
// index (the secondary indexes ignored, so that InnoDB reads the table
// itself), sized by information_schema.tables.data_length after ANALYZE
// TABLE refreshed it. MariaDB has no parallel query.
func (d *myDB) PrepareScan(ctx context.Context, conn db.Conn, table string, parallel int) (db.Scan, error) {
	var s db.Scan
	if parallel > 1 {
		return s, db.ErrNoParallelScan
	}
	n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1", table)
	if err != nil {
		return s, err
	}
	if n == 0 {
		return s, fmt.Errorf("table %s does not exist in the database of the URL", table)
	}
	quoted := quoteIdent(table)
	rows, err := conn.Query(ctx, "ANALYZE TABLE "+quoted)
	if err != nil {
		return s, fmt.Errorf("analyze table %s: %w", table, err)
	}
	for rows.Next() {
	}
	rows.Close()
	if s.Bytes, err = db.QueryInt64(ctx, conn, "SELECT data_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1", table); err != nil {
		return s, err
	}
	if s.PageSize, err = db.QueryInt64(ctx, conn, "SELECT @@innodb_page_size"); err != nil {
		return s, err
	}
	s.Pages, s.SizeSource = s.Bytes/s.PageSize, "information_schema.tables.data_length (InnoDB)"
	idx, err := conn.Query(ctx, "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = $1 AND index_name <> 'PRIMARY'", table)
	if err != nil {
		return s, err
	}
	var ignore []string
	for idx.Next() {
		var name string
		if err := idx.Scan(&name); err != nil {
			idx.Close()
			return s, err
		}
		ignore = append(ignore, quoteIdent(name))
	}
	idx.Close()
	s.SQL = "SELECT COUNT(*) FROM " + quoted
	if len(ignore) > 0 {
		s.SQL += " IGNORE INDEX (" + strings.Join(ignore, ", ") + ")"
	}
	if s.Plan, err = d.Explain(ctx, conn, s.SQL, nil); err != nil {
		return s, err
	}
	// The whole clustered index (type index on PRIMARY) or the table
	// (type ALL, which InnoDB also reads through the clustered index).
	if !strings.Contains(s.Plan, `"key":"PRIMARY"`) && !strings.Contains(s.Plan, `"access_type":"ALL"`) {
		return s, fmt.Errorf("the plan of %s is not a scan of the whole table: %s", s.SQL, s.Plan)
	}
	s.Cold = "InnoDB cannot evict one table from its buffer pool"
	return s, nil
}

// quoteIdent quotes a table or index name for MySQL and MariaDB.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
