// Package tpcb is pgbench's TPC-B-like workload, with pgbench's tables,
// columns, types and fillers, so that pgbench and dbharness can run on each
// other's databases.
package tpcb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.Register("tpcb", func() workload.Generator { return &TPCB{Scale: 1, Mix: MixTPCB} })
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
	Mix   string

	scale int64 // read from the database by Setup
	seed  uint64
	caps  db.Caps
}

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
		fs.StringVar(&w.Mix, "mix", MixTPCB, "transaction script: tpcb-like, simple-update or select-only (pgbench -b)")
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
		switch w.Mix {
		case MixTPCB, MixSimpleUpdate, MixSelectOnly:
		default:
			return fmt.Errorf("--mix %q is not a tpcb mix; use tpcb-like, simple-update or select-only", w.Mix)
		}
	}
	return nil
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
	if caps.Analyze != "" {
		steps = append(steps, caps.AnalyzeName)
	}
	if caps.KeysAfterLoad {
		steps = append(steps, "keys")
	}
	if len(groups) > 0 {
		env.Progress.Phase(strings.Join(steps, " and "))
	}
	return workload.ExecParallel(ctx, env, groups)
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
	return nil
}

// Ops implements workload.Runner: one transaction type, named after the mix.
func (w *TPCB) Ops() []string { return []string{strings.ReplaceAll(w.Mix, "-", "_")} }

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
	if w.Mix == MixSelectOnly {
		return []workload.Statement{sel}
	}
	out := []workload.Statement{
		{Name: "update_account", SQL: sqlUpdAccount, Params: []workload.ParamDomain{delta, aid}},
		sel,
	}
	if w.Mix == MixTPCB {
		out = append(out,
			workload.Statement{Name: "update_teller", SQL: sqlUpdTeller, Params: []workload.ParamDomain{delta, tid}},
			workload.Statement{Name: "update_branch", SQL: sqlUpdBranch, Params: []workload.ParamDomain{delta, bid}})
	}
	return append(out, workload.Statement{Name: "insert_history", SQL: sqlInsHistory,
		Params: []workload.ParamDomain{tid, bid, aid, delta}})
}

// NewWorker implements workload.Runner.
func (w *TPCB) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{conn: conn, mix: w.Mix, scale: w.scale, begin: w.caps.BeginWrite,
		rng: rand.New(rand.NewPCG(w.seed, uint64(id)))}
	wk.dest = []any{&wk.abalance}
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
	if w.Mix != MixSelectOnly {
		wk.updAccount = prep(sqlUpdAccount)
		wk.insHistory = prep(sqlInsHistory)
	}
	if w.Mix == MixTPCB {
		wk.updTeller = prep(sqlUpdTeller)
		wk.updBranch = prep(sqlUpdBranch)
	}
	if err != nil {
		return nil, fmt.Errorf("prepare tpcb statements: %w", err)
	}
	return wk, nil
}

type worker struct {
	conn                                         db.Conn
	mix                                          string
	begin                                        string
	scale                                        int64
	rng                                          *rand.Rand
	updAccount, selAccount, updTeller, updBranch db.Stmt
	insHistory                                   db.Stmt
	aid, bid, tid, delta                         int64
	abalance                                     int64
	dest                                         []any
}

// Next draws the parameters as pgbench's scripts do:
// aid in 1..100000*scale, bid in 1..scale, tid in 1..10*scale, delta in
// -5000..5000.
func (w *worker) Next() int {
	w.aid = 1 + w.rng.Int64N(accountsPerScale*w.scale)
	w.bid = 1 + w.rng.Int64N(branchesPerScale*w.scale)
	w.tid = 1 + w.rng.Int64N(tellersPerScale*w.scale)
	w.delta = w.rng.Int64N(10001) - 5000
	return 0
}

func (w *worker) Do(ctx context.Context, _ int) error {
	if w.mix == MixSelectOnly {
		return w.selAccount.QueryRow(ctx, w.dest, w.aid)
	}
	if err := w.conn.Exec(ctx, w.begin); err != nil {
		return err
	}
	if err := w.body(ctx); err != nil {
		if w.conn.Alive() {
			_ = w.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return err
	}
	return w.conn.Exec(ctx, "COMMIT")
}

func (w *worker) body(ctx context.Context) error {
	if _, err := w.updAccount.Exec(ctx, w.delta, w.aid); err != nil {
		return err
	}
	if err := w.selAccount.QueryRow(ctx, w.dest, w.aid); err != nil {
		return err
	}
	if w.mix == MixTPCB {
		if _, err := w.updTeller.Exec(ctx, w.delta, w.tid); err != nil {
			return err
		}
		if _, err := w.updBranch.Exec(ctx, w.delta, w.bid); err != nil {
			return err
		}
	}
	_, err := w.insHistory.Exec(ctx, w.tid, w.bid, w.aid, w.delta)
	return err
}

// Check implements workload.Checker: the TPC-B invariant, that the sums of
// account, teller and branch balances and of history deltas are equal.
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
	return []workload.CheckResult{
		{Name: "accounts = history", Pass: sums[0] == sums[3], Detail: detail},
		{Name: "tellers = history", Pass: sums[1] == sums[3], Detail: detail},
		{Name: "branches = history", Pass: sums[2] == sums[3], Detail: detail},
	}, nil
}

// Dataset implements workload.Describer: the scale as loaded.
func (w *TPCB) Dataset(context.Context, *workload.Env, db.Conn) (map[string]any, []string, error) {
	return map[string]any{"scale": w.scale}, Tables, nil
}
