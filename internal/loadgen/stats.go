package loadgen

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/measure"
)

// workerStats are one worker's counters; the ticker reads them. The pads
// keep the fields a client writes on every transaction (busySince,
// lastEnd) off the cache lines of the next client's, which may run on
// another event loop's thread.
type workerStats struct {
	_                     [128]byte
	errors, retries, late []atomic.Int64
	reconnects            atomic.Int64
	down                  atomic.Bool
	finished              atomic.Int64 // unix ns when the client stopped
	// lastEnd is when the client's last transaction ended, as time since
	// the measured phase's start (which keeps the monotonic clock);
	// noEnd until one has.
	lastEnd atomic.Int64
	// busySince is when the transaction in flight began (unix ns), 0
	// between transactions.
	busySince atomic.Int64
	mu        sync.Mutex
	classes   map[string]int64
	samples   map[string]string
	// downs are the client's spans without a connection.
	downs []measure.Span
	_     [128]byte
}

// noEnd is workerStats.lastEnd before the client's first transaction ends.
const noEnd = math.MinInt64

// lastEnd is when the last of the clients' transactions ended, or the
// stop if that was later (zero when no transaction ended and the run was
// not stopped).
func lastEnd(stats []*workerStats, measureStart, stoppedAt time.Time) time.Time {
	end := stoppedAt
	for _, s := range stats {
		v := s.lastEnd.Load()
		if v == noEnd {
			continue
		}
		if e := measureStart.Add(time.Duration(v)); end.IsZero() || e.After(end) {
			end = e
		}
	}
	return end
}

// firstLate holds how late the run's first transaction began: from when
// the first was due (the earliest of the clients' or terminals' first
// transactions' due times) to when the first began (the earliest of
// their beginnings). A process held back delays them all; an open-loop
// client whose first arrival comes after the others' does not count as
// late for it.
type firstLate struct {
	start      time.Time
	begin, due atomic.Int64 // the earliest, as time since start; noFirst until one
}

// noFirst is firstLate's times before any transaction has begun.
const noFirst = math.MaxInt64

func newFirstLate(start time.Time) *firstLate {
	f := &firstLate{start: start}
	f.begin.Store(noFirst)
	f.due.Store(noFirst)
	return f
}

// note records a client's first transaction, begun at begin, due at due
// (the run's start, or later: an open-loop arrival, a terminal's first
// keying time).
func (f *firstLate) note(begin, due time.Time) {
	lower(&f.begin, int64(begin.Sub(f.start)))
	lower(&f.due, int64(due.Sub(f.start)))
}

// lower sets v to d if d is lower.
func lower(v *atomic.Int64, d int64) {
	for {
		old := v.Load()
		if d >= old || v.CompareAndSwap(old, d) {
			return
		}
	}
}

// get is the lateness, and whether any transaction began.
func (f *firstLate) get() (time.Duration, bool) {
	b, d := f.begin.Load(), f.due.Load()
	if b == noFirst {
		return 0, false
	}
	return time.Duration(max(0, b-d)), true
}

// stalled says whether every client still running and connected has
// been inside its transaction for longer than lim at now (and at least
// one is).
func stalled(stats []*workerStats, now time.Time, lim time.Duration) bool {
	waiting := 0
	for _, s := range stats {
		if s.finished.Load() != 0 || s.down.Load() {
			continue
		}
		b := s.busySince.Load()
		if b == 0 || now.Sub(time.Unix(0, b)) <= lim {
			return false
		}
		waiting++
	}
	return waiting > 0
}

// wentDown and cameUp bound a span without a connection; open says the
// client never got one back.
func (s *workerStats) wentDown(at time.Time) {
	s.down.Store(true)
	s.mu.Lock()
	s.downs = append(s.downs, measure.Span{From: at})
	s.mu.Unlock()
}

func (s *workerStats) cameUp(at time.Time, open bool) {
	s.mu.Lock()
	if n := len(s.downs); n > 0 {
		s.downs[n-1].To, s.downs[n-1].Open = at, open
	}
	s.mu.Unlock()
	s.down.Store(false)
}

func (s *workerStats) addClass(code string, err error) {
	s.mu.Lock()
	s.classes[code]++
	if _, ok := s.samples[code]; !ok {
		s.samples[code] = err.Error()
	}
	s.mu.Unlock()
}
