package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/workload"
)

// phaseReads calls a workload's PhaseReader at the bounds of the measured
// phase: MeasureStart when the clock starts (no warm-up) or when the
// warm-up ends, MeasureEnd from end, right after the clients have stopped.
// It is the run's observer, passing every call on to the one it wraps.
type phaseReads struct {
	loadgen.Observer
	ctx    context.Context
	pr     workload.PhaseReader
	conn   db.Conn
	warmup time.Duration
	warn   func(format string, args ...any)

	mu      sync.Mutex // held while a reading runs
	timer   *time.Timer
	started bool
	ended   bool
}

// startPhaseReads opens the readings' connection and returns the observer
// to run with; nil (and a warning) when it cannot connect, so that the run
// goes on without the workload's phase figures.
func startPhaseReads(ctx context.Context, warnf func(format string, args ...any), d db.DB, pr workload.PhaseReader, warmup time.Duration,
	inner loadgen.Observer) *phaseReads {
	conn, err := connect(ctx, d)
	if err != nil {
		warnf("the figures read at the bounds of the measured phase are left out: %v", err)
		return nil
	}
	return &phaseReads{Observer: inner, ctx: ctx, pr: pr, conn: conn, warmup: warmup, warn: warnf}
}

// OnStart implements loadgen.StartObserver.
func (p *phaseReads) OnStart(t time.Time) {
	if so, ok := p.Observer.(loadgen.StartObserver); ok {
		so.OnStart(t)
	}
	if p.warmup <= 0 {
		p.start()
		return
	}
	p.mu.Lock()
	p.timer = time.AfterFunc(time.Until(t.Add(p.warmup)), p.start)
	p.mu.Unlock()
}

func (p *phaseReads) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.started = true
	if err := p.pr.MeasureStart(p.ctx, p.conn); err != nil {
		p.warn("reading the counters at the start of the measured phase: %v", err)
	}
}

// end reads the counters at the end of the measured phase (if it started)
// and closes the connection; it waits for a start reading in progress.
func (p *phaseReads) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	if p.timer != nil {
		p.timer.Stop()
	}
	if p.started {
		if err := p.pr.MeasureEnd(p.ctx, p.conn); err != nil {
			p.warn("reading the counters at the end of the measured phase: %v", err)
		}
	}
	if err := p.conn.Close(); err != nil {
		p.warn("%v", fmt.Errorf("close the counters' connection: %w", err))
	}
}
