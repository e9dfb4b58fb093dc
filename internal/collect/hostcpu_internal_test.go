package collect

import (
	"os"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/procfs"
)

// TestHostAccountMath feeds the account three made-up readings of a host
// of 2 CPUs (200 ticks a second): the harness (pid 10) and its child
// (11), a postmaster (20) with a backend that starts late (22) and one
// that ends (21), and two others, one of which ends. The shares are of
// the host's ticks; the others' is what the host was busy beyond the
// harness and the server, the ended other included.
func TestHostAccountMath(t *testing.T) {
	t0 := time.Unix(1000, 0)
	procs := func(m ...procfs.Proc) map[int]procfs.Proc {
		out := map[int]procfs.Proc{}
		for _, p := range m {
			out[p.PID] = p
		}
		return out
	}
	p := func(pid, ppid int, comm string, ticks uint64) procfs.Proc {
		return procfs.Proc{PID: pid, PPID: ppid, Comm: comm, Ticks: ticks, Start: uint64(pid)}
	}
	var a hostAcc
	a.add(hostReading{at: t0, self: 0, busy: 1000, total: 2000, procs: procs(
		p(1, 0, "init", 5), p(10, 1, "dbharness", 0), p(11, 10, "perf", 0),
		p(20, 1, "postgres", 0), p(21, 20, "postgres", 0),
		p(30, 1, "yes", 0), p(31, 1, "cc1plus", 0))}, 10, 20, true, 0, false)
	// Second 1: harness 20 ticks (getrusage) + child 4; server 30 + 10;
	// yes 80, cc1plus 6; host busy 160 of 200.
	a.add(hostReading{at: t0.Add(time.Second), self: 200 * time.Millisecond, busy: 1160, total: 2200, procs: procs(
		p(1, 0, "init", 5), p(10, 1, "dbharness", 25), p(11, 10, "perf", 4),
		p(20, 1, "postgres", 30), p(21, 20, "postgres", 10),
		p(30, 1, "yes", 80), p(31, 1, "cc1plus", 6))}, 10, 20, true, 1, false)
	// Second 2: backend 21 and cc1plus end (their last second's CPU is in
	// busy only), backend 22 starts and uses 40; harness 30; yes 90; busy
	// 190 of 200.
	a.add(hostReading{at: t0.Add(2 * time.Second), self: 500 * time.Millisecond, busy: 1350, total: 2400, procs: procs(
		p(1, 0, "init", 5), p(10, 1, "dbharness", 55), p(11, 10, "perf", 4),
		p(20, 1, "postgres", 30), p(22, 20, "postgres", 40),
		p(30, 1, "yes", 170))}, 10, 20, true, 2, false)
	if len(a.points) != 2 {
		t.Fatalf("%d points, want 2", len(a.points))
	}
	// Second 1: harness 24, server 40, others 160-64 = 96, idle 40.
	if pt := a.points[0]; pt.HarnessPct != 12 || pt.ServerPct != 20 || pt.OthersPct != 48 || pt.IdlePct != 20 || pt.T != 1 {
		t.Errorf("second 1: %+v, want harness 12%%, server 20%%, others 48%%, idle 20%%", pt)
	}
	// Second 2: harness 30, server 40, others 190-70 = 120, idle 10.
	if pt := a.points[1]; pt.HarnessPct != 15 || pt.ServerPct != 20 || pt.OthersPct != 60 || pt.IdlePct != 5 {
		t.Errorf("second 2: %+v, want harness 15%%, server 20%%, others 60%%, idle 5%%", pt)
	}
	h := a.result(2)
	// Over both: harness 54, server 80, others 216, idle 50 of 400 ticks.
	if h.HarnessPct != 13.5 || *h.ServerPct != 20 || h.OthersPct != 54 || h.IdlePct != 12.5 || h.CPUs != 2 || h.Seconds != 2 {
		t.Errorf("account %+v (server %v), want harness 13.5%%, server 20%%, others 54%%, idle 12.5%% of 2 CPUs over 2 s", h, *h.ServerPct)
	}
	// The named others come from the processes' own deltas: yes 170,
	// cc1plus 6 (init used none).
	if len(h.TopOthers) != 2 || h.TopOthers[0].Comm != "yes" || h.TopOthers[0].Pct != 42.5 || h.TopOthers[1].Comm != "cc1plus" || h.TopOthers[1].Pct != 1.5 {
		t.Errorf("top others %+v, want yes 42.5%%, cc1plus 1.5%%", h.TopOthers)
	}
	if w := h.OthersWarning(); w != "other processes used 54% of the host's CPU during the measured phase (yes 42%, cc1plus 2%): the figures include their interference" {
		t.Errorf("warning %q", w)
	}
}

// TestHostAccountMerge: a last reading a sliver after the one before
// joins its interval.
func TestHostAccountMerge(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var a hostAcc
	a.add(hostReading{at: t0, busy: 0, total: 0}, 10, 0, false, 0, false)
	a.add(hostReading{at: t0.Add(time.Second), busy: 50, total: 100}, 10, 0, false, 1, false)
	a.add(hostReading{at: t0.Add(1100 * time.Millisecond), busy: 60, total: 110}, 10, 0, false, 1.1, true)
	if len(a.points) != 1 || a.points[0].T != 1.1 || a.points[0].OthersPct != 54.5 || a.points[0].IdlePct != 45.5 {
		t.Errorf("points %+v, want one to 1.1 s with others 54.5%%", a.points)
	}
	if h := a.result(1); h.OthersPct != 54.5 || h.Seconds != 1.1 {
		t.Errorf("account %+v", h)
	}
}

// TestHostAccountNoServer: without a server process every process but the
// harness's is another's.
func TestHostAccountNoServer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var a hostAcc
	a.add(hostReading{at: t0, busy: 0, total: 0, procs: map[int]procfs.Proc{20: {PID: 20, PPID: 1, Comm: "mariadbd", Ticks: 0, Start: 1}}}, 10, 0, false, 0, false)
	a.add(hostReading{at: t0.Add(time.Second), busy: 50, total: 100, procs: map[int]procfs.Proc{20: {PID: 20, PPID: 1, Comm: "mariadbd", Ticks: 50, Start: 1}}}, 10, 0, false, 1, false)
	h := a.result(1)
	if h.OthersPct != 50 || h.HarnessPct != 0 || h.IdlePct != 50 || len(h.TopOthers) != 1 || h.TopOthers[0].Comm != "mariadbd" {
		t.Errorf("account %+v, want others 50%% (mariadbd), idle 50%%", h)
	}
}

// BenchmarkHostReading is the cost of one reading of the host: every
// process's /proc/PID/stat, /proc/stat and getrusage.
func BenchmarkHostReading(b *testing.B) {
	for b.Loop() {
		if _, err := readHost(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHostAccountPartialReadings: between readings of every process the
// account reads only the harness's and the server's (known). A backend
// that starts after the last full reading is not read until the next one,
// which counts it from its start; the others are named from the full
// readings' deltas, and a process the partial reading did not ask for is
// not taken for ended.
func TestHostAccountPartialReadings(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := func(pid, ppid int, comm string, ticks uint64) procfs.Proc {
		return procfs.Proc{PID: pid, PPID: ppid, Comm: comm, Ticks: ticks, Start: uint64(pid)}
	}
	procs := func(m ...procfs.Proc) map[int]procfs.Proc {
		out := map[int]procfs.Proc{}
		for _, x := range m {
			out[x.PID] = x
		}
		return out
	}
	var a hostAcc
	a.add(hostReading{at: t0, busy: 1000, total: 2000, procs: procs(
		p(1, 0, "init", 5), p(10, 1, "dbharness", 0), p(20, 1, "postgres", 0), p(21, 20, "postgres", 0),
		p(30, 1, "yes", 0))}, 10, 20, true, 0, false)
	// Second 1, partial: server 20 + 30; busy 150 (yes 90, harness 10
	// from getrusage).
	a.add(hostReading{at: t0.Add(time.Second), self: 100 * time.Millisecond, busy: 1150, total: 2200, partial: true,
		known: map[int]bool{10: true, 20: true, 21: true},
		procs: procs(p(10, 1, "dbharness", 10), p(20, 1, "postgres", 20), p(21, 20, "postgres", 30))}, 10, 20, true, 1, false)
	// Second 2, full: backend 22 (started in second 1) has used 40, 21
	// another 10; harness 20; yes 90 more (180 in all).
	a.add(hostReading{at: t0.Add(2 * time.Second), self: 300 * time.Millisecond, busy: 1350, total: 2400, procs: procs(
		p(1, 0, "init", 5), p(10, 1, "dbharness", 30), p(20, 1, "postgres", 20), p(21, 20, "postgres", 40),
		p(22, 20, "postgres", 40), p(30, 1, "yes", 180))}, 10, 20, true, 2, false)
	if len(a.points) != 2 {
		t.Fatalf("%d points, want 2", len(a.points))
	}
	// Second 1: harness 10, server 50, others 150-60 = 90, idle 50.
	if pt := a.points[0]; pt.HarnessPct != 5 || pt.ServerPct != 25 || pt.OthersPct != 45 || pt.IdlePct != 25 {
		t.Errorf("second 1: %+v, want harness 5%%, server 25%%, others 45%%, idle 25%%", pt)
	}
	// Second 2: harness 20, server 50, others 200-70 = 130, idle 0.
	if pt := a.points[1]; pt.HarnessPct != 10 || pt.ServerPct != 25 || pt.OthersPct != 65 || pt.IdlePct != 0 {
		t.Errorf("second 2: %+v, want harness 10%%, server 25%%, others 65%%, idle 0%%", pt)
	}
	h := a.result(2)
	if len(h.TopOthers) != 1 || h.TopOthers[0].Comm != "yes" || h.TopOthers[0].Pct != 45 {
		t.Errorf("top others %+v, want yes 45%% (180 of 400 ticks)", h.TopOthers)
	}
}

// BenchmarkHostPartialReading is the cost of a reading between two of
// every process: a handful of processes' stat, /proc/stat and getrusage.
func BenchmarkHostPartialReading(b *testing.B) {
	known := []int{os.Getpid(), os.Getppid()}
	for b.Loop() {
		if _, err := readHost(known); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHostAccountTooShort: over fewer than minHostTicks the shares are not
// given, whatever they would be (here 80% others over 20 ticks).
func TestHostAccountTooShort(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var a hostAcc
	a.add(hostReading{at: t0, busy: 0, total: 0}, 10, 0, false, 0, false)
	a.add(hostReading{at: t0.Add(100 * time.Millisecond), busy: 16, total: 20}, 10, 0, false, 0.1, false)
	if h := a.result(2); h.NotMeasured == "" || h.OthersPct != 0 || h.OthersWarning() != "" {
		t.Errorf("account over 20 ticks: %+v, want it not measured and no warning", h)
	}
	a.add(hostReading{at: t0.Add(300 * time.Millisecond), busy: 48, total: 60}, 10, 0, false, 0.3, false)
	if h := a.result(2); h.NotMeasured != "" || h.OthersPct != 80 {
		t.Errorf("account over 60 ticks: %+v, want others 80%%", h)
	}
}

// The others' share is at least what the other processes were seen to
// use. The harness's time (getrusage) and the host's ticks are counted by
// different clocks: where the harness's exceeds its ticks, busy less the
// harness's comes out below the named others' (a run read "others 0%
// (kworker/1:1H-kblockd 2%)").
func TestHostAccountOthersAtLeastTheNamedOnes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	procs := func(kworker uint64) map[int]procfs.Proc {
		return map[int]procfs.Proc{
			10: {PID: 10, PPID: 1, Comm: "dbharness", Start: 10},
			30: {PID: 30, PPID: 2, Comm: "kworker/1:1H", Ticks: kworker, Start: 30},
		}
	}
	var a hostAcc
	a.add(hostReading{at: t0, busy: 1000, total: 2000, procs: procs(0)}, 10, 0, false, 0, false)
	// One second of 2 CPUs (200 ticks): getrusage gives the harness 1.16 s
	// (116 ticks), the host's ticks 114 busy, and the kworker used 4.
	a.add(hostReading{at: t0.Add(time.Second), self: 1160 * time.Millisecond, busy: 1114, total: 2200, procs: procs(4)}, 10, 0, false, 1, false)
	h := a.result(2)
	if h.HarnessPct != 58 || h.OthersPct != 2 || h.IdlePct != 40 {
		t.Errorf("%+v: want harness 58%%, others 2%% (the kworker's), idle 40%%", h)
	}
	if line := h.Line(); line != "harness 58%, server 0%, others 2% (kworker/1:1H 2%), idle 40% of 2 CPUs" {
		t.Errorf("line %q", line)
	}
}
