package selfcost

import (
	"runtime"
	"testing"
	"time"
)

func TestASampleCountsTheProcessCPUAndTheHostsTime(t *testing.T) {
	a := Read()
	// Burn CPU until the process's own clock has moved.
	x := 0
	for deadline := time.Now().Add(5 * time.Second); ProcessCPU()-a.CPU < 20*time.Millisecond && time.Now().Before(deadline); {
		for i := range 100000 {
			x += i
		}
	}
	_ = x
	b := Read()
	sp := Between(a, b)
	if sp.CPU < 20*time.Millisecond {
		t.Errorf("the process used %s of CPU, want at least 20ms", sp.CPU)
	}
	if b.HostTotal <= a.HostTotal || sp.HostIdle < 0 || sp.HostIdle > 1 {
		t.Errorf("host time %d -> %d, idle share %g: /proc/stat was not read", a.HostTotal, b.HostTotal, sp.HostIdle)
	}
	if b.Running < 1 {
		t.Errorf("procs_running %d: at least this process runs", b.Running)
	}
}

// The host's line is summed over its CPUs: idle and iowait are idle,
// the rest up to steal busy, steal also apart; guest time is already in
// user time and is not counted twice.
func TestTheHostsLineOfProcStatIsSplitIntoBusyIdleAndSteal(t *testing.T) {
	var s Sample
	parseStat([]byte("cpu  100 2 30 500 7 1 4 9 50 0\ncpu0 50 1 15 250 3 0 2 4 25 0\nintr 1 2\nprocs_running 3\nprocs_blocked 0\n"), &s)
	if s.HostBusy != 100+2+30+1+4+9 || s.HostTotal != s.HostBusy+500+7 || s.HostSteal != 9 || s.Running != 3 {
		t.Errorf("busy %d, total %d, steal %d, running %d; want 146, 653, 9, 3", s.HostBusy, s.HostTotal, s.HostSteal, s.Running)
	}
}

func TestSaturationIsIdleUnderFivePercentOrARunQueueOverTwiceTheCores(t *testing.T) {
	cores := float64(runtime.NumCPU())
	for _, c := range []struct {
		idle, queue float64
		want        bool
	}{
		{0.50, 1, false},
		{0.04, 1, true},
		{0.05, 1, false},
		{0.50, 2*cores + 0.5, true},
		{0.50, 2 * cores, false},
		{-1, -1, false}, // unknown
		{-1, 2*cores + 1, true},
	} {
		if got := Saturated(c.idle, c.queue); got != c.want {
			t.Errorf("Saturated(idle %g, run queue %g) = %v on %g cores, want %v", c.idle, c.queue, got, cores, c.want)
		}
	}
}
