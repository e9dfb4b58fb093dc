package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/workload"
)

// phaseLog is a PhaseReader that records the calls it gets.
type phaseLog struct {
	mu    sync.Mutex
	calls []string
}

func (p *phaseLog) add(s string) {
	p.mu.Lock()
	p.calls = append(p.calls, s)
	p.mu.Unlock()
}

func (p *phaseLog) got() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.calls...)
}

func (p *phaseLog) BeforeRun(context.Context, *workload.Env, db.Conn) error { return nil }
func (p *phaseLog) AfterRun(context.Context, *workload.Env, db.Conn, workload.Totals) (map[string]float64, error) {
	return nil, nil
}
func (p *phaseLog) MeasureStart(context.Context, db.Conn) error { p.add("start"); return nil }
func (p *phaseLog) MeasureEnd(context.Context, db.Conn) error   { p.add("end"); return nil }

// closeConn is a connection that only records being closed.
type closeConn struct {
	db.Conn
	closed bool
}

func (c *closeConn) Close() error { c.closed = true; return nil }

// innerObs records what the wrapped observer receives.
type innerObs struct{ log *phaseLog }

func (o innerObs) OnStart(time.Time)       { o.log.add("inner start") }
func (o innerObs) OnTick(tk *loadgen.Tick) { o.log.add("inner tick") }

func newPhaseReads(warmup time.Duration) (*phaseReads, *phaseLog, *closeConn) {
	log, conn := &phaseLog{}, &closeConn{}
	return &phaseReads{Observer: innerObs{log}, ctx: context.Background(), pr: log, conn: conn, warmup: warmup,
		warn: func(string, ...any) { log.add("warning") }}, log, conn
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPhaseReadsBoundTheMeasuredPhase(t *testing.T) {
	t.Run("without warm-up the start is read before the clock's start returns", func(t *testing.T) {
		p, log, conn := newPhaseReads(0)
		p.OnStart(time.Now())
		if got := log.got(); !equal(got, []string{"inner start", "start"}) {
			t.Fatalf("calls %v", got)
		}
		p.OnTick(&loadgen.Tick{})
		p.end()
		if got := log.got(); !equal(got, []string{"inner start", "start", "inner tick", "end"}) || !conn.closed {
			t.Fatalf("calls %v, connection closed %v", got, conn.closed)
		}
	})
	t.Run("with a warm-up the start is read when it ends", func(t *testing.T) {
		p, log, _ := newPhaseReads(time.Millisecond)
		p.OnStart(time.Now())
		for deadline := time.Now().Add(30 * time.Second); len(log.got()) < 2; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no start reading after the warm-up: %v", log.got())
			}
		}
		p.end()
		if got := log.got(); !equal(got, []string{"inner start", "start", "end"}) {
			t.Fatalf("calls %v", got)
		}
	})
	t.Run("a run that ends in its warm-up reads nothing", func(t *testing.T) {
		p, log, conn := newPhaseReads(time.Hour)
		p.OnStart(time.Now())
		p.end()
		if got := log.got(); !equal(got, []string{"inner start"}) || !conn.closed {
			t.Fatalf("calls %v, connection closed %v", got, conn.closed)
		}
	})
	t.Run("a run whose clients never started reads nothing", func(t *testing.T) {
		p, log, conn := newPhaseReads(0)
		p.end()
		if got := log.got(); len(got) != 0 || !conn.closed {
			t.Fatalf("calls %v, connection closed %v", got, conn.closed)
		}
	})
}
