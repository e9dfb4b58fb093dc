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

func TestReschedulingInterruptsAreReadOnEveryArchitecture(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       float64
		ok         bool
	}{
		{"x86", "            CPU0       CPU1       CPU2\n  0:         44          0          0   IO-APIC   2-edge      timer\nLOC:   18437745   17611012   17000000   Local timer interrupts\nRES:    4052359    3610390         11   Rescheduling interrupts\nCAL:    1554318     937870          0   Function call interrupts\n", 7662760, true},
		{"arm64", "           CPU0       CPU1\n 11:     123456     654321     GICv3  27 Level     arch_timer\nIPI0:     2500      7500       Rescheduling interrupts\nIPI1:       40        60       Function call interrupts\n", 10000, true},
		{"none", "           CPU0\n  0:         44   IO-APIC   2-edge      timer\n", 0, false},
	} {
		n, ok := ReschedulingInterrupts([]byte(c.text))
		if n != c.want || ok != c.ok {
			t.Errorf("%s: %g, %v; want %g, %v", c.name, n, ok, c.want, c.ok)
		}
	}
}
