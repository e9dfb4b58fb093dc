package sqlite

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// Explain implements evidence.Explainer with EXPLAIN QUERY PLAN.
func (d *liteDB) Explain(ctx context.Context, conn db.Conn, sql string, args []any) (string, error) {
	rows, err := conn.Query(ctx, "EXPLAIN QUERY PLAN "+sql, args...)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	defer rows.Close()
	var eqp []EQPRow
	for rows.Next() {
		var r EQPRow
		var notused int64
		if err := rows.Scan(&r.ID, &r.Parent, &notused, &r.Detail); err != nil {
			return "", err
		}
		eqp = append(eqp, r)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(eqp) == 0 {
		// An INSERT ... VALUES (or any statement that reads no table)
		// has no query plan: SQLite's EXPLAIN QUERY PLAN returns nothing.
		return NoQueryPlan, nil
	}
	return NormalizeSQLite(eqp), nil
}

// NoQueryPlan is the plan shape of a statement for which SQLite makes no
// query plan because it searches no table (an INSERT ... VALUES).
const NoQueryPlan = "no query plan: the statement searches no table (SQLite's EXPLAIN QUERY PLAN is empty)"

// EQPRow is one row of SQLite's EXPLAIN QUERY PLAN.
type EQPRow struct {
	ID, Parent int64
	Detail     string
}

var eqpEstimate = regexp.MustCompile(`\s*\(~\d+ rows?\)`)

// NormalizeSQLite turns EXPLAIN QUERY PLAN rows into one line, children in
// brackets, without row estimates.
func NormalizeSQLite(rows []EQPRow) string {
	kids := map[int64][]EQPRow{}
	for _, r := range rows {
		kids[r.Parent] = append(kids[r.Parent], r)
	}
	var b strings.Builder
	var walk func(parent int64)
	walk = func(parent int64) {
		for i, r := range kids[parent] {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(eqpEstimate.ReplaceAllString(r.Detail, ""))
			if len(kids[r.ID]) > 0 && r.ID != parent {
				b.WriteString(" [")
				walk(r.ID)
				b.WriteString("]")
			}
		}
	}
	walk(0)
	return b.String()
}
