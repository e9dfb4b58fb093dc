// Package transtats is the reporting star join: a fact table of
// transaction statistics, six dimension tables and their cross join, and two
// reporting queries whose results are known in advance from the row
// formulas, so that a wrong answer is an error rather than a fast query.
package transtats

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.Register("transtats", func() workload.Generator { return &TransStats{Rows: DefaultRows, Query: QueryStar} })
}

// DefaultRows is the default size of tran_stats.
const DefaultRows = 1_000_000

// Queries.
const (
	QueryStar   = "star"
	QueryWindow = "window"
	QueryMix    = "mix"
)

const (
	factTable  = "tran_stats"
	crossTable = "dimensions"
	batchRows  = 50_000
	maxRows    = 2_000_000_000
)

// Tables lists every table of the workload.
func Tables() []string {
	t := []string{factTable, crossTable}
	for _, d := range Dimensions {
		t = append(t, d.Table)
	}
	return t
}

// TransStats is the workload and its flags.
type TransStats struct {
	Rows     int64
	Query    string
	Parallel int

	n    int64 // rows, read by Setup
	avg  *Averages
	caps db.Caps
	seed uint64
	// dop is the run's --dop (Env.DOP), which --parallel gives too.
	dop int
}

// Name implements workload.Generator.
func (*TransStats) Name() string { return "transtats" }

// Description implements workload.Generator.
func (*TransStats) Description() string {
	return "reporting star join over tran_stats and six dimensions; queries star, window or mix; results verified"
}

// Flags implements workload.Generator.
func (w *TransStats) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	switch cmd {
	case workload.CmdInit:
		fs.Int64Var(&w.Rows, "rows", DefaultRows, "rows of tran_stats")
	case workload.CmdRun:
		fs.StringVar(&w.Query, "query", QueryStar, "query: star, window, or mix (each transaction picks one at random)")
		fs.IntVar(&w.Parallel, "parallel", 0, "processes per query, leader included: another name for run's --dop (1 = serial; PostgreSQL: max_parallel_workers_per_gather = N-1; SQL Server: OPTION (MAXDOP N)); 0 keeps the server's setting")
	}
}

// maxParallel bounds --parallel, as --dop is bounded.
const maxParallel = db.MaxDOP

// DOPFlag implements workload.DOPFlagger: --parallel is --dop.
func (w *TransStats) DOPFlag() (int, string) { return w.Parallel, "--parallel" }

// Validate implements workload.Validator: --rows for init, --query and
// --parallel for run.
func (w *TransStats) Validate(cmd workload.Command) error {
	switch cmd {
	case workload.CmdInit:
		if w.Rows < 1 || w.Rows > maxRows {
			return fmt.Errorf("--rows %d is out of range; use 1 to %d", w.Rows, int64(maxRows))
		}
	case workload.CmdRun:
		switch w.Query {
		case QueryStar, QueryWindow, QueryMix:
		default:
			return fmt.Errorf("--query %q is not a transtats query; use star, window or mix", w.Query)
		}
		if w.Parallel < 0 || w.Parallel > maxParallel {
			return fmt.Errorf("--parallel %d is out of range; use 1 (serial) to %d, or 0 for the server's setting", w.Parallel, maxParallel)
		}
	}
	return nil
}

// Init implements workload.Initer.
func (w *TransStats) Init(ctx context.Context, env *workload.Env) error {
	caps, conn, err := workload.BeginInit(ctx, env, w)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := workload.Recreate(ctx, conn, Tables(), CreateStatements(caps)); err != nil {
		return err
	}
	n := w.Rows
	tables := []workload.Table{{Name: factTable, Columns: Columns, Rows: n, Batches: int((n + batchRows - 1) / batchRows),
		Batch: func(b int, dst [][]any) [][]any {
			for i := int64(b)*batchRows + 1; i <= min(int64(b+1)*batchRows, n); i++ {
				dst = append(dst, RowAt(i).Values())
			}
			return dst
		}}}
	for _, d := range Dimensions {
		vals := d.Values(n)
		tables = append(tables, workload.Table{Name: d.Table, Columns: []string{d.Column}, Rows: int64(len(vals)), Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				for _, v := range vals {
					dst = append(dst, []any{v})
				}
				return dst
			}})
	}
	if err := workload.Load(ctx, env, tables); err != nil {
		return err
	}
	env.Progress.Phase("dimensions")
	if err := conn.Exec(ctx, crossJoinSQL(caps)); err != nil {
		return fmt.Errorf("fill %s: %w", crossTable, err)
	}
	if caps.KeysAfterLoad {
		env.Progress.Phase("keys")
		if err := workload.ExecAll(ctx, conn,
			"CREATE INDEX tran_stats_tran_begin ON "+factTable+" (tran_begin)",
			"ALTER TABLE "+crossTable+" ADD PRIMARY KEY ("+valueColumns("")+")"); err != nil {
			return err
		}
	}
	if workload.Analyzes(caps) {
		env.Progress.Phase(caps.AnalyzeName)
		return workload.AnalyzeTables(ctx, env, Tables()...)
	}
	return nil
}

// valueColumns lists the six value columns, each prefixed.
func valueColumns(prefix string) string {
	cols := make([]string, len(Dimensions))
	for i, d := range Dimensions {
		cols[i] = prefix + d.Column
	}
	return strings.Join(cols, ", ")
}

// idColumns lists the six id columns, each prefixed.
func idColumns(prefix string) string {
	cols := make([]string, len(Dimensions))
	for i, d := range Dimensions {
		cols[i] = prefix + "id_" + d.Column
	}
	return strings.Join(cols, ", ")
}

// CreateStatements is the DDL. tran_stats is clustered on tran_begin where
// the engine clusters tables on their primary key (primary key (tran_begin,
// tran_count), tran_count being unique), and indexed on tran_begin after
// loading elsewhere; dimensions has the six value columns as its key, which
// the star join looks up.
func CreateStatements(caps db.Caps) []string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + factTable + " (server_config varchar(100) NOT NULL, users int NOT NULL, cpus smallint NOT NULL, " +
		"thread_name varchar(20) NOT NULL, tran_count int NOT NULL, tran_type varchar(20) NOT NULL, tran_status varchar(20) NOT NULL, " +
		"tran_begin " + caps.TimestampType + " NOT NULL, tran_end " + caps.TimestampType + " NOT NULL, resultset_size smallint NOT NULL, filler char(100)")
	if !caps.KeysAfterLoad {
		b.WriteString(", PRIMARY KEY (tran_begin, tran_count))" + caps.ClusterOnKey)
	} else {
		b.WriteString(")")
	}
	b.WriteString(caps.TableOptions)
	stmts := []string{b.String()}
	var cross []string
	for _, d := range Dimensions {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s (id_%s %s, %s %s NOT NULL UNIQUE)%s",
			d.Table, d.Column, caps.IdentityKey, d.Column, d.SQLType, caps.TableOptions))
		cross = append(cross, fmt.Sprintf("id_%s bigint NOT NULL, %s %s NOT NULL", d.Column, d.Column, d.SQLType))
	}
	ct := "CREATE TABLE " + crossTable + " (" + strings.Join(cross, ", ")
	if !caps.KeysAfterLoad {
		ct += ", PRIMARY KEY (" + valueColumns("") + "))" + caps.ClusterOnKey
	} else {
		ct += ")"
	}
	return append(stmts, ct+caps.TableOptions)
}

// crossJoinSQL fills dimensions with the cross join of the six dimension
// tables (sorted by its key where the table is clustered on it).
func crossJoinSQL(caps db.Caps) string {
	var cols, from []string
	for i, d := range Dimensions {
		a := fmt.Sprintf("d%d", i)
		cols = append(cols, a+".id_"+d.Column, a+"."+d.Column)
		from = append(from, d.Table+" "+a)
	}
	var ins []string
	for _, d := range Dimensions {
		ins = append(ins, "id_"+d.Column, d.Column)
	}
	q := "INSERT INTO " + crossTable + " (" + strings.Join(ins, ", ") + ") SELECT " + strings.Join(cols, ", ") +
		" FROM " + strings.Join(from, " CROSS JOIN ")
	if !caps.KeysAfterLoad {
		var order []string
		for i, d := range Dimensions {
			order = append(order, fmt.Sprintf("d%d.%s", i, d.Column))
		}
		q += " ORDER BY " + strings.Join(order, ", ")
	}
	return q
}

// StarSQL joins tran_stats to dimensions on the six value columns, groups
// by the six ids and counts the groups (and the rows joined).
func StarSQL() string {
	var on []string
	for _, d := range Dimensions {
		on = append(on, "d."+d.Column+" = t."+d.Column)
	}
	return "SELECT count(*), coalesce(sum(g.n), 0) FROM (SELECT " + idColumns("d.") + ", count(*) AS n FROM " + factTable +
		" t JOIN " + crossTable + " d ON " + strings.Join(on, " AND ") + " GROUP BY " + idColumns("d.") + ") g"
}

// WindowSQL takes the rows of a one-second window of tran_begin ($1
// inclusive to $2 exclusive), keeps those at or below their server_config's
// average resultset_size over the whole table (written as resultset_size *
// count <= sum, exact in integers on every engine), groups them by the six
// value columns and sums tran_count; it returns the groups and the sum.
func WindowSQL() string {
	return "SELECT count(*), coalesce(sum(g.n), 0) FROM (SELECT " + valueColumns("t.") + ", sum(t.tran_count) AS n FROM " + factTable + " t" +
		" JOIN (SELECT server_config, count(*) AS cnt, sum(resultset_size) AS total FROM " + factTable + " GROUP BY server_config) a" +
		" ON a.server_config = t.server_config" +
		" WHERE t.tran_begin >= $1 AND t.tran_begin < $2 AND t.resultset_size * a.cnt <= a.total" +
		" GROUP BY " + valueColumns("t.") + ") g"
}

// Setup implements workload.Runner: it reads the row count and works out
// the expected results.
func (w *TransStats) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := w.Validate(workload.CmdRun); err != nil {
		return err
	}
	if err := workload.RequireTables(ctx, env, conn, "transtats", Tables()...); err != nil {
		return err
	}
	n, err := RowCount(ctx, conn)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s is empty; run `dbharness init transtats` again", factTable)
	}
	if w.Parallel != 0 && w.Parallel != env.DOP {
		return fmt.Errorf("--parallel %d is --dop, and the run's --dop is %d; give one of them", w.Parallel, env.DOP)
	}
	w.n, w.avg, w.caps, w.seed, w.dop = n, NewAverages(n), env.DB.Caps(), env.Seed, env.DOP
	return nil
}

// RowCount is --rows as init was given it: the largest tran_count, read
// through the tran_begin key.
func RowCount(ctx context.Context, conn db.Conn) (int64, error) {
	n, err := db.QueryInt64(ctx, conn, "SELECT max(tran_count) FROM "+factTable+" WHERE tran_begin = (SELECT max(tran_begin) FROM "+factTable+")")
	if err != nil {
		return 0, fmt.Errorf("read the size of %s: %w", factTable, err)
	}
	return n, nil
}

// MixName implements workload.Mixer: the query, and its processes when
// parallel.
func (w *TransStats) MixName() string {
	if w.dop > 1 {
		return fmt.Sprintf("%s, parallel %d", w.Query, w.dop)
	}
	return w.Query
}

// Ops implements workload.Runner.
func (w *TransStats) Ops() []string {
	switch w.Query {
	case QueryStar:
		return []string{QueryStar}
	case QueryWindow:
		return []string{QueryWindow}
	}
	return []string{QueryStar, QueryWindow}
}

// NewWorker implements workload.Runner.
func (w *TransStats) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{w: w, rng: rand.New(rand.NewPCG(w.seed, uint64(id)))}
	wk.dest = []any{&wk.got[0], &wk.got[1]}
	for _, op := range w.Ops() {
		st, err := conn.Prepare(ctx, w.query(op))
		if err != nil {
			return nil, fmt.Errorf("prepare the %s query: %w", op, err)
		}
		wk.stmts = append(wk.stmts, st)
		wk.window = append(wk.window, op == QueryWindow)
	}
	return wk, nil
}

// query is the SQL of query op (QueryStar or QueryWindow).
func (w *TransStats) query(op string) string {
	if op == QueryWindow {
		return WindowSQL()
	}
	return StarSQL()
}

// Statements implements workload.Statementer: the queries of --query, for
// the plan check (whose connection has the run's --dop, as the clients'
// have). The window query's
// start is drawn over every window as the workers draw it; its end is the
// start plus one second.
func (w *TransStats) Statements() []workload.Statement {
	windows := WindowSeconds(w.n)
	at := func(sec int64) any { return Base.Add(time.Duration(sec) * time.Second) }
	from := workload.ParamDomain{Name: "from", Min: at(0), Median: at(windows / 2), Max: at(windows - 1),
		Sample: func(r *rand.Rand) any { return at(r.Int64N(windows)) }}
	to := workload.ParamDomain{Name: "to", Derive: func(e []any) any { return e[0].(time.Time).Add(time.Second) }}
	var out []workload.Statement
	for _, op := range w.Ops() {
		if op == QueryWindow {
			out = append(out, workload.Statement{Name: QueryWindow, SQL: w.query(op), Params: []workload.ParamDomain{from, to}})
		} else {
			out = append(out, workload.Statement{Name: QueryStar, SQL: w.query(op)})
		}
	}
	return out
}

type worker struct {
	w      *TransStats
	rng    *rand.Rand
	stmts  []db.Stmt
	window []bool
	sec    int64
	got    [2]int64
	dest   []any
}

// Next picks the query (at random in the mix) and, for the window query, a
// window between the first and the last tran_begin.
func (wk *worker) Next() int {
	op := 0
	if len(wk.stmts) > 1 {
		op = wk.rng.IntN(2)
	}
	wk.sec = wk.rng.Int64N(WindowSeconds(wk.w.n))
	return op
}

// Do runs the query and compares its result with the one the row formulas
// give: a different result is an error.
func (wk *worker) Do(ctx context.Context, op int) error {
	w := wk.w
	var err error
	var want [2]int64
	if wk.window[op] {
		from := Base.Add(time.Duration(wk.sec) * time.Second)
		err = wk.stmts[op].QueryRow(ctx, wk.dest, from, from.Add(time.Second))
		want[0], want[1] = w.avg.WindowResult(w.n, wk.sec)
	} else {
		err = wk.stmts[op].QueryRow(ctx, wk.dest)
		want[0], want[1] = StarResult(w.n)
	}
	if err != nil {
		return err
	}
	if wk.got != want {
		what := "star query"
		if wk.window[op] {
			what = fmt.Sprintf("window query at tran_begin %s", Base.Add(time.Duration(wk.sec)*time.Second).Format("2006-01-02 15:04:05"))
		}
		return fmt.Errorf("wrong result: the %s returned (groups %d, sum %d), the row formulas for %d rows give (%d, %d)",
			what, wk.got[0], wk.got[1], w.n, want[0], want[1])
	}
	return nil
}

// BeforeRun implements workload.RunHooks.
func (w *TransStats) BeforeRun(context.Context, *workload.Env, db.Conn) error { return nil }

// AfterRun implements workload.RunHooks: queries per hour, in total and per
// query, and the parallelism in effect.
func (w *TransStats) AfterRun(_ context.Context, _ *workload.Env, _ db.Conn, t workload.Totals) (map[string]float64, error) {
	m := map[string]float64{"rows": float64(w.n)}
	// The result every star query was checked against: it is the same
	// number for the same --rows on every engine.
	if slices.Contains(w.Ops(), QueryStar) {
		g, r := StarResult(w.n)
		m["star_groups"], m["star_rows"] = float64(g), float64(r)
	}
	if w.dop > 0 {
		m["parallel"] = float64(w.dop)
	}
	if t.Seconds <= 0 {
		return m, nil
	}
	var total int64
	for _, op := range w.Ops() {
		c := t.Commits[op]
		total += c
		if len(w.Ops()) > 1 {
			m[op+"_qph"] = float64(c) / t.Seconds * 3600
		}
	}
	m["qph"] = float64(total) / t.Seconds * 3600
	return m, nil
}

// Check implements workload.Checker: the tables hold exactly the rows the
// formulas give, and both queries return the expected results.
func (w *TransStats) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := workload.RequireTables(ctx, env, conn, "transtats", Tables()...); err != nil {
		return nil, err
	}
	n, err := RowCount(ctx, conn)
	if err != nil {
		return nil, err
	}
	q := func(sql string) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = db.QueryInt64(ctx, conn, sql)
		return v
	}
	count := q("SELECT count(*) FROM " + factTable)
	sumCount := q("SELECT sum(tran_count) FROM " + factTable)
	sumRS := q("SELECT sum(resultset_size) FROM " + factTable)
	sumUsers := q("SELECT sum(users) FROM " + factTable)
	var wantRS, wantUsers int64
	for i := int64(1); i <= n; i++ {
		wantRS += i % 100
		wantUsers += (i%5 + 1) * 10
	}
	res := []workload.CheckResult{{Name: "tran_stats rows", Pass: err == nil && count == n && sumCount == n*(n+1)/2 && sumRS == wantRS && sumUsers == wantUsers,
		Detail: fmt.Sprintf("%d rows (want %d), sum(tran_count) %d (want %d), sum(resultset_size) %d (want %d), sum(users) %d (want %d)",
			count, n, sumCount, n*(n+1)/2, sumRS, wantRS, sumUsers, wantUsers)}}
	product := int64(1)
	var dims []string
	pass := true
	for _, d := range Dimensions {
		got, want := q("SELECT count(*) FROM "+d.Table), int64(len(d.Values(n)))
		product *= want
		pass = pass && got == want
		dims = append(dims, fmt.Sprintf("%s %d/%d", d.Table, got, want))
	}
	cross := q("SELECT count(*) FROM " + crossTable)
	res = append(res, workload.CheckResult{Name: "dimension tables", Pass: err == nil && pass && cross == product,
		Detail: strings.Join(dims, ", ") + fmt.Sprintf(", %s %d/%d", crossTable, cross, product)})
	if err != nil {
		return nil, err
	}
	w.n, w.avg, w.caps = n, NewAverages(n), env.DB.Caps()
	all := &TransStats{Query: QueryMix, n: n, avg: w.avg, caps: w.caps, seed: 1}
	wk, err := all.NewWorker(ctx, conn, 0)
	if err != nil {
		return nil, err
	}
	for op, name := range all.Ops() {
		wk.(*worker).sec = WindowSeconds(n) / 2
		err := wk.Do(ctx, op)
		detail := "returns the result the row formulas give"
		if err != nil {
			detail = err.Error()
		}
		res = append(res, workload.CheckResult{Name: name + " query", Pass: err == nil, Detail: detail})
	}
	return res, nil
}

// Dataset implements workload.Describer: --rows as init was given it.
func (w *TransStats) Dataset(context.Context, *workload.Env, db.Conn) (map[string]any, []string, error) {
	return map[string]any{"rows": w.n}, Tables(), nil
}
