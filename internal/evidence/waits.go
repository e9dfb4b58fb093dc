package evidence

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// SampledWaits is a wait profile built by sampling the server's session
// list for the harness's sessions every Period, on its own connection: each
// session seen counts one sample under the event the query returns for it.
type SampledWaits struct {
	DB     db.DB
	Period time.Duration
	// Query returns one row per harness session: its event.
	Query string
	Args  []any
	// Setup runs once on the sampler's connection before sampling.
	Setup func(ctx context.Context, c db.Conn) error
	// How says how the profile is measured (its Method).
	How string
	// Blockers, when set, reads the sessions that block the harness's;
	// it runs only after a sample in which a session waited on a lock
	// (LockWait), so that sampling stays cheap while none does.
	Blockers BlockerQuery

	blk blockers

	conn   db.Conn
	mu     sync.Mutex
	counts map[string]float64
	stopC  chan struct{}
	done   chan struct{}
	err    error
}

// Method implements WaitProfiler.
func (w *SampledWaits) Method() string { return w.How }

// Unit implements WaitProfiler.
func (w *SampledWaits) Unit() string { return "samples" }

// Start implements WaitProfiler.
func (w *SampledWaits) Start(ctx context.Context) error {
	if w.Period <= 0 {
		w.Period = 100 * time.Millisecond
	}
	c, err := w.DB.Connect(ctx)
	if err != nil {
		return err
	}
	w.conn, w.err = c, nil
	w.counts = map[string]float64{}
	if w.Setup != nil {
		if err := w.Setup(ctx, c); err != nil {
			c.Close()
			w.conn = nil
			return err
		}
	}
	if err := w.sample(ctx); err != nil {
		c.Close()
		w.conn = nil
		return err
	}
	w.counts = map[string]float64{}
	w.blk.cut()
	w.stopC, w.done = make(chan struct{}), make(chan struct{})
	go w.loop()
	return nil
}

// sampleTimeout bounds one sample of the session list, as long as the
// collector's bound on a sample of any other source. One that fails makes
// the interval's profile incomplete (Cut), a gap, so it is long beside the
// period: on a busy host a sample that takes a second or two is not a
// server that stopped answering; the ticker drops the ticks it misses
// meanwhile.
const sampleTimeout = 5 * time.Second

func (w *SampledWaits) loop() {
	defer close(w.done)
	t := time.NewTicker(w.Period)
	defer t.Stop()
	for {
		select {
		case <-w.stopC:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), sampleTimeout)
			if err := w.sample(ctx); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
			}
			cancel()
		}
	}
}

func (w *SampledWaits) sample(ctx context.Context) error {
	rows, err := w.conn.Query(ctx, w.Query, w.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			return err
		}
		got = append(got, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	for _, e := range got {
		w.counts[e]++
	}
	w.mu.Unlock()
	if w.Blockers != nil && slices.ContainsFunc(got, LockWait) {
		w.sampleBlockers(ctx)
	}
	return nil
}

// sampleBlockers reads the blockers of the sample just taken. A failure
// leaves the wait profile whole: it is kept as why blockers are missing.
func (w *SampledWaits) sampleBlockers(ctx context.Context) {
	list, err := w.Blockers(ctx, w.conn)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if w.blk.why == "" {
			w.blk.why = err.Error()
		}
		return
	}
	w.blk.add(list)
}

// CutBlockers implements BlockerWatcher.
func (w *SampledWaits) CutBlockers() ([]BlockerSeen, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.blk.cut()
}

// SamplePeriod implements BlockerWatcher.
func (w *SampledWaits) SamplePeriod() time.Duration { return w.Period }

// Cut implements WaitProfiler. It fails when a sample since the last cut
// failed: the profile of the interval is incomplete, and the collector
// starts the profiler again.
func (w *SampledWaits) Cut(context.Context) (map[string]float64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.counts
	w.counts = map[string]float64{}
	err := w.err
	w.err = nil
	return out, err
}

// Stop implements WaitProfiler.
func (w *SampledWaits) Stop() error {
	if w.stopC != nil {
		close(w.stopC)
		<-w.done
		w.stopC = nil
	}
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
	return nil
}

// WaitDeltas is what a cumulative wait profile (wait time by event)
// gained from prev to cur: the increases, positive ones only (an event
// whose total went down was reset, by the server's restart or a reset of
// its statistics).
func WaitDeltas(prev, cur map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range cur {
		if d := v - prev[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}
