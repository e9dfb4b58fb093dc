package collect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

func TestParseKinds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{"all", AllKinds(), false},
		{"none", nil, false},
		{"os,waits", []string{"os", "waits"}, false},
		{"os,bogus", nil, true},
		{"none,os", nil, true},
	} {
		m, err := ParseKinds(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: err %v", tc.in, err)
			continue
		}
		if tc.bad {
			if !strings.Contains(err.Error(), "--collect") {
				t.Errorf("%q: the error does not name the flag: %v", tc.in, err)
			}
			continue
		}
		if len(m) != len(tc.want) {
			t.Errorf("%q: %v, want %v", tc.in, m, tc.want)
		}
		for _, k := range tc.want {
			if !m[k] {
				t.Errorf("%q: %s missing", tc.in, k)
			}
		}
	}
}

// fake is a sampler whose counter grows by step per sample, on a clock of
// its own that moves 20 ms per sample: its rates do not depend on when the
// collector gets round to sampling.
type fake struct {
	mu   sync.Mutex
	n    float64
	step float64
	now  time.Time
}

func (f *fake) Name() string                                         { return evidence.KindServer }
func (f *fake) Start(context.Context) error                          { return nil }
func (f *fake) Stop() error                                          { return nil }
func (f *fake) Describe(s *evidence.Series)                          { s.Source = "fake" }
func (f *fake) Derive(_, _ *evidence.Snapshot, v map[string]float64) { v["derived"] = 1 }
func (f *fake) Sample(context.Context) (*evidence.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n += f.step
	f.now = f.now.Add(20 * time.Millisecond)
	return &evidence.Snapshot{Time: f.now, Counters: map[string]float64{"c": f.n, "zero": 5, "_hidden": f.n},
		Gauges: map[string]float64{"g": 3}}, nil
}

type fakeWaits struct{ cuts []map[string]float64 }

func (f *fakeWaits) Start(context.Context) error { return nil }
func (f *fakeWaits) Stop() error                 { return nil }
func (f *fakeWaits) Method() string              { return "fake" }
func (f *fakeWaits) Unit() string                { return "samples" }
func (f *fakeWaits) Cut(context.Context) (map[string]float64, error) {
	if len(f.cuts) == 0 {
		return map[string]float64{}, nil
	}
	c := f.cuts[0]
	f.cuts = f.cuts[1:]
	return c, nil
}

func TestTheCollectorTurnsSamplesIntoRatesPerInterval(t *testing.T) {
	fw := &fakeWaits{cuts: []map[string]float64{
		{"ignored": 9}, // the baseline cut is dropped
		{"ignored": 9}, // Begin takes the baseline again
		{"CPU": 1, "IO:DataFileRead": 1},
		{"CPU": 3, "IO:DataFileRead": 1},
		{"CPU": 4},
	}}
	c := New([]evidence.Sampler{&fake{step: 10}}, fw)
	if w := c.Start(context.Background()); len(w) != 0 {
		t.Fatal(w)
	}
	// The requests are taken in order on the collector's goroutine.
	start := time.Now()
	c.Begin(start)
	c.Boundary(0, "warmup", start.Add(20*time.Millisecond))
	c.Boundary(1, "measure", start.Add(40*time.Millisecond))
	res := c.Stop(2, "measure", start.Add(60*time.Millisecond))
	s := res.Series[evidence.KindServer]
	if s == nil || len(s.Intervals) != 3 {
		t.Fatalf("series: %+v", s)
	}
	for i, p := range s.Intervals {
		if p.Seq != i || p.Seconds != 0.02 {
			t.Errorf("point %d: %+v, want 0.02 s between the sampler's readings", i, p)
		}
		if p.Rates["c"] != 500 {
			t.Errorf("point %d: rate %g, want 10 per 20 ms, 500/s", i, p.Rates["c"])
		}
		if _, ok := p.Rates["zero"]; ok {
			t.Errorf("a counter that never moved is reported: %+v", p.Rates)
		}
		if _, ok := p.Rates["_hidden"]; ok {
			t.Errorf("a hidden counter is reported")
		}
		if p.Values["g"] != 3 || p.Values["derived"] != 1 {
			t.Errorf("values: %+v", p.Values)
		}
	}
	if s.Totals["c"] != 20 {
		t.Errorf("totals cover the measured phase only: %+v", s.Totals)
	}
	w := res.Waits
	if w == nil || w.Total != 8 || len(w.Events) != 2 || w.Events[0].Event != "CPU" || w.Events[0].Share != 0.875 {
		t.Fatalf("waits: %+v", w)
	}
	if len(w.Intervals) != 3 || w.Intervals[0].Shares["CPU"] != 0.5 {
		t.Errorf("wait intervals: %+v", w.Intervals)
	}
}

func TestTheOSCollectorReadsProc(t *testing.T) {
	o := &OS{DBLocal: true}
	ctx := context.Background()
	if err := o.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := o.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Burn some CPU and make the kernel switch contexts.
	end := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(end) {
		time.Sleep(time.Millisecond)
		_ = os.WriteFile(filepath.Join(t.TempDir(), "x"), []byte("x"), 0o644)
	}
	b, err := o.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := evidence.NewPoint(o, a, b)
	sum := p.Values["cpu.user_pct"] + p.Values["cpu.system_pct"] + p.Values["cpu.iowait_pct"] + p.Values["cpu.idle_pct"] + p.Values["cpu.steal_pct"]
	if sum < 99 || sum > 101 {
		t.Errorf("CPU shares add up to %g: %+v", sum, p.Values)
	}
	if _, ok := p.Values["cpu0.idle_pct"]; !ok {
		t.Errorf("no per-CPU figures: %+v", p.Values)
	}
	if p.Rates["ctxt"] <= 0 {
		t.Errorf("no context switches: %+v", p.Rates)
	}
	// The count may not move in 300 ms; the reading must be there.
	if _, ok := b.Counters["resched_ipis"]; !ok {
		t.Errorf("no reschedule interrupts read from /proc/interrupts: %v", b.Counters)
	}
	if p.Values["run_queue"] < 1 || p.Values["mem.used_mb"] <= 0 || p.Values["mem.cached_mb"] <= 0 {
		t.Errorf("run queue or memory missing: %+v", p.Values)
	}
	var s evidence.Series
	o.Describe(&s)
	if s.Describes != "client host" || s.DBLocal == nil || !*s.DBLocal {
		t.Errorf("description: %+v", s)
	}
}

func TestTheOSCollectorComputesTheIostatView(t *testing.T) {
	dir := t.TempDir()
	write := func(stat, disk string, res int) {
		irq := fmt.Sprintf("           CPU0       CPU1\n  0:         10          0   IO-APIC   2-edge      timer\nNMI:          0          0   Non-maskable interrupts\nRES: %10d %10d   Rescheduling interrupts\nCAL:       9000       9000   Function call interrupts\n", res, 2*res)
		for name, body := range map[string]string{"stat": stat, "diskstats": disk, "interrupts": irq, "meminfo": "MemTotal: 2048000 kB\nMemFree: 1024000 kB\nBuffers: 0 kB\nCached: 512000 kB\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	o := &OS{Root: dir}
	write("cpu 100 0 100 800 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0\nctxt 1000\nprocs_running 2\n",
		"   8       0 sda 100 0 800 50 100 0 1600 150 0 100 200\n   8       1 sda1 100 0 800 50 100 0 1600 150 0 100 200\n   7       0 loop0 5 0 5 5 0 0 0 0 0 0 0\n", 1000)
	a, _ := o.Sample(context.Background())
	a.Time = time.Unix(100, 0)
	write("cpu 400 0 200 1400 0 0 0 0\ncpu0 400 0 200 1400 0 0 0 0\nctxt 3000\nprocs_running 3\n",
		"   8       0 sda 300 0 2400 250 300 0 4800 550 0 600 200\n   8       1 sda1 300 0 2400 250 300 0 4800 550 0 600 200\n   7       0 loop0 5 0 5 5 0 0 0 0 0 0 0\n", 1500)
	b, _ := o.Sample(context.Background())
	b.Time = time.Unix(101, 0)
	p := evidence.NewPoint(o, a, b)
	want := map[string]float64{"cpu.user_pct": 30, "cpu.system_pct": 10, "cpu.idle_pct": 60, "disk.sda.avg_req_kb": 6,
		"disk.sda.await_ms": 1.5, "disk.sda.util_pct": 50, "run_queue": 3, "mem.used_mb": 500, "mem.cached_mb": 500}
	for k, v := range want {
		if p.Values[k] != v {
			t.Errorf("%s = %g, want %g", k, p.Values[k], v)
		}
	}
	// Reschedule interrupts: 1000 + 2000 before, 1500 + 3000 after.
	rates := map[string]float64{"disk.sda.reads": 200, "disk.sda.writes": 200, "ctxt": 2000, "disk.sda.read_mb": 0.819, "resched_ipis": 1500}
	for k, v := range rates {
		if p.Rates[k] != v {
			t.Errorf("%s = %g/s, want %g", k, p.Rates[k], v)
		}
	}
	for k := range p.Rates {
		if strings.Contains(k, "sda1") || strings.Contains(k, "loop") {
			t.Errorf("partitions and loop devices are reported: %s", k)
		}
	}
}

// late publishes 100 more after the run, as PostgreSQL backends do on exit.
type late struct{ fake }

func (l *late) Settle() time.Duration { return 10 * time.Millisecond }

func (l *late) Settled(context.Context, string) (bool, error) { return true, nil }

func TestLateCountersAreFoldedIntoTheLastInterval(t *testing.T) {
	l := &late{fake{step: 10}}
	c := New([]evidence.Sampler{l}, nil)
	sampled := make(chan int, 2)
	c.OnPoint = func(_ string, seq int, _ any) { sampled <- seq }
	c.Start(context.Background())
	c.Begin(time.Now())
	c.Boundary(0, "measure", time.Now())
	c.Boundary(1, "measure", time.Now())
	// The counts published late come after the last boundary's sample.
	for seq := range 2 {
		if got := <-sampled; got != seq {
			t.Fatalf("point %d sampled when %d was due", got, seq)
		}
	}
	l.mu.Lock()
	l.step = 100
	l.mu.Unlock()
	s := c.Stop(-1, "", time.Time{}).Series[evidence.KindServer]
	if len(s.Intervals) != 2 || s.Intervals[1].Seq != 1 {
		t.Fatalf("points: %+v", s.Intervals)
	}
	if s.Totals["c"] != 120 {
		t.Errorf("totals %g, want 10 + 10 + 100 published late", s.Totals["c"])
	}
	// The last interval now runs from the sample before it to the one
	// after the settle: two of the sampler's 20 ms steps, 10 + 100 counts.
	if p := s.Intervals[1]; p.Seconds != 0.04 || p.Rates["c"] != 110/0.04 {
		t.Errorf("the last interval did not absorb the late counts: %+v", p)
	}
}

var errLost = errors.New("connection lost")

// flaky is a server that can go down. A connection to it dies when it
// does and stays dead until the sampler (or profiler) starts again, on a
// new life of the server: its counter starts again from zero.
type flaky struct {
	mu   sync.Mutex
	down bool
	n    float64
	conn bool // the sampler's connection
}

func (f *flaky) setDown(d bool) {
	f.mu.Lock()
	f.down = d
	f.mu.Unlock()
}

func (f *flaky) Name() string                { return evidence.KindServer }
func (f *flaky) Stop() error                 { return nil }
func (f *flaky) Describe(s *evidence.Series) { s.Source = "flaky" }
func (f *flaky) Start(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errLost
	}
	f.conn, f.n = true, 0
	return nil
}
func (f *flaky) Sample(context.Context) (*evidence.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down || !f.conn {
		f.conn = false
		return nil, errLost
	}
	f.n += 10
	return &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{"c": f.n}}, nil
}

// flakyWaits is the wait profile of the same server, on its own
// connection.
type flakyWaits struct {
	src  *flaky
	conn bool
}

func (w *flakyWaits) Stop() error    { return nil }
func (w *flakyWaits) Method() string { return "flaky" }
func (w *flakyWaits) Unit() string   { return "samples" }
func (w *flakyWaits) Start(context.Context) error {
	w.src.mu.Lock()
	defer w.src.mu.Unlock()
	if w.src.down {
		return errLost
	}
	w.conn = true
	return nil
}
func (w *flakyWaits) Cut(context.Context) (map[string]float64, error) {
	w.src.mu.Lock()
	defer w.src.mu.Unlock()
	if w.src.down || !w.conn {
		w.conn = false
		return nil, errLost
	}
	return map[string]float64{"CPU": 1}, nil
}

func TestACollectorWhoseConnectionIsLostComesBackAndLeavesAGap(t *testing.T) {
	f := &flaky{}
	c := New([]evidence.Sampler{f}, &flakyWaits{src: f})
	c.Classify = func(err error) db.ErrorClass { return db.ErrorClass{ConnLost: errors.Is(err, errLost)} }
	c.minBackoff = 0 // restart at every boundary
	if w := c.Start(context.Background()); len(w) != 0 {
		t.Fatal(w)
	}
	// The boundaries are sampled here, in order, rather than on the
	// collector's goroutine, so that each is taken before the next.
	start := time.Now()
	at := func(seq int) time.Time { return start.Add(time.Duration(seq+1) * time.Second) }
	c.sampleAll(request{base: true, seq: -1, at: start}, false)
	for seq := 0; seq <= 6; seq++ {
		f.setDown(seq == 2 || seq == 3) // lost at 2, refused at 3, back at 4
		c.sampleAll(request{seq: seq, phase: "measure", at: at(seq)}, false)
	}
	res := c.Stop(-1, "", time.Time{})

	s := res.Series[evidence.KindServer]
	var seqs []int
	for _, p := range s.Intervals {
		seqs = append(seqs, p.Seq)
	}
	if fmt.Sprint(seqs) != "[0 1 5 6]" {
		t.Errorf("points at %v, want 0 and 1, then 5 and 6 after the baseline taken on reconnecting at 4", seqs)
	}
	want := []evidence.Gap{{FirstSeq: 2, LastSeq: 4, From: 2, To: 5, Reason: "its connection was lost", Error: "connection lost"}}
	if fmt.Sprint(s.Gaps) != fmt.Sprint(want) {
		t.Errorf("gaps %+v, want %+v", s.Gaps, want)
	}
	if s.Totals["c"] != 40 {
		t.Errorf("totals %v, want the four covered intervals' 40 (no delta between two lives of the server)", s.Totals)
	}
	w := res.Waits
	seqs = nil
	for _, iv := range w.Intervals {
		seqs = append(seqs, iv.Seq)
	}
	if fmt.Sprint(seqs) != "[0 1 5 6]" || w.Total != 4 || fmt.Sprint(w.Gaps) != fmt.Sprint(want) {
		t.Errorf("waits: intervals %v, total %g, gaps %+v", seqs, w.Total, w.Gaps)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], "from 2.0 s to 5.0 s: its connection was lost") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// hanging is a sampler whose server stops answering once hang is set: its
// samples wait until their context ends.
type hanging struct {
	fake
	hang atomic.Bool
}

func (h *hanging) Sample(ctx context.Context) (*evidence.Snapshot, error) {
	if h.hang.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h.fake.Sample(ctx)
}

func TestASamplerThatStopsAnsweringNeverHoldsTheRun(t *testing.T) {
	h := &hanging{fake: fake{step: 1}}
	c := New([]evidence.Sampler{h}, nil)
	c.timeout = 50 * time.Millisecond
	c.Start(context.Background())
	c.Begin(time.Now())
	c.Boundary(0, "measure", time.Now())
	h.hang.Store(true)
	c.Boundary(1, "measure", time.Now())
	for lost := false; !lost; time.Sleep(time.Millisecond) { // until the sample at 1 has given up
		c.mu.Lock()
		lost = c.tracks[0].down
		c.mu.Unlock()
	}
	for seq := 2; seq <= 20; seq++ {
		c.Boundary(seq, "measure", time.Now())
	}
	begin := time.Now()
	s := c.Stop(-1, "", time.Time{}).Series[evidence.KindServer]
	// Each sample gives up after the timeout and one stuck sampler is
	// not restarted on every late boundary: generous on a busy machine.
	if d := time.Since(begin); d > 20*time.Second {
		t.Errorf("Stop took %s", d)
	}
	if len(s.Gaps) != 1 || !strings.Contains(s.Gaps[0].Reason, "did not answer within 50ms") || s.Gaps[0].LastSeq != 20 {
		t.Errorf("gaps %+v", s.Gaps)
	}
}

// StopWait cuts the wait for a sample in flight at the end short of the
// sample timeout (the runner's budget after a run on a stalled server).
func TestStopWaitsNoLongerThanStopWait(t *testing.T) {
	h := &hanging{fake: fake{step: 1}}
	c := New([]evidence.Sampler{h}, nil)
	c.timeout = time.Hour
	c.StopWait = 50 * time.Millisecond
	c.Start(context.Background())
	c.Begin(time.Now())
	h.hang.Store(true)
	c.Boundary(0, "measure", time.Now())
	done := make(chan struct{})
	go func() {
		c.Stop(-1, "", time.Time{})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // the timeout is an hour
		t.Fatal("Stop waited for the sample's timeout, not StopWait")
	}
}
