package loadgen

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/runphase"
	"github.com/dbharness/dbharness/internal/selfcost"
)

// The measurements the load generator hands out (package measure, so that what
// reads them need not import the load generator).
type (
	OpTick   = measure.OpTick
	Tick     = measure.Tick
	OpResult = measure.OpResult
	Result   = measure.Result
)

// Observer receives every tick as it happens, from one goroutine.
type Observer interface {
	OnTick(t *Tick)
}

// StartObserver is an Observer that wants to know when the run's clock
// starts (after every client has connected): interval 0 starts then.
type StartObserver interface {
	OnStart(start time.Time)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(*Tick)

// OnTick calls f.
func (f ObserverFunc) OnTick(t *Tick) { f(t) }

// recorders gives each of the clients the histograms it records into
// (handles; lags where lagReg is set) and the lock it takes to record
// (nil where it needs none). The clients of one event loop (loops > 0)
// run one at a time on its thread, so they share the loop's histograms
// without a lock. Goroutine clients share theirs in groups, a few per
// processor (recordGroups), under a lock per group: a set per client
// took 52 KB per transaction type (1,000 clients of tpcc's five: 260 MB)
// and a merge of each on every tick. Either way a tick merges a few
// sets, not one per client, which is what lets one process drive
// thousands of clients.
func recorders(reg, lagReg *histogram.Registry, clients, loops int) (handles, lags []histogram.Handle, locks []*sync.Mutex) {
	sets := loops
	if loops == 0 {
		sets = recordGroups(clients)
	}
	setHandles, setLags := make([]histogram.Handle, sets), make([]histogram.Handle, sets)
	for k := range setHandles {
		setHandles[k] = reg.NewHandle()
		if lagReg != nil {
			setLags[k] = lagReg.NewHandle()
		}
	}
	var groupLocks []paddedMutex
	if loops == 0 && sets < clients {
		groupLocks = make([]paddedMutex, sets)
	}
	handles, lags, locks = make([]histogram.Handle, clients), make([]histogram.Handle, clients), make([]*sync.Mutex, clients)
	for i := range handles {
		k := loopOf(i, clients, sets)
		handles[i], lags[i] = setHandles[k], setLags[k]
		if groupLocks != nil {
			locks[i] = &groupLocks[k].Mutex
		}
	}
	return handles, lags, locks
}

// recordGroups is how many sets of histograms goroutine clients share:
// four per processor the Go runtime runs on, so that clients seldom wait
// for each other's lock (a Record holds it for tens of nanoseconds, and
// a transaction takes tens of microseconds or more).
func recordGroups(clients int) int {
	return min(clients, 4*runtime.GOMAXPROCS(0))
}

// paddedMutex is a group's lock, kept off the cache lines of the next
// group's.
type paddedMutex struct {
	_ [128]byte
	sync.Mutex
	_ [128]byte
}

// ticker turns the registry's swaps into ticks and phase totals.
type ticker struct {
	cfg         *Config
	ops         []string
	reg, lagReg *histogram.Registry
	// earlyReg and gate: see run.
	earlyReg     *histogram.Registry
	gate         *atomic.Bool
	stats        []*workerStats
	obs          Observer
	start        time.Time
	measureStart time.Time
	res          *Result

	seq                int
	last               time.Time
	prevErr, prevRetry []int64
	prevLate           []int64
	prevReconn         int64
	prevClasses        map[string]int64
	warm, meas         []OpResult
	lag                *hdr.Histogram
	phaseCount         int64
	phase              string
	phaseStart         time.Time
	totalClasses       map[string]int64
	totalReconn        int64

	// The harness's own cost: the last sample, the loops and their last
	// stats, and the measured phase's sums.
	cost                selfcost.Sample
	loops               []*evloop.Loop
	pl                  *placer
	loopStats           []evloop.Stats
	measCPU             time.Duration
	measBusy, measTotal uint64
	runQueueSum         float64
	runQueueN           int
	measLoopStart       []evloop.Stats
	measLoopEnd         []evloop.Stats
}

func (t *ticker) init() {
	n := len(t.ops)
	t.last = t.start
	t.prevErr, t.prevRetry, t.prevLate = make([]int64, n), make([]int64, n), make([]int64, n)
	t.prevClasses = map[string]int64{}
	t.totalClasses = map[string]int64{}
	t.warm, t.meas = make([]OpResult, n), make([]OpResult, n)
	for i, name := range t.ops {
		t.warm[i] = OpResult{Name: name, Hist: histogram.New()}
		t.meas[i] = OpResult{Name: name, Hist: histogram.New()}
	}
	if t.lagReg != nil {
		t.lag = histogram.New()
	}
	t.phase, t.phaseStart = runphase.Measure, t.measureStart
	if t.cfg.Warmup > 0 {
		t.phase, t.phaseStart = runphase.Warmup, t.start
	}
}

// nextTick is the next interval boundary: every Interval from the start,
// with one extra boundary at the end of the warm-up.
func (t *ticker) nextTick() time.Time {
	k := t.last.Sub(t.start)/t.cfg.Interval + 1
	next := t.start.Add(k * t.cfg.Interval)
	if t.last.Before(t.measureStart) && next.After(t.measureStart) {
		next = t.measureStart
	}
	return next
}

func (t *ticker) tick(now time.Time) {
	if !now.After(t.last) {
		return
	}
	phase := runphase.Measure
	if !now.After(t.measureStart) && t.cfg.Warmup > 0 {
		phase = runphase.Warmup
	}
	if phase != t.phase {
		t.phase, t.phaseStart, t.phaseCount = phase, t.last, 0
	}
	hists := t.reg.Tick()
	if t.earlyReg != nil && phase == runphase.Measure {
		for i, h := range t.earlyReg.Tick() {
			hists[i].Merge(h)
		}
	}
	if t.gate != nil && !now.Before(t.measureStart) {
		// The warm-up's last interval is closed: from here the clients
		// record the measured phase's with h.
		t.gate.Store(true)
	}
	tk := &Tick{Seq: t.seq, Phase: phase, Start: t.last, End: now, Elapsed: now.Sub(t.start),
		Ops: make([]OpTick, len(t.ops)), ErrorClasses: map[string]int64{}}
	for i := range t.ops {
		var e, r, l int64
		for _, s := range t.stats {
			e += s.errors[i].Load()
			r += s.retries[i].Load()
			l += s.late[i].Load()
		}
		tk.Ops[i] = OpTick{Hist: hists[i], Errors: e - t.prevErr[i], Retries: r - t.prevRetry[i], Late: l - t.prevLate[i]}
		t.prevErr[i], t.prevRetry[i], t.prevLate[i] = e, r, l
		tot := &t.meas[i]
		if phase == runphase.Warmup {
			tot = &t.warm[i]
		}
		tot.Hist.Merge(hists[i])
		tot.Errors += tk.Ops[i].Errors
		tot.Retries += tk.Ops[i].Retries
		tot.Late += tk.Ops[i].Late
		t.phaseCount += hists[i].TotalCount()
	}
	var reconn int64
	classes := map[string]int64{}
	for _, s := range t.stats {
		reconn += s.reconnects.Load()
		if s.down.Load() {
			tk.Down++
		}
		if b := s.busySince.Load(); b != 0 && b <= t.last.UnixNano() {
			tk.Waiting++
		}
		s.mu.Lock()
		for k, v := range s.classes {
			classes[k] += v
		}
		s.mu.Unlock()
	}
	tk.Reconnects = reconn - t.prevReconn
	t.prevReconn = reconn
	t.totalReconn = reconn
	for k, v := range classes {
		if d := v - t.prevClasses[k]; d > 0 {
			tk.ErrorClasses[k] = d
		}
	}
	t.prevClasses = classes
	if phase == runphase.Measure {
		for k, v := range tk.ErrorClasses {
			t.totalClasses[k] += v
		}
	}
	if t.lagReg != nil {
		tk.Lag = t.lagReg.Tick()[0]
		if phase == runphase.Measure {
			t.lag.Merge(tk.Lag)
		}
	}
	tk.PhaseCount = t.phaseCount
	tk.PhaseSeconds = now.Sub(t.phaseStart).Seconds()
	t.sampleCost(tk, phase)
	t.seq++
	t.last = now
	if t.obs != nil {
		t.obs.OnTick(tk)
	}
}

// sampleCost fills the tick's cost figures and adds them to the measured
// phase's.
func (t *ticker) sampleCost(tk *Tick, phase string) {
	now := selfcost.Read()
	sp := selfcost.Between(t.cost, now)
	tk.CPU, tk.HostIdle, tk.RunQueue, tk.LoopBusy = sp.CPU, sp.HostIdle, now.Running, -1
	if phase == runphase.Measure {
		t.measCPU += sp.CPU
		if now.HostTotal > t.cost.HostTotal {
			t.measBusy += now.HostBusy - t.cost.HostBusy
			t.measTotal += now.HostTotal - t.cost.HostTotal
		}
		if now.Running > 0 {
			// Less the thread that reads it.
			t.runQueueSum += float64(now.Running - 1)
			t.runQueueN++
		}
	}
	t.cost = now
	if len(t.loops) == 0 {
		return
	}
	if t.loopStats == nil {
		t.loopStats = make([]evloop.Stats, len(t.loops))
	}
	cur := make([]evloop.Stats, len(t.loops))
	for i, l := range t.loops {
		cur[i] = l.Stats()
		if el := cur[i].Elapsed - t.loopStats[i].Elapsed; el > 0 {
			tk.LoopBusy = max(tk.LoopBusy, float64(cur[i].Busy-t.loopStats[i].Busy)/float64(el))
		}
	}
	if phase == runphase.Measure {
		if t.measLoopStart == nil {
			t.measLoopStart = t.loopStats
		}
		t.measLoopEnd = cur
	}
	t.loopStats = cur
}

func (t *ticker) finish() {
	t.res.Ops = t.meas
	t.res.Warmup = t.warm
	t.res.ErrorClasses = t.totalClasses
	t.res.ErrorSamples = map[string]string{}
	for _, s := range t.stats {
		s.mu.Lock()
		for k, v := range s.samples {
			if _, ok := t.res.ErrorSamples[k]; !ok {
				t.res.ErrorSamples[k] = v
			}
		}
		s.mu.Unlock()
	}
	t.res.Reconnects = t.totalReconn
	t.res.Lag = t.lag
	t.res.CPU = t.measCPU
	t.res.HostIdle, t.res.RunQueue, t.res.LoopBusy = -1, -1, -1
	if t.measTotal > 0 {
		t.res.HostIdle = 1 - float64(t.measBusy)/float64(t.measTotal)
	}
	if t.runQueueN > 0 {
		t.res.RunQueue = t.runQueueSum / float64(t.runQueueN)
	}
	for _, l := range t.loops {
		if cpu := l.Stats().CPU; cpu >= 0 {
			t.res.LoopCPUs = append(t.res.LoopCPUs, cpu)
		}
	}
	if len(t.res.LoopCPUs) != len(t.loops) {
		t.res.LoopCPUs = nil // some ran unpinned: the list would mislead
	}
	if t.pl != nil && t.pl.follow && t.res.LoopCPUs != nil {
		t.res.FollowServer, t.res.LoopMoves = true, t.pl.moves.Load()
	}
	for i := range t.measLoopEnd {
		a, b := t.measLoopStart[i], t.measLoopEnd[i]
		if el := b.Elapsed - a.Elapsed; el > 0 {
			t.res.LoopBusy = max(t.res.LoopBusy, float64(b.Busy-a.Busy)/float64(el))
		}
	}
}
