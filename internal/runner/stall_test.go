package runner_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// lineHook is an io.Writer that keeps what is written and calls hook once,
// on the first line that contains trigger.
type lineHook struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	hook    func()
	fired   bool
	// next, when set, sees every write first.
	next *lineHook
}

func (w *lineHook) Write(p []byte) (int, error) {
	if w.next != nil {
		w.next.Write(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.fired && strings.Contains(string(p), w.trigger) {
		w.fired = true
		go w.hook()
	}
	return len(p), nil
}

func (w *lineHook) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// stallConfig is a timed run of the null workload on url, its text to out.
func stallConfig(t *testing.T, url, driver string, out io.Writer, warn io.Writer) runner.Config {
	return runner.Config{
		Target:      target(t, url),
		Workload:    testdb.Workload(t, "null", workload.CmdRun),
		Engine:      loadgen.Config{Clients: 3, Duration: 3 * time.Second, MaxTries: 1, Interval: 200 * time.Millisecond, Driver: driver},
		Progress:    200 * time.Millisecond,
		Percentiles: results.NormalizePercentiles([]float64{50, 99}),
		Results:     filepath.Join(t.TempDir(), "results.db"),
		Out:         out,
		Warn:        warn,
	}
}

// frozenConfig is stallConfig on pg, which is frozen (and thawed at the
// test's end) when the measured phase begins.
func frozenConfig(t *testing.T, pg *testdb.PrivatePG, driver string) (runner.Config, *lineHook, *bytes.Buffer) {
	out := &lineHook{trigger: " measure ", hook: pg.Freeze}
	t.Cleanup(pg.Cont)
	warn := &bytes.Buffer{}
	return stallConfig(t, pg.URL(), driver, out, warn), out, warn
}

// runWithin runs cfg and fails the test if it has not returned within
// limit (generous: what it checks is that the run ends at all).
func runWithin(t *testing.T, limit time.Duration, cfg runner.Config, stop <-chan struct{}) (*results.Run, error) {
	t.Helper()
	type ret struct {
		run *results.Run
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		r, err := runner.Run(context.Background(), cfg, stop)
		ch <- ret{r, err}
	}()
	select {
	case r := <-ch:
		return r.run, r.err
	case <-time.After(limit):
		buf := make([]byte, 1<<20)
		t.Fatalf("the run had not ended %s after it started; its output:\n%s\n%s\ngoroutines:\n%s", limit, cfg.Out, cfg.Warn, buf[:runtime.Stack(buf, true)])
		return nil, nil
	}
}

// A server that stops answering (every process stopped) cannot hold a
// timed run past its deadline: the run ends while the server is still
// stopped, statements in flight are cancelled, and the progress lines go
// on meanwhile, counting the clients that wait.
func TestAStalledServerCannotHoldATimedRun(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	for _, driver := range []string{loadgen.DriverLoop, loadgen.DriverGoroutine} {
		t.Run(driver, func(t *testing.T) {
			cfg, out, warn := frozenConfig(t, pg, driver)
			// Every collector too: none may hold the end of the run.
			kinds, err := collect.ParseKinds("all")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Collect = kinds
			begin := time.Now()
			run, err := runWithin(t, 60*time.Second, cfg, nil)
			frozen := pg.Frozen()
			pg.Cont()
			if err != nil {
				t.Fatalf("%v\n%s%s", err, out, warn)
			}
			t.Logf("a %s run returned after %.1fs, measured %.3fs, error classes %v", cfg.Engine.Duration, time.Since(begin).Seconds(), run.Summary.Seconds, run.ErrorClasses)
			if !frozen {
				t.Fatal("the server was not stopped when the run ended")
			}
			if run.Status != results.StatusCompleted || run.ErrorClasses[loadgen.ClassCancelled] == 0 {
				t.Errorf("status %s, error classes %v; want completed with transactions cancelled\n%s", run.Status, run.ErrorClasses, out)
			}
			// The measured time stops at the deadline plus the grace (the
			// slack is for a busy machine's late timers).
			if lim := cfg.Engine.Duration + loadgen.DefaultStopGrace; run.Summary.Seconds > lim.Seconds()+5 {
				t.Errorf("measured %.3fs: far more than the duration and its grace (%s)", run.Summary.Seconds, lim)
			}
			if !strings.Contains(out.String(), "3 waiting") {
				t.Errorf("no progress line says the clients are waiting:\n%s", out)
			}
			waited := false
			for _, iv := range run.Intervals {
				waited = waited || iv.Waiting == 3 && iv.Count == 0
			}
			if !waited {
				t.Errorf("no interval has the 3 clients waiting and no transaction: %+v", run.Intervals)
			}
		})
	}
}

// An interrupt acts at once on a stalled server: before the clients start
// (the setup waits on the server) and while they wait.
func TestAnInterruptEndsARunOnAStalledServer(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	t.Run("while measuring", func(t *testing.T) {
		stop := make(chan struct{})
		out := &lineHook{trigger: " waiting", hook: func() { close(stop) }}
		first := &lineHook{trigger: " measure ", hook: pg.Freeze}
		out.next = first
		t.Cleanup(pg.Cont)
		var warn bytes.Buffer
		cfg := stallConfig(t, pg.URL(), loadgen.DriverLoop, out, &warn)
		cfg.Engine.Duration = time.Hour
		run, err := runWithin(t, 60*time.Second, cfg, stop)
		frozen := pg.Frozen()
		pg.Cont()
		if err != nil {
			t.Fatalf("%v\n%s%s", err, out, &warn)
		}
		if !frozen || run.Status != results.StatusInterrupted {
			t.Errorf("status %s, server stopped at the end %v: want interrupted while it was", run.Status, frozen)
		}
		if !strings.Contains(warn.String(), "dbharness: stopping:") {
			t.Errorf("the interrupt was not acknowledged: %q", warn.String())
		}
	})
	t.Run("before the clients start", func(t *testing.T) {
		pg.Freeze()
		t.Cleanup(pg.Cont)
		stop := make(chan struct{})
		time.AfterFunc(300*time.Millisecond, func() { close(stop) })
		var out, warn bytes.Buffer
		_, err := runWithin(t, 60*time.Second, stallConfig(t, pg.URL(), loadgen.DriverLoop, &out, &warn), stop)
		frozen := pg.Frozen()
		pg.Cont()
		var intr *runner.Interrupted
		if !errors.As(err, &intr) || !frozen {
			t.Errorf("got %v (server stopped: %v); want an interruption while the server was stopped", err, frozen)
		}
	})
}

// A run of fixed work against a server that died ends when its clients
// have tried to reconnect for --reconnect-timeout: failed, with what it
// measured until then saved, and the outage kept.
func TestAFixedWorkRunEndsWhenItCannotReconnect(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	for _, driver := range []string{loadgen.DriverLoop, loadgen.DriverGoroutine} {
		t.Run(driver, func(t *testing.T) {
			pg.Start()
			out := &lineHook{trigger: " measure ", hook: pg.Stop}
			var warn bytes.Buffer
			cfg := stallConfig(t, pg.URL(), driver, out, &warn)
			cfg.Engine.Duration, cfg.Engine.Transactions, cfg.Engine.ReconnectTimeout = 0, 1<<40, 2*time.Second
			run, err := runWithin(t, 90*time.Second, cfg, nil)
			if err == nil || run == nil {
				t.Fatalf("got run %v, error %v; want a failed run\n%s%s", run != nil, err, out, &warn)
			}
			if run.Status != results.StatusFailed || !strings.Contains(run.Error, "reconnect timeout (2s)") {
				t.Errorf("status %s, error %q", run.Status, run.Error)
			}
			if run.Summary.Transactions == 0 || len(run.Summary.Outages) == 0 || !run.Summary.Outages[len(run.Summary.Outages)-1].ToEnd {
				t.Errorf("%d transactions, outages %+v: want what was measured and the outage to the end", run.Summary.Transactions, run.Summary.Outages)
			}
			checkSavedFailed(t, cfg.Results, run)
		})
	}
}

// A run of fixed work against a server that stops answering (every
// process stopped) ends when every client has waited --stall-timeout:
// failed, saying so, with what it measured until then saved.
func TestAFixedWorkRunEndsWhenTheServerStallsForTheStallTimeout(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	for _, driver := range []string{loadgen.DriverLoop, loadgen.DriverGoroutine} {
		t.Run(driver, func(t *testing.T) {
			cfg, out, warn := frozenConfig(t, pg, driver)
			cfg.Engine.Duration, cfg.Engine.Transactions, cfg.Engine.StallTimeout = 0, 1<<40, 2*time.Second
			run, err := runWithin(t, 90*time.Second, cfg, nil)
			frozen := pg.Frozen()
			pg.Cont()
			if err == nil || run == nil {
				t.Fatalf("got run %v, error %v; want a failed run\n%s%s", run != nil, err, out, warn)
			}
			if !frozen {
				t.Fatal("the server was not stopped when the run ended")
			}
			if run.Status != results.StatusFailed || !strings.Contains(run.Error, "answered none of the clients for 2s") {
				t.Errorf("status %s, error %q", run.Status, run.Error)
			}
			if run.Summary.Transactions == 0 || run.Config.StallTimeoutSeconds != 2 {
				t.Errorf("%d transactions, stall timeout %gs: want what was measured, and the timeout", run.Summary.Transactions, run.Config.StallTimeoutSeconds)
			}
			checkSavedFailed(t, cfg.Results, run)
		})
	}
}

// checkSavedFailed checks that run is in the store at path as failed, with
// what it measured.
func checkSavedFailed(t *testing.T, path string, run *results.Run) {
	t.Helper()
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	saved, err := s.Get(context.Background(), run.RunID)
	if err != nil || saved.Status != results.StatusFailed || saved.Summary.Transactions != run.Summary.Transactions {
		t.Errorf("saved: %+v, %v", saved, err)
	}
}

// A timed run rides out an outage and reports it; a run that ends with
// every client cut off fails.
func TestOutagesAreReportedAndAServerGoneForGoodFailsTheRun(t *testing.T) {
	pg := testdb.PrivatePostgres(t)
	t.Run("back after a while", func(t *testing.T) {
		out := &lineHook{trigger: " measure ", hook: func() {
			pg.Stop()
			time.Sleep(500 * time.Millisecond)
			pg.Start()
		}}
		var warn bytes.Buffer
		cfg := stallConfig(t, pg.URL(), loadgen.DriverLoop, out, &warn)
		cfg.Engine.Duration = 4 * time.Second
		run, err := runWithin(t, 120*time.Second, cfg, nil)
		if err != nil {
			t.Fatalf("%v\n%s%s", err, out, &warn)
		}
		if run.Status != results.StatusCompleted || run.Summary.Reconnects == 0 || len(run.Summary.Outages) == 0 {
			t.Fatalf("status %s, %d reconnects, outages %+v\n%s", run.Status, run.Summary.Reconnects, run.Summary.Outages, out)
		}
		o := run.Summary.Outages[0]
		if o.ToEnd || o.Clients < 1 || o.Clients > 3 || o.Seconds <= 0 || o.StartS <= 0 {
			t.Errorf("outage %+v", o)
		}
		if !strings.Contains(out.String(), "outage: ") {
			t.Errorf("the summary names no outage:\n%s", out)
		}
	})
	t.Run("gone for good", func(t *testing.T) {
		pg.Start()
		out := &lineHook{trigger: " measure ", hook: pg.Stop}
		var warn bytes.Buffer
		cfg := stallConfig(t, pg.URL(), loadgen.DriverGoroutine, out, &warn)
		run, err := runWithin(t, 90*time.Second, cfg, nil)
		if err == nil || run == nil || run.Status != results.StatusFailed || !strings.Contains(run.Error, "every client had lost its connection") {
			t.Fatalf("got %v; want a failed run\n%s%s", err, out, &warn)
		}
		last := run.Summary.Outages[len(run.Summary.Outages)-1]
		if !last.ToEnd || last.Clients != 3 {
			t.Errorf("last outage %+v: want the 3 clients down to the end", last)
		}
	})
}
