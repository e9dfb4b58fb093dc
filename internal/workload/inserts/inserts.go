// Package inserts is the concurrent singleton-insert experiment: N clients
// each insert rows as fast as they can into one table, and the key design
// (--key), the rows per commit (--batch) and the rows per statement
// (--rows-per-statement) tell how concurrent inserts are limited.
//
// The key strategy is chosen at init and recorded in the table inserts_meta,
// together with the rows of the prefill and the rows each run committed, so
// that `run` uses the table's strategy and `check` can compare the table's
// row count with what the runs reported.
package inserts

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.Register("inserts", func() workload.Generator { return New() })
}

// Key strategies.
const (
	KeySerial       = "serial"
	KeyUUIDRandom   = "uuid-random"
	KeyUUIDOrdered  = "uuid-ordered"
	KeyPartitioned  = "partitioned"
	KeyRandomBigint = "random-bigint"
	// Keys the server makes as the column's default, where the engine has
	// them (Caps.UUIDDefaultRandom, UUIDDefaultSequential): SQL Server's
	// NEWID() and NEWSEQUENTIALID().
	KeyNewID           = "newid"
	KeyNewSequentialID = "newsequentialid"
)

// Keys lists the key strategies in the order the matrix prints them.
var Keys = []string{KeySerial, KeyUUIDRandom, KeyUUIDOrdered, KeyPartitioned, KeyRandomBigint, KeyNewID, KeyNewSequentialID}

// serverDefault is the default expression that makes the keys of a
// server-made key strategy on an engine, "" where the engine has none, and
// whether the strategy is one (the server, not the client, makes the key).
func serverDefault(caps db.Caps, key string) (expr string, server bool) {
	switch key {
	case KeyNewID:
		return caps.UUIDDefaultRandom, true
	case KeyNewSequentialID:
		return caps.UUIDDefaultSequential, true
	}
	return "", false
}

// serverMade reports whether the server makes the keys of strategy key
// (serial's identity, NEWID(), NEWSEQUENTIALID()): the client then
// inserts c4's default value, 1, and no key.
func serverMade(key string) bool {
	_, server := serverDefault(db.Caps{}, key)
	return server || key == KeySerial
}

// CheckKey refuses a server-made key strategy on an engine that cannot
// make such keys, in one sentence.
func CheckKey(caps db.Caps, kind db.Kind, key string) error {
	if expr, server := serverDefault(caps, key); server && expr == "" {
		return fmt.Errorf("--key %s needs a server that makes the key itself (SQL Server's %s); %s has no such default", key,
			map[string]string{KeyNewID: "NEWID()", KeyNewSequentialID: "NEWSEQUENTIALID()"}[key], kind)
	}
	return nil
}

// Table names.
const (
	Table     = "inserts"
	MetaTable = "inserts_meta"
)

// Limits of the flags.
const (
	defaultPad     = 111
	maxPad         = 8000
	maxBatch       = 100_000
	maxRowsPerStmt = 1000
	prefillBatch   = 16_000 // a multiple of v7KeysPerMs
	v7KeysPerMs    = 16
)

// PrefillOffset splits each partitioned client's range in two: a client's
// own counter runs below it, prefill keys lie at or above it, so the two
// never collide.
const PrefillOffset = datagen.PartitionStride / 2

// Inserts is the workload and its flags.
type Inserts struct {
	// init
	Key     string
	Pad     int
	Prefill int64
	// run
	Batch         int
	RowsPerStmt   int
	RowsPerClient int64
	// DelayedDurability commits each batch with the engine's delayed
	// commit (db.DelayedCommitter), which Setup reads into commit.
	DelayedDurability bool

	key    string // the table's strategy, read by Setup
	caps   db.Caps
	commit string // the statement that commits a batch

	rows, commits atomic.Int64 // committed by this run, all phases
	walStart      int64
	walOK         bool
}

// New returns the workload with its defaults.
func New() *Inserts { return &Inserts{Pad: defaultPad, Batch: 1, RowsPerStmt: 1} }

// Name implements workload.Generator.
func (*Inserts) Name() string { return "inserts" }

// Description implements workload.Generator.
func (*Inserts) Description() string {
	return "concurrent singleton inserts: key strategy x rows per commit x rows per statement"
}

// Flags implements workload.Generator.
func (w *Inserts) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	switch cmd {
	case workload.CmdInit:
		fs.StringVar(&w.Key, "key", KeySerial, "key strategy: "+strings.Join(Keys, ", "))
		fs.IntVar(&w.Pad, "pad", defaultPad, "width of column c3, char(BYTES) (4100 puts one row on an 8 KB page)")
		fs.Int64Var(&w.Prefill, "prefill", 0, "rows with random keys to load first, then reset the server's counters")
	case workload.CmdRun:
		fs.StringVar(&w.Key, "key", "", "key strategy; must match the one the table was created with (default: the table's)")
		fs.IntVar(&w.Batch, "batch", 1, "rows per commit (1 = singleton inserts)")
		fs.IntVar(&w.RowsPerStmt, "rows-per-statement", 1, "rows per INSERT statement (multi-row VALUES); at most --batch")
		fs.Int64Var(&w.RowsPerClient, "rows-per-client", 0, "fixed work: rows each client inserts (a multiple of --batch), instead of --duration")
		fs.BoolVar(&w.DelayedDurability, "delayed-durability", false, "commit each batch WITH (DELAYED_DURABILITY = ON) (SQL Server, the database's DELAYED_DURABILITY ALLOWED or FORCED)")
	}
}

func validKey(k string) bool {
	for _, s := range Keys {
		if s == k {
			return true
		}
	}
	return false
}

// Init implements workload.Initer.
func (w *Inserts) Init(ctx context.Context, env *workload.Env) error {
	if err := CheckKey(env.DB.Caps(), env.DB.Target().Kind, w.Key); err != nil {
		return err
	}
	caps, conn, err := workload.BeginInit(ctx, env, w)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := workload.Recreate(ctx, conn, []string{Table, MetaTable}, CreateStatements(caps, w.Key, w.Pad)); err != nil {
		return err
	}
	if w.Prefill > 0 {
		if err := workload.Load(ctx, env, []workload.Table{w.prefillTable(caps, env.Seed, time.Now())}); err != nil {
			return err
		}
		if workload.Analyzes(caps) {
			env.Progress.Phase(caps.AnalyzeName)
			if err := workload.AnalyzeTables(ctx, env, Table); err != nil {
				return fmt.Errorf("analyze %s: %w", Table, err)
			}
		}
	}
	if caps.ResetStats != "" {
		// Where allowed: a user without the privilege keeps the counters.
		_ = conn.Exec(ctx, caps.ResetStats)
	}
	return record(ctx, conn, 0, "init", w.Key, w.Pad, w.Prefill)
}

// CreateStatements is the DDL of the two tables for a key strategy and a
// width of c3. Column c3 gets char(pad), or varchar(pad) where the engine's
// char is shorter, with a default of 'a' padded to the full width, so every
// engine stores pad bytes per row (SQLite would otherwise store one).
func CreateStatements(caps db.Caps, key string, pad int) []string {
	var c1 string
	cluster := caps.ClusterOnKey
	switch key {
	case KeySerial:
		c1, cluster = caps.IdentityKey, ""
	case KeyUUIDRandom, KeyUUIDOrdered:
		c1 = caps.UUIDType + " NOT NULL PRIMARY KEY"
	case KeyNewID, KeyNewSequentialID:
		expr, _ := serverDefault(caps, key)
		c1 = caps.UUIDType + " NOT NULL DEFAULT " + expr + " PRIMARY KEY"
	default:
		c1 = "bigint NOT NULL PRIMARY KEY"
	}
	c3 := fmt.Sprintf("char(%d)", pad)
	if caps.MaxCharLength > 0 && pad > caps.MaxCharLength {
		c3 = fmt.Sprintf("varchar(%d)", pad)
	}
	def := "'a" + strings.Repeat(" ", pad-1) + "'"
	stmts := []string{
		fmt.Sprintf("CREATE TABLE %s (c1 %s, c2 %s DEFAULT %s, c3 %s DEFAULT %s, c4 int DEFAULT 1, c5 int DEFAULT 2, c6 bigint DEFAULT 42)%s%s",
			Table, c1, caps.TimestampType, caps.CurrentTimestamp, c3, def, cluster, caps.TableOptions),
	}
	if caps.PlainStorage != "" {
		stmts = append(stmts, fmt.Sprintf(caps.PlainStorage, Table, "c3"))
	}
	stmts = append(stmts, "CREATE TABLE "+MetaTable+" (seq int NOT NULL PRIMARY KEY, event varchar(10) NOT NULL, key_strategy varchar(20) NOT NULL, pad int NOT NULL, rows_committed bigint NOT NULL)"+caps.TableOptions)
	return stmts
}

// prefillTable is the prefill as deterministic batches: keys drawn the way
// the strategy draws them (identity for serial; random v4 UUIDs; v7 UUIDs
// whose timestamps end before now; random bigints; for partitioned, random
// keys in the upper half of random clients' ranges, see PrefillOffset).
func (w *Inserts) prefillTable(caps db.Caps, seed uint64, now time.Time) workload.Table {
	total, key := w.Prefill, w.Key
	cols := []string{"c1"}
	if serverMade(key) {
		cols = []string{"c4"}
	}
	// v7 prefill: v7KeysPerMs keys per millisecond, ending a second before
	// now so that the run's keys sort after them.
	v7Start := now.UnixMilli() - total/v7KeysPerMs - 1000
	return workload.Table{Name: Table, Columns: cols, Rows: total, Batches: int((total + prefillBatch - 1) / prefillBatch),
		Batch: func(i int, dst [][]any) [][]any {
			rng := rand.New(rand.NewPCG(seed, 0x1e5e+uint64(i)))
			lo := int64(i) * prefillBatch
			hi := min(lo+prefillBatch, total)
			var v4 *datagen.UUIDv4Gen
			var v7 *datagen.UUIDv7Gen
			var rb *datagen.RandomBigintGen
			j := lo
			switch key {
			case KeyUUIDRandom:
				v4 = datagen.NewUUIDv4(rng)
			case KeyUUIDOrdered:
				v7 = datagen.NewUUIDv7(rng, func() time.Time { return time.UnixMilli(v7Start + j/v7KeysPerMs) })
			case KeyRandomBigint:
				rb = datagen.NewRandomBigint(rng)
			}
			for ; j < hi; j++ {
				var v any
				switch {
				case serverMade(key):
					v = int32(1)
				case key == KeyUUIDRandom:
					v = caps.UUIDArg(v4.Next())
				case key == KeyUUIDOrdered:
					v = caps.UUIDArg(v7.Next())
				case key == KeyPartitioned:
					slot := rng.Int64N(datagen.MaxPartitionClient + 1)
					v = slot*datagen.PartitionStride + PrefillOffset + rng.Int64N(datagen.PartitionStride-PrefillOffset)
				case key == KeyRandomBigint:
					v = rb.Next()
				}
				dst = append(dst, []any{v})
			}
			return dst
		}}
}

// record adds a line to inserts_meta.
func record(ctx context.Context, conn db.Conn, seq int64, event, key string, pad int, rows int64) error {
	rs, err := conn.Query(ctx, "INSERT INTO "+MetaTable+" (seq, event, key_strategy, pad, rows_committed) VALUES ($1, $2, $3, $4, $5)",
		seq, event, key, pad, rows)
	if err != nil {
		return fmt.Errorf("record the %s in %s: %w", event, MetaTable, err)
	}
	rs.Close()
	return rs.Err()
}

// Validate implements workload.Validator: --key, --pad and --prefill for
// init; --key, --batch, --rows-per-statement and --rows-per-client for run.
func (w *Inserts) Validate(cmd workload.Command) error {
	switch cmd {
	case workload.CmdInit:
		return w.validateInit()
	case workload.CmdRun:
		return w.validate()
	}
	return nil
}

// badKey is the error for a --key that names no strategy.
func badKey(k string) error {
	return fmt.Errorf("--key %q is not a key strategy; use one of %s", k, strings.Join(Keys, ", "))
}

// validateInit checks the init flags.
func (w *Inserts) validateInit() error {
	switch {
	case !validKey(w.Key):
		return badKey(w.Key)
	case w.Pad < 1 || w.Pad > maxPad:
		return fmt.Errorf("--pad %d is out of range; use 1 to %d bytes", w.Pad, maxPad)
	case w.Prefill < 0:
		return fmt.Errorf("--prefill %d is negative", w.Prefill)
	}
	return nil
}

// validate checks the run flags.
func (w *Inserts) validate() error {
	switch {
	case w.Key != "" && !validKey(w.Key):
		return badKey(w.Key)
	case w.Batch < 1 || w.Batch > maxBatch:
		return fmt.Errorf("--batch %d is out of range; use 1 to %d rows per commit", w.Batch, maxBatch)
	case w.RowsPerStmt < 1 || w.RowsPerStmt > maxRowsPerStmt:
		return fmt.Errorf("--rows-per-statement %d is out of range; use 1 to %d", w.RowsPerStmt, maxRowsPerStmt)
	case w.RowsPerStmt > w.Batch:
		return fmt.Errorf("--rows-per-statement %d is more than --batch %d; a statement cannot span commits", w.RowsPerStmt, w.Batch)
	case w.RowsPerClient < 0:
		return fmt.Errorf("--rows-per-client %d is negative", w.RowsPerClient)
	case w.RowsPerClient%int64(w.Batch) != 0:
		return fmt.Errorf("--rows-per-client %d is not a multiple of --batch %d", w.RowsPerClient, w.Batch)
	}
	return nil
}

// FixedWork implements workload.FixedWorker: --rows-per-client R is R/batch
// transactions (commits) per client.
func (w *Inserts) FixedWork() (int64, string, error) {
	if err := w.validate(); err != nil {
		return 0, "", err
	}
	return w.RowsPerClient / int64(w.Batch), "--rows-per-client", nil
}

// Setup implements workload.Runner: it refuses a --delayed-durability the
// target cannot honour, reads the table's key strategy and refuses a --key
// that differs.
func (w *Inserts) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := w.validate(); err != nil {
		return err
	}
	var err error
	if w.commit, err = w.commitStatement(ctx, env, conn); err != nil {
		return err
	}
	if err := workload.RequireTables(ctx, env, conn, "inserts", Table, MetaTable); err != nil {
		return err
	}
	key, err := db.QueryString(ctx, conn, "SELECT key_strategy FROM "+MetaTable+" WHERE event = 'init'")
	if err != nil {
		return fmt.Errorf("read the key strategy from %s: %w", MetaTable, err)
	}
	if !validKey(key) {
		return fmt.Errorf("%s records no key strategy; run `dbharness init inserts` again", MetaTable)
	}
	if w.Key != "" && w.Key != key {
		return fmt.Errorf("the inserts table was created with --key %s, not %s; run without --key, or `dbharness init inserts --key %s` first", key, w.Key, w.Key)
	}
	if err := CheckKey(env.DB.Caps(), env.DB.Target().Kind, key); err != nil {
		return err
	}
	w.key, w.caps = key, env.DB.Caps()
	w.rows.Store(0)
	w.commits.Store(0)
	return nil
}

// commitStatement is the statement that commits a batch: COMMIT, or with
// --delayed-durability the engine's delayed commit, refused in one
// sentence (workload.Refused) where the engine or the database has none.
func (w *Inserts) commitStatement(ctx context.Context, env *workload.Env, conn db.Conn) (string, error) {
	if !w.DelayedDurability {
		return "COMMIT", nil
	}
	dc, ok := env.DB.(db.DelayedCommitter)
	if !ok {
		return "", &workload.Refused{Msg: fmt.Sprintf("--delayed-durability is SQL Server's COMMIT ... WITH (DELAYED_DURABILITY = ON), which the %s engine does not have (PostgreSQL's like is --set synchronous_commit=off)",
			env.DB.Target().Kind)}
	}
	commit, err := dc.DelayedCommit(ctx, conn)
	if err != nil {
		return "", &workload.Refused{Msg: "--delayed-durability: " + err.Error()}
	}
	return commit, nil
}

// Ops implements workload.Runner: one transaction is one commit of --batch
// rows.
func (w *Inserts) Ops() []string { return []string{"insert"} }

// MixName implements workload.Mixer: the key strategy and the rows per
// commit.
func (w *Inserts) MixName() string {
	key := w.key
	if key == "" {
		key = w.Key
	}
	if w.DelayedDurability {
		return fmt.Sprintf("%s, batch %d, delayed durability", key, w.Batch)
	}
	return fmt.Sprintf("%s, batch %d", key, w.Batch)
}

// insertSQL is the INSERT of n rows, one parameter per row: the key, or c4
// (its default value, 1) for keys the server makes.
func insertSQL(key string, n int) string {
	col := "c1"
	if serverMade(key) {
		col = "c4"
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + Table + " (" + col + ") VALUES ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "($%d)", i)
	}
	return b.String()
}

// NewWorker implements workload.Runner.
func (w *Inserts) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{w: w, conn: conn, args: make([]any, w.RowsPerStmt)}
	switch w.key {
	case KeyUUIDRandom:
		g := datagen.NewUUIDv4(nil)
		wk.key = func() any { return w.caps.UUIDArg(g.Next()) }
	case KeyUUIDOrdered:
		g := datagen.NewUUIDv7(nil, nil)
		wk.key = func() any { return w.caps.UUIDArg(g.Next()) }
	case KeyRandomBigint:
		g := datagen.NewRandomBigint(nil)
		wk.key = func() any { return g.Next() }
	case KeyPartitioned:
		g, err := partitionedGen(ctx, conn, int64(id))
		if err != nil {
			return nil, err
		}
		wk.key = func() any { return g.Next() }
		wk.limit = int64(id)*datagen.PartitionStride + PrefillOffset
	default:
		one := int32(1)
		wk.key = func() any { return one }
	}
	var err error
	if wk.full, err = conn.Prepare(ctx, insertSQL(w.key, w.RowsPerStmt)); err != nil {
		return nil, fmt.Errorf("prepare the insert: %w", err)
	}
	if r := w.Batch % w.RowsPerStmt; r > 0 {
		if wk.rest, err = conn.Prepare(ctx, insertSQL(w.key, r)); err != nil {
			return nil, fmt.Errorf("prepare the insert: %w", err)
		}
	}
	return wk, nil
}

// partitionedGen returns client id's generator, carrying on after the
// largest key of the client's own counter already in the table, so runs
// (and reconnects) never repeat a key.
func partitionedGen(ctx context.Context, conn db.Conn, id int64) (*datagen.PartitionedGen, error) {
	if id > datagen.MaxPartitionClient {
		return nil, fmt.Errorf("partitioned keys allow at most %d clients", int64(datagen.MaxPartitionClient)+1)
	}
	base := id * datagen.PartitionStride
	last, err := db.QueryInt64(ctx, conn, "SELECT max(c1) FROM "+Table+" WHERE c1 > $1 AND c1 < $2", base, base+PrefillOffset)
	if err != nil {
		return nil, fmt.Errorf("read client %d's last key: %w", id+1, err)
	}
	return datagen.NewPartitionedAfter(id, last)
}

type worker struct {
	w          *Inserts
	conn       db.Conn
	full, rest db.Stmt
	key        func() any
	args       []any
	limit      int64 // partitioned: the client's counter must stay below
}

func (wk *worker) Next() int { return 0 }

// Do inserts one batch. A batch that one statement holds runs in autocommit
// (the statement is the commit: one round trip); a larger one, or any with
// --delayed-durability (whose commit is a statement of its own), runs
// between BEGIN and the commit, one statement per --rows-per-statement
// rows.
func (wk *worker) Do(ctx context.Context, _ int) error {
	w := wk.w
	if w.Batch == w.RowsPerStmt && !w.DelayedDurability {
		if err := wk.exec(ctx, wk.full, w.RowsPerStmt); err != nil {
			return err
		}
	} else {
		if err := wk.conn.Exec(ctx, w.caps.BeginWrite); err != nil {
			return err
		}
		if err := wk.body(ctx); err != nil {
			if wk.conn.Alive() {
				_ = wk.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			}
			return err
		}
		if err := wk.conn.Exec(ctx, w.commit); err != nil {
			return err
		}
	}
	w.rows.Add(int64(w.Batch))
	w.commits.Add(1)
	return nil
}

func (wk *worker) body(ctx context.Context) error {
	n := wk.w.Batch
	for n >= wk.w.RowsPerStmt {
		if err := wk.exec(ctx, wk.full, wk.w.RowsPerStmt); err != nil {
			return err
		}
		n -= wk.w.RowsPerStmt
	}
	if n > 0 {
		return wk.exec(ctx, wk.rest, n)
	}
	return nil
}

func (wk *worker) exec(ctx context.Context, st db.Stmt, n int) error {
	args := wk.args[:n]
	for i := range args {
		args[i] = wk.key()
	}
	if wk.limit > 0 && args[n-1].(int64) >= wk.limit {
		return fmt.Errorf("partitioned keys: the client's range below %d is used up", wk.limit)
	}
	got, err := st.Exec(ctx, args...)
	if err != nil {
		return err
	}
	if got != int64(n) {
		return fmt.Errorf("an insert of %d rows reported %d", n, got)
	}
	return nil
}

// BeforeRun implements workload.RunHooks: it notes the server's WAL position.
func (w *Inserts) BeforeRun(ctx context.Context, env *workload.Env, conn db.Conn) error {
	w.walOK = false
	if q := env.DB.Caps().WALBytes; q != "" {
		v, err := db.QueryInt64(ctx, conn, q)
		if err != nil {
			return fmt.Errorf("read the WAL position: %w", err)
		}
		w.walStart, w.walOK = v, true
	}
	return nil
}

// AfterRun implements workload.RunHooks: it records the rows the run
// committed (warm-up included) in inserts_meta for `check`, and returns
// rows/s and commits/s of the measured phase, the fixed-work times, and on
// engines that expose it the WAL bytes per row and per commit (of the whole
// run: the WAL counter is the server's, so other sessions' writes count too).
func (w *Inserts) AfterRun(ctx context.Context, env *workload.Env, conn db.Conn, t workload.Totals) (map[string]float64, error) {
	rows, commits := w.rows.Load(), w.commits.Load()
	m := map[string]float64{"rows_committed": float64(rows)}
	if t.Seconds > 0 {
		c := float64(t.Commits["insert"])
		m["commits_per_s"] = c / t.Seconds
		m["rows_per_s"] = c * float64(w.Batch) / t.Seconds
	}
	if w.RowsPerClient > 0 && len(t.ClientSeconds) > 0 {
		lo, hi := t.ClientSeconds[0], t.ClientSeconds[0]
		for _, v := range t.ClientSeconds {
			lo, hi = min(lo, v), max(hi, v)
		}
		m["elapsed_s"], m["client_spread_s"] = hi, hi-lo
	}
	if w.walOK {
		v, err := db.QueryInt64(ctx, conn, env.DB.Caps().WALBytes)
		if err != nil {
			return m, fmt.Errorf("read the WAL position: %w", err)
		}
		wal := float64(v - w.walStart)
		m["wal_bytes"] = wal
		if rows > 0 {
			m["wal_bytes_per_row"] = wal / float64(rows)
			m["wal_bytes_per_commit"] = wal / float64(commits)
		}
	}
	seq, err := db.QueryInt64(ctx, conn, "SELECT max(seq) FROM "+MetaTable)
	if err != nil {
		return m, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	pad, err := db.QueryInt64(ctx, conn, "SELECT pad FROM "+MetaTable+" WHERE event = 'init'")
	if err != nil {
		return m, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	return m, record(ctx, conn, seq+1, "run", w.key, int(pad), rows)
}

// Check implements workload.Checker: the table holds exactly the rows of
// the prefill plus those every run reported committed, and no key twice.
func (w *Inserts) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := workload.RequireTables(ctx, env, conn, "inserts", Table, MetaTable); err != nil {
		return nil, err
	}
	count, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM "+Table)
	if err != nil {
		return nil, err
	}
	reported, err := db.QueryInt64(ctx, conn, "SELECT sum(rows_committed) FROM "+MetaTable)
	if err != nil {
		return nil, err
	}
	runs, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM "+MetaTable+" WHERE event = 'run'")
	if err != nil {
		return nil, err
	}
	distinct, err := db.QueryInt64(ctx, conn, "SELECT count(DISTINCT c1) FROM "+Table)
	if err != nil {
		return nil, err
	}
	nulls, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM "+Table+" WHERE c1 IS NULL")
	if err != nil {
		return nil, err
	}
	return []workload.CheckResult{
		{Name: "rows = reported committed", Pass: count == reported,
			Detail: fmt.Sprintf("%d rows in %s; prefill and %d runs reported %d committed", count, Table, runs, reported)},
		{Name: "keys unique", Pass: distinct == count && nulls == 0,
			Detail: fmt.Sprintf("%d distinct keys, %d null, %d rows", distinct, nulls, count)},
	}, nil
}

// Dataset implements workload.Describer: the key strategy, row width and
// prefill that init recorded, and the rows in the table as the run starts.
func (w *Inserts) Dataset(ctx context.Context, _ *workload.Env, conn db.Conn) (map[string]any, []string, error) {
	pad, err := db.QueryInt64(ctx, conn, "SELECT pad FROM "+MetaTable+" WHERE event = 'init'")
	if err != nil {
		return nil, nil, err
	}
	prefill, err := db.QueryInt64(ctx, conn, "SELECT rows_committed FROM "+MetaTable+" WHERE event = 'init'")
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM "+Table)
	if err != nil {
		return nil, nil, err
	}
	return map[string]any{"key": w.key, "pad": pad, "prefill": prefill, "rows_at_start": rows}, []string{Table}, nil
}
