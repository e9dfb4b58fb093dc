package script

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/pgbexpr"
	"github.com/dbharness/dbharness/internal/workload"
)

// Name is the workload's name: `dbharness run --script FILE` uses it
// implicitly.
const Name = "script"

// The query modes of --query-mode, pgbench's -M.
const (
	ModeSimple   = "simple"
	ModeExtended = "extended"
	ModePrepared = "prepared"
)

func init() {
	workload.Register(Name, func() workload.Generator { return &Workload{} })
}

// Workload runs pgbench scripts.
type Workload struct {
	Scripts   []string // FILE[@WEIGHT]
	Defines   []string // NAME=VALUE
	Scale     string
	QueryMode string // simple, extended or prepared (pgbench -M)

	parsed  []*Script
	picker  *datagen.Weighted
	seed    uint64
	scale   int64
	defines map[string]string
}

// Name implements workload.Generator.
func (*Workload) Name() string { return Name }

// Description implements workload.Generator.
func (*Workload) Description() string {
	return "pgbench custom scripts: run --script FILE[@WEIGHT] ... (\\set with pgbench's expressions, \\sleep, \\gset, \\if)"
}

// Flags implements workload.Generator.
func (w *Workload) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	if cmd != workload.CmdRun {
		return
	}
	fs.StringArrayVarP(&w.Scripts, "script", "f", nil, "pgbench script FILE[@WEIGHT]; repeat for a weighted mix (pgbench -f)")
	fs.StringArrayVarP(&w.Defines, "define", "D", nil, "set a script variable NAME=VALUE (pgbench -D)")
	fs.StringVarP(&w.Scale, "scale", "s", "", "value of :scale: a number, or auto for the row count of pgbench_branches (default 1, as pgbench with -f)")
	fs.StringVarP(&w.QueryMode, "query-mode", "M", ModeSimple, "how SQL commands are sent, as pgbench -M: simple (values written into the text), extended (an unnamed statement with parameters each time) or prepared (prepared once per connection)")
}

// Load parses the scripts; it is called by Setup and may be called earlier
// to report mistakes before connecting.
func (w *Workload) Load() error {
	if len(w.Scripts) == 0 {
		return fmt.Errorf("give at least one --script FILE[@WEIGHT]")
	}
	switch w.QueryMode {
	case "":
		w.QueryMode = ModeSimple
	case ModeSimple, ModeExtended, ModePrepared:
	default:
		return fmt.Errorf("--query-mode %q is not a query mode; use simple, extended or prepared (as pgbench -M)", w.QueryMode)
	}
	w.defines = map[string]string{}
	for _, d := range w.Defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || !validVar(k) {
			return fmt.Errorf("--define %q: write NAME=VALUE", d)
		}
		w.defines[k] = v
	}
	w.parsed = nil
	names := map[string]int{}
	weights := make([]float64, 0, len(w.Scripts))
	for _, spec := range w.Scripts {
		path, weight, err := ParseSpec(spec)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			if os.IsNotExist(err) {
				return fmt.Errorf("--script %s: no such file", path)
			}
			return fmt.Errorf("--script %s: %w", path, err)
		}
		s, err := Parse(path, string(src))
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		names[base]++
		if names[base] > 1 {
			base = fmt.Sprintf("%s_%d", base, names[base])
		}
		s.Name, s.Weight = base, weight
		w.parsed = append(w.parsed, s)
		weights = append(weights, weight)
	}
	if err := checkVariables(w.parsed, w.defines); err != nil {
		return err
	}
	p, err := datagen.NewWeighted(weights)
	if err != nil {
		return fmt.Errorf("--script weights: %w", err)
	}
	w.picker = p
	w.scale = 1
	if w.Scale != "" && w.Scale != "auto" {
		n, err := strconv.ParseInt(w.Scale, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("--scale %q is invalid; give a positive number, or auto to count pgbench_branches", w.Scale)
		}
		w.scale = n
	}
	return nil
}

// Setup implements workload.Runner. :scale is 1 unless --scale says
// otherwise, as with pgbench -f (pgbench reads pgbench_branches only for its
// built-in scripts); --scale auto counts pgbench_branches.
func (w *Workload) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := w.Load(); err != nil {
		return err
	}
	w.seed = env.Seed
	if w.Scale == "auto" {
		ok, err := env.DB.TableExists(ctx, conn, "pgbench_branches")
		if err != nil {
			return err
		}
		if ok {
			n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM pgbench_branches")
			if err != nil {
				return fmt.Errorf("read the scale from pgbench_branches: %w", err)
			}
			if n > 0 {
				w.scale = n
			}
		}
	}
	return nil
}

// ScaleUsed is the value :scale has in the run.
func (w *Workload) ScaleUsed() int64 { return w.scale }

// Ops implements workload.Runner: one transaction type per script.
func (w *Workload) Ops() []string {
	out := make([]string, len(w.parsed))
	for i, s := range w.parsed {
		out[i] = s.Name
	}
	return out
}

// NewWorker implements workload.Runner.
func (w *Workload) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	k := &client{w: w, conn: conn, rng: datagen.NewRand(w.seed, 1<<41, uint64(id)),
		vars: map[string]variable{}, cache: map[pgbexpr.DistKey]datagen.IntDist{},
		stmts: map[*Command]db.Stmt{}}
	for n, v := range w.defines {
		k.vars[n] = textVariable(v)
	}
	if _, ok := k.vars["scale"]; !ok {
		k.vars["scale"] = variable{val: pgbexpr.IntValue(w.scale)}
	}
	k.vars["client_id"] = variable{val: pgbexpr.IntValue(int64(id))}
	k.vars["random_seed"] = variable{val: pgbexpr.IntValue(int64(w.seed))}
	if _, ok := k.vars["default_seed"]; !ok {
		k.vars["default_seed"] = variable{val: pgbexpr.IntValue(w.defaultSeed())}
	}
	for _, s := range w.parsed {
		for _, c := range s.Commands {
			if c.kind != cSQL || c.noParams || w.QueryMode != ModePrepared {
				continue
			}
			st, err := conn.Prepare(ctx, c.sql)
			if err != nil {
				return nil, fmt.Errorf("%s: prepare: %w", c.where(s), err)
			}
			k.stmts[c] = st
		}
	}
	return k, nil
}

// defaultSeed is :default_seed, the seed of hash() and permute() without
// one: pgbench draws it from its random seed.
func (w *Workload) defaultSeed() int64 { return int64(datagen.NewRand(w.seed, 1<<42).Uint64()) }

// variable is a script variable: a value, and the text it was given as
// (-D, \gset), if any.
type variable struct {
	val     pgbexpr.Value
	text    string
	hasText bool
	// isText: the text is not a number, so expressions cannot use it.
	isText bool
}

// textVariable is a variable given as text: a number if it reads as one.
func textVariable(s string) variable {
	val := pgbexpr.FromString(s)
	return variable{val: val, text: s, hasText: true, isText: val.Kind == pgbexpr.Null}
}

// arg is the variable as a statement parameter.
func (v variable) arg() any {
	if v.isText {
		return v.text
	}
	return v.val.Any()
}

// sqlText is the variable as pgbench writes it into SQL: the text it was
// given, else its value in pgbench's format.
func (v variable) sqlText() string {
	if v.hasText {
		return v.text
	}
	return v.val.String()
}

type client struct {
	w     *Workload
	conn  db.Conn
	rng   *rand.Rand
	vars  map[string]variable
	cache map[pgbexpr.DistKey]datagen.IntDist
	stmts map[*Command]db.Stmt
	args  []any
	buf   []byte
	inTx  bool
}

func (k *client) Var(name string) (pgbexpr.Value, bool, error) {
	v, ok := k.vars[name]
	if !ok {
		return pgbexpr.Value{}, false, nil
	}
	if v.isText {
		return pgbexpr.Value{}, true, fmt.Errorf("variable %q holds text %q, not a number", name, v.text)
	}
	return v.val, true, nil
}
func (k *client) Rand() *rand.Rand                           { return k.rng }
func (k *client) Cache() map[pgbexpr.DistKey]datagen.IntDist { return k.cache }

// Next picks a script by weight.
func (k *client) Next() int { return k.w.picker.Index(k.rng) }

// Do runs one script from the top, as pgbench counts one transaction per
// script run. An error rolls back an open transaction.
func (k *client) Do(ctx context.Context, op int) error {
	s := k.w.parsed[op]
	if err := k.run(ctx, s); err != nil {
		if k.conn.Alive() {
			_ = k.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return err
	}
	return nil
}

func (k *client) run(ctx context.Context, s *Script) error {
	entering := false
	for pc := 0; pc < len(s.Commands); {
		c := s.Commands[pc]
		switch c.kind {
		case cSet:
			v, err := c.expr.Eval(k)
			if err != nil {
				return fmt.Errorf("%s: \\set %s: %w", c.where(s), c.name, err)
			}
			k.vars[c.name] = variable{val: v}
			pc++
		case cSleep:
			n := c.sleepN
			if c.sleepVar != "" {
				v, ok, err := k.Var(c.sleepVar)
				if err == nil && !ok {
					err = fmt.Errorf("undefined variable %q", c.sleepVar)
				}
				if err == nil {
					n, err = v.AsInt()
				}
				if err != nil {
					return fmt.Errorf("%s: \\sleep: %w", c.where(s), err)
				}
			}
			if d := time.Duration(n) * c.unit; d > 0 {
				// On the event-loop driver, ctx carries the client's task
				// and the sleep yields to the loop.
				if err := evloop.Sleep(ctx, d); err != nil {
					return err
				}
			}
			pc++
		case cIf, cElif:
			if c.kind == cElif && !entering {
				pc = c.end
				continue
			}
			entering = false
			v, err := c.expr.Eval(k)
			if err != nil {
				return fmt.Errorf("%s: condition: %w", c.where(s), err)
			}
			b := false
			if v.Kind != pgbexpr.Null {
				if b, err = v.AsBool(); err != nil {
					return fmt.Errorf("%s: condition: %w", c.where(s), err)
				}
			}
			if b {
				pc++
			} else {
				pc, entering = c.jump, true
			}
		case cElse:
			if !entering {
				pc = c.end
				continue
			}
			entering = false
			pc++
		case cEndif:
			entering = false
			pc++
		case cSQL:
			if err := k.sql(ctx, s, c); err != nil {
				return err
			}
			pc++
		}
	}
	return nil
}

func (k *client) sql(ctx context.Context, s *Script, c *Command) error {
	rows, err := k.send(ctx, s, c)
	if err != nil || rows == nil {
		return err
	}
	defer rows.Close()
	if !c.gset && !c.aset {
		for rows.Next() {
		}
		return rows.Err()
	}
	cols := rows.Columns()
	got := 0
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		got++
		for i, col := range cols {
			k.vars[c.prefix+col] = toVariable(vals[i])
		}
		if c.gset {
			if rows.Next() {
				return fmt.Errorf("%s: \\gset: the query returned more than one row", c.where(s))
			}
			break
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if c.gset && got == 0 {
		return fmt.Errorf("%s: \\gset: the query returned no row", c.where(s))
	}
	return nil
}

// send runs an SQL command in the run's query mode. It returns no rows
// for a command whose rows are not wanted, where the mode lets it skip
// them.
func (k *client) send(ctx context.Context, s *Script, c *Command) (db.Rows, error) {
	wantRows := c.gset || c.aset
	if k.w.QueryMode == ModeSimple {
		text, err := k.simpleText(s, c)
		if err != nil {
			return nil, err
		}
		if !wantRows {
			return nil, k.conn.Exec(ctx, text)
		}
		return db.QueryOnce(ctx, k.conn, db.Simple, text)
	}
	k.args = k.args[:0]
	for _, n := range c.vars {
		v, ok := k.vars[n]
		if !ok {
			return nil, fmt.Errorf("%s: undefined variable :%s", c.where(s), n)
		}
		k.args = append(k.args, v.arg())
	}
	switch {
	case k.w.QueryMode == ModeExtended:
		return db.QueryOnce(ctx, k.conn, db.Unnamed, c.sql, k.args...)
	case c.noParams && !wantRows:
		return nil, k.conn.Exec(ctx, c.sql)
	case c.noParams:
		return k.conn.Query(ctx, c.sql)
	case !wantRows:
		_, err := k.stmts[c].Exec(ctx, k.args...)
		return nil, err
	}
	return k.stmts[c].Query(ctx, k.args...)
}

// simpleText writes the variables' text into the command, as pgbench -M
// simple does.
func (k *client) simpleText(s *Script, c *Command) (string, error) {
	if len(c.pieces) == 1 {
		return c.pieces[0].text, nil
	}
	b := k.buf[:0]
	for _, p := range c.pieces {
		b = append(b, p.text...)
		if p.name == "" {
			continue
		}
		v, ok := k.vars[p.name]
		switch {
		case ok:
			b = append(b, v.sqlText()...)
		case p.required:
			return "", fmt.Errorf("%s: undefined variable :%s", c.where(s), p.name)
		default:
			b = append(append(b, ':'), p.name...)
		}
	}
	k.buf = b
	return string(b), nil
}

func toVariable(x any) variable {
	switch v := x.(type) {
	case string:
		return textVariable(v)
	case []byte:
		return toVariable(string(v))
	case nil:
		return variable{}
	}
	val := pgbexpr.FromAny(x)
	if val.Kind == pgbexpr.Null {
		return textVariable(fmt.Sprint(x))
	}
	return variable{val: val}
}

// Dataset implements workload.Describer: the :scale the scripts see, and
// pgbench's tables where they exist (scripts may use any table; these are
// the ones `init tpcb` makes).
func (w *Workload) Dataset(ctx context.Context, env *workload.Env, conn db.Conn) (map[string]any, []string, error) {
	var tables []string
	for _, t := range []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"} {
		ok, err := env.DB.TableExists(ctx, conn, t)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			tables = append(tables, t)
		}
	}
	return map[string]any{"scale": w.scale}, tables, nil
}
