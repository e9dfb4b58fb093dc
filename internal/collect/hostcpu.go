package collect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/selfcost"
)

// HostTopOthers is how many of the other processes, by command name, a
// run names with their shares.
const HostTopOthers = 10

// HostAccount accounts for the client host's CPU over a run's measured
// phase: the harness's (getrusage, and its child processes'), the database
// server's processes when the server runs on this host, and everyone
// else's, from /proc read at the start of the measured phase, at every
// interval and at its end. It is not a collector of --collect: every run
// has it. Its readings run on a goroutine of their own, off the load
// generator's.
type HostAccount struct {
	// Interval is how often it reads /proc within the measured phase.
	Interval time.Duration
	// Warmup is how long after the start of the clock the measured phase
	// starts.
	Warmup time.Duration

	notMeasured string
	self        int
	selfComm    string
	server      int  // 0 when the server is not a process of this host
	children    bool // the server's child processes are the server's
	serverNote  string
	clock       time.Time
	started     bool
	stop, done  chan struct{}
	acc         hostAcc
	// readings counts the readings taken; known are the harness's and the
	// server's processes as the last reading of every process found them.
	readings int
	known    []int
}

// hostReading is one reading of the host: its processes, the harness's
// own CPU and the host's ticks.
type hostReading struct {
	at time.Time
	// procs are every process of the host, or with partial those of
	// known only.
	procs       map[int]procfs.Proc
	partial     bool
	known       map[int]bool
	self        time.Duration
	busy, total uint64
}

// fullEvery is how often the account reads every process of the host
// (their /proc/PID/stat, about 170 files on a quiet host) to name the
// others' commands; between those readings it reads only the harness's
// and the server's processes. The shares over time need only those, the
// host's ticks (/proc/stat) and getrusage: the others' share is what the
// host was busy beyond the harness and the server. Reading every process
// each second cost 1.3-2% of the harness's CPU on tpcb-like
// (bench/results/2026-11-27-scripts-vs-pgbench-round3.md).
const fullEvery = 5 * time.Second

// readHost takes a reading: of every process when known is nil, else of
// the processes in known.
func readHost(known []int) (hostReading, error) {
	r := hostReading{at: time.Now()}
	var err error
	if known == nil {
		if r.procs, err = procfs.Processes(); err != nil {
			return r, err
		}
	} else {
		r.procs, r.partial = procfs.ProcessesAmong(known), true
		r.known = make(map[int]bool, len(known))
		for _, pid := range known {
			r.known[pid] = true
		}
	}
	r.self = selfcost.ProcessCPU()
	if r.busy, r.total, err = procfs.HostTicks(); err != nil {
		return r, err
	}
	return r, nil
}

// StartHostAccount prepares the accounting of a run on d before its
// clients connect: it checks that /proc can be read and finds the server's
// process where the engine can say which it is (evidence.ServerProcessFinder).
// It never fails: what it cannot measure, the result says.
func StartHostAccount(ctx context.Context, d db.DB, interval, warmup time.Duration) *HostAccount {
	h := &HostAccount{Interval: interval, Warmup: warmup, self: os.Getpid()}
	if runtime.GOOS != "linux" {
		h.notMeasured = "the host is not Linux (its /proc is read)"
		return h
	}
	r, err := readHost(nil)
	if err != nil {
		h.notMeasured = "reading /proc: " + errLine(err)
		return h
	}
	h.selfComm = r.procs[h.self].Comm
	h.server, h.children, h.serverNote = findServer(ctx, d, r.procs)
	return h
}

// findServer returns the server's main process on this host, whether its
// children are part of it, and what it is; or 0 and why not.
func findServer(ctx context.Context, d db.DB, procs map[int]procfs.Proc) (int, bool, string) {
	f, ok := d.(evidence.ServerProcessFinder)
	if !ok {
		return 0, false, fmt.Sprintf("not counted: the %s engine cannot say which process is its server", d.Target().Kind)
	}
	cctx, cancel := context.WithTimeout(ctx, connectWait)
	defer cancel()
	sp, err := f.ServerProcess(cctx)
	var in *evidence.InProcessError
	switch {
	case errors.As(err, &in):
		return 0, false, "inside dbharness, in the harness's share"
	case err != nil:
		return 0, false, "not counted: " + errLine(err)
	}
	if _, err := sp.On(procs); err != nil {
		return 0, false, "not counted: " + err.Error()
	}
	if sp.PID == os.Getpid() {
		return 0, false, "inside dbharness, in the harness's share"
	}
	what := fmt.Sprintf("%s (pid %d)", sp.What, sp.PID)
	if sp.Children {
		what += " and its child processes"
	}
	return sp.PID, sp.Children, what
}

// connectWait bounds the connection that asks the server for its process.
const connectWait = 10 * time.Second

// ClockStarted is given the start of the run's clock: the readings start
// at the start of the measured phase, Warmup later.
func (h *HostAccount) ClockStarted(t time.Time) {
	if h == nil || h.notMeasured != "" || h.stop != nil {
		return
	}
	h.clock = t
	h.stop, h.done = make(chan struct{}), make(chan struct{})
	go h.read(t.Add(h.Warmup))
}

// read takes the first reading at from and one every Interval after it,
// until End.
func (h *HostAccount) read(from time.Time) {
	defer close(h.done)
	wait := time.NewTimer(time.Until(from))
	defer wait.Stop()
	select {
	case <-h.stop:
		return
	case <-wait.C:
	}
	if !h.take(false) {
		return
	}
	h.started = true
	every := h.Interval
	if every <= 0 {
		every = time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
			if !h.take(false) {
				return
			}
		}
	}
}

// take adds a reading to the account; false when /proc could not be read.
// The last reading (last) that comes less than half an interval after the
// one before is merged into its interval, so that the chart over time does
// not end on a sliver's noise.
func (h *HostAccount) take(last bool) bool {
	every := max(1, int(fullEvery/max(h.Interval, time.Millisecond)))
	var known []int
	if !last && h.readings%every != 0 {
		known = h.known
	}
	h.readings++
	r, err := readHost(known)
	if err != nil {
		h.notMeasured = "reading /proc: " + errLine(err)
		return false
	}
	if !r.partial {
		h.known = h.known[:0]
		for pid := range procfs.Tree(r.procs, h.self) {
			h.known = append(h.known, pid)
		}
		for pid := range serverProcs(r.procs, h.server, h.children) {
			h.known = append(h.known, pid)
		}
	}
	merge := last && h.acc.prev != nil && r.at.Sub(h.acc.prev.at) < h.Interval/2
	h.acc.add(r, h.self, h.server, h.children, r.at.Sub(h.clock).Seconds(), merge)
	return true
}

// serverProcs are the processes of the server whose main process is
// server (none when 0) among procs, its tree with children.
func serverProcs(procs map[int]procfs.Proc, server int, children bool) map[int]bool {
	theirs := map[int]bool{}
	if server != 0 {
		if children {
			theirs = procfs.Tree(procs, server)
		} else if _, ok := procs[server]; ok {
			theirs[server] = true
		}
	}
	return theirs
}

// End takes the last reading, as the clients have stopped, and returns the
// account of the measured phase; nil when the run's clock never started.
func (h *HostAccount) End() *results.HostCPU {
	if h == nil {
		return nil
	}
	if h.notMeasured != "" && h.stop == nil {
		return &results.HostCPU{NotMeasured: h.notMeasured}
	}
	if h.stop == nil {
		return nil
	}
	close(h.stop)
	<-h.done
	if h.notMeasured == "" {
		if !h.started {
			return &results.HostCPU{NotMeasured: "the run ended before its measured phase started"}
		}
		h.take(true)
	}
	if h.notMeasured != "" {
		return &results.HostCPU{NotMeasured: h.notMeasured}
	}
	out := h.acc.result(runtime.NumCPU())
	out.Harness = h.selfComm
	if h.server != 0 {
		out.Server = h.serverNote
	} else {
		out.ServerPct, out.Server = nil, h.serverNote
	}
	out.Warning = out.OthersWarning()
	return out
}

// hostAcc adds up the readings of a measured phase, in clock ticks.
type hostAcc struct {
	// prev is the last reading, full the last of every process.
	prev, full                          *hostReading
	seconds                             float64
	harness, server, busy, total, shown float64
	others                              map[string]float64
	points                              []results.HostCPUPoint
	// raw are each point's harness, server, busy and total ticks.
	raw [][4]float64
}

// add takes reading r: the CPU between the previous reading and r goes to
// the harness (self's own, from getrusage, and its child processes'), the
// server (server's process and, with children, its tree; none when 0) and,
// when r is a reading of every process, the CPU since the last such
// reading to the other processes by command name; t is the seconds since
// the start of the clock, for the point over time. With merge the CPU
// joins the last point, which ends at t.
func (a *hostAcc) add(r hostReading, self, server int, children bool, t float64, merge bool) {
	prev, full := a.prev, a.full
	a.prev = &r
	if !r.partial {
		a.full = &r
	}
	if prev == nil {
		return
	}
	total := float64(r.total - prev.total)
	if r.total < prev.total || total == 0 {
		return
	}
	busy := float64(min(r.busy-prev.busy, r.total-prev.total))
	if r.busy < prev.busy {
		busy = 0
	}
	// A partial reading is set against the same processes of the reading
	// before: the others are not in it, and have not ended.
	before := prev.procs
	if r.partial {
		before = make(map[int]procfs.Proc, len(r.known))
		for pid, p := range prev.procs {
			if r.known[pid] {
				before[pid] = p
			}
		}
	}
	delta := procfs.Delta(before, r.procs)
	mine := procfs.Tree(r.procs, self)
	theirs := serverProcs(r.procs, server, children)
	harness := max(0, (r.self-prev.self).Seconds()/procfs.ClockTick)
	var srv float64
	for pid, d := range delta {
		switch {
		case pid == self:
		case mine[pid]:
			harness += float64(d)
		case theirs[pid]:
			srv += float64(d)
		}
	}
	if !r.partial && full != nil {
		if a.others == nil {
			a.others = map[string]float64{}
		}
		for pid, d := range procfs.Delta(full.procs, r.procs) {
			if pid != self && !mine[pid] && !theirs[pid] {
				a.others[r.procs[pid].Comm] += float64(d)
			}
		}
	}
	a.seconds += r.at.Sub(prev.at).Seconds()
	a.harness, a.server, a.busy, a.total = a.harness+harness, a.server+srv, a.busy+busy, a.total+total
	raw := [4]float64{harness, srv, busy, total}
	if merge && len(a.points) > 0 {
		last := a.raw[len(a.raw)-1]
		a.points, a.raw = a.points[:len(a.points)-1], a.raw[:len(a.raw)-1]
		for i := range raw {
			raw[i] += last[i]
		}
	}
	a.raw = append(a.raw, raw)
	p := shares(raw[0], raw[1], raw[2], raw[3])
	a.points = append(a.points, results.HostCPUPoint{T: round3(t), HarnessPct: p[0], ServerPct: p[1], OthersPct: p[2], IdlePct: p[3]})
}

// shares are the harness's, the server's, the others' and the idle share
// of total, in %: the others' is busy less the harness's and the server's,
// and where those two exceed busy (their clocks are not the host's) idle
// makes up the rest.
func shares(harness, server, busy, total float64) [4]float64 {
	others := max(0, busy-harness-server)
	idle := max(0, total-max(busy, harness+server))
	pc := func(v float64) float64 { return round1(100 * v / total) }
	return [4]float64{pc(harness), pc(server), pc(others), pc(idle)}
}

// minHostTicks is the least host CPU time, in clock ticks over every CPU,
// that an account is given for: each share is a difference of counts in
// whole ticks, off by a tick or two either way, so that over fewer than 50
// ticks (a quarter of a second on 2 CPUs) the others' share could pass the
// 5% of the warning by rounding alone.
const minHostTicks = 50

// result is the account of every reading so far on a host of cpus CPUs;
// ServerPct is set (0 when the server was not found).
func (a *hostAcc) result(cpus int) *results.HostCPU {
	out := &results.HostCPU{CPUs: cpus, Seconds: round3(a.seconds), Intervals: a.points}
	if a.total < minHostTicks {
		out.NotMeasured = "the measured phase was too short to read the host's CPU time"
		out.Intervals = nil
		return out
	}
	// The others' share is busy less the harness's and the server's, but
	// never less than what the other processes were seen to use: the
	// harness's time (getrusage, its run time) and the host's busy ticks
	// are counted by different clocks, and where the harness's exceeds its
	// ticks the difference would hide the named others (a run read
	// "others 0% (kworker/1:1H-kblockd 2%)").
	named := 0.0
	for _, v := range a.others {
		named += max(0, v)
	}
	p := shares(a.harness, a.server, max(a.busy, a.harness+a.server+named), a.total)
	srv := p[1]
	out.HarnessPct, out.ServerPct, out.OthersPct, out.IdlePct = p[0], &srv, p[2], p[3]
	comms := make([]string, 0, len(a.others))
	for c, v := range a.others {
		if v > 0 {
			comms = append(comms, c)
		}
	}
	sort.Slice(comms, func(i, j int) bool {
		if a.others[comms[i]] != a.others[comms[j]] {
			return a.others[comms[i]] > a.others[comms[j]]
		}
		return comms[i] < comms[j]
	})
	for _, c := range comms[:min(len(comms), HostTopOthers)] {
		out.TopOthers = append(out.TopOthers, results.CPUUse{Comm: c, Pct: round1(100 * a.others[c] / a.total)})
	}
	return out
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
