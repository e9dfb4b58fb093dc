package script

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

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

// maxParams is the most variables pgbench lets an SQL command have under
// -M extended and -M prepared (MAX_ARGS - 1).
const maxParams = 255

// Workload runs pgbench scripts.
type Workload struct {
	Scripts []string // FILE[@WEIGHT]
	// Builtins are --builtin (-b): pgbench's built-in scripts,
	// NAME[@WEIGHT].
	Builtins []string
	// NoVacuum is --no-vacuum (-n).
	NoVacuum  bool
	Defines   []string // NAME=VALUE
	Scale     string
	QueryMode string // simple, extended or prepared (pgbench -M)
	// Stderr receives what debug() shows, as pgbench prints it; nil is
	// os.Stderr.
	Stderr io.Writer

	debugMu sync.Mutex

	parsed []*Script
	picker *datagen.Weighted
	seed   uint64
	scale  int64
	// scaleFrom says where :scale came from, for the summary.
	scaleFrom string
	// preRun is what the run did first (workload.PgbenchPreRun), with a
	// built-in script; empty otherwise.
	preRun  string
	defines map[string]string
	// slots numbers every variable the scripts, -D and pgbench's built-ins
	// name, and slotNames names them: a client keeps these in a slice.
	// A variable no script names (a column of \gset from SELECT *) is
	// kept by name.
	slots     map[string]int
	slotNames []string
	// sqls counts the SQL commands of the run's scripts.
	sqls int
	// leftOut are the commands the last Statements left out, and why.
	leftOut []string
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
	fs.StringArrayVarP(&w.Builtins, "builtin", "b", nil, "pgbench's built-in script NAME[@WEIGHT] (tpcb-like, simple-update, select-only) in the mix beside the --script files, as pgbench -b")
	fs.BoolVarP(&w.NoVacuum, "no-vacuum", "n", false, "with a --builtin script: skip what the run does first, as pgbench's -n (VACUUM pgbench_branches and pgbench_tellers on PostgreSQL, and empty pgbench_history)")
	fs.StringArrayVarP(&w.Defines, "define", "D", nil, "set a script variable NAME=VALUE (pgbench -D)")
	fs.StringVarP(&w.Scale, "scale", "s", "", "value of :scale: a number, or auto (the default) for the row count of pgbench_branches when that table is there and not empty, else 1")
	fs.StringVarP(&w.QueryMode, "query-mode", "M", ModeSimple, "how SQL commands are sent, as pgbench -M: simple (values written into the text), extended (an unnamed statement with parameters each time) or prepared (prepared once per connection)")
}

// Load parses the scripts; it is called by Setup and may be called earlier
// to report mistakes before connecting.
func (w *Workload) Load() error {
	if len(w.Scripts) == 0 && len(w.Builtins) == 0 {
		return fmt.Errorf("give at least one --script FILE[@WEIGHT] (or --builtin NAME[@WEIGHT])")
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
	weights := make([]float64, 0, len(w.Scripts)+len(w.Builtins))
	type source struct {
		path, base, text string
		weight           float64
	}
	var sources []source
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
		sources = append(sources, source{path, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), string(src), weight})
	}
	for _, spec := range w.Builtins {
		name, weight, err := workload.ParseWeighted("--builtin", spec)
		if err != nil {
			return err
		}
		text, ok := builtinScripts[name]
		if !ok {
			return fmt.Errorf("--builtin %q is not a built-in script; use tpcb-like, simple-update or select-only", name)
		}
		sources = append(sources, source{"builtin:" + name, name, text, weight})
	}
	for _, src := range sources {
		path, weight, base := src.path, src.weight, src.base
		s, err := Parse(path, src.text)
		if err != nil {
			return err
		}
		names[base]++
		if names[base] > 1 {
			base = fmt.Sprintf("%s_%d", base, names[base])
		}
		s.Name, s.Weight = base, weight
		n := 0
		for _, c := range s.Commands {
			if c.kind == cSQL {
				c.stmt = n
				n++
			}
		}
		w.parsed = append(w.parsed, s)
		weights = append(weights, weight)
	}
	if err := checkVariables(w.parsed, w.defines); err != nil {
		return err
	}
	w.number()
	if w.QueryMode != ModeSimple {
		for _, s := range w.parsed {
			for _, c := range s.Commands {
				if len(c.vars) > maxParams {
					u := c.uses[maxParams]
					return &ParseError{File: s.File, Line: u.at.line, Col: u.at.col, Msg: fmt.Sprintf(
						"the command has %d variables; pgbench -M %s allows at most %d per SQL command", len(c.vars), w.QueryMode, maxParams)}
				}
			}
		}
	}
	p, err := datagen.NewWeighted(weights)
	if err != nil {
		return fmt.Errorf("--script weights: %w", err)
	}
	w.picker = p
	w.scale, w.scaleFrom = 1, "the default: no pgbench_branches to count; -s N sets it"
	if w.Scale != "" && w.Scale != "auto" {
		n, err := strconv.ParseInt(w.Scale, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("--scale %q is invalid; give a positive number, or auto to count pgbench_branches", w.Scale)
		}
		w.scale, w.scaleFrom = n, "--scale"
	}
	return nil
}

// Setup implements workload.Runner. Unless --scale gives a number, :scale
// is the row count of pgbench_branches when that table is there and not
// empty (pgbench reads it so for its built-in scripts, and dbharness for
// every script), else 1. With a built-in script, the run first does what
// pgbench does (workload.PgbenchPreRun) unless --no-vacuum.
func (w *Workload) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := w.Load(); err != nil {
		return err
	}
	w.seed = env.Seed
	if w.Scale == "" || w.Scale == "auto" {
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
				w.scale, w.scaleFrom = n, "count(*) of pgbench_branches"
			} else {
				w.scaleFrom = "the default: pgbench_branches is empty; -s N sets it"
			}
		}
	}
	w.preRun = ""
	if len(w.Builtins) > 0 {
		if err := workload.RequireTables(ctx, env, conn, "tpcb", "pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"); err != nil {
			return err
		}
		w.preRun = workload.PreRunSkipped
		if !w.NoVacuum {
			var err error
			if w.preRun, err = workload.PgbenchPreRun(ctx, env, conn); err != nil {
				return err
			}
		}
	}
	return nil
}

// number gives each variable a slot and each SQL command an id, and binds
// the expressions to the slots.
func (w *Workload) number() {
	w.slots, w.slotNames, w.sqls = map[string]int{}, nil, 0
	add := func(n string) int {
		if n == "" {
			return -1
		}
		if i, ok := w.slots[n]; ok {
			return i
		}
		w.slots[n] = len(w.slotNames)
		w.slotNames = append(w.slotNames, n)
		return w.slots[n]
	}
	for _, n := range builtins {
		add(n)
	}
	for n := range w.defines {
		add(n)
	}
	for n := range assigned(w.parsed).fetched {
		add(n)
	}
	for _, s := range w.parsed {
		for _, c := range s.Commands {
			c.slot, c.sleepSlot = add(c.name), add(c.sleepVar)
			for _, u := range c.uses {
				add(u.name)
			}
			c.varSlots = c.varSlots[:0]
			for _, n := range c.vars {
				c.varSlots = append(c.varSlots, add(n))
			}
			for i := range c.pieces {
				c.pieces[i].slot = add(c.pieces[i].name)
			}
			if c.expr != nil {
				c.expr.Bind(add)
			}
			if c.kind == cSQL {
				c.id = w.sqls
				w.sqls++
			}
		}
	}
}

// ScaleUsed is the value :scale has in the run.
func (w *Workload) ScaleUsed() int64 { return w.scale }

// MixName implements workload.Mixer: the scripts' file names, with their
// weights where given ("select.sql@9, update.sql@1").
func (w *Workload) MixName() string {
	names := make([]string, len(w.Scripts))
	for i, spec := range w.Scripts {
		path, _, err := ParseSpec(spec)
		if err != nil {
			path = spec
		}
		names[i] = filepath.Base(path) + strings.TrimPrefix(spec, path)
	}
	return strings.Join(names, ", ")
}

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
		vars: make([]variable, len(w.slotNames)), cache: map[pgbexpr.DistKey]datagen.IntDist{},
		stmts: make([]db.Stmt, w.sqls)}
	for n, v := range w.defines {
		k.put(n, textVariable(v))
	}
	if _, ok := k.get("scale"); !ok {
		k.put("scale", variable{val: pgbexpr.IntValue(w.scale)})
	}
	k.put("client_id", variable{val: pgbexpr.IntValue(int64(id))})
	k.put("random_seed", variable{val: pgbexpr.IntValue(int64(w.seed))})
	if _, ok := k.get("default_seed"); !ok {
		k.put("default_seed", variable{val: pgbexpr.IntValue(w.defaultSeed())})
	}
	if err := w.prepare(ctx, k); err != nil {
		return nil, err
	}
	return k, nil
}

// prepare prepares the client's statements on its connection under
// --query-mode prepared: every SQL command, BEGIN and END too, as pgbench
// does. A command without variables that the server will not prepare (a
// compound one, or a statement MySQL's protocol does not take) is sent
// as text instead.
func (w *Workload) prepare(ctx context.Context, k *client) error {
	for _, s := range w.parsed {
		for _, c := range s.Commands {
			if c.kind != cSQL || w.QueryMode != ModePrepared {
				continue
			}
			st, err := k.conn.Prepare(ctx, c.sql)
			if err != nil && c.noParams && k.conn.Alive() {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: prepare: %w", c.where(s), err)
			}
			k.stmts[c.id] = st
		}
	}
	return nil
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
	// set: the variable has a value (a client's slots start unset).
	set bool
	// boxed is arg's value, made by its first call: a variable bound to
	// several parameters (tpcb-like's :aid and :delta) is boxed once, not
	// once a statement. Every assignment replaces the whole variable.
	boxed any
}

// textVariable is a variable given as text (-D, \gset): in expressions
// it reads as pgbench reads it (NULL, a boolean, an integer, a double).
func textVariable(s string) variable {
	val, ok := pgbexpr.FromString(s)
	return variable{val: val, text: s, hasText: true, isText: !ok}
}

// arg is the variable as a statement parameter: a number or a boolean as
// itself, text (and the text "null") as text, as pgbench sends it.
func (v *variable) arg() any {
	if v.boxed != nil {
		return v.boxed
	}
	if v.isText || v.hasText && v.val.Kind == pgbexpr.Null {
		v.boxed = v.text
	} else {
		v.boxed = v.val.Any()
	}
	return v.boxed
}

// sqlText is the variable as pgbench writes it into SQL: the text it was
// given, else its value in pgbench's format.
func (v *variable) sqlText() string {
	if v.hasText {
		return v.text
	}
	return v.val.String()
}

// appendSQL appends sqlText to b; an integer is written without a string
// of its own.
func (v *variable) appendSQL(b []byte) []byte {
	if !v.hasText && v.val.Kind == pgbexpr.Int {
		return strconv.AppendInt(b, v.val.I, 10)
	}
	return append(b, v.sqlText()...)
}

type client struct {
	w    *Workload
	conn db.Conn
	rng  *rand.Rand
	// vars are the variables by slot (Workload.number); more are those
	// outside the slots, by name.
	vars  []variable
	more  map[string]variable
	cache map[pgbexpr.DistKey]datagen.IntDist
	// stmts are the prepared statements by Command.id.
	stmts []db.Stmt
	args  []any
	buf   []byte
	// argStack holds function arguments while expressions are evaluated.
	argStack []pgbexpr.Value
	// op and pc are the script (its index in the run) and the command
	// running, for debug().
	op, pc int
	// clock times the SQL commands under -r; nil otherwise.
	clock workload.StatementClock
}

// TimeStatements implements workload.TimedWorker.
func (k *client) TimeStatements(clock workload.StatementClock) { k.clock = clock }

// StatementNames implements workload.StatementTimer: each script's SQL
// commands, as SCRIPT:LINE and the command's text on one line (cut at 60
// characters).
func (w *Workload) StatementNames() [][]string {
	out := make([][]string, len(w.parsed))
	for i, s := range w.parsed {
		for _, c := range s.Commands {
			if c.kind == cSQL {
				out[i] = append(out[i], fmt.Sprintf("%s:%d %s", s.Name, c.at.line, oneLineCut(c.orig, 60)))
			}
		}
	}
	return out
}

// oneLineCut is s with its runs of white space made one space, cut to n
// characters with an ellipsis.
func oneLineCut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Rebind implements workload.Rebinder: the client goes on on conn with its
// variables and random stream, its statements prepared again under
// --query-mode prepared (as pgbench -C re-prepares on each connection).
func (w *Workload) Rebind(ctx context.Context, wk workload.Worker, conn db.Conn) error {
	k := wk.(*client)
	k.conn = conn
	clear(k.stmts)
	return w.prepare(ctx, k)
}

// get reads a variable by name.
func (k *client) get(name string) (variable, bool) {
	if i, ok := k.w.slots[name]; ok {
		return k.vars[i], k.vars[i].set
	}
	v, ok := k.more[name]
	return v, ok
}

// put sets a variable by name.
func (k *client) put(name string, v variable) {
	v.set = true
	if i, ok := k.w.slots[name]; ok {
		k.vars[i] = v
		return
	}
	if k.more == nil {
		k.more = map[string]variable{}
	}
	k.more[name] = v
}

// Debug implements pgbexpr.Debugger: pgbench's line on stderr, with the
// script's index among the run's scripts and the command's number in it
// (from 1).
func (k *client) Debug(v pgbexpr.Value) {
	out := k.w.Stderr
	if out == nil {
		out = os.Stderr
	}
	line := fmt.Sprintf("debug(script=%d,command=%d): %s\n", k.op, k.pc+1, v.Debug())
	k.w.debugMu.Lock()
	defer k.w.debugMu.Unlock()
	_, _ = io.WriteString(out, line)
}

// Var implements pgbexpr.Env.
func (k *client) Var(name string) (pgbexpr.Value, bool, error) {
	v, ok := k.get(name)
	return v.expr(name, ok)
}

// VarSlot implements pgbexpr.Slotter.
func (k *client) VarSlot(slot int) (pgbexpr.Value, bool, error) {
	v := k.vars[slot]
	return v.expr(k.w.slotNames[slot], v.set)
}

// expr is the variable's value in an expression; ok says it is set.
func (v variable) expr(name string, ok bool) (pgbexpr.Value, bool, error) {
	if !ok {
		return pgbexpr.Value{}, false, nil
	}
	if v.isText {
		return pgbexpr.Value{}, true, fmt.Errorf("malformed variable %q value: %q (not a number, a boolean or null)", name, v.text)
	}
	return v.val, true, nil
}
func (k *client) Rand() *rand.Rand { return k.rng }

// ArgStack implements pgbexpr.ArgStacker: the client's calls reuse one
// stack for their arguments.
func (k *client) ArgStack() *[]pgbexpr.Value { return &k.argStack }

func (k *client) Cache() map[pgbexpr.DistKey]datagen.IntDist { return k.cache }

// Next picks a script by weight; with one script it draws nothing, as
// pgbench's chooseScript.
func (k *client) Next() int {
	if len(k.w.parsed) == 1 {
		return 0
	}
	return k.w.picker.Index(k.rng)
}

// Do runs one script from the top, as pgbench counts one transaction per
// script run. An error rolls back an open transaction.
func (k *client) Do(ctx context.Context, op int) error {
	s := k.w.parsed[op]
	k.op = op
	err := k.run(ctx, s)
	if err == nil {
		// As pgbench, a script must end every transaction it begins.
		if t, ok := k.conn.(db.TxStatuser); ok && t.InTx() {
			err = fmt.Errorf("%s: end of script reached without completing the last transaction (BEGIN without END or COMMIT); it is rolled back", s.Name)
		}
	}
	if err != nil && k.conn.Alive() {
		_ = k.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	}
	return err
}

func (k *client) run(ctx context.Context, s *Script) error {
	entering := false
	for pc := 0; pc < len(s.Commands); {
		c := s.Commands[pc]
		k.pc = pc
		switch c.kind {
		case cSet:
			v, err := c.expr.Eval(k)
			if err != nil {
				return fmt.Errorf("%s: \\set %s: %w", c.where(s), c.name, err)
			}
			k.vars[c.slot] = variable{val: v, set: true}
			pc++
		case cSleep:
			n := c.sleepN
			if c.sleepVar != "" {
				v := &k.vars[c.sleepSlot]
				if !v.set {
					return fmt.Errorf("%s: \\sleep: undefined variable %q", c.where(s), c.sleepVar)
				}
				n = atoi(v.sqlText())
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
			if v.Truth() {
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
			var began time.Time
			if k.clock != nil {
				began = time.Now()
			}
			if err := k.sql(ctx, s, c); err != nil {
				// Name the command, keeping the error for its class.
				if !strings.HasPrefix(err.Error(), c.where(s)) {
					err = fmt.Errorf("%s: %w", c.where(s), err)
				}
				return err
			}
			if k.clock != nil {
				k.clock.Statement(k.op, c.stmt, time.Since(began))
			}
			pc++
		}
	}
	return nil
}

func (k *client) sql(ctx context.Context, s *Script, c *Command) error {
	if (c.gset || c.aset) && c.parts != nil && k.w.QueryMode == ModeSimple {
		// A compound command: as in pgbench, \gset takes the last
		// statement's row, \aset every statement's rows.
		if m, ok := k.conn.(db.Multi); ok {
			text, err := k.simpleText(s, c)
			if err != nil {
				return err
			}
			all, err := m.QueryEach(ctx, text)
			if err != nil {
				return err
			}
			if c.gset && len(all) > 0 {
				all = all[len(all)-1:]
			}
			for _, rows := range all {
				if c.aset && rows.Columns() == nil {
					continue
				}
				if err := k.fetch(s, c, rows); err != nil {
					return err
				}
			}
			return nil
		}
	}
	rows, err := k.send(ctx, s, c)
	if err != nil || rows == nil {
		return err
	}
	return k.fetch(s, c, rows)
}

// fetch reads rows and sets the variables of \gset or \aset; the rows of
// other commands are read and dropped.
func (k *client) fetch(s *Script, c *Command, rows db.Rows) error {
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
			name := c.prefix + col
			if _, ok := k.get(name); !ok && !validVar(name) {
				return fmt.Errorf("%s: the column %q cannot set a variable: %q is not a valid variable name; name the column with AS", c.where(s), col, name)
			}
			k.put(name, toVariable(vals[i]))
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
		if !wantRows && len(c.pieces) > 1 {
			if _, ok := k.conn.(db.TextBorrower); ok {
				// The text lives in k.buf only while Exec runs.
				b, err := k.simpleBytes(s, c)
				if err != nil {
					return nil, err
				}
				return nil, k.conn.Exec(ctx, unsafe.String(unsafe.SliceData(b), len(b)))
			}
		}
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
	for i, slot := range c.varSlots {
		v := &k.vars[slot]
		if !v.set {
			return nil, fmt.Errorf("%s: undefined variable :%s", c.where(s), c.vars[i])
		}
		k.args = append(k.args, v.arg())
	}
	st := k.stmts[c.id] // nil but in prepared mode
	switch {
	case k.w.QueryMode == ModeExtended:
		return db.QueryOnce(ctx, k.conn, db.Unnamed, c.sql, k.args...)
	case st == nil && !wantRows:
		return nil, k.conn.Exec(ctx, c.sql)
	case st == nil:
		return k.conn.Query(ctx, c.sql)
	case !wantRows:
		_, err := st.Exec(ctx, k.args...)
		return nil, err
	}
	return st.Query(ctx, k.args...)
}

// simpleText writes the variables' text into the command, as pgbench -M
// simple does.
func (k *client) simpleText(s *Script, c *Command) (string, error) {
	if len(c.pieces) == 1 {
		return c.pieces[0].text, nil
	}
	b, err := k.simpleBytes(s, c)
	return string(b), err
}

// simpleBytes writes the command's text, variables included, into k.buf
// and returns it; the next command's text overwrites it.
func (k *client) simpleBytes(s *Script, c *Command) ([]byte, error) {
	b := k.buf[:0]
	for _, p := range c.pieces {
		b = append(b, p.text...)
		if p.name == "" {
			continue
		}
		v := &k.vars[p.slot]
		switch {
		case v.set:
			b = v.appendSQL(b)
		case p.required:
			return nil, fmt.Errorf("%s: undefined variable :%s", c.where(s), p.name)
		default:
			b = append(append(b, ':'), p.name...)
		}
	}
	k.buf = b
	return b, nil
}

func toVariable(x any) variable {
	switch v := x.(type) {
	case string:
		return textVariable(v)
	case []byte:
		return textVariable(string(v))
	}
	if val, ok := pgbexpr.FromAny(x); ok {
		return variable{val: val}
	}
	return textVariable(fmt.Sprint(x))
}

// atoi reads the integer at the start of s as C's atoi does (pgbench's
// \sleep :var): blanks, a sign, digits; 0 when there is none.
func atoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	return n
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
	params := map[string]any{"scale": w.scale, "scale_from": w.scaleFrom}
	if w.preRun != "" {
		params["pre_run"] = w.preRun
	}
	return params, tables, nil
}
