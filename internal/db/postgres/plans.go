package postgres

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// Explain implements evidence.Explainer with EXPLAIN (FORMAT JSON).
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

// GenericPlan implements evidence.GenericPlanner: it prepares the statement
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

var workersPlanned = regexp.MustCompile(`"Workers Planned": (\d+)`)

// PrepareScan implements db.TableScanner: a count(*) over a sequential
// scan (index scans turned off for the session), its parallel workers set
// by max_parallel_workers_per_gather (parallel - 1 workers and the leader)
// with the costs that would talk the planner out of them set to zero; the
// size is pg_relation_size of the main fork.
func (d *pgDB) PrepareScan(ctx context.Context, conn db.Conn, table string, parallel int) (db.Scan, error) {
	var s db.Scan
	name, err := db.QueryString(ctx, conn, "SELECT to_regclass($1)::text", table)
	if err != nil {
		return s, err
	}
	if name == "" {
		return s, fmt.Errorf("table %s does not exist", table)
	}
	if s.Bytes, err = db.QueryInt64(ctx, conn, "SELECT pg_relation_size($1::regclass)", name); err != nil {
		return s, err
	}
	if s.PageSize, err = db.QueryInt64(ctx, conn, "SELECT current_setting('block_size')::bigint"); err != nil {
		return s, err
	}
	s.Pages, s.SizeSource = s.Bytes/s.PageSize, "pg_relation_size"
	sets := []string{"SET enable_indexscan = off", "SET enable_indexonlyscan = off", "SET enable_bitmapscan = off",
		fmt.Sprintf("SET max_parallel_workers_per_gather = %d", parallel-1)}
	if parallel > 1 {
		sets = append(sets, "SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0")
	}
	for _, q := range sets {
		if err := conn.Exec(ctx, q); err != nil {
			return s, fmt.Errorf("%s: %w", q, err)
		}
	}
	s.SQL = "SELECT count(*) FROM " + name
	if s.Plan, err = d.Explain(ctx, conn, s.SQL, nil); err != nil {
		return s, err
	}
	if !strings.Contains(s.Plan, "Seq Scan") {
		return s, fmt.Errorf("the plan of %s is not a sequential scan: %s", s.SQL, s.Plan)
	}
	if parallel > 1 {
		if !strings.Contains(s.Plan, "Gather") {
			return s, fmt.Errorf("the plan of %s has no parallel scan (max_worker_processes or max_parallel_workers may be too low): %s", s.SQL, s.Plan)
		}
		doc, err := db.QueryString(ctx, conn, "EXPLAIN (FORMAT JSON) "+s.SQL)
		if err != nil {
			return s, err
		}
		if m := workersPlanned.FindStringSubmatch(doc); m != nil {
			s.Plan += ", workers planned " + m[1]
		}
	}
	s.Cold = "PostgreSQL cannot evict one table from shared_buffers before version 17 (pg_buffercache_evict), nor from the operating system's cache from a client"
	return s, nil
}

// Workers implements evidence.WorkerCounter with EXPLAIN (ANALYZE, FORMAT
// JSON) in a READ ONLY transaction that is rolled back: the workers
// planned and launched are summed over the plan's Gather and Gather Merge
// nodes. A statement that writes fails there (SQLSTATE 25006) and is not
// measured: it runs serially anyway, since PostgreSQL plans no worker for a
// statement that writes.
func (d *pgDB) Workers(ctx context.Context, conn db.Conn, sql string, args []any) (evidence.Workers, error) {
	var w evidence.Workers
	if err := conn.Exec(ctx, "BEGIN READ ONLY"); err != nil {
		return w, err
	}
	defer func() { _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK") }()
	doc, err := db.QueryString(ctx, conn, "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, args...)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "25006" {
			w.NotMeasured = "the statement writes, so it is not run to measure (PostgreSQL plans no parallel worker for a write)"
			return w, nil
		}
		return w, fmt.Errorf("explain analyze: %w", err)
	}
	return CountWorkers([]byte(doc))
}

// CountWorkers sums "Workers Planned" and "Workers Launched" over the nodes
// of an EXPLAIN (ANALYZE, FORMAT JSON) document.
func CountWorkers(doc []byte) (evidence.Workers, error) {
	var w evidence.Workers
	var top []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &top); err != nil || len(top) == 0 {
		return w, fmt.Errorf("unexpected EXPLAIN output: %.80s", doc)
	}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if v, ok := n["Workers Planned"].(float64); ok {
			w.Planned += int(v)
		}
		if v, ok := n["Workers Launched"].(float64); ok {
			w.Launched += int(v)
		}
		if kids, ok := n["Plans"].([]any); ok {
			for _, k := range kids {
				if m, ok := k.(map[string]any); ok {
					walk(m)
				}
			}
		}
	}
	walk(top[0].Plan)
	return w, nil
}
