package loadgen

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/runphase"
	"github.com/dbharness/dbharness/internal/workload"
)

// fakeDB is a database that needs no server: its connections do nothing
// but call onClose, if set, when they are closed.
type fakeDB struct {
	connects atomic.Int64
	failConn atomic.Bool
	closed   atomic.Int64
	onClose  func()
	// onConnect, when set, runs in Connect; its error fails the connect.
	onConnect func(context.Context) error
}

type fakeConn struct {
	dead    atomic.Bool
	onClose func()
}

func (c *fakeConn) Exec(context.Context, string) error                     { return nil }
func (c *fakeConn) Prepare(context.Context, string) (db.Stmt, error)       { return nil, nil }
func (c *fakeConn) Query(context.Context, string, ...any) (db.Rows, error) { return nil, nil }
func (c *fakeConn) Alive() bool                                            { return !c.dead.Load() }
func (c *fakeConn) BackendID(context.Context) int64                        { return 0 }
func (c *fakeConn) Cancel(context.Context) error                           { return nil }
func (c *fakeConn) Close() error {
	if c.onClose != nil {
		c.onClose()
	}
	return nil
}

var (
	errSerialization = errors.New("could not serialize access")
	errLost          = errors.New("connection lost")
	errOther         = errors.New("syntax error")
)

func (d *fakeDB) Target() *db.Target { return &db.Target{Kind: db.SQLite, Path: "fake"} }
func (d *fakeDB) Caps() db.Caps      { return db.Caps{} }
func (d *fakeDB) Connect(ctx context.Context) (db.Conn, error) {
	if d.failConn.Load() {
		return nil, errors.New("refused")
	}
	if d.onConnect != nil {
		if err := d.onConnect(ctx); err != nil {
			return nil, err
		}
	}
	d.connects.Add(1)
	return &fakeConn{onClose: d.onClose}, nil
}
func (d *fakeDB) Info(context.Context) (db.Info, error) { return db.Info{}, nil }
func (d *fakeDB) Classify(err error) db.ErrorClass {
	switch {
	case errors.Is(err, errSerialization):
		return db.ErrorClass{Code: "sqlstate:40", Retryable: true}
	case errors.Is(err, errLost):
		return db.ErrorClass{Code: "conn", ConnLost: true}
	}
	return db.ErrorClass{Code: "other"}
}
func (d *fakeDB) TableExists(context.Context, db.Conn, string) (bool, error) { return true, nil }
func (d *fakeDB) CopyIn(context.Context, db.Conn, string, []string, db.RowSource) (int64, error) {
	return 0, nil
}
func (d *fakeDB) Close() error { return nil }

// fakeRunner runs transactions that take `work` and fail as `fail` says.
type fakeRunner struct {
	ops  []string
	work time.Duration
	// fail is called with the try number (1-based) and returns the error of
	// that try.
	fail  func(w *fakeWorker, try int) error
	calls atomic.Int64
}

func (r *fakeRunner) Setup(context.Context, *workload.Env, db.Conn) error { return nil }
func (r *fakeRunner) Ops() []string                                       { return r.ops }
func (r *fakeRunner) NewWorker(_ context.Context, c db.Conn, id int) (workload.Worker, error) {
	return &fakeWorker{r: r, conn: c.(*fakeConn), id: id}, nil
}

type fakeWorker struct {
	r    *fakeRunner
	conn *fakeConn
	id   int
	n    int
	try  int
}

func (w *fakeWorker) Next() int { w.n++; w.try = 0; return w.n % len(w.r.ops) }
func (w *fakeWorker) Do(ctx context.Context, op int) error {
	w.try++
	w.r.calls.Add(1)
	if w.r.work > 0 {
		time.Sleep(w.r.work)
	}
	if w.r.fail != nil {
		err := w.r.fail(w, w.try)
		if errors.Is(err, errLost) {
			w.conn.dead.Store(true)
		}
		return err
	}
	return nil
}

func baseConfig() Config {
	return Config{Clients: 2, Duration: 300 * time.Millisecond, MaxTries: 1, Interval: 100 * time.Millisecond, Seed: 1}
}

func total(ops []OpResult) (n, errs, retries int64) {
	for _, o := range ops {
		n += o.Hist.TotalCount()
		errs += o.Errors
		retries += o.Retries
	}
	return
}

func TestTransactionsPerClientRunsExactlyThatMany(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration, cfg.Transactions, cfg.Clients = 0, 250, 4
	r := &fakeRunner{ops: []string{"a", "b"}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := total(res.Ops); n != 1000 {
		t.Fatalf("measured %d transactions, want 4 clients x 250", n)
	}
}

func TestWarmupIsMeasuredApartFromTheSummary(t *testing.T) {
	cfg := baseConfig()
	cfg.Warmup, cfg.Duration = 200*time.Millisecond, 200*time.Millisecond
	r := &fakeRunner{ops: []string{"a"}, work: time.Millisecond}
	var phases []string
	var ticks []*Tick
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, ObserverFunc(func(tk *Tick) {
		phases = append(phases, tk.Phase)
		ticks = append(ticks, tk)
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	// No interval straddles the end of the warm-up.
	for _, tk := range ticks {
		if tk.Phase == runphase.Warmup && tk.End.After(res.MeasureStart) || tk.Phase == runphase.Measure && tk.Start.Before(res.MeasureStart) {
			t.Errorf("a %s interval from %s to %s; the warm-up ends at %s", tk.Phase, tk.Start.Sub(res.Start), tk.End.Sub(res.Start), cfg.Warmup)
		}
	}
	warm, _, _ := total(res.Warmup)
	meas, _, _ := total(res.Ops)
	if warm == 0 || meas == 0 {
		t.Fatalf("warm-up %d and measured %d transactions; want both > 0", warm, meas)
	}
	if int64(r.calls.Load()) != warm+meas {
		t.Errorf("warm-up %d + measured %d != %d transactions run", warm, meas, r.calls.Load())
	}
	if phases[0] != runphase.Warmup || phases[len(phases)-1] != runphase.Measure {
		t.Errorf("phases %v should go from warmup to measure", phases)
	}
	// The measured phase starts where the warm-up ends and lasts at least
	// its duration; how much longer depends on how busy the machine is.
	if d := res.MeasureStart.Sub(res.Start); d != cfg.Warmup {
		t.Errorf("the measured phase starts %s into the run, want after the %s warm-up", d, cfg.Warmup)
	}
	if s := res.Seconds(); s < cfg.Duration.Seconds() {
		t.Errorf("measured phase lasted %.3fs, want at least %s", s, cfg.Duration)
	}
}

// The transactions that end in the measured phase are the measured
// phase's, however late the ticker closes the warm-up's last interval:
// --transactions N gives N per client in the figures, and the intervals
// add up to them. The observer holds the ticker back across the end of the
// warm-up, as a busy host does; the clients go on meanwhile.
func TestALateTickerLosesNoMeasuredTransactionToTheWarmup(t *testing.T) {
	cfg := baseConfig()
	cfg.Warmup, cfg.Duration, cfg.Transactions = 200*time.Millisecond, 0, 300
	r := &fakeRunner{ops: []string{"a", "b"}, work: time.Millisecond}
	var ticks []*Tick
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, ObserverFunc(func(tk *Tick) {
		ticks = append(ticks, tk)
		if tk.Seq == 0 {
			// The first warm-up interval's tick: the next one, at the end
			// of the warm-up, comes 150 ms late.
			time.Sleep(250 * time.Millisecond)
		}
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	warm, _, _ := total(res.Warmup)
	meas, _, _ := total(res.Ops)
	if want := int64(cfg.Clients) * cfg.Transactions; meas != want {
		t.Errorf("measured %d transactions, want %d clients x %d", meas, cfg.Clients, cfg.Transactions)
	}
	if r.calls.Load() != warm+meas {
		t.Errorf("warm-up %d + measured %d != %d transactions run", warm, meas, r.calls.Load())
	}
	var inWarm, inMeas int64
	for _, tk := range ticks {
		for _, o := range tk.Ops {
			if tk.Phase == runphase.Warmup {
				inWarm += o.Hist.TotalCount()
			} else {
				inMeas += o.Hist.TotalCount()
			}
		}
	}
	if inWarm != warm || inMeas != meas {
		t.Errorf("the intervals hold %d warm-up and %d measured transactions; the phases %d and %d", inWarm, inMeas, warm, meas)
	}
}

func TestSerializationFailuresAreRetriedUpToMaxTries(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration, cfg.Transactions, cfg.Clients, cfg.MaxTries = 0, 100, 1, 3
	// Every transaction fails twice, then succeeds on the third try.
	r := &fakeRunner{ops: []string{"a"}, fail: func(_ *fakeWorker, try int) error {
		if try < 3 {
			return errSerialization
		}
		return nil
	}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, errs, retries := total(res.Ops)
	if n != 100 || errs != 0 || retries != 200 {
		t.Fatalf("got %d ok, %d errors, %d retries; want 100, 0, 200", n, errs, retries)
	}
}

func TestWithoutRetriesASerializationFailureIsCountedByClass(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration, cfg.Transactions, cfg.Clients = 0, 10, 1
	r := &fakeRunner{ops: []string{"a"}, fail: func(w *fakeWorker, _ int) error {
		if w.n%2 == 0 {
			return errSerialization
		}
		return errOther
	}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ErrorClasses["sqlstate:40"] != 5 || res.ErrorClasses["other"] != 5 {
		t.Fatalf("error classes %v, want 5 sqlstate:40 and 5 other", res.ErrorClasses)
	}
	if res.ErrorSamples["other"] != errOther.Error() {
		t.Errorf("sample for other = %q", res.ErrorSamples["other"])
	}
}

func TestALostConnectionIsReplacedAndTheRunGoesOn(t *testing.T) {
	cfg := baseConfig()
	// Fixed work: 200 transactions, the 50th losing its connection.
	cfg.Clients, cfg.Duration, cfg.Transactions = 1, 0, 200
	d := &fakeDB{}
	var once sync.Once
	r := &fakeRunner{ops: []string{"a"}, fail: func(w *fakeWorker, _ int) error {
		var err error
		if w.n == 50 {
			once.Do(func() { err = errLost })
		}
		return err
	}}
	res, err := Run(context.Background(), d, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reconnects != 1 || d.connects.Load() != 2 {
		t.Fatalf("reconnects %d, connects %d; want 1 and 2", res.Reconnects, d.connects.Load())
	}
	if n, errs, _ := total(res.Ops); errs != 1 || n != 199 {
		t.Fatalf("%d ok and %d errors, want 199 and 1: the run should go on after the reconnect", n, errs)
	}
}

func TestStopEndsTheRunEarlyAndMarksItInterrupted(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration = time.Hour
	// Stopped once the clients have run 50 transactions: mid-run, however
	// slowly the machine gets there.
	stop := make(chan struct{})
	var once sync.Once
	r := &fakeRunner{ops: []string{"a"}, work: time.Millisecond}
	r.fail = func(*fakeWorker, int) error {
		if r.calls.Load() >= 50 {
			once.Do(func() { close(stop) })
		}
		return nil
	}
	start := time.Now()
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, stop)
	if err != nil {
		t.Fatal(err)
	}
	// Far short of the hour, with room for a busy machine.
	if !res.Interrupted || time.Since(start) > time.Minute {
		t.Fatalf("interrupted=%v after %s", res.Interrupted, time.Since(start))
	}
	if n, _, _ := total(res.Ops); n == 0 {
		t.Fatal("nothing measured before the stop")
	}
}

func TestConnectFailureFailsTheRunBeforeItStarts(t *testing.T) {
	d := &fakeDB{}
	d.failConn.Store(true)
	_, err := Run(context.Background(), d, &fakeRunner{ops: []string{"a"}}, baseConfig(), nil, nil)
	if err == nil {
		t.Fatal("run started without connections")
	}
}

func TestOpenLoopHoldsTheRateAndCountsFromTheIntendedStart(t *testing.T) {
	cfg := baseConfig()
	// Fixed work on the schedule: 4 clients x 500 transactions from one
	// schedule of 2000 a second.
	cfg.Rate, cfg.Duration, cfg.Transactions, cfg.Clients = 2000, 0, 500, 4
	r := &fakeRunner{ops: []string{"a"}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, _, _ := total(res.Ops)
	if n != 2000 {
		t.Fatalf("%d transactions, want 4 clients x 500", n)
	}
	// An open loop never runs ahead of its schedule: no transaction starts
	// before its intended start, so the run lasts at least until the
	// 2000th arrival of the shared schedule (the same seed draws the same
	// gaps). A busy machine can only make it later.
	s := newSchedule(res.Start, cfg.Rate, cfg.Seed)
	var last time.Time
	for range n {
		last = s.Next()
	}
	if res.End.Before(last) {
		t.Fatalf("the run ended %s after its start, before the last arrival of its schedule at %s: it ran ahead of the schedule",
			res.End.Sub(res.Start), last.Sub(res.Start))
	}
	if res.Lag == nil || res.Lag.TotalCount() != n {
		t.Fatalf("lag recorded for %v transactions, want %d", res.Lag, n)
	}
}

func TestOpenLoopLatencyIncludesTimeSpentWaitingForAFreeClient(t *testing.T) {
	// One client, 10 ms per transaction, 200 arrivals a second: the
	// client falls further and further behind the schedule, and latency
	// measured from the intended start must show it (no coordinated
	// omission), while the service time stays 10 ms.
	cfg := baseConfig()
	cfg.Rate, cfg.Duration, cfg.Clients = 200, 500*time.Millisecond, 1
	r := &fakeRunner{ops: []string{"a"}, work: 10 * time.Millisecond}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Ops[0].Hist
	if p99 := h.ValueAtQuantile(99); p99 < 100_000 {
		t.Fatalf("p99 latency %d µs; a backlog of ~0.4 s must show in it", p99)
	}
	if lag := res.Lag.Max(); lag < 100_000 {
		t.Errorf("max schedule lag %d µs, want the backlog to show", lag)
	}
}

func TestLatencyLimitCountsLateTransactions(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration, cfg.Transactions, cfg.Clients, cfg.LatencyLimit = 0, 20, 1, 2*time.Millisecond
	r := &fakeRunner{ops: []string{"a"}, work: 3 * time.Millisecond}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops[0].Late != 20 {
		t.Fatalf("late = %d, want all 20", res.Ops[0].Late)
	}
}

func TestScheduleGapsArePoissonWithTheRequestedMean(t *testing.T) {
	start := time.Unix(0, 0)
	s := newSchedule(start, 1000, 42)
	const n = 200_000
	var prev = start
	var sum, sumSq float64
	for i := 0; i < n; i++ {
		next := s.Next()
		gap := next.Sub(prev).Seconds()
		sum += gap
		sumSq += gap * gap
		prev = next
	}
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean-0.001)/0.001 > 0.01 {
		t.Errorf("mean gap %.6fs, want 0.001s within 1%%", mean)
	}
	// An exponential distribution's standard deviation equals its mean.
	if math.Abs(sd-mean)/mean > 0.02 {
		t.Errorf("gap standard deviation %.6f vs mean %.6f; exponential gaps have them equal", sd, mean)
	}
}

func TestInvalidConfigurationNamesTheFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(c *Config)
		flag string
	}{
		{"zero clients", func(c *Config) { c.Clients = 0 }, "--clients"},
		{"zero tries", func(c *Config) { c.MaxTries = 0 }, "--max-tries"},
		{"negative rate", func(c *Config) { c.Rate = -1 }, "--rate"},
		{"no end", func(c *Config) { c.Duration = 0 }, "--duration"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			c := baseConfig()
			tc.mod(&c)
			err := c.Validate()
			if err == nil || !contains(err.Error(), tc.flag) {
				t.Fatalf("error %v should name %s", err, tc.flag)
			}
		})
	}
}

func contains(s, sub string) bool {
	return len(s) >= len(sub) && (s == sub || len(sub) == 0 || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// fakeTerminals is a TerminalRunner with fixed keying and think times.
// Its first `gather` keyings each wait until all of them have begun (or
// giveUp is closed): they can only all begin if that many terminals key in
// at once.
type fakeTerminals struct {
	fakeRunner
	keying, think time.Duration
	mu            sync.Mutex
	seen          map[int]bool
	gather        int
	keyings       int
	gathered      chan struct{}
	giveUp        <-chan struct{}
	together      bool
}

func (f *fakeTerminals) PickOp(*rand.Rand) int { return 0 }
func (f *fakeTerminals) Keying(int) time.Duration {
	f.mu.Lock()
	f.keyings++
	n := f.keyings
	if n == f.gather {
		f.together = true
		close(f.gathered)
	}
	f.mu.Unlock()
	if n <= f.gather {
		select {
		case <-f.gathered:
		case <-f.giveUp:
		}
	}
	return f.keying
}
func (f *fakeTerminals) Think(int, *rand.Rand) time.Duration { return f.think }
func (f *fakeTerminals) NewWorker(_ context.Context, c db.Conn, id int) (workload.Worker, error) {
	return &termWorker{fakeWorker: fakeWorker{r: &f.fakeRunner, conn: c.(*fakeConn), id: id}, f: f}, nil
}

type termWorker struct {
	fakeWorker
	f *fakeTerminals
}

func (w *termWorker) Prepare(term, op int) {
	w.f.mu.Lock()
	w.f.seen[term] = true
	w.f.mu.Unlock()
}

func TestTerminalsSharingFewConnectionsArePacedByKeyingAndThinkTimes(t *testing.T) {
	cfg := baseConfig()
	// Fixed work: 200 terminals, 3 transactions each.
	cfg.Clients, cfg.Terminals, cfg.ThinkTimes, cfg.Duration, cfg.Transactions = 2, 200, true, 0, 3
	giveUp, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &fakeTerminals{fakeRunner: fakeRunner{ops: []string{"a"}}, keying: 20 * time.Millisecond, think: 80 * time.Millisecond,
		seen: map[int]bool{}, gather: 200, gathered: make(chan struct{}), giveUp: giveUp.Done()}
	d := &fakeDB{}
	res, err := Run(context.Background(), d, f, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := total(res.Ops); n != 600 {
		t.Fatalf("%d transactions, want 200 terminals x 3", n)
	}
	// The terminals key in concurrently: all 200 were keying at once (if
	// they were serialised, on the two connections or otherwise, no more
	// than a few could be).
	if !f.together {
		t.Errorf("the 200 terminals never all keyed in at once")
	}
	// Each terminal is paced: it keys in before and thinks after each of its
	// transactions, so it cannot finish its 3 in less than 3 x 100 ms; a
	// busy machine can only make it later.
	for i, s := range res.ClientSeconds {
		if s < 0.3 {
			t.Fatalf("terminal %d finished its 3 transactions in %.3fs; keying and think times take 0.3s", i, s)
		}
	}
	if len(res.ClientSeconds) != 200 || len(f.seen) != 200 {
		t.Errorf("%d terminals ran (%d finish times), want 200", len(f.seen), len(res.ClientSeconds))
	}
	if d.connects.Load() != 2 {
		t.Errorf("%d connections, want 2 shared by the terminals", d.connects.Load())
	}
}

func TestTerminalsNeedATerminalWorkload(t *testing.T) {
	cfg := baseConfig()
	cfg.Terminals = 10
	if _, err := Run(context.Background(), &fakeDB{}, &fakeRunner{ops: []string{"a"}}, cfg, nil, nil); err == nil {
		t.Fatal("a workload without terminals ran in terminal mode")
	}
}

func TestFixedWorkReportsEachClientsTime(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration, cfg.Transactions, cfg.Clients = 0, 20, 3
	// Client 2 is slow: it starts its transactions only once the other
	// two have finished theirs and closed their connections, and then
	// takes 5 ms over each.
	d := &fakeDB{}
	others := make(chan struct{})
	var closeOnce sync.Once
	d.onClose = func() {
		if d.closed.Add(1) == 2 {
			closeOnce.Do(func() { close(others) })
		}
	}
	r := &fakeRunner{ops: []string{"a"}, fail: func(w *fakeWorker, _ int) error {
		if w.id == 2 {
			<-others
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	}}
	res, err := Run(context.Background(), d, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ClientSeconds) != 3 {
		t.Fatalf("client times %v", res.ClientSeconds)
	}
	if cs := res.ClientSeconds; cs[2] < 0.1 || cs[0] >= cs[2] || cs[1] >= cs[2] {
		t.Fatalf("client times %v: the slow client, which finished last after 20 x 5 ms, should stand out", cs)
	}
}

// A shard that wakes after the group's agreed instant (here: an instant
// already 300 ms past when Begin returns it) starts its clock at that
// instant, not when it woke: its intervals stay aligned with the other
// shards', the lateness is the Result's StartLate, and in open loop the
// transactions it owed meanwhile start late and count the lag.
func TestARunThatWakesLateForItsAgreedStartKeepsTheInstantAndCountsTheLateness(t *testing.T) {
	cfg := baseConfig()
	cfg.Rate, cfg.Duration = 1000, 500*time.Millisecond
	var agreed time.Time
	cfg.Begin = func(context.Context) (time.Time, error) {
		agreed = time.Now().Add(-300 * time.Millisecond)
		return agreed, nil
	}
	r := &fakeRunner{ops: []string{"a"}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Start.Equal(agreed) {
		t.Fatalf("the run started %s after the agreed instant; want at it", res.Start.Sub(agreed))
	}
	if res.StartLate < 300*time.Millisecond {
		t.Errorf("StartLate %s; the run woke at least 300ms after the instant", res.StartLate)
	}
	// The schedule's first arrivals were due before the run woke: their
	// transactions started at least 250 ms late.
	if res.Lag == nil || res.Lag.Max() < 250_000 {
		t.Errorf("the largest lag is %v µs; the arrivals due before the run woke started late", res.Lag.Max())
	}
	// Its first transaction, due at the first arrival (a millisecond or
	// so after the instant), began no sooner than it woke.
	if !res.FirstTx || res.FirstTxLate < 250*time.Millisecond {
		t.Errorf("the first transaction began %s after the instant (%v), the run woke %s after it", res.FirstTxLate, res.FirstTx, res.StartLate)
	}
	// An instant still ahead is waited for, and is the start too, however
	// late the timer wakes the process.
	cfg.Begin = func(context.Context) (time.Time, error) {
		agreed = time.Now().Add(50 * time.Millisecond)
		return agreed, nil
	}
	res, err = Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Start.Equal(agreed) {
		t.Errorf("the run started %s after the agreed instant; want at it", res.Start.Sub(agreed))
	}
}

// A run's first transaction is late by the time from when it was due to
// when it began: a closed-loop client's at the agreed instant, so that a
// process that woke 300 ms after it records at least that; a terminal's
// after its first keying time too, which is no lateness.
func TestTheFirstTransactionsLatenessCountsFromWhenItWasDue(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration = time.Second
	cfg.Begin = func(context.Context) (time.Time, error) { return time.Now().Add(-300 * time.Millisecond), nil }
	res, err := Run(context.Background(), &fakeDB{}, &fakeRunner{ops: []string{"a"}}, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.FirstTx || res.FirstTxLate < 300*time.Millisecond {
		t.Errorf("the first transaction began %s after the instant (%v); the run woke at least 300ms after it", res.FirstTxLate, res.FirstTx)
	}
	t.Logf("woke %s after the instant, first transaction %s after it", res.StartLate, res.FirstTxLate)

	// Terminals that key in for 500 ms before their first transaction:
	// the keying is not lateness, so a run that started on time records
	// less than it (with keying counted it would be more).
	cfg = baseConfig()
	cfg.Clients, cfg.Terminals, cfg.ThinkTimes, cfg.Duration, cfg.Transactions = 2, 4, true, 0, 1
	f := &fakeTerminals{fakeRunner: fakeRunner{ops: []string{"a"}}, keying: 500 * time.Millisecond, seen: map[int]bool{}}
	if res, err = Run(context.Background(), &fakeDB{}, f, cfg, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !res.FirstTx || res.FirstTxLate >= 500*time.Millisecond {
		t.Errorf("the terminals' first transaction began %s after it was due (%v); its 500ms keying counted as lateness", res.FirstTxLate, res.FirstTx)
	}
	t.Logf("terminals: first transaction %s after its keying time", res.FirstTxLate)
}

// The measured phase ends when its last transaction did: the clients'
// own ending (here each takes 2 s to close its connection, as thousands
// of idle open-loop clients together can, well within the stop grace) is
// not measured time, or the throughput would be understated.
func TestTheClientsEndingIsNotMeasuredTime(t *testing.T) {
	cfg := baseConfig()
	cfg.Clients, cfg.Duration, cfg.StopGrace = 4, 300*time.Millisecond, time.Minute
	r := &fakeRunner{ops: []string{"a"}, work: time.Millisecond}
	res, err := Run(context.Background(), &fakeDB{onClose: func() { time.Sleep(2 * time.Second) }}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Seconds(); s < cfg.Duration.Seconds() || s >= cfg.Duration.Seconds()+2 {
		t.Errorf("measured %.3fs; want the %s of the run, not the 2 s its clients took to end", s, cfg.Duration)
	}
}

// A run stopped before its clock started says when: while its clients
// were connecting, or once they all had, while it waited for the start
// Begin agrees (a shard waiting for its group).
func TestARunStoppedBeforeItsClockStartedSaysWhen(t *testing.T) {
	stopSoon := func() chan struct{} {
		stop := make(chan struct{})
		time.AfterFunc(100*time.Millisecond, func() { close(stop) })
		return stop
	}
	wait := func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}
	r := &fakeRunner{ops: []string{"a"}}
	cfg := baseConfig()
	_, err := Run(context.Background(), &fakeDB{onConnect: wait}, r, cfg, nil, stopSoon())
	if !errors.Is(err, ErrStopped) || err.Error() != "stopped before every client had connected" {
		t.Errorf("stopped while connecting: %v", err)
	}
	cfg.Begin = func(ctx context.Context) (time.Time, error) { return time.Time{}, wait(ctx) }
	d := &fakeDB{}
	d.onClose = func() { d.closed.Add(1) }
	_, err = Run(context.Background(), d, r, cfg, nil, stopSoon())
	if !errors.Is(err, ErrStopped) || err.Error() != "stopped after every client had connected, while waiting for the agreed start" {
		t.Errorf("stopped at the agreed start: %v", err)
	}
	if n := d.connects.Load(); n != int64(cfg.Clients) || d.closed.Load() != n {
		t.Errorf("%d clients connected and %d connections closed; want all of them", n, d.closed.Load())
	}
}

// A client that moves to another loop takes that loop's histograms, the
// warm-up's early ones too: it records into no histogram of the loop it
// left, whose clients go on recording into them from that loop's thread.
func TestAClientThatMovesTakesItsNewLoopsHistograms(t *testing.T) {
	ops := []string{"op"}
	reg, lagReg, earlyReg := histogram.NewRegistry(ops), histogram.NewRegistry([]string{"lag"}), histogram.NewRegistry(ops)
	const clients, loops = 8, 2
	hs, lags, _ := recorders(reg, lagReg, clients, loops)
	early, _, _ := recorders(earlyReg, nil, clients, loops)
	cs := make([]*client, clients)
	for i := range cs {
		cs[i] = &client{id: i, h: hs[i], lag: lags[i], early: early[i]}
	}
	p := newPlacer(make([]*evloop.Loop, loops), nil, cs, false)
	p.seatAll(cs)
	first, last := cs[0], cs[clients-1]
	if first.loopIdx == last.loopIdx {
		t.Fatalf("clients 0 and %d were dealt the same loop %d", clients-1, first.loopIdx)
	}
	p.seat(first, last.loopIdx)
	same := func(a, b histogram.Handle) bool { return len(a) > 0 && len(b) > 0 && a[0] == b[0] }
	if first.loopIdx != last.loopIdx || !same(first.h, last.h) || !same(first.lag, last.lag) || !same(first.early, last.early) {
		t.Errorf("client 0 moved to loop %d: loop %d, and the histograms of that loop's clients: latency %v, lag %v, early %v; want all true",
			last.loopIdx, first.loopIdx, same(first.h, last.h), same(first.lag, last.lag), same(first.early, last.early))
	}
}
