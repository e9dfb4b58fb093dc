package runner

import (
	"context"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
)

// serverCPU profiles the server's processes over the measured phase
// (--collect server-cpu): perf starts before the clients connect, and
// the profile keeps its samples from the end of the warm-up (or the start
// of the clock) to the end of the run.
type serverCPU struct {
	prof   *collect.ServerCPU
	warmup time.Duration
	warnf  func(format string, args ...any)
	mu     sync.Mutex // the engine's clock starts on its own goroutine
}

// startServerCPU starts perf. Where it cannot (no perf, not permitted, a
// remote server, no server process), the run records why and a one-line
// warning says so, and it goes on; nil then.
func startServerCPU(ctx context.Context, warnf func(format string, args ...any), d db.DB, warmup time.Duration, run *results.Run) *serverCPU {
	p := &collect.ServerCPU{DB: d}
	if err := p.Start(ctx); err != nil {
		run.ServerCPU = p.Result(oneLine(err.Error()))
		warnf("%s: not profiled: %s", collect.KindServerCPU, run.ServerCPU.Unavailable)
		return nil
	}
	return &serverCPU{prof: p, warmup: warmup, warnf: warnf}
}

// clockStarted marks the start of the measured phase: the start of the
// clock, or the end of the warm-up that follows it.
func (s *serverCPU) clockStarted(t time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prof.Begin(t.Add(s.warmup))
}

// finish ends perf and stores the profile in the run. perf does not talk
// to the server: its end is bounded by its own timeouts, not by the
// post-run budget.
func (s *serverCPU) finish(ctx context.Context, run *results.Run) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.prof.Stop(context.WithoutCancel(ctx))
	if out.Unavailable != "" {
		s.warnf("%s: not profiled: %s", collect.KindServerCPU, out.Unavailable)
	} else if out.Note != "" {
		s.warnf("%s: %s", collect.KindServerCPU, out.Note)
	}
	run.ServerCPU = out
}
