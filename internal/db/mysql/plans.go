package mysql

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dbharness/dbharness/internal/db"
)

// Explain implements collect.Explainer with EXPLAIN FORMAT=JSON.
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
