package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

// Flags set on a statement's plans.
const (
	FlagParameterSensitive = "parameter-sensitive"
	FlagChanged            = "changed-during-run"
	FlagGenericDiffers     = "generic-plan-differs"
)

// RandomDraws is how many random parameter sets each statement is
// explained with, besides the lowest, median and highest values.
const RandomDraws = 5

// Draw is one sampled parameter set of a statement.
type Draw struct {
	// Label says how the values were chosen: "min", "median", "max",
	// "min aid" (that parameter at its minimum, the others at their
	// median), "random".
	Label  string
	Values []any
}

// Draws returns the parameter sets a statement is explained with: every
// parameter at its minimum, median and maximum, each parameter alone at its
// bounds (the others at their median), and n random draws. Duplicates are
// dropped.
func Draws(st workload.Statement, rng *rand.Rand, n int) []Draw {
	if len(st.Params) == 0 {
		return []Draw{{Label: "no parameters"}}
	}
	med := make([]any, len(st.Params))
	for i, p := range st.Params {
		if p.Derive == nil {
			med[i] = median(p)
		}
	}
	derive(st, med)
	var out []Draw
	seen := map[string]bool{}
	add := func(label string, v []any) {
		derive(st, v)
		k := fmt.Sprint(v...)
		if !seen[k] {
			seen[k] = true
			out = append(out, Draw{Label: label, Values: v})
		}
	}
	pick := func(f func(p workload.ParamDomain) any) []any {
		v := make([]any, len(st.Params))
		for i, p := range st.Params {
			v[i] = f(p)
		}
		return v
	}
	add("min", pick(func(p workload.ParamDomain) any { return p.Min }))
	add("median", pick(median))
	add("max", pick(func(p workload.ParamDomain) any { return p.Max }))
	if len(st.Params) > 1 {
		for i, p := range st.Params {
			if p.Derive != nil {
				continue
			}
			for _, b := range []struct {
				label string
				v     any
			}{{"min", p.Min}, {"max", p.Max}} {
				v := append([]any(nil), med...)
				v[i] = b.v
				add(b.label+" "+p.Name, v)
			}
		}
	}
	for k := 0; k < n; k++ {
		add("random", pick(func(p workload.ParamDomain) any {
			if p.Sample == nil {
				return median(p)
			}
			return p.Sample(rng)
		}))
	}
	return out
}

// derive sets the derived parameters of v from those before them.
func derive(st workload.Statement, v []any) {
	for i, p := range st.Params {
		if p.Derive != nil {
			v[i] = p.Derive(v[:i])
		}
	}
}

func median(p workload.ParamDomain) any {
	if p.Median != nil {
		return p.Median
	}
	lo, ok1 := p.Min.(int64)
	hi, ok2 := p.Max.(int64)
	if ok1 && ok2 {
		return lo + (hi-lo)/2
	}
	return p.Min
}

// PlanCheck explains a workload's statements before and after a run.
type PlanCheck struct {
	DB     db.DB
	Stmts  []workload.Statement
	Seed   uint64
	draws  [][]Draw
	before [][]string // fingerprint per statement and draw
	shapes map[string]string
	report []results.StatementPlans
}

// Before explains every statement with its sampled parameter sets and
// groups the sets by plan. It returns the report (also kept for After).
func (pc *PlanCheck) Before(ctx context.Context, conn db.Conn) []results.StatementPlans {
	rng := rand.New(rand.NewPCG(pc.Seed, 0x91a4))
	pc.shapes = map[string]string{}
	pc.draws = make([][]Draw, len(pc.Stmts))
	pc.before = make([][]string, len(pc.Stmts))
	pc.report = make([]results.StatementPlans, len(pc.Stmts))
	for i, st := range pc.Stmts {
		sp := results.StatementPlans{Statement: st.Name, SQL: st.SQL, Plans: []results.PlanVariant{}}
		pc.draws[i] = Draws(st, rng, RandomDraws)
		pc.before[i] = make([]string, len(pc.draws[i]))
		byFP := map[string]*results.PlanVariant{}
		var order []string
		if err := session(ctx, conn, st); err != nil {
			sp.Error = oneLine(err.Error())
			pc.report[i] = sp
			continue
		}
		for j, dr := range pc.draws[i] {
			shape, err := Explain(ctx, pc.DB, conn, st.SQL, dr.Values)
			if err != nil {
				sp.Error = oneLine(err.Error())
				break
			}
			fp := Fingerprint(shape)
			pc.shapes[fp] = shape
			pc.before[i][j] = fp
			v := byFP[fp]
			if v == nil {
				v = &results.PlanVariant{Fingerprint: fp, Shape: shape}
				byFP[fp] = v
				order = append(order, fp)
			}
			v.Count++
			v.Examples = append(v.Examples, results.PlanExample{Draw: dr.Label, Params: params(st, dr.Values)})
		}
		for _, fp := range order {
			sp.Plans = append(sp.Plans, *byFP[fp])
		}
		sort.SliceStable(sp.Plans, func(a, b int) bool { return sp.Plans[a].Count > sp.Plans[b].Count })
		if len(sp.Plans) > 1 {
			sp.Flags = append(sp.Flags, FlagParameterSensitive)
		}
		if sp.Error == "" && pc.DB.Caps().GenericPlans && len(st.Params) > 0 && !st.OneShot {
			g, err := genericPlan(ctx, pc.DB, conn, st, i, rng)
			if err != nil {
				sp.Error = "generic plan: " + oneLine(err.Error())
			} else {
				sp.Generic = g
				for _, v := range sp.Plans {
					if v.Fingerprint != g.Fingerprint {
						sp.Flags = append(sp.Flags, FlagGenericDiffers)
						break
					}
				}
			}
		}
		pc.report[i] = sp
	}
	return pc.report
}

// After explains the same parameter sets again and flags the statements
// whose plan changed during the run. It returns the updated report.
func (pc *PlanCheck) After(ctx context.Context, conn db.Conn) []results.StatementPlans {
	for i, st := range pc.Stmts {
		sp := &pc.report[i]
		if sp.Error != "" {
			continue
		}
		if err := session(ctx, conn, st); err != nil {
			sp.Error = "after the run: " + oneLine(err.Error())
			continue
		}
		for j, dr := range pc.draws[i] {
			shape, err := Explain(ctx, pc.DB, conn, st.SQL, dr.Values)
			if err != nil {
				sp.Error = "after the run: " + oneLine(err.Error())
				break
			}
			fp := Fingerprint(shape)
			if fp != pc.before[i][j] {
				sp.Changed = append(sp.Changed, results.PlanChange{Params: params(st, dr.Values), Before: pc.before[i][j],
					After: fp, AfterShape: shape})
			}
		}
		if len(sp.Changed) > 0 {
			sp.Flags = append(sp.Flags, FlagChanged)
		}
	}
	return pc.report
}

// genericDraws is how many executions the plan cache is shown before the
// one that tells whether it chose the generic plan: PostgreSQL plans the
// first five executions of a prepared statement for their values.
const genericDraws = 5

// genericPlan prepares the statement on conn as the clients do, explains
// six executions with random draws in the server's automatic plan cache mode
// (the sixth may run the generic plan: Chosen), then explains it with
// plan_cache_mode = force_generic_plan for the generic plan's shape. The
// values only have to fit the parameters' types, so they are written as
// untyped literals.
func genericPlan(ctx context.Context, d db.DB, conn db.Conn, st workload.Statement, i int, rng *rand.Rand) (*results.GenericPlan, error) {
	name := fmt.Sprintf("dbharness_plan_check_%d", i)
	if err := conn.Exec(ctx, "PREPARE "+name+" AS "+st.SQL); err != nil {
		return nil, err
	}
	defer func() { _ = conn.Exec(context.WithoutCancel(ctx), "DEALLOCATE "+name) }()
	explain := func(vals []any) (string, error) {
		lits := make([]string, len(vals))
		for k, v := range vals {
			lits[k] = literal(v)
		}
		return Explain(ctx, d, conn, "EXECUTE "+name+"("+strings.Join(lits, ", ")+")", nil)
	}
	draw := func() []any {
		v := make([]any, len(st.Params))
		for k, p := range st.Params {
			if p.Sample != nil {
				v[k] = p.Sample(rng)
			} else {
				v[k] = median(p)
			}
		}
		derive(st, v)
		return v
	}
	mode, err := db.QueryString(ctx, conn, "SELECT current_setting('plan_cache_mode')")
	if err != nil {
		return nil, err
	}
	if mode != "auto" {
		if err := conn.Exec(ctx, "SET plan_cache_mode = auto"); err != nil {
			return nil, err
		}
	}
	for k := 0; k <= genericDraws; k++ {
		if _, err := explain(draw()); err != nil {
			return nil, err
		}
	}
	generics, err := db.QueryInt64(ctx, conn, "SELECT generic_plans FROM pg_prepared_statements WHERE name = $1", name)
	if err != nil {
		return nil, err
	}
	if err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		return nil, err
	}
	shape, err := explain(draw())
	if rerr := conn.Exec(context.WithoutCancel(ctx), "SET plan_cache_mode = "+mode); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return nil, err
	}
	return &results.GenericPlan{Fingerprint: Fingerprint(shape), Shape: shape, Chosen: generics > 0}, nil
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

// session runs the statement's session settings on conn.
func session(ctx context.Context, conn db.Conn, st workload.Statement) error {
	for _, q := range st.Session {
		if err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("session setting %q: %w", q, err)
		}
	}
	return nil
}

func params(st workload.Statement, v []any) map[string]any {
	m := make(map[string]any, len(v))
	for i, x := range v {
		name := fmt.Sprintf("$%d", i+1)
		if i < len(st.Params) && st.Params[i].Name != "" {
			name = st.Params[i].Name
		}
		m[name] = x
	}
	return m
}

// Fingerprint is a short hash of a normalized plan.
func Fingerprint(shape string) string {
	h := sha256.Sum256([]byte(shape))
	return hex.EncodeToString(h[:8])
}

// Explain returns the normalized plan of sql (with $1..$n placeholders) for
// the parameter values args, in the engine's plan format (db.Caps).
func Explain(ctx context.Context, d db.DB, conn db.Conn, sql string, args []any) (string, error) {
	caps := d.Caps()
	if caps.Explain == "" {
		return "", fmt.Errorf("this engine cannot explain statements")
	}
	rows, err := conn.Query(ctx, caps.Explain+sql, args...)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	defer rows.Close()
	switch caps.PlanFormat {
	case db.PlanPostgresJSON, db.PlanMySQLJSON:
		var doc string
		if rows.Next() {
			if err := rows.Scan(&doc); err != nil {
				return "", err
			}
		}
		if err := rows.Err(); err != nil {
			return "", err
		}
		if caps.PlanFormat == db.PlanPostgresJSON {
			return NormalizePostgres([]byte(doc))
		}
		return NormalizeMySQL([]byte(doc))
	case db.PlanSQLiteRows:
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
		return NormalizeSQLite(eqp), nil
	}
	return "", fmt.Errorf("unknown plan format %q", caps.PlanFormat)
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

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
