// Package tpcc is TPC-C (TPC Benchmark C, standard specification revision
// 5.11), comparable with HammerDB's TPROC-C and go-tpc: the nine standard
// tables populated per clause 4.3, the five transactions of clause 2 in the
// mix of clause 5.2.3, run either as one call of a server-side routine each
// (server mode, HammerDB's way; routines.go) or statement by statement from
// the client (client mode; tx.go), NOPM/TPM/tpmC and HammerDB's own figures,
// a terminal mode with the keying and think times of clause 5.2.5, and the
// consistency conditions of clause 3.3.2. It also registers tpcc-ro, the
// read-only variant (Order-Status and Stock-Level only) on the same tables.
package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.Register("tpcc", func() workload.Generator { return &TPCC{Warehouses: 1, Affinity: true, Mode: ModeServer} })
	workload.Register("tpcc-ro", func() workload.Generator { return &TPCC{RO: true, Warehouses: 1, Affinity: true, Mode: ModeServer} })
}

// Transaction types, in the order of Ops for tpcc.
const (
	NewOrder = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
)

// opNames are the transaction names in results and JSON.
var opNames = [...]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// mix is the percentage of each transaction type in the deck (clause
// 5.2.3: at least 43% Payment and 4% each of Order-Status, Delivery and
// Stock-Level; New-Order takes the rest, 45%, as HammerDB and go-tpc do).
var mix = [5]int{NewOrder: 45, Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 4}

// keyingTime is the minimum keying time per transaction type (clause
// 5.2.5.7).
var keyingTime = [5]time.Duration{NewOrder: 18 * time.Second, Payment: 3 * time.Second,
	OrderStatus: 2 * time.Second, Delivery: 2 * time.Second, StockLevel: 2 * time.Second}

// thinkMean is the minimum mean think time per transaction type (clause
// 5.2.5.7); think times are negative exponential, truncated at ten times
// the mean (clause 5.2.5.4).
var thinkMean = [5]time.Duration{NewOrder: 12 * time.Second, Payment: 12 * time.Second,
	OrderStatus: 10 * time.Second, Delivery: 5 * time.Second, StockLevel: 5 * time.Second}

// terminalsPerWarehouse is the number of terminals per warehouse (clause
// 4.2.2); terminal t works for warehouse t/10 and district t%10 (clause
// 2.8.1.1 binds each terminal to one district).
const terminalsPerWarehouse = 10

// augmentedMaxItem bounds the extra read of tpcc-ro --augmented: the
// average price of the items with an id below it (WORKLOADS.md).
const augmentedMaxItem = 15_000

// TPCC is the tpcc (or, with RO, tpcc-ro) workload and its flags.
type TPCC struct {
	// RO selects tpcc-ro: Order-Status and Stock-Level only, 50/50.
	RO bool
	// Warehouses to load (init).
	Warehouses int
	// Affinity binds each client to a home warehouse (client mod W + 1), as
	// HammerDB does; false draws the home warehouse per transaction.
	Affinity bool
	// Augmented adds the average item price read to tpcc-ro's transactions.
	Augmented bool
	// Mode is how a run sends its transactions: ModeServer, one call of a
	// server-side routine per transaction (HammerDB's way), or ModeClient,
	// each statement from the client. Setup turns server into client where
	// the engine has no routines (SQLite).
	Mode string
	// RoutinesOnly makes init create the server-side routines on tables
	// already loaded, without reloading them.
	RoutinesOnly bool
	// Population is what Init loads; the zero value is the specification's
	// (clause 4.3.3.1). Tests load a smaller one. Setup reads the loaded
	// size back from the database.
	Population Population

	warehouses int        // read from the database by Setup
	pop        Population // likewise
	seed       uint64
	caps       db.Caps
	cLast      int64 // C for NURand(255, 0, 999) at run time (clause 2.1.6.1)
	cID        int64 // C for NURand(1023, 1, 3000)
	cItem      int64 // C for NURand(8191, 1, 100000)
	rb         rollbacks
	routines   *routineSet // server mode's routines; nil in client mode
	phase      phaseCounts
	// noServerXacts, when set, is why the engine's server-wide
	// transaction counter (Caps.ServerXacts) cannot be read on this
	// server: hammerdb_tpm is not measured.
	noServerXacts string
}

// phaseCounts are what MeasureStart and MeasureEnd read: sum(D_NEXT_O_ID)
// and the engine's transaction counters, at each bound of the measured
// phase.
type phaseCounts struct {
	started, ended       bool
	nextOID              [2]int64
	server, database     [2]db.Counts
	hasServer, hasDBXact bool
}

// rollbacks records when New-Orders rolled back by design (clause 2.4.1.4),
// so NOPM counts only those that committed in the measured phase.
type rollbacks struct {
	mu    sync.Mutex
	times []int64 // unix ns
}

func (r *rollbacks) add(t time.Time) {
	r.mu.Lock()
	r.times = append(r.times, t.UnixNano())
	r.mu.Unlock()
}

func (r *rollbacks) between(a, b time.Time) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, t := range r.times {
		if t >= a.UnixNano() && t <= b.UnixNano() {
			n++
		}
	}
	return n
}

// Name implements workload.Generator.
func (w *TPCC) Name() string {
	if w.RO {
		return "tpcc-ro"
	}
	return "tpcc"
}

// Description implements workload.Generator.
func (w *TPCC) Description() string {
	if w.RO {
		return "TPC-C's read-only pair: Order-Status and Stock-Level 50/50, no wait (--augmented adds an item price scan); tables of init tpcc"
	}
	return "TPC-C (clause 2 transactions, 45/43/4/4/4 mix, one server-side call per transaction or statements from the client, NOPM/TPM/tpmC and HammerDB's, terminal mode, clause 3.3.2 checks), comparable with HammerDB TPROC-C and go-tpc"
}

// Flags implements workload.Generator.
func (w *TPCC) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	switch cmd {
	case workload.CmdInit:
		fs.IntVarP(&w.Warehouses, "warehouses", "w", 1, "warehouses to load (each: 10 districts, 30,000 customers, 100,000 stock rows; ~100 MB)")
		fs.BoolVar(&w.RoutinesOnly, "routines-only", false, "only (re)create the server-side functions or procedures of --mode server, on tables already loaded")
	case workload.CmdRun:
		fs.BoolVar(&w.Affinity, "warehouse-affinity", true, "bind each client to a home warehouse (client mod warehouses + 1), as HammerDB; false draws a random home warehouse for every transaction")
		fs.StringVar(&w.Mode, "mode", ModeServer, "server: each transaction is one call of a server-side function or procedure (HammerDB's way; engines without them run client); client: the client sends each statement")
		if w.RO {
			fs.BoolVar(&w.Augmented, "augmented", false, "add to both transactions a read of the average price of the items with id below 15,000")
		}
	}
}

// maxWarehouses bounds --warehouses (about 10 TB of data).
const maxWarehouses = 100_000

// Validate implements workload.Validator: --warehouses for init, --mode
// for run.
func (w *TPCC) Validate(cmd workload.Command) error {
	if cmd == workload.CmdInit && (w.Warehouses < 1 || w.Warehouses > maxWarehouses) {
		return fmt.Errorf("--warehouses %d is out of range; use 1 to %d", w.Warehouses, maxWarehouses)
	}
	if cmd == workload.CmdRun && w.Mode != ModeServer && w.Mode != ModeClient {
		return fmt.Errorf("--mode %q is not a mode; use server (one server-side call per transaction) or client (the client sends each statement)", w.Mode)
	}
	return nil
}

// Init implements workload.Initer: drop, create, load in parallel, keys,
// secondary indexes, statistics.
func (w *TPCC) Init(ctx context.Context, env *workload.Env) error {
	caps, conn, err := workload.BeginInit(ctx, env, w)
	if err != nil {
		return err
	}
	defer conn.Close()
	set := routineSets[caps.Routines]
	if w.RoutinesOnly {
		if set == nil {
			return fmt.Errorf("%s has no server-side functions or procedures to create; tpcc runs there in --mode client", env.DB.Target().Kind)
		}
		if err := workload.RequireTables(ctx, env, conn, w.Name(), Tables...); err != nil {
			return err
		}
		return createRoutines(ctx, env, conn, set)
	}
	if set != nil {
		// A database whose init stops half way has no version marker, so
		// --mode server refuses it.
		if err := conn.Exec(ctx, set.drop); err != nil {
			return fmt.Errorf("drop the tpcc routines: %w", err)
		}
	}
	create := make([]string, len(schema))
	for i := range schema {
		create[i] = schema[i].createStatement(caps)
	}
	if err := workload.Recreate(ctx, conn, Tables, create); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	pop := w.Population
	if pop == (Population{}) {
		pop = Spec
	}
	if pop.Items < 1 || pop.Items > stockBatch && pop.Items%stockBatch != 0 || pop.Customers < 1 || pop.Undelivered < 0 || pop.Undelivered > pop.Customers {
		return fmt.Errorf("population %+v is invalid", pop)
	}
	if err := workload.Load(ctx, env, loadTables(env.Seed, w.Warehouses, now, pop)); err != nil {
		return err
	}
	var post []string
	if caps.KeysAfterLoad {
		for i := range schema {
			if schema[i].pk != "" {
				post = append(post, schema[i].addKeyStatement())
			}
		}
	}
	post = append(post, secondaryIndexes...)
	env.Progress.Phase("keys and indexes")
	if err := workload.ExecEach(ctx, env, post); err != nil {
		return err
	}
	if workload.Analyzes(caps) {
		env.Progress.Phase(caps.AnalyzeName)
		if err := workload.AnalyzeTables(ctx, env, Tables...); err != nil {
			return err
		}
	}
	if set != nil {
		return createRoutines(ctx, env, conn, set)
	}
	return nil
}

// createRoutines (re)creates the server-side transactions of --mode server.
func createRoutines(ctx context.Context, env *workload.Env, conn db.Conn, set *routineSet) error {
	env.Progress.Phase("server-side routines")
	for _, s := range set.create {
		if err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("create the tpcc routines (%s): %w", firstLine(s), err)
		}
	}
	return nil
}

// firstLine is the first line of s, to name a statement in an error.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Setup implements workload.Runner: it checks the tables, reads the number
// of warehouses and chooses the run-time NURand constants.
func (w *TPCC) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := workload.RequireTables(ctx, env, conn, "tpcc", Tables...); err != nil {
		return err
	}
	n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM warehouse")
	if err != nil {
		return fmt.Errorf("count the warehouses: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("table warehouse is empty; run `dbharness init tpcc` again")
	}
	// The population as loaded (clause 4.3.3.1's unless a test loaded a
	// smaller one): the highest item number and the customers of a district.
	items, err := db.QueryInt64(ctx, conn, "SELECT max(i_id) FROM item")
	if err != nil {
		return fmt.Errorf("read the item count: %w", err)
	}
	custs, err := db.QueryInt64(ctx, conn, "SELECT max(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 1")
	if err != nil {
		return fmt.Errorf("read the customers per district: %w", err)
	}
	if items < 1 || custs < 1 {
		return fmt.Errorf("tables item or customer are empty; run `dbharness init tpcc` again")
	}
	w.pop = Population{Items: int(items), Customers: int(custs)}
	w.warehouses, w.seed, w.caps = int(n), env.Seed, env.DB.Caps()
	w.cLast, w.cID, w.cItem = runConstants(datagen.NewRand(env.Seed, 0xc0c0))
	w.rb = rollbacks{}
	w.phase = phaseCounts{}
	w.routines = nil
	// The server-wide counter is probed once: a server without it (SQL
	// Server's performance counters on Babelfish, or without VIEW SERVER
	// STATE) runs without hammerdb_tpm.
	w.noServerXacts = ""
	if q := w.caps.ServerXacts; q != "" {
		if _, err := db.QueryCounts(ctx, conn, q); err != nil {
			if env.DB.Classify(err).ConnLost {
				return err
			}
			w.noServerXacts = strings.SplitN(err.Error(), "\n", 2)[0]
		}
	}
	if w.Mode == "" {
		w.Mode = ModeServer
	}
	if w.Mode == ModeServer {
		set := routineSets[w.caps.Routines]
		if set == nil {
			env.Notef("%s has no server-side functions or procedures; running --mode client", env.DB.Target().Kind)
			w.Mode = ModeClient
			return nil
		}
		v, err := db.QueryInt64(ctx, conn, set.version)
		if err != nil && env.DB.Classify(err).ConnLost {
			return err
		}
		if err != nil || v != routinesVersion {
			what := "are missing from"
			if err == nil {
				what = "are of another dbharness version in"
			}
			return fmt.Errorf("the server-side routines of --mode server %s this database; run `%s` to create them (or run with --mode client)",
				what, workload.InitCommand(env.DB.Target(), w.Name(), "--routines-only"))
		}
		w.routines = set
	}
	return nil
}

// runConstants draws the run-time constants C of NURand (clause 2.1.6.1):
// for C_LAST, C_RUN such that |C_RUN - C_LOAD| is in 65..119 and is
// neither 96 nor 112; for C_ID and OL_I_ID any value in 0..A.
func runConstants(r *rand.Rand) (cLast, cID, cItem int64) {
	for {
		cLast = r.Int64N(256)
		d := cLast - cLoadLast
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			break
		}
	}
	return cLast, r.Int64N(1024), r.Int64N(8192)
}

// ValidRunConstant reports whether c may be C_RUN for C_LAST given the
// loader's C_LOAD (clause 2.1.6.1).
func ValidRunConstant(c int64) bool {
	d := c - cLoadLast
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// MixName implements workload.Mixer: the mode (after Setup, which runs
// client where the engine has no routines), and tpcc-ro's augmented read.
func (w *TPCC) MixName() string {
	if w.RO && w.Augmented {
		return w.Mode + ", augmented"
	}
	return w.Mode
}

// Ops implements workload.Runner.
func (w *TPCC) Ops() []string {
	if w.RO {
		return []string{opNames[OrderStatus], opNames[StockLevel]}
	}
	return opNames[:]
}

// kind maps an index into Ops to a transaction type.
func (w *TPCC) kind(op int) int {
	if w.RO {
		return [2]int{OrderStatus, StockLevel}[op]
	}
	return op
}

// PickOp implements workload.TerminalRunner: a terminal's menu choice,
// weighted by the mix (clause 5.2.4.1), 50/50 for tpcc-ro.
func (w *TPCC) PickOp(rng *rand.Rand) int {
	x := rng.IntN(100)
	if w.RO {
		if x < 50 {
			return 0
		}
		return 1
	}
	for op, p := range mix {
		if x < p {
			return op
		}
		x -= p
	}
	return NewOrder
}

// Keying implements workload.TerminalRunner (clause 5.2.5.7).
func (w *TPCC) Keying(op int) time.Duration { return keyingTime[w.kind(op)] }

// Think implements workload.TerminalRunner: negative exponential with the
// type's mean, truncated at ten times the mean (clause 5.2.5.4).
func (w *TPCC) Think(op int, rng *rand.Rand) time.Duration {
	return ThinkTime(thinkMean[w.kind(op)], rng.Float64())
}

// ThinkTime turns a uniform r in [0, 1) into a think time: -ln(r) * mean,
// at most 10 * mean (clause 5.2.5.4).
func ThinkTime(mean time.Duration, r float64) time.Duration {
	if r <= 0 {
		return 10 * mean
	}
	t := -math.Log(r) * float64(mean)
	return time.Duration(min(t, 10*float64(mean)))
}

// BeforeRun implements workload.RunHooks.
func (w *TPCC) BeforeRun(context.Context, *workload.Env, db.Conn) error { return nil }

// MeasureStart implements workload.PhaseReader: sum(D_NEXT_O_ID) and the
// engine's transaction counters as the measured phase starts.
func (w *TPCC) MeasureStart(ctx context.Context, conn db.Conn) error {
	w.phase.started = true
	return w.readPhase(ctx, conn, 0)
}

// MeasureEnd implements workload.PhaseReader: the same readings at the end.
func (w *TPCC) MeasureEnd(ctx context.Context, conn db.Conn) error {
	w.phase.ended = true
	return w.readPhase(ctx, conn, 1)
}

// readPhase reads the counters into bound i (0 start, 1 end). On
// PostgreSQL each reading is itself a transaction: sum(D_NEXT_O_ID) is read
// before the transaction counters at the start and after them at the end,
// so that it stays out of the phase's count.
func (w *TPCC) readPhase(ctx context.Context, conn db.Conn, i int) error {
	ph := &w.phase
	nextOID := func() error {
		if w.RO {
			return nil
		}
		var err error
		if ph.nextOID[i], err = db.QueryInt64(ctx, conn, "SELECT sum(d_next_o_id) FROM district"); err != nil {
			return fmt.Errorf("read sum(d_next_o_id): %w", err)
		}
		return nil
	}
	if i == 0 {
		if err := nextOID(); err != nil {
			return err
		}
	}
	var err error
	if q := w.caps.DatabaseXacts; q != "" {
		if ph.database[i], err = db.QueryCounts(ctx, conn, q); err != nil {
			return fmt.Errorf("read the database's transaction counters: %w", err)
		}
		if i == 1 && w.caps.XactsDelay > 0 {
			// The clients have stopped: wait until the counters show all
			// their transactions, that is until they stop moving, for as
			// long as the engine may be late.
			for deadline := time.Now().Add(w.caps.XactsDelay); time.Now().Before(deadline); {
				time.Sleep(w.caps.XactsDelay / 20)
				n, err := db.QueryCounts(ctx, conn, q)
				if err != nil {
					return fmt.Errorf("read the database's transaction counters: %w", err)
				}
				if n.Total() == ph.database[i].Total() {
					break
				}
				ph.database[i] = n
			}
		}
		ph.hasDBXact = true
	}
	if q := w.caps.ServerXacts; q != "" && w.noServerXacts == "" {
		if ph.server[i], err = db.QueryCounts(ctx, conn, q); err != nil {
			return fmt.Errorf("read the server's transaction counters: %w", err)
		}
		ph.hasServer = true
	}
	if i == 1 {
		return nextOID()
	}
	return nil
}

// MetricLabels implements workload.MetricLabeler.
func (w *TPCC) MetricLabels() map[string]string {
	return map[string]string{
		"tpm":           "every transaction committed per minute, counted by the harness",
		"nopm":          "New-Order transactions committed per minute, counted by the harness",
		"tpmc":          "New-Order transactions completed per minute, the 1% rolled back by design included (go-tpc's tpmC)",
		"hammerdb_nopm": "HammerDB's NOPM: the growth of sum(D_NEXT_O_ID) per minute, read from the database",
		"hammerdb_tpm":  "HammerDB's TPM: the server's commits and rollbacks per minute (on SQL Server its batch requests, as HammerDB counts there), every database and session included",
		"server_tpm":    "the target database's commits and rollbacks per minute, from the server's counters",
	}
}

// HeadlineMetric implements workload.MetricLabeler: NOPM is TPC-C's
// result (tpcc-ro, which makes no new order, has none).
func (w *TPCC) HeadlineMetric() string {
	if w.RO {
		return ""
	}
	return "nopm"
}

// AfterRun implements workload.RunHooks: NOPM (New-Orders committed per
// minute, without the 1% rolled back by design), TPM (every completed
// transaction per minute) and tpmC (New-Order transactions completed per
// minute, as go-tpc reports its new_order rate; clause 5.4.1 counts the
// rolled-back ones as completed), all counted by the harness; and, from
// the readings at the bounds of the measured phase, HammerDB's own
// figures: hammerdb_nopm (the change of sum(D_NEXT_O_ID)), hammerdb_tpm (the
// change of the engine's server-wide commit and rollback counters, every
// database and session included) and server_tpm (the same counters of the
// target database alone, where the engine keeps them), per minute of the
// measured phase. A counter that went down (reset during the run) gives no
// figure and an error saying so; where only other databases' counters went
// down (pg_stat_reset in another database), hammerdb_tpm counts their
// transactions from the reset on, and the error says that instead. A
// server whose counter could not be read (Setup's probe) gives no
// hammerdb_tpm, and the error says it is not measured and why.
func (w *TPCC) AfterRun(_ context.Context, _ *workload.Env, _ db.Conn, t workload.Totals) (map[string]float64, error) {
	if t.Seconds <= 0 {
		return nil, nil
	}
	mins := t.Seconds / 60
	var all int64
	for _, n := range t.Commits {
		all += n
	}
	m := map[string]float64{"tpm": round1(float64(all) / mins)}
	if !w.RO {
		no := t.Commits[opNames[NewOrder]]
		rb := w.rb.between(t.MeasureStart, t.End)
		m["nopm"] = round1(float64(max(no-rb, 0)) / mins)
		m["tpmc"] = round1(float64(no) / mins)
	}
	ph := &w.phase
	if !ph.started || !ph.ended {
		return m, nil
	}
	var reset, notes []string
	figure := func(name string, d int64, ok bool) {
		if ok {
			m[name] = round1(float64(d) / mins)
		} else {
			reset = append(reset, name)
		}
	}
	if !w.RO {
		d := ph.nextOID[1] - ph.nextOID[0]
		figure("hammerdb_nopm", d, d >= 0)
	}
	if ph.hasServer {
		d, gone := ph.server[1].Growth(ph.server[0])
		own := func(k string) bool { _, ok := ph.database[1][k]; return ok }
		if len(gone) > 0 && ph.hasDBXact && !slices.ContainsFunc(gone, own) {
			// Other databases' counters were reset, not this one's: the
			// server's figure keeps their transactions from the reset on.
			notes = append(notes, fmt.Sprintf("hammerdb_tpm counts the transactions of %d other database(s) only from when their statistics were reset during the run", len(gone)))
			gone = nil
		}
		figure("hammerdb_tpm", d, len(gone) == 0)
	}
	if ph.hasDBXact {
		d, gone := ph.database[1].Growth(ph.database[0])
		figure("server_tpm", d, len(gone) == 0)
	}
	if w.noServerXacts != "" {
		notes = append(notes, "hammerdb_tpm not measured: the server's transaction counter cannot be read: "+w.noServerXacts)
	}
	if len(reset) > 0 {
		notes = append(notes, fmt.Sprintf("%s left out: its counter went down during the run (reset by another session, or init run meanwhile)", strings.Join(reset, ", ")))
	}
	if len(notes) > 0 {
		return m, errors.New(strings.Join(notes, "; "))
	}
	return m, nil
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// Dataset implements workload.Describer: the warehouses as loaded.
func (w *TPCC) Dataset(context.Context, *workload.Env, db.Conn) (map[string]any, []string, error) {
	return map[string]any{"warehouses": int64(w.warehouses)}, Tables, nil
}
