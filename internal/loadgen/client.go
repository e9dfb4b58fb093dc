package loadgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/workload"
)

// ClassCancelled is the error class of the transactions still in flight
// when the run ended and its grace was over: they were cancelled.
const ClassCancelled = "cancelled"

// schedule is the open-loop arrival schedule shared by every client:
// exponential gaps with mean 1/rate, a Poisson process.
type schedule struct {
	mu   sync.Mutex
	next time.Time
	mean float64 // ns
	rng  *rand.Rand
}

// scheduleSeed is the seed of the open-loop arrivals: the run's, mixed with
// the id of its first client, so that the shards of a group (each its own
// first client) draw independent streams, and a run of one process the
// same as before shards.
func scheduleSeed(cfg *Config) uint64 {
	return cfg.Seed ^ uint64(cfg.ClientBase)*0x9e3779b97f4a7c15
}

func newSchedule(start time.Time, rate float64, seed uint64) *schedule {
	return &schedule{next: start, mean: 1e9 / rate, rng: rand.New(rand.NewPCG(seed, 0x5ced))}
}

// Next returns the intended start time of the next transaction.
func (s *schedule) Next() time.Time {
	s.mu.Lock()
	s.next = s.next.Add(time.Duration(s.rng.ExpFloat64() * s.mean))
	t := s.next
	s.mu.Unlock()
	return t
}

type client struct {
	id      int
	d       db.DB
	connect func(context.Context) (db.Conn, error)
	r       workload.Runner
	cfg     *Config
	conn    db.Conn
	w       workload.Worker
	h, lag  histogram.Handle
	// early, with a warm-up, takes the latencies of transactions that end
	// in the measured phase while gate is still false: the ticker has not
	// yet closed the warm-up's last interval, and h is still the warm-up's.
	early histogram.Handle
	gate  *atomic.Bool
	// hmu, when set, guards h and lag, which the client shares with other
	// goroutine clients (recordGroups).
	hmu      *sync.Mutex
	st       *workerStats
	sched    *schedule
	stopping *atomic.Bool
	// hardStop is set when the stop grace is over and transactions in
	// flight are being cancelled.
	hardStop *atomic.Bool
	stopC    <-chan struct{} // closed with stopping
	// fail ends the run as failed, saying why.
	fail         func(msg string)
	measureStart time.Time
	deadline     time.Time
	// start is the run's start (the agreed instant of a shard), when the
	// client's first transaction is due (open loop: its arrival, if
	// later); first notes how late it began, and begun says it has.
	start time.Time
	first *firstLate
	begun bool
	// byRequest: statements run under a never-cancelled context (cheaper
	// for the driver) and are cancelled with Conn.Cancel at a hard stop.
	byRequest bool
	live      atomic.Value // liveConn: the connection, for cancelStatement
	// task is the client's coroutine in loop mode (nil on goroutines), and
	// taskCtx the context its statements run under.
	task    *evloop.Task
	taskCtx context.Context
	// measured counts the client's transactions begun in the measured
	// phase (run's; terminals count their own), and ended is when its last
	// transaction ended.
	measured int64
	ended    time.Time
	// loopIdx is the index of the client's loop, and seat its place in
	// the placer's watch (nil: the client stays where it is).
	loopIdx int
	seat    *seat
	// extra is the client's statement and connection clocks, with -r or
	// -C (nil otherwise).
	extra *extraClock
}

// setWorker makes w the client's worker, giving it the statement clock
// when the run times statements.
func (c *client) setWorker(w workload.Worker) {
	c.w = w
	if c.extra != nil && c.cfg.ReportStatements {
		if tw, ok := w.(workload.TimedWorker); ok {
			tw.TimeStatements(c.extra)
		}
	}
}

type liveConn struct{ c db.Conn }

// setConn replaces the client's connection.
func (c *client) setConn(conn db.Conn) {
	c.conn = conn
	c.live.Store(liveConn{conn})
}

// cancelStatement cancels the statement the client is running, from
// another goroutine, where the engine cancels by request.
func (c *client) cancelStatement() {
	if !c.byRequest {
		return
	}
	if lc, ok := c.live.Load().(liveConn); ok && lc.c != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_ = lc.c.Cancel(ctx)
		}()
	}
}

// abort closes the socket of a goroutine client whose transaction is still
// in flight, where the connection can (db.Aborter); loops abort their own
// clients.
func (c *client) abort() {
	if c.st.busySince.Load() == 0 {
		return
	}
	if lc, ok := c.live.Load().(liveConn); ok {
		if a, ok := lc.c.(db.Aborter); ok {
			a.Abort()
		}
	}
}

// stmtCtx is the context statements run under.
func (c *client) stmtCtx(ctx context.Context) context.Context {
	if c.task != nil {
		return c.taskCtx
	}
	if c.byRequest {
		return context.Background()
	}
	return ctx
}

func (c *client) loop(ctx context.Context) {
	defer c.finish()
	c.run(ctx)
}

// run runs transactions until the client's end, or until it is to move
// to another loop: then it returns that loop's index (else -1), between
// transactions.
func (c *client) run(ctx context.Context) (moveTo int) {
	for !c.stopping.Load() {
		if c.cfg.Transactions > 0 && c.measured >= c.cfg.Transactions {
			return -1
		}
		var intended time.Time
		if c.sched != nil {
			intended = c.sched.Next()
			if !c.deadline.IsZero() && intended.After(c.deadline) {
				// No arrival left before the deadline: wait for it, so
				// that the measured phase is the duration asked for.
				c.sleep(time.Until(intended))
				return -1
			}
			if !c.sleep(time.Until(intended)) {
				return -1
			}
		}
		if c.cfg.ConnectPerTx && c.conn == nil && !c.connectTx(ctx) {
			return -1
		}
		if h, ok := c.w.(workload.Holder); ok && !c.hold(h) {
			return -1
		}
		op := c.w.Next()
		var due *time.Time
		if !c.begun {
			c.begun = true
			d := later(c.start, intended)
			due = &d
		}
		if !c.execute(ctx, op, intended, due, &c.measured) {
			return -1
		}
		if c.cfg.ConnectPerTx && c.conn != nil {
			c.conn.Close()
			c.setConn(nil)
		}
		if th, ok := c.w.(workload.Thinker); ok {
			if d := th.ThinkTime(op); d > 0 && !c.sleep(d) {
				return -1
			}
		}
		if c.seat != nil && !c.ended.Before(c.seat.next) {
			if to := c.seat.look(c); to >= 0 {
				return to
			}
		}
	}
	return -1
}

// hold waits while a scripted worker says to, and reports whether the
// client goes on (false: its script is done, or the run stops).
func (c *client) hold(h workload.Holder) bool {
	for {
		wait, done := h.Hold()
		switch {
		case done:
			return false
		case wait <= 0:
			return !c.stopping.Load()
		case !c.sleep(wait):
			return false
		}
	}
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// finish closes the client's connection and notes when it finished.
func (c *client) finish() {
	if c.conn != nil {
		c.conn.Close()
		c.setConn(nil)
	}
	c.st.finished.Store(time.Now().UnixNano())
}

// execute runs one transaction of type op (already drawn), with retries,
// and records it. intended is its intended start (zero: now); due, when
// set, says that it is the caller's first transaction, due then (the run
// notes how late it began). It returns false when the client must stop.
func (c *client) execute(ctx context.Context, op int, intended time.Time, due *time.Time, measured *int64) bool {
	begin := time.Now()
	if !c.deadline.IsZero() && begin.After(c.deadline) {
		// Past the deadline: no transaction starts, however late the
		// load generator's timer sees it.
		return false
	}
	if due != nil {
		c.first.note(begin, *due)
	}
	if intended.IsZero() {
		intended = begin
	} else if c.lag != nil {
		c.record(c.lag, 0, begin.Sub(intended))
	}
	c.st.busySince.Store(begin.UnixNano())
	if c.extra != nil {
		c.extra.on = begin.After(c.measureStart)
	}
	sctx := c.stmtCtx(ctx)
	err := c.w.Do(sctx, op)
	for try := 1; err != nil && try < c.cfg.MaxTries; try++ {
		if !c.d.Classify(err).Retryable || ctx.Err() != nil {
			break
		}
		c.st.retries[op].Add(1)
		err = c.w.Do(sctx, op)
	}
	end := time.Now()
	c.ended = end
	c.st.busySince.Store(0)
	c.st.lastEnd.Store(int64(end.Sub(c.measureStart)))
	// A transaction belongs to the phase it ends in: counted towards
	// --transactions, and recorded with the measured phase's however late
	// the ticker closes the warm-up.
	inMeasure := end.After(c.measureStart)
	if inMeasure {
		*measured++
	}
	if err == nil {
		lat := end.Sub(intended)
		h := c.h
		if inMeasure && c.early != nil {
			if c.gate.Load() {
				c.early = nil // the gate stays open: no more loads of it
			} else {
				h = c.early
			}
		}
		c.record(h, op, lat)
		if c.cfg.LatencyLimit > 0 && lat > c.cfg.LatencyLimit {
			c.st.late[op].Add(1)
		}
		return true
	}
	if c.hardStop != nil && c.hardStop.Load() || ctx.Err() != nil {
		// Still in flight when the run's grace ended: cancelled.
		c.st.errors[op].Add(1)
		c.st.addClass(ClassCancelled, err)
		return false
	}
	class := c.d.Classify(err)
	c.st.errors[op].Add(1)
	c.st.addClass(class.Code, err)
	if class.ConnLost || !c.conn.Alive() {
		return c.reconnect(ctx)
	}
	return true
}

// sleep waits for d or until the run stops; it reports whether to go on.
func (c *client) sleep(d time.Duration) bool {
	if d <= 0 {
		return !c.stopping.Load()
	}
	if c.task != nil {
		return c.task.Sleep(d) && !c.stopping.Load()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !c.stopping.Load()
	case <-c.stopC:
		return false
	}
}

// reconnect replaces a lost connection, backing off from 50 ms to 2 s
// between attempts, until it succeeds, the run stops, or the reconnect
// timeout is over (which fails the run). The time without a connection is
// kept for the run's outages.
func (c *client) reconnect(ctx context.Context) bool {
	began := time.Now()
	c.st.wentDown(began)
	if c.conn != nil {
		c.conn.Close()
		c.setConn(nil)
	}
	limit := c.cfg.reconnectLimit()
	backoff := 50 * time.Millisecond
	for !c.stopping.Load() && ctx.Err() == nil {
		conn, w, err := c.open(ctx, false)
		if conn != nil {
			c.setConn(conn)
			c.setWorker(w)
			c.st.reconnects.Add(1)
			c.st.cameUp(time.Now(), false)
			return true
		}
		wait := backoff
		if limit > 0 {
			left := limit - time.Since(began)
			if left <= 0 {
				c.fail(fmt.Sprintf("client %d could not connect again within the reconnect timeout (%s): %v",
					c.id+1, limit, err))
				break
			}
			wait = min(wait, left) // one last try at the limit
		}
		if !c.sleep(wait) {
			break
		}
		backoff = min(backoff*2, 2*time.Second)
	}
	c.st.cameUp(time.Now(), true)
	return false
}

// connectTx opens the connection of the client's next transaction (-C),
// keeping its worker's state (workload.Rebinder), and records the time it
// took. A connection that cannot be opened is an outage, as a lost one:
// the client reconnects as after one (with a fresh worker) or stops.
func (c *client) connectTx(ctx context.Context) bool {
	began := time.Now()
	conn, _, err := c.open(ctx, true)
	if err != nil || conn == nil {
		return c.reconnect(ctx)
	}
	c.extra.connected(began.After(c.measureStart), time.Since(began))
	c.setConn(conn)
	return true
}

// open connects and makes a worker on the new connection, or returns why
// it could not; with rebind it moves the client's worker to the new
// connection instead (-C). On a loop the connection is opened on a
// goroutine (Offload) while the other clients go on, and then attached to
// the client's task.
func (c *client) open(ctx context.Context, rebind bool) (db.Conn, workload.Worker, error) {
	var conn db.Conn
	var w workload.Worker
	var err error
	dial := func() {
		cctx, cancel := context.WithTimeout(ctx, clientSetupTimeout)
		defer cancel()
		if conn, err = c.connect(cctx); err != nil {
			conn = nil
			return
		}
		if rebind {
			w, err = c.w, c.r.(workload.Rebinder).Rebind(cctx, c.w, conn)
		} else {
			w, err = c.r.NewWorker(cctx, conn, c.cfg.ClientBase+c.id)
		}
		if err != nil {
			conn.Close()
			conn = nil
		}
	}
	if c.task == nil {
		dial()
		return conn, w, err
	}
	c.task.Offload(dial)
	if conn != nil {
		if err = c.attach(conn); err != nil {
			conn.Close()
			return nil, nil, err
		}
	}
	return conn, w, err
}

// record adds one latency to h (the client's h or lag), under the
// client's group lock if it shares h.
func (c *client) record(h histogram.Handle, op int, d time.Duration) {
	if c.hmu == nil {
		h.Record(op, d)
		return
	}
	c.hmu.Lock()
	h.Record(op, d)
	c.hmu.Unlock()
}
