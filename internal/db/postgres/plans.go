package postgres

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// Explain implements collect.Explainer with EXPLAIN (FORMAT JSON).
func (d *pgDB) Explain(ctx context.Context, conn db.Conn, sql string, args []any) (string, error) {
	doc, err := db.QueryString(ctx, conn, "EXPLAIN (FORMAT JSON) "+sql, args...)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	return NormalizePostgres([]byte(doc))
}

// genericDraws is how many executions the plan cache is shown before the
// one that tells whether it chose the generic plan: PostgreSQL plans the
// first five executions of a prepared statement for their values.
const genericDraws = 5

// GenericPlan implements collect.GenericPlanner: it prepares the statement
// on conn as the clients do, explains six executions with random draws in
// the server's automatic plan cache mode (the sixth may run the generic
// plan: chosen), then explains it with
// plan_cache_mode = force_generic_plan for the generic plan's shape. The
// values only have to fit the parameters' types, so they are written as
// untyped literals.
func (d *pgDB) GenericPlan(ctx context.Context, conn db.Conn, name, sql string, draw func() []any) (shape string, chosen bool, err error) {
	if err := conn.Exec(ctx, "PREPARE "+name+" AS "+sql); err != nil {
		return "", false, err
	}
	defer func() { _ = conn.Exec(context.WithoutCancel(ctx), "DEALLOCATE "+name) }()
	explain := func(vals []any) (string, error) {
		lits := make([]string, len(vals))
		for k, v := range vals {
			lits[k] = literal(v)
		}
		return d.Explain(ctx, conn, "EXECUTE "+name+"("+strings.Join(lits, ", ")+")", nil)
	}
	mode, err := db.QueryString(ctx, conn, "SELECT current_setting('plan_cache_mode')")
	if err != nil {
		return "", false, err
	}
	if mode != "auto" {
		if err := conn.Exec(ctx, "SET plan_cache_mode = auto"); err != nil {
			return "", false, err
		}
	}
	for k := 0; k <= genericDraws; k++ {
		if _, err := explain(draw()); err != nil {
			return "", false, err
		}
	}
	generics, err := db.QueryInt64(ctx, conn, "SELECT generic_plans FROM pg_prepared_statements WHERE name = $1", name)
	if err != nil {
		return "", false, err
	}
	if err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		return "", false, err
	}
	shape, err = explain(draw())
	if rerr := conn.Exec(context.WithoutCancel(ctx), "SET plan_cache_mode = "+mode); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return "", false, err
	}
	return shape, generics > 0, nil
}

// literal writes v as an untyped SQL literal (the server gives it the
// parameter's type).
func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return "'" + x.Format("2006-01-02 15:04:05.999999999Z07:00") + "'"
	case []byte:
		return "'\\x" + hex.EncodeToString(x) + "'"
	}
	return "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "''") + "'"
}

// pgKeep are the plan node fields that describe the plan's shape, in the
// order they are printed.
var pgKeep = []struct{ key, label string }{
	{"Operation", ""}, {"Strategy", ""}, {"Join Type", "join"}, {"Partial Mode", ""}, {"Command", ""},
	{"Relation Name", "on"}, {"Index Name", "using"}, {"Scan Direction", ""}, {"Parent Relationship", "as"},
	{"Subplan Name", ""}, {"CTE Name", "cte"},
}

// NormalizePostgres reduces EXPLAIN (FORMAT JSON) output to node types,
// strategies, join types, relations, indexes and scan directions, in plan
// order, without costs, row estimates, widths, conditions or timings.
func NormalizePostgres(doc []byte) (string, error) {
	var top []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &top); err != nil || len(top) == 0 {
		return "", fmt.Errorf("unexpected EXPLAIN output: %.80s", doc)
	}
	var b strings.Builder
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		b.WriteString(fmt.Sprint(n["Node Type"]))
		var attrs []string
		for _, k := range pgKeep {
			v, ok := n[k.key]
			if !ok || v == nil || v == "" {
				continue
			}
			s := fmt.Sprint(v)
			if k.label != "" {
				s = k.label + " " + s
			}
			attrs = append(attrs, s)
		}
		if a, ok := n["Alias"].(string); ok && a != n["Relation Name"] && n["Relation Name"] != nil {
			attrs = append(attrs, "alias "+a)
		}
		if pa, ok := n["Parallel Aware"].(bool); ok && pa {
			attrs = append(attrs, "parallel")
		}
		if len(attrs) > 0 {
			b.WriteString(" (" + strings.Join(attrs, ", ") + ")")
		}
		if kids, ok := n["Plans"].([]any); ok && len(kids) > 0 {
			b.WriteString(" [")
			for i, k := range kids {
				if i > 0 {
					b.WriteString("; ")
				}
				if m, ok := k.(map[string]any); ok {
					walk(m)
				}
			}
			b.WriteString("]")
		}
	}
	walk(top[0].Plan)
	return b.String(), nil
}
