// Package tpcb is pgbench's TPC-B-like workload, with pgbench's tables,
// columns, types and fillers, so that pgbench and dbharness can run on each
// other's databases.
package tpcb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.Register("tpcb", func() workload.Generator { return &TPCB{Scale: 1, Mix: NewMix(MixTPCB)} })
}

// The three built-in pgbench scripts.
const (
	MixTPCB         = "tpcb-like"
	MixSimpleUpdate = "simple-update"
	MixSelectOnly   = "select-only"
)

// pgbench's sizes per unit of scale.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100_000
	batchRows        = 50_000
)

// Tables of the workload, in pgbench's order.
var Tables = []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"}

// TPCB is the workload and its flags.
type TPCB struct {
	Scale int
	// Mix is --mix (-b): NAME[@WEIGHT], repeated for a weighted mix.
	Mix MixFlag
	// NoVacuum is --no-vacuum (-n): no vacuum or truncation before the run.
	NoVacuum bool

	// mixes and weights are Mix parsed, one transaction type each.
	mixes   []string
	weights []float64
	picker  *datagen.Weighted
	scale   int64 // read from the database by Setup
	seed    uint64
	caps    db.Caps
	// preRun says what Setup did before the run (PreRun).
	preRun string
}

// MixFlag is a repeatable NAME[@WEIGHT] flag whose default is replaced by
// the first value given, and which reads back as the values joined by
// commas ("select-only@9,simple-update@1").
type MixFlag struct {
	vals []string
	set  bool
}

// NewMix is a MixFlag holding vals as its default.
func NewMix(vals ...string) MixFlag { return MixFlag{vals: vals} }

// String implements pflag.Value.
func (m *MixFlag) String() string { return strings.Join(m.vals, ",") }

// Type implements pflag.Value.
func (m *MixFlag) Type() string { return "name[@weight]" }

// Set implements pflag.Value: the first value replaces the default, the
// next ones add to it.
func (m *MixFlag) Set(v string) error {
	if !m.set {
		m.vals, m.set = nil, true
	}
	m.vals = append(m.vals, v)
	return nil
}

// Values are the flag's values.
func (m *MixFlag) Values() []string { return m.vals }

// Name implements workload.Generator.
func (*TPCB) Name() string { return "tpcb" }

// Description implements workload.Generator.
func (*TPCB) Description() string {
	return "pgbench's TPC-B-like workload (same tables; mixes tpcb-like, simple-update, select-only)"
}

// Flags implements workload.Generator.
func (w *TPCB) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	switch cmd {
	case workload.CmdInit:
		fs.IntVarP(&w.Scale, "scale", "s", 1, "scale factor as pgbench's: N branches, 10N tellers, 100,000N accounts")
	case workload.CmdRun:
		fs.VarP(&w.Mix, "mix", "b", "built-in script NAME[@WEIGHT]: tpcb-like, simple-update or select-only; repeat for a weighted mix, as pgbench's -b (-b select-only@9 -b simple-update@1)")
		fs.BoolVarP(&w.NoVacuum, "no-vacuum", "n", false, "skip what the run does first, as pgbench's -n: VACUUM pgbench_branches and pgbench_tellers (PostgreSQL) and empty pgbench_history")
	}
}

// maxScale bounds --scale: 2 billion accounts, pgbench's int aid.
const maxScale = 20000

// Validate implements workload.Validator: --scale for init, --mix for run.
func (w *TPCB) Validate(cmd workload.Command) error {
	switch cmd {
	case workload.CmdInit:
		if w.Scale < 1 || w.Scale > maxScale {
			return fmt.Errorf("--scale %d is out of range; use 1 to %d", w.Scale, maxScale)
		}
	case workload.CmdRun:
		mixes, weights, err := ParseMix(w.Mix.Values())
		if err != nil {
			return err
		}
		if w.picker, err = datagen.NewWeighted(weights); err != nil {
			return fmt.Errorf("--mix %s: %w", w.Mix.String(), err)
		}
		w.mixes, w.weights = mixes, weights
	}
	return nil
}

// Mixes are the names of the built-in scripts.
var Mixes = []string{MixTPCB, MixSimpleUpdate, MixSelectOnly}

// ParseMix reads NAME[@WEIGHT] specs of built-in scripts: the names, each
// once, and their weights (1 when not given).
func ParseMix(specs []string) (names []string, weights []float64, err error) {
	seen := map[string]bool{}
	for _, spec := range specs {
		name, wt, err := workload.ParseWeighted("--mix", spec)
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(Mixes, name) {
			return nil, nil, fmt.Errorf("--mix %q is not a tpcb mix; use tpcb-like, simple-update or select-only", name)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("--mix %s is given twice; give each built-in script once, with its weight", name)
		}
		seen[name] = true
		names, weights = append(names, name), append(weights, wt)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("give a --mix: tpcb-like, simple-update or select-only")
	}
	return names, weights, nil
}

// Init implements workload.Initer: pgbench -i's drop, create, load, vacuum
// and primary keys.
func (w *TPCB) Init(ctx context.Context, env *workload.Env) error {
	caps, conn, err := workload.BeginInit(ctx, env, w)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := workload.Recreate(ctx, conn, Tables, createStatements(caps)); err != nil {
		return err
	}
	scale := int64(w.Scale)
	nBranches, nTellers, nAccounts := scale*branchesPerScale, scale*tellersPerScale, scale*accountsPerScale
	tables := []workload.Table{
		{Name: "pgbench_branches", Columns: []string{"bid", "bbalance", "filler"}, Rows: nBranches, Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				for b := int64(1); b <= nBranches; b++ {
					dst = append(dst, []any{int32(b), int32(0), nil})
				}
				return dst
			}},
		{Name: "pgbench_tellers", Columns: []string{"tid", "bid", "tbalance", "filler"}, Rows: nTellers, Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				for t := int64(1); t <= nTellers; t++ {
					dst = append(dst, []any{int32(t), int32((t-1)/tellersPerScale + 1), int32(0), nil})
				}
				return dst
			}},
		{Name: "pgbench_accounts", Columns: []string{"aid", "bid", "abalance", "filler"}, Rows: nAccounts, Frozen: true,
			Batches: int((nAccounts + batchRows - 1) / batchRows),
			Batch: func(i int, dst [][]any) [][]any {
				lo := int64(i)*batchRows + 1
				hi := min(lo+batchRows-1, nAccounts)
				for a := lo; a <= hi; a++ {
					dst = append(dst, []any{int32(a), int32((a-1)/accountsPerScale + 1), int32(0), ""})
				}
				return dst
			}},
	}
	if err := workload.Load(ctx, env, tables); err != nil {
		return err
	}
	// Per table, on its own connection and all at once: statistics (with
	// VACUUM on PostgreSQL, which also sets the visibility map) and then,
	// where keys come after loading, the primary key — pgbench -i's order.
	keys := map[string]string{"pgbench_branches": "bid", "pgbench_tellers": "tid", "pgbench_accounts": "aid"}
	var groups [][]string
	for _, t := range Tables {
		var g []string
		if caps.Analyze != "" {
			g = append(g, fmt.Sprintf(caps.Analyze, t))
		}
		if k := keys[t]; k != "" && caps.KeysAfterLoad {
			g = append(g, "ALTER TABLE "+t+" ADD PRIMARY KEY ("+k+")")
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	// The step's name says what this engine runs: "vacuum, analyze and
	// keys" on PostgreSQL, "analyze" on MySQL/MariaDB and SQLite.
	var steps []string
	if workload.Analyzes(caps) {
		steps = append(steps, caps.AnalyzeName)
	}
	if caps.KeysAfterLoad {
		steps = append(steps, "keys")
	}
	if len(steps) > 0 {
		env.Progress.Phase(strings.Join(steps, " and "))
	}
	if err := workload.ExecParallel(ctx, env, groups); err != nil {
		return err
	}
	if caps.Analyze == "" {
		return workload.AnalyzeTables(ctx, env) // AnalyzeAll, once
	}
	return nil
}

// createStatements is pgbench's DDL in each engine's closest types. On
// heap-table engines keys come after loading, as pgbench adds them.
func createStatements(caps db.Caps) []string {
	ff := ""
	if caps.FillFactor {
		ff = " WITH (fillfactor=100)"
	}
	key := func(col string) string {
		if caps.KeysAfterLoad {
			return col + " int not null"
		}
		return col + " int not null primary key"
	}
	return []string{
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime " + caps.TimestampType + ", filler char(22))" + caps.TableOptions,
		"CREATE TABLE pgbench_tellers (" + key("tid") + ", bid int, tbalance int, filler char(84))" + ff + caps.TableOptions,
		"CREATE TABLE pgbench_accounts (" + key("aid") + ", bid int, abalance int, filler char(84))" + ff + caps.TableOptions,
		"CREATE TABLE pgbench_branches (" + key("bid") + ", bbalance int, filler char(88))" + ff + caps.TableOptions,
	}
}

// Setup implements workload.Runner: it checks the tables and reads the
// scale from pgbench_branches, as pgbench does.
func (w *TPCB) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := w.Validate(workload.CmdRun); err != nil {
		return err
	}
	if err := workload.RequireTables(ctx, env, conn, "tpcb", Tables...); err != nil {
		return err
	}
	n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM pgbench_branches")
	if err != nil {
		return fmt.Errorf("read the scale from pgbench_branches: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("pgbench_branches is empty; run `dbharness init tpcb` again")
	}
	w.scale, w.seed, w.caps = n, env.Seed, env.DB.Caps()
	w.preRun = workload.PreRunSkipped
	if !w.NoVacuum {
		if w.preRun, err = workload.PgbenchPreRun(ctx, env, conn); err != nil {
			return err
		}
	}
	return nil
}

// Ops implements workload.Runner: one transaction type per built-in script
// of the mix, named after it.
func (w *TPCB) Ops() []string {
	out := make([]string, len(w.mixes))
	for i, m := range w.mixes {
		out[i] = strings.ReplaceAll(m, "-", "_")
	}
	return out
}

// stmtNames are the statements of each built-in script, as -r times them.
var stmtNames = map[string][]string{
	MixTPCB:         {"BEGIN", "update_account", "select_account", "update_teller", "update_branch", "insert_history", "COMMIT"},
	MixSimpleUpdate: {"BEGIN", "update_account", "select_account", "insert_history", "COMMIT"},
	MixSelectOnly:   {"select_account"},
}

// StatementNames implements workload.StatementTimer.
func (w *TPCB) StatementNames() [][]string {
	out := make([][]string, len(w.mixes))
	for i, m := range w.mixes {
		out[i] = stmtNames[m]
	}
	return out
}

// has reports whether the mix has the built-in script m.
func (w *TPCB) has(m string) bool { return slices.Contains(w.mixes, m) }

// MixName implements workload.Mixer: the built-in script (pgbench -b).
func (w *TPCB) MixName() string { return w.Mix.String() }

// The statements of pgbench's built-in scripts.
const (
	sqlUpdAccount = "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"
	sqlSelAccount = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
	sqlUpdTeller  = "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2"
	sqlUpdBranch  = "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2"
	sqlInsHistory = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)"
)

// Statements implements workload.Statementer: the statements of the mix,
// with pgbench's parameter ranges.
func (w *TPCB) Statements() []workload.Statement {
	uniform := func(name string, lo, hi int64) workload.ParamDomain {
		return workload.ParamDomain{Name: name, Min: lo, Max: hi, Median: lo + (hi-lo)/2,
			Sample: func(rng *rand.Rand) any { return lo + rng.Int64N(hi-lo+1) }}
	}
	aid := uniform("aid", 1, accountsPerScale*w.scale)
	bid := uniform("bid", 1, branchesPerScale*w.scale)
	tid := uniform("tid", 1, tellersPerScale*w.scale)
	delta := uniform("delta", -5000, 5000)
	sel := workload.Statement{Name: "select_account", SQL: sqlSelAccount, Params: []workload.ParamDomain{aid}}
	if !w.has(MixTPCB) && !w.has(MixSimpleUpdate) {
		return []workload.Statement{sel}
	}
	out := []workload.Statement{
		{Name: "update_account", SQL: sqlUpdAccount, Params: []workload.ParamDomain{delta, aid}},
		sel,
	}
	if w.has(MixTPCB) {
		out = append(out,
			workload.Statement{Name: "update_teller", SQL: sqlUpdTeller, Params: []workload.ParamDomain{delta, tid}},
			workload.Statement{Name: "update_branch", SQL: sqlUpdBranch, Params: []workload.ParamDomain{delta, bid}})
	}
	return append(out, workload.Statement{Name: "insert_history", SQL: sqlInsHistory,
		Params: []workload.ParamDomain{tid, bid, aid, delta}})
}

// NewWorker implements workload.Runner.
func (w *TPCB) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{mixes: w.mixes, scale: w.scale, begin: w.caps.BeginWrite,
		rng: rand.New(rand.NewPCG(w.seed, uint64(id)))}
	if len(w.mixes) > 1 {
		wk.picker = w.picker
	}
	wk.dest = []any{&wk.abalance}
	if err := w.Rebind(ctx, wk, conn); err != nil {
		return nil, err
	}
	return wk, nil
}

// Rebind implements workload.Rebinder: the worker's statements prepared on
// conn.
func (w *TPCB) Rebind(ctx context.Context, ww workload.Worker, conn db.Conn) error {
	wk := ww.(*worker)
	wk.conn = conn
	var err error
	prep := func(sql string) db.Stmt {
		if err != nil {
			return nil
		}
		var s db.Stmt
		s, err = conn.Prepare(ctx, sql)
		return s
	}
	wk.selAccount = prep(sqlSelAccount)
	if w.has(MixTPCB) || w.has(MixSimpleUpdate) {
		wk.updAccount = prep(sqlUpdAccount)
		wk.insHistory = prep(sqlInsHistory)
	}
	if w.has(MixTPCB) {
		wk.updTeller = prep(sqlUpdTeller)
		wk.updBranch = prep(sqlUpdBranch)
	}
	if err != nil {
		return fmt.Errorf("prepare tpcb statements: %w", err)
	}
	return nil
}

type worker struct {
	conn db.Conn
	// mixes are the built-in scripts, by op; picker draws one when there
	// are several (nil: op 0).
	mixes                                        []string
	picker                                       *datagen.Weighted
	begin                                        string
	scale                                        int64
	rng                                          *rand.Rand
	updAccount, selAccount, updTeller, updBranch db.Stmt
	insHistory                                   db.Stmt
	aid, bid, tid, delta                         int64
	abalance                                     int64
	dest                                         []any
	// clock times the statements under -r (nil otherwise); op and stmt
	// are the transaction's type and its next statement's number.
	clock    workload.StatementClock
	op, stmt int
}

// TimeStatements implements workload.TimedWorker.
func (w *worker) TimeStatements(clock workload.StatementClock) { w.clock = clock }

// tick is the start of a statement when statements are timed.
func (w *worker) tick() time.Time {
	if w.clock == nil {
		return time.Time{}
	}
	return time.Now()
}

// tock records the statement begun at t, when timed and successful, and
// passes err on.
func (w *worker) tock(t time.Time, err error) error {
	if w.clock != nil {
		if err == nil {
			w.clock.Statement(w.op, w.stmt, time.Since(t))
		}
		w.stmt++
	}
	return err
}

// Next draws the parameters as pgbench's scripts do:
// aid in 1..100000*scale, bid in 1..scale, tid in 1..10*scale, delta in
// -5000..5000.
func (w *worker) Next() int {
	op := 0
	if w.picker != nil {
		op = w.picker.Index(w.rng)
	}
	w.aid = 1 + w.rng.Int64N(accountsPerScale*w.scale)
	w.bid = 1 + w.rng.Int64N(branchesPerScale*w.scale)
	w.tid = 1 + w.rng.Int64N(tellersPerScale*w.scale)
	w.delta = w.rng.Int64N(10001) - 5000
	return op
}

func (w *worker) Do(ctx context.Context, op int) error {
	w.op, w.stmt = op, 0
	mix := w.mixes[op]
	if mix == MixSelectOnly {
		t := w.tick()
		return w.tock(t, w.selAccount.QueryRow(ctx, w.dest, w.aid))
	}
	t := w.tick()
	if err := w.tock(t, w.conn.Exec(ctx, w.begin)); err != nil {
		return err
	}
	if err := w.body(ctx, mix); err != nil {
		if w.conn.Alive() {
			_ = w.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return err
	}
	t = w.tick()
	return w.tock(t, w.conn.Exec(ctx, "COMMIT"))
}

func (w *worker) body(ctx context.Context, mix string) error {
	t := w.tick()
	_, err := w.updAccount.Exec(ctx, w.delta, w.aid)
	if err = w.tock(t, err); err != nil {
		return err
	}
	t = w.tick()
	if err := w.tock(t, w.selAccount.QueryRow(ctx, w.dest, w.aid)); err != nil {
		return err
	}
	if mix == MixTPCB {
		t = w.tick()
		_, err = w.updTeller.Exec(ctx, w.delta, w.tid)
		if err = w.tock(t, err); err != nil {
			return err
		}
		t = w.tick()
		_, err = w.updBranch.Exec(ctx, w.delta, w.bid)
		if err = w.tock(t, err); err != nil {
			return err
		}
	}
	t = w.tick()
	_, err = w.insHistory.Exec(ctx, w.tid, w.bid, w.aid, w.delta)
	return w.tock(t, err)
}

// Check implements workload.Checker: the TPC-B invariant. Each transaction
// adds one delta to an account, a teller and a branch in one transaction,
// so their sums are equal; and it inserts the delta into pgbench_history,
// whose sum equals them while the history covers every transaction since
// init. A run without -n empties the history first, as pgbench does, so a
// history that disagrees with balances which agree with each other is
// reported as not checkable, not as a failure.
func (w *TPCB) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := workload.RequireTables(ctx, env, conn, "tpcb", Tables...); err != nil {
		return nil, err
	}
	var sums [4]int64
	for i, q := range []string{
		"SELECT sum(abalance) FROM pgbench_accounts",
		"SELECT sum(tbalance) FROM pgbench_tellers",
		"SELECT sum(bbalance) FROM pgbench_branches",
		"SELECT sum(delta) FROM pgbench_history",
	} {
		if sums[i], err = db.QueryInt64(ctx, conn, q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	detail := fmt.Sprintf("sum(abalance)=%d sum(tbalance)=%d sum(bbalance)=%d sum(delta)=%d", sums[0], sums[1], sums[2], sums[3])
	balancesAgree := sums[0] == sums[1] && sums[1] == sums[2]
	history := workload.CheckResult{Name: "accounts = history", Pass: sums[0] == sums[3], Detail: detail}
	if !history.Pass && balancesAgree {
		history.Skipped = true
		history.Detail = detail + " (pgbench_history does not go back to init: a run without -n empties it first, as pgbench does)"
	}
	return []workload.CheckResult{
		{Name: "accounts = tellers", Pass: sums[0] == sums[1], Detail: detail},
		{Name: "tellers = branches", Pass: sums[1] == sums[2], Detail: detail},
		history,
	}, nil
}

// Dataset implements workload.Describer: the scale as loaded.
func (w *TPCB) Dataset(context.Context, *workload.Env, db.Conn) (map[string]any, []string, error) {
	return map[string]any{"scale": w.scale, "pre_run": w.preRun}, Tables, nil
}
