// Package selfcost measures what a run costs the machine it runs on: the
// harness process's own CPU time (getrusage) and whether its host is
// saturated (idle time and run queue from /proc/stat), so that a run can
// say when the harness itself may have been the bottleneck; and how many
// of the host's wake-ups crossed CPUs (reschedule interrupts, from
// /proc/interrupts).
package selfcost

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// Sample is one reading.
type Sample struct {
	// At is when it was taken.
	At time.Time
	// CPU is the process's user and system time so far.
	CPU time.Duration
	// HostBusy and HostTotal are the host's non-idle and total CPU time so
	// far, in clock ticks summed over its CPUs (zero where /proc/stat cannot
	// be read).
	HostBusy, HostTotal uint64
	// HostSteal is the part of HostBusy that was a VM's steal time: time
	// the hypervisor gave to others while this host wanted to run.
	HostSteal uint64
	// Running is the number of runnable tasks on the host (procs_running),
	// the harness's own reading thread included; -1 where unknown.
	Running int
}

// Read takes a sample.
func Read() Sample {
	s := Sample{At: time.Now(), CPU: ProcessCPU(), Running: -1}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		parseStat(b, &s)
	}
	return s
}

// parseStat reads the host's CPU time and run queue from /proc/stat's
// text b into s.
func parseStat(b []byte, s *Sample) {
	for line := range bytes.Lines(b) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case bytes.HasPrefix(line, []byte("cpu ")):
			// user nice system idle iowait irq softirq steal ...
			for i, f := range bytes.Fields(line)[1:] {
				v, err := strconv.ParseUint(string(f), 10, 64)
				if err != nil || i >= 8 {
					break
				}
				s.HostTotal += v
				if i != 3 && i != 4 { // idle and iowait are idle time
					s.HostBusy += v
				}
				if i == 7 {
					s.HostSteal = v
				}
			}
		case bytes.HasPrefix(line, []byte("procs_running ")):
			if n, err := strconv.Atoi(string(bytes.TrimSpace(line[len("procs_running "):]))); err == nil {
				s.Running = n
			}
		}
	}
}

// ReschedulingInterrupts returns the reschedule interrupts every CPU has
// taken so far, from /proc/interrupts' text b: the row Linux describes as
// "Rescheduling interrupts" (RES on x86, IPI0 on arm64). One CPU sends one
// to another to make it run a task it woke there, so their rate counts
// the wake-ups that crossed CPUs, what a client and a server on one host
// pay for each other's messages when they run apart. false when b has
// no such row.
func ReschedulingInterrupts(b []byte) (float64, bool) {
	for line := range bytes.Lines(b) {
		if !bytes.Contains(line, []byte("Rescheduling interrupts")) {
			continue
		}
		// "RES:  n0  n1 ...  Rescheduling interrupts": the numbers after
		// the row's name, one per CPU, up to its description.
		_, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, false
		}
		var n float64
		for _, f := range bytes.Fields(rest) {
			v, err := strconv.ParseUint(string(f), 10, 64)
			if err != nil {
				break
			}
			n += float64(v)
		}
		return n, true
	}
	return 0, false
}

// ProcessCPU is the user plus system CPU time the process has used.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Span is what happened between two samples.
type Span struct {
	// CPU is the process's CPU time in the span.
	CPU time.Duration
	// HostIdle is the host's idle share (0 to 1); -1 where unknown.
	HostIdle float64
}

// Between returns the span from a to b.
func Between(a, b Sample) Span {
	sp := Span{CPU: b.CPU - a.CPU, HostIdle: -1}
	if dt := b.HostTotal - a.HostTotal; b.HostTotal > a.HostTotal {
		sp.HostIdle = 1 - float64(b.HostBusy-a.HostBusy)/float64(dt)
	}
	return sp
}

// Saturated reports whether a host showed saturation over a phase: idle
// under 5% of its CPU time, or on average more than twice as many
// runnable tasks as it has cores. idle is -1 and runQueue negative when
// unknown.
func Saturated(idle, runQueue float64) bool {
	return idle >= 0 && idle < 0.05 || runQueue > 2*float64(runtime.NumCPU())
}
