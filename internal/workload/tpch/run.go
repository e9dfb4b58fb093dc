package tpch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

// The transaction types: Q1..Q22 are ops 0..21, then the refresh functions.
const (
	opRF1 = 22
	opRF2 = 23
	nOps  = 24
)

var opNames = func() []string {
	names := make([]string, nOps)
	for q := 1; q <= 22; q++ {
		names[q-1] = "Q" + strconv.Itoa(q)
	}
	names[opRF1], names[opRF2] = "RF1", "RF2"
	return names
}()

// holdPoll is how often a throughput stream waiting for the power test to
// end asks again.
const holdPoll = 20 * time.Millisecond

// Phases of a step: the power test or the throughput test (clause 5.3.3,
// 5.3.4).
const (
	phasePower = iota
	phaseThroughput
)

// step is one transaction of a stream: a query with its parameters, or a
// refresh function with its update set.
type step struct {
	op     int
	phase  int
	draw   Draw // queries
	set    int  // refresh functions: the update set (1-based)
	stream int
}

// script is what one client runs, and how far it has got. It outlives the
// client's worker, which a reconnect replaces.
type script struct {
	steps []step
	next  int
	// durs and errs are each step's timing interval and error, from its
	// last try; done says it ran, and ended is when the last step ended.
	durs   []time.Duration
	errs   []error
	done   []bool
	starts []time.Time
	ended  time.Time
	// waits says the script waits for the power test to end before its
	// first step (a throughput query stream).
	waits bool
}

func newScript(steps []step, waits bool) *script {
	n := len(steps)
	return &script{steps: steps, waits: waits, durs: make([]time.Duration, n), errs: make([]error, n), done: make([]bool, n), starts: make([]time.Time, n)}
}

// bench is the state of a run: the streams' scripts, the update sets'
// data and the timings of clause 5.3.7.
type bench struct {
	caps    db.Caps
	gen     *dbgen.Gen
	sf      float64
	seed    uint64
	streams int
	// firstSet is the first update set the run uses: the sets before it
	// were used by earlier runs on this database.
	firstSet int
	rf1      map[int][]dbgen.OrderRow
	rf2      map[int][]int64

	scripts []*script
	// powerSteps is how many of the first script's steps are the power
	// test's.
	powerSteps int

	mu         sync.Mutex
	powerStart time.Time
	powerEnd   time.Time // zero until the power test has ended
}

// newBench plans the run: the power test's stream (RF1, stream 0's 22
// queries, RF2), then with streams > 0 the throughput test's query
// streams 1..S and its refresh stream (S pairs of RF1 and RF2), which
// follows the power test on the same client.
func newBench(caps db.Caps, gen *dbgen.Gen, seed uint64, streams, firstSet int) *bench {
	b := &bench{caps: caps, gen: gen, sf: gen.ScaleFactor(), seed: seed, streams: streams, firstSet: firstSet,
		rf1: map[int][]dbgen.OrderRow{}, rf2: map[int][]int64{}}
	var power []step
	power = append(power, step{op: opRF1, phase: phasePower, set: firstSet})
	for _, q := range StreamOrder(0) {
		power = append(power, step{op: q - 1, phase: phasePower, draw: DrawParams(q, 0, seed, b.sf)})
	}
	power = append(power, step{op: opRF2, phase: phasePower, set: firstSet})
	b.powerSteps = len(power)
	for i := 1; i <= streams; i++ {
		set := firstSet + i
		power = append(power,
			step{op: opRF1, phase: phaseThroughput, set: set, stream: i},
			step{op: opRF2, phase: phaseThroughput, set: set, stream: i})
	}
	b.scripts = append(b.scripts, newScript(power, false))
	for s := 1; s <= streams; s++ {
		var qs []step
		for _, q := range StreamOrder(s) {
			qs = append(qs, step{op: q - 1, phase: phaseThroughput, stream: s, draw: DrawParams(q, s, seed, b.sf)})
		}
		b.scripts = append(b.scripts, newScript(qs, true))
	}
	return b
}

// sets is the number of update sets the run uses.
func (b *bench) sets() int { return 1 + b.streams }

// load generates the update sets' rows (as dbgen -U writes them before the
// test, outside its timing).
func (b *bench) load() {
	for k := b.firstSet; k < b.firstSet+b.sets(); k++ {
		b.rf1[k] = b.gen.RF1(k, nil)
		b.rf2[k] = b.gen.RF2(k)
	}
}

// hold implements Holder for a script: done at its end; a throughput query
// stream waits until the power test has ended.
func (b *bench) hold(sc *script) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if sc.next >= len(sc.steps) {
		return 0, true
	}
	if sc.waits && b.powerEnd.IsZero() {
		return holdPoll, false
	}
	return 0, false
}

// record notes how step i of sc ended (each try overwrites the last).
func (b *bench) record(sc *script, i int, start time.Time, d time.Duration, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	end := start.Add(d)
	if !sc.done[i] {
		sc.starts[i] = start
	}
	sc.durs[i], sc.errs[i], sc.done[i] = d, err, true
	if sc == b.scripts[0] {
		if i == 0 && b.powerStart.IsZero() {
			b.powerStart = start
		}
		if i == b.powerSteps-1 {
			b.powerEnd = end
		}
	}
	if i == len(sc.steps)-1 {
		sc.ended = end
	}
}

// worker runs one client's script on one connection.
type worker struct {
	b    *bench
	sc   *script
	conn db.Conn
	cur  int // the step Next chose
}

func (b *bench) newWorker(conn db.Conn, id int) (*worker, error) {
	if id < 0 || id >= len(b.scripts) {
		return nil, fmt.Errorf("tpch runs %d client(s), one per stream; client %d has no stream", len(b.scripts), id)
	}
	return &worker{b: b, sc: b.scripts[id], conn: conn}, nil
}

// Hold implements workload.Holder.
func (w *worker) Hold() (time.Duration, bool) { return w.b.hold(w.sc) }

// Next implements workload.Worker: the script's next step.
func (w *worker) Next() int {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	w.cur = w.sc.next
	w.sc.next++
	return w.sc.steps[w.cur].op
}

// Do implements workload.Worker: the step's query, read to its last row,
// or its refresh function in one transaction. Its time is the step's
// timing interval (clause 5.3.7).
func (w *worker) Do(ctx context.Context, op int) error {
	st := w.sc.steps[w.cur]
	start := time.Now()
	var err error
	switch op {
	case opRF1:
		err = w.rf1(ctx, st.set)
	case opRF2:
		err = w.rf2(ctx, st.set)
	default:
		_, err = runQuery(ctx, w.conn, w.b.caps, st.draw, false)
	}
	w.b.record(w.sc, w.cur, start, time.Since(start), err)
	return err
}

// runQuery runs a drawn query on conn and reads its rows to the end; with
// keep it returns them, each value as text (Answer).
func runQuery(ctx context.Context, conn db.Conn, caps db.Caps, d Draw, keep bool) ([][]string, error) {
	rows, err := db.QueryOnce(ctx, conn, db.Simple, Text(d.Query, caps, d.Params(caps)))
	if err != nil {
		return nil, fmt.Errorf("Q%d: %w", d.Query, err)
	}
	defer rows.Close()
	n := len(rows.Columns())
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("Q%d: %w", d.Query, err)
		}
		if keep {
			row := make([]string, n)
			for i, v := range vals {
				row[i] = text(v)
			}
			out = append(out, row)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("Q%d: %w", d.Query, err)
	}
	return out, nil
}

// inTx runs fn in one write transaction on conn, rolled back on error.
func inTx(ctx context.Context, conn db.Conn, caps db.Caps, fn func() error) error {
	if err := conn.Exec(ctx, caps.BeginWrite); err != nil {
		return err
	}
	if err := fn(); err != nil {
		if conn.Alive() {
			_ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return err
	}
	return conn.Exec(ctx, "COMMIT")
}

// errNoSets says the database has no unused update set left.
var errNoSets = errors.New("no unused update set is left")

// streamsFlag is --streams: the throughput test's query streams, which
// must be at least 1 when given.
type streamsFlag struct {
	n   int
	set bool
}

func (f *streamsFlag) String() string { return strconv.Itoa(f.n) }
func (f *streamsFlag) Type() string   { return "int" }
func (f *streamsFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a whole number of streams", s)
	}
	f.n, f.set = n, true
	return nil
}

func (f *streamsFlag) validate() error {
	if f.set && f.n < 1 {
		return fmt.Errorf("--streams %d: the throughput test needs at least 1 query stream (leave --streams out to run the power test alone)", f.n)
	}
	return nil
}

// runFlags registers run's flags.
func runFlags(w *TPCH, fs *pflag.FlagSet) {
	fs.Var(&w.Streams, "streams", "query streams of the throughput test (clause 5.3.4), run after the power test beside one refresh stream; without it the power test runs alone")
}

// Setup implements workload.Runner: the scale factor loaded, the first
// update set no earlier run used, and the update sets' rows.
func (w *TPCH) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	sf, err := ReadScale(ctx, env, conn)
	if err != nil {
		return err
	}
	g, err := dbgen.New(sf)
	if err != nil {
		return err
	}
	first, err := firstUnusedSet(ctx, conn, g)
	if err != nil && !errors.Is(err, errNoSets) {
		return fmt.Errorf("find the first unused update set: %w", err)
	}
	maxSets := first + w.Streams.n // empty sets (below SF 0.007) never run out
	if n := g.RefreshSize(); n > 0 {
		maxSets = int(g.RowCount(dbgen.Orders) / n)
	}
	if err != nil || first+w.Streams.n > maxSets {
		return fmt.Errorf("the earlier runs used the update sets of this database up to its %d orders (%d sets of %d); run `%s` again",
			g.RowCount(dbgen.Orders), maxSets, g.RefreshSize(), workload.InitCommand(env.DB.Target(), "tpch"))
	}
	w.bench = newBench(env.DB.Caps(), g, env.Seed, w.Streams.n, first)
	w.bench.load()
	return nil
}

// Ops implements workload.Runner: Q1..Q22, RF1, RF2.
func (w *TPCH) Ops() []string { return opNames }

// NewWorker implements workload.Runner: client id runs stream id's script
// (0: the power test, then the throughput test's refresh stream).
func (w *TPCH) NewWorker(_ context.Context, conn db.Conn, id int) (workload.Worker, error) {
	return w.bench.newWorker(conn, id)
}

// Clients implements workload.Scripted: one per stream.
func (w *TPCH) Clients() int { return 1 + w.Streams.n }

// FixedWork implements workload.FixedWorker: the longest script (the power
// test and the refresh stream's pairs); each client ends with its script.
func (w *TPCH) FixedWork() (int64, string, error) {
	return int64(nOps + 2*w.Streams.n), "tpch", nil
}

// MixName implements workload.Mixer.
func (w *TPCH) MixName() string {
	if w.Streams.n == 0 {
		return "power test"
	}
	return fmt.Sprintf("power test, throughput test of %d streams", w.Streams.n)
}

// Dataset implements workload.Describer: the scale factor, the streams and
// the update sets the run uses.
func (w *TPCH) Dataset(context.Context, *workload.Env, db.Conn) (map[string]any, []string, error) {
	b := w.bench
	return map[string]any{
		"scale_factor": b.sf,
		"streams":      int64(b.streams),
		"update_sets":  fmt.Sprintf("%d-%d", b.firstSet, b.firstSet+b.sets()-1),
	}, Tables, nil
}

// BeforeRun implements workload.RunHooks.
func (w *TPCH) BeforeRun(context.Context, *workload.Env, db.Conn) error { return nil }

// AfterRun implements workload.RunHooks: the figures of clause 5.4.
func (w *TPCH) AfterRun(context.Context, *workload.Env, db.Conn, workload.Totals) (map[string]float64, error) {
	if w.bench == nil {
		return nil, nil
	}
	return w.bench.figures()
}

// MetricLabels implements workload.MetricLabeler.
func (w *TPCH) MetricLabels() map[string]string { return metricLabels }

// HeadlineMetric implements workload.MetricLabeler: QphH@Size with a
// throughput test, Power@Size without.
func (w *TPCH) HeadlineMetric() string {
	if w.Streams.n > 0 {
		return MetricQphH
	}
	return MetricPower
}
