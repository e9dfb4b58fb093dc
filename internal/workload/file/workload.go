// Package file is the workload defined by a YAML file: tables with typed
// columns whose values come from generators (cardinality, skew, row width,
// NULLs), relationships with a children-per-parent distribution, and
// weighted transactions of parameterized SQL. See docs/workload-file.md.
package file

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/wlfile"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.RegisterFileLoader(".yaml", Open)
	workload.RegisterFileLoader(".yml", Open)
}

// MetaTable records the scale and seed each file workload was loaded with.
const MetaTable = "dbharness_meta"

// Workload is a workload file and its flags.
type Workload struct {
	Path  string
	Scale int64
	data  []byte
	spec  *wlfile.Spec

	// Run state.
	seed     uint64
	dataSeed uint64 // the seed the data was loaded with
	caps     db.Caps
	picker   *datagen.Weighted
	mix      []*wlfile.Txn
}

// Open reads and checks a workload file; the returned error names the file,
// line and column of the first mistake.
func Open(path string) (workload.Generator, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("workload file %s does not exist", path)
		}
		return nil, fmt.Errorf("read workload file: %w", err)
	}
	spec, err := wlfile.Parse(path, data, 1)
	if err != nil {
		return nil, err
	}
	return &Workload{Path: path, Scale: 1, data: data, spec: spec}, nil
}

// Spec returns the file parsed at the current scale.
func (w *Workload) Spec() (*wlfile.Spec, error) { return wlfile.Parse(w.Path, w.data, w.Scale) }

// Name implements workload.Generator: the path, so that the same file is
// found again.
func (w *Workload) Name() string { return w.Path }

// Key names the workload in the meta table: the file's name: field, else
// its base name.
func (w *Workload) Key() string {
	if w.spec.Name != "" {
		return w.spec.Name
	}
	return strings.TrimSuffix(filepath.Base(w.Path), filepath.Ext(w.Path))
}

// Description implements workload.Generator.
func (w *Workload) Description() string {
	return fmt.Sprintf("workload file %s: %d tables, %d transactions", w.Path, len(w.spec.Tables), len(w.spec.Transactions))
}

// Flags implements workload.Generator.
func (w *Workload) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	switch cmd {
	case workload.CmdInit:
		fs.Int64VarP(&w.Scale, "scale", "s", 1, "value of scale in the file's row counts")
	case workload.CmdRun:
		fs.Int64VarP(&w.Scale, "scale", "s", 0, "value of scale in the file's expressions (default: the scale it was loaded with)")
	}
}

// Validate implements workload.Validator: --scale, at least 1 for init, not
// negative for run (where 0 means the scale the data was loaded with).
func (w *Workload) Validate(cmd workload.Command) error {
	switch {
	case cmd == workload.CmdInit && w.Scale < 1:
		return fmt.Errorf("--scale %d is invalid; it must be at least 1", w.Scale)
	case cmd == workload.CmdRun && w.Scale < 0:
		return fmt.Errorf("--scale %d is negative; give at least 1, or leave it out for the scale the data was loaded with", w.Scale)
	}
	return nil
}

// Tables returns the file's table names.
func (w *Workload) Tables() []string {
	var out []string
	for _, t := range w.spec.Tables {
		out = append(out, t.Name)
	}
	return out
}

// Init implements workload.Initer: drop, create, load in parallel, keys,
// indexes, statistics.
func (w *Workload) Init(ctx context.Context, env *workload.Env) error {
	if err := w.Validate(workload.CmdInit); err != nil {
		return err
	}
	spec, err := w.Spec()
	if err != nil {
		return err
	}
	w.spec = spec
	caps := env.DB.Caps()
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Children are dropped before their parents.
	drop := make([]string, 0, len(spec.Tables))
	create := make([]string, 0, len(spec.Tables))
	for i := range spec.Tables {
		drop = append(drop, spec.Tables[len(spec.Tables)-1-i].Name)
		create = append(create, CreateTable(spec.Tables[i], caps))
	}
	if err := workload.Recreate(ctx, conn, drop, create); err != nil {
		return err
	}
	tables, err := LoadTables(spec, env.Seed)
	if err != nil {
		return err
	}
	if err := workload.Load(ctx, env, tables); err != nil {
		return err
	}
	for _, t := range spec.Tables {
		if caps.KeysAfterLoad && len(t.PrimaryKey) > 0 {
			env.Progress.Phase("primary key " + t.Name)
			if err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)", t.Name, strings.Join(t.PrimaryKey, ", "))); err != nil {
				return fmt.Errorf("primary key of %s: %w", t.Name, err)
			}
		}
		for _, ix := range t.Indexes {
			env.Progress.Phase("index " + ix.Name)
			u := ""
			if ix.Unique {
				u = "UNIQUE "
			}
			if err := conn.Exec(ctx, fmt.Sprintf("CREATE %sINDEX %s ON %s (%s)", u, ix.Name, t.Name, strings.Join(ix.Columns, ", "))); err != nil {
				return fmt.Errorf("index %s on %s: %w", ix.Name, t.Name, err)
			}
		}
	}
	if workload.Analyzes(caps) {
		env.Progress.Phase(caps.AnalyzeName)
		var names []string
		for _, t := range spec.Tables {
			names = append(names, t.Name)
		}
		if err := workload.AnalyzeTables(ctx, env, names...); err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
	}
	return w.saveMeta(ctx, env, conn)
}

func (w *Workload) saveMeta(ctx context.Context, env *workload.Env, conn db.Conn) error {
	ok, err := env.DB.TableExists(ctx, conn, MetaTable)
	if err != nil {
		return err
	}
	if !ok {
		if err := conn.Exec(ctx, "CREATE TABLE "+MetaTable+" (workload varchar(200) primary key, scale bigint, seed bigint)"+env.DB.Caps().TableOptions); err != nil {
			return fmt.Errorf("create %s: %w", MetaTable, err)
		}
	}
	del, err := conn.Prepare(ctx, "DELETE FROM "+MetaTable+" WHERE workload = $1")
	if err != nil {
		return err
	}
	if _, err := del.Exec(ctx, w.Key()); err != nil {
		return err
	}
	ins, err := conn.Prepare(ctx, "INSERT INTO "+MetaTable+" (workload, scale, seed) VALUES ($1, $2, $3)")
	if err != nil {
		return err
	}
	_, err = ins.Exec(ctx, w.Key(), w.Scale, int64(env.Seed))
	return err
}

// loadedScale reads the scale the workload was loaded with; 0 if unknown.
func (w *Workload) loadedScale(ctx context.Context, d db.DB, conn db.Conn) (int64, error) {
	s, _, err := w.loaded(ctx, d, conn)
	return s, err
}

// loaded reads the scale and seed the workload was loaded with; zeros if
// unknown.
func (w *Workload) loaded(ctx context.Context, d db.DB, conn db.Conn) (scale int64, seed uint64, err error) {
	ok, err := d.TableExists(ctx, conn, MetaTable)
	if err != nil || !ok {
		return 0, 0, err
	}
	st, err := conn.Prepare(ctx, "SELECT scale, seed FROM "+MetaTable+" WHERE workload = $1")
	if err != nil {
		return 0, 0, err
	}
	var sd int64
	if err := st.QueryRow(ctx, []any{&scale, &sd}, w.Key()); err != nil {
		if err == db.ErrNoRows {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	return scale, uint64(sd), nil
}

// CreateTable is the table's DDL on an engine; on heap-table engines the
// primary key comes after loading.
func CreateTable(t *wlfile.Table, caps db.Caps) string {
	// Workload files write UUIDs as text; where the engine has no native
	// uuid type they go in a char(36) column, as applications store them.
	uuidType := caps.UUIDType
	if !caps.NativeUUID {
		uuidType = "char(36)"
	}
	types := wlfile.Types{Float: caps.FloatType, Timestamp: caps.TimestampType, UUID: uuidType}
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, c.Name+" "+c.SQLType(types))
	}
	if !caps.KeysAfterLoad && len(t.PrimaryKey) > 0 {
		cols = append(cols, "PRIMARY KEY ("+strings.Join(t.PrimaryKey, ", ")+")")
	}
	return "CREATE TABLE " + t.Name + " (" + strings.Join(cols, ", ") + ")" + caps.TableOptions
}

// LoadTables turns the spec into the loader's tables: numbered batches,
// each a pure function of the seed and the batch number.
func LoadTables(spec *wlfile.Spec, seed uint64) ([]workload.Table, error) {
	rows, err := wlfile.Rows(spec, seed)
	if err != nil {
		return nil, err
	}
	out := make([]workload.Table, len(rows))
	for i, r := range rows {
		out[i] = workload.Table{Name: r.Table.Name, Columns: r.Columns, Rows: r.Rows, Batches: r.Batches, Batch: r.Batch}
	}
	return out, nil
}

// Setup implements workload.Runner.
func (w *Workload) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if len(w.spec.Transactions) == 0 {
		return fmt.Errorf("workload file %s has no transactions: to run", w.Path)
	}
	if err := workload.RequireTables(ctx, env, conn, w.Path, w.Tables()...); err != nil {
		return err
	}
	s, dataSeed, err := w.loaded(ctx, env.DB, conn)
	if err != nil {
		return fmt.Errorf("read the scale from %s: %w", MetaTable, err)
	}
	if w.Scale <= 0 {
		w.Scale = max(s, 1)
	}
	if s == 0 {
		dataSeed = 1 // init's default
	}
	w.dataSeed = dataSeed
	spec, err := w.Spec()
	if err != nil {
		return err
	}
	w.spec, w.seed, w.caps = spec, env.Seed, env.DB.Caps()
	if err := w.continueSequences(ctx, conn); err != nil {
		return err
	}
	weights := make([]float64, len(spec.Transactions))
	for i, x := range spec.Transactions {
		weights[i] = x.Weight
	}
	if w.picker, err = datagen.NewWeighted(weights); err != nil {
		return fmt.Errorf("workload file %s: transaction weights: %w", w.Path, err)
	}
	w.mix = spec.Transactions
	return nil
}

// continueSequences starts each sequence parameter with after:
// TABLE.COLUMN after the largest value the column holds, so that a run
// inserts after the keys an earlier run inserted.
func (w *Workload) continueSequences(ctx context.Context, conn db.Conn) error {
	params := w.spec.Params
	for _, x := range w.spec.Transactions {
		params = append(params[:len(params):len(params)], x.Params...)
	}
	for _, p := range params {
		a := p.Gen.After
		if a == nil {
			continue
		}
		q := fmt.Sprintf("SELECT count(*), coalesce(max(%s), 0) FROM %s", a.Column, a.Table)
		st, err := conn.Prepare(ctx, q)
		if err != nil {
			return fmt.Errorf("parameter %s: %s: %w", p.Name, q, err)
		}
		var n, largest int64
		if err := st.QueryRow(ctx, []any{&n, &largest}); err != nil {
			return fmt.Errorf("parameter %s: %s: %w", p.Name, q, err)
		}
		if n > 0 {
			p.Gen.ContinueAfter(largest)
		}
	}
	return nil
}

// Ops implements workload.Runner.
func (w *Workload) Ops() []string {
	var out []string
	for _, x := range w.spec.Transactions {
		out = append(out, x.Name)
	}
	return out
}

// NewWorker implements workload.Runner.
func (w *Workload) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{w: w, conn: conn, gc: wlfile.NewDrawer(w.dataSeed), rng: datagen.NewRand(w.seed, 1<<40, uint64(id)),
		vars: map[string]any{}, stmts: make([][]db.Stmt, len(w.mix))}
	for i, x := range w.mix {
		for _, s := range x.Statements {
			st, err := conn.Prepare(ctx, s.Text)
			if err != nil {
				return nil, fmt.Errorf("%s: prepare %q (line %d): %w", x.Name, s.SQL, s.Line, err)
			}
			wk.stmts[i] = append(wk.stmts[i], st)
		}
	}
	return wk, nil
}

type worker struct {
	w      *Workload
	conn   db.Conn
	gc     *wlfile.Drawer
	rng    *rand.Rand
	vars   map[string]any
	params map[string]any
	stmts  [][]db.Stmt
	args   []any
	// noRow[i] is true when statement i of the running transaction
	// returned columns but no row.
	noRow []bool
}

// ThinkTime implements workload.Thinker: the transaction's think time,
// which the driver waits after it (not measured).
func (k *worker) ThinkTime(op int) time.Duration { return k.w.mix[op].Think }

// Next picks a transaction and draws its parameters.
func (k *worker) Next() int {
	op := k.w.picker.Index(k.rng)
	x := k.w.mix[op]
	k.params = map[string]any{}
	for _, p := range k.w.spec.Params {
		k.params[p.Name] = k.gc.Draw(p.Gen, k.rng)
	}
	for _, p := range x.Params {
		k.params[p.Name] = k.gc.Draw(p.Gen, k.rng)
	}
	return op
}

func (k *worker) Do(ctx context.Context, op int) error {
	x := k.w.mix[op]
	defer k.done(x)
	clear(k.vars)
	for n, v := range k.params {
		k.vars[n] = v
	}
	begin := k.w.caps.BeginWrite
	if x.ReadOnly {
		begin = k.w.caps.BeginRead
	}
	if err := k.conn.Exec(ctx, begin); err != nil {
		return err
	}
	if err := k.body(ctx, op, x); err != nil {
		if k.conn.Alive() {
			_ = k.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return err
	}
	return k.conn.Exec(ctx, "COMMIT")
}

// done tells the generators that the transaction that drew the
// parameters has ended, so that a latest parameter may draw the values of
// a sequence it follows.
func (k *worker) done(x *wlfile.Txn) {
	for _, p := range x.Params {
		k.gc.Done(p.Gen, k.params[p.Name])
	}
shared:
	for _, p := range k.w.spec.Params {
		for _, q := range x.Params {
			if q.Name == p.Name { // the transaction's own drew the value
				continue shared
			}
		}
		k.gc.Done(p.Gen, k.params[p.Name])
	}
}

func (k *worker) body(ctx context.Context, op int, x *wlfile.Txn) error {
	if cap(k.noRow) < len(x.Statements) {
		k.noRow = make([]bool, len(x.Statements))
	}
	k.noRow = k.noRow[:len(x.Statements)]
	clear(k.noRow)
	for si, s := range x.Statements {
		k.args = k.args[:0]
		for _, a := range s.Args {
			v, ok := k.vars[a]
			if !ok {
				v, ok = k.vars[strings.ToLower(a)]
			}
			if !ok {
				return k.missing(x, si, a)
			}
			k.args = append(k.args, v)
		}
		rows, err := k.stmts[op][si].Query(ctx, k.args...)
		if err != nil {
			return err
		}
		cols := rows.Columns()
		switch {
		case len(cols) == 0:
		case !rows.Next():
			k.noRow[si] = true
		default:
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return err
			}
			for i, c := range cols {
				k.vars[strings.ToLower(c)] = vals[i]
				k.vars[c] = vals[i]
			}
			for rows.Next() {
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// missing is the error for parameter :name of statement si, which no
// earlier statement returned: the latest earlier statement that would have
// returned it but found no row, if there is one, is named.
func (k *worker) missing(x *wlfile.Txn, si int, name string) error {
	for j := si - 1; j >= 0; j-- {
		if k.noRow[j] && x.Statements[j].MayReturn(name) {
			return fmt.Errorf("%s: statement %d returned no row, so :%s has no value in statement %d", x.Name, j+1, name, si+1)
		}
	}
	return fmt.Errorf("%s: statement %d: parameter :%s was not returned by an earlier statement", x.Name, si+1, name)
}

// Check implements workload.Checker: every child row's parent exists.
func (w *Workload) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := workload.RequireTables(ctx, env, conn, w.Path, w.Tables()...); err != nil {
		return nil, err
	}
	var res []workload.CheckResult
	for _, t := range w.spec.Tables {
		if t.Parent == nil {
			continue
		}
		q := fmt.Sprintf("SELECT count(*) FROM %s c WHERE c.%s IS NOT NULL AND NOT EXISTS (SELECT 1 FROM %s p WHERE p.%s = c.%s)",
			t.Name, t.Parent.Column, t.Parent.Table.Name, t.Parent.References, t.Parent.Column)
		n, err := db.QueryInt64(ctx, conn, q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		res = append(res, workload.CheckResult{Name: fmt.Sprintf("%s.%s -> %s.%s", t.Name, t.Parent.Column, t.Parent.Table.Name, t.Parent.References),
			Pass: n == 0, Detail: fmt.Sprintf("%d rows without a parent", n)})
	}
	if len(res) == 0 {
		res = append(res, workload.CheckResult{Name: "tables exist", Pass: true, Detail: strings.Join(w.Tables(), ", ")})
	}
	return res, nil
}

// Dataset implements workload.Describer: the scale and seed the data was
// loaded with.
func (w *Workload) Dataset(context.Context, *workload.Env, db.Conn) (map[string]any, []string, error) {
	return map[string]any{"scale": w.Scale, "seed": w.dataSeed}, w.Tables(), nil
}
