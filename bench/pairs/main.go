//go:build linux

// Command pairs compares two commands that do the same fixed work: it runs
// them alternately, pair after pair, and reports for each pair the wall
// time and the CPU time (user + system, from the OS: the rusage wait4
// returns for the child and the children it waited for) of both, then the
// median ratio of B to A and its spread over the pairs: its range, its
// interquartile range and, from 6 pairs, a confidence interval of at least
// 95% for the median (the sign test's, which assumes nothing of the
// ratios' distribution). Where two builds differ by 2%, 8 pairs on a
// 2-core guest do not tell them apart and 30 can.
//
// It also prints the share of the machine's CPU time that stood idle
// while each ran, how much CPU the rest of the machine used (B/A): with
// the database server on this host, that is the server's work for the
// same transactions, and how many reschedule interrupts the machine took
// (wake-ups that crossed CPUs: where a client and a server on one host
// ran apart, each message costs both more), and each side's CPU time split
// into user and system time.
//
// With fixed work, wall time is throughput: a ratio under 1 means B was
// faster (or cheaper). Alternating spreads the machine's drift over both
// sides; the spread says how far one pair can be trusted.
//
//	go run ./bench/pairs -n 5 -a 'pgbench -n -S -t 20000 ...' -b './dbharness run tpcb -t 20000 ...'
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"

	"github.com/dbharness/dbharness/internal/selfcost"
)

// sample is one command's wall and CPU time, the machine's busy and idle
// CPU time while it ran (from /proc/stat: every process's, the database
// server's included when it runs on this host) and the reschedule
// interrupts its CPUs took meanwhile (from /proc/interrupts; -1 where
// unknown).
type sample struct {
	wall, cpu, busy, idle time.Duration
	// user and sys are cpu's two parts: where two tools differ in CPU,
	// this says whether in their own code or in the kernel's work for them.
	user, sys time.Duration
	resched   float64
}

// idleShare is the part of the machine's CPU time that stood idle.
func (s sample) idleShare() float64 { return s.idle.Seconds() / (s.busy + s.idle).Seconds() }

// others is the CPU time the rest of the machine (the server, on this
// host) used while the command ran: the machine's busy time less the
// command's own.
func (s sample) others() time.Duration { return s.busy - s.cpu }

func main() {
	a := flag.String("a", "", "command A (run with bash -c), the reference")
	b := flag.String("b", "", "command B (run with bash -c), compared with A")
	nameA := flag.String("name-a", "A", "name of A in the output")
	nameB := flag.String("name-b", "B", "name of B in the output")
	n := flag.Int("n", 5, "pairs")
	title := flag.String("title", "", "a line printed before the pairs")
	flag.Parse()
	if *a == "" || *b == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "pairs: give -a and -b commands and -n >= 1")
		os.Exit(2)
	}
	if *title != "" {
		fmt.Println(*title)
	}
	var wall, cpu, other, idleA, idleB, resA, resB []float64
	var userA, userB, sysA, sysB []float64
	for i := 1; i <= *n; i++ {
		// Alternate which runs first, so that neither always follows the
		// other.
		var sa, sb sample
		if i%2 == 1 {
			sa, sb = run(*nameA, *a), run(*nameB, *b)
		} else {
			sb, sa = run(*nameB, *b), run(*nameA, *a)
		}
		wr, cr := sb.wall.Seconds()/sa.wall.Seconds(), sb.cpu.Seconds()/sa.cpu.Seconds()
		or := sb.others().Seconds() / sa.others().Seconds()
		wall, cpu, other = append(wall, wr), append(cpu, cr), append(other, or)
		idleA, idleB = append(idleA, 100*sa.idleShare()), append(idleB, 100*sb.idleShare())
		resA, resB = append(resA, sa.resched/1000), append(resB, sb.resched/1000)
		userA, userB = append(userA, sa.user.Seconds()), append(userB, sb.user.Seconds())
		sysA, sysB = append(sysA, sa.sys.Seconds()), append(sysB, sb.sys.Seconds())
		fmt.Printf("  pair %d: %s %6.2fs wall %6.2fs cpu %4.1f%% idle %6.1fk IPIs | %s %6.2fs wall %6.2fs cpu %4.1f%% idle %6.1fk IPIs | %s/%s wall %.3f cpu %.3f others' cpu %.3f\n",
			i, *nameA, sa.wall.Seconds(), sa.cpu.Seconds(), 100*sa.idleShare(), sa.resched/1000, *nameB, sb.wall.Seconds(), sb.cpu.Seconds(), 100*sb.idleShare(), sb.resched/1000, *nameB, *nameA, wr, cr, or)
	}
	fmt.Printf("  %s/%s over %d pairs: wall median %.3f (%srange %.3f-%.3f, IQR %.3f-%.3f); cpu median %.3f (%srange %.3f-%.3f, IQR %.3f-%.3f)\n",
		*nameB, *nameA, *n, median(wall), ciText(wall), minOf(wall), maxOf(wall), quantile(wall, 0.25), quantile(wall, 0.75),
		median(cpu), ciText(cpu), minOf(cpu), maxOf(cpu), quantile(cpu, 0.25), quantile(cpu, 0.75))
	fmt.Printf("  the machine's idle CPU time, median: %s %.1f%% (range %.1f-%.1f), %s %.1f%% (range %.1f-%.1f); the rest of the machine's CPU (the server's, on this host), %s/%s median %.3f (range %.3f-%.3f)\n",
		*nameA, median(idleA), minOf(idleA), maxOf(idleA), *nameB, median(idleB), minOf(idleB), maxOf(idleB),
		*nameB, *nameA, median(other), minOf(other), maxOf(other))
	line := fmt.Sprintf("  CPU time, median seconds: %s user %.3f system %.3f, %s user %.3f system %.3f",
		*nameA, median(userA), median(sysA), *nameB, median(userB), median(sysB))
	if median(userA) > 0 && median(sysA) > 0 {
		line += fmt.Sprintf("; the medians' ratio %s/%s: user %.3f, system %.3f", *nameB, *nameA, median(userB)/median(userA), median(sysB)/median(sysA))
	}
	fmt.Println(line)
	if minOf(resA) >= 0 && minOf(resB) >= 0 {
		fmt.Printf("  reschedule interrupts (wake-ups that crossed CPUs), thousands, median: %s %.1f (range %.1f-%.1f), %s %.1f (range %.1f-%.1f)\n",
			*nameA, median(resA), minOf(resA), maxOf(resA), *nameB, median(resB), minOf(resB), maxOf(resB))
	}
	fmt.Printf("RESULT wall_median=%.4f wall_min=%.4f wall_max=%.4f cpu_median=%.4f cpu_min=%.4f cpu_max=%.4f\n",
		median(wall), minOf(wall), maxOf(wall), median(cpu), minOf(cpu), maxOf(cpu))
}

// run runs cmd and returns its wall and CPU time; it exits when cmd fails.
func run(name, cmd string) sample {
	c := exec.Command("bash", "-c", cmd)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	busy0, idle0 := machineCPU()
	res0 := resched()
	start := time.Now()
	err := c.Run()
	wall := time.Since(start)
	busy1, idle1 := machineCPU()
	res := -1.0
	if res1 := resched(); res0 >= 0 && res1 >= 0 {
		res = res1 - res0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pairs: %s failed (%v):\n%s", name, err, out.String())
		os.Exit(1)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	user, sys := time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
	return sample{wall: wall, cpu: user + sys, user: user, sys: sys, busy: busy1 - busy0, idle: idle1 - idle0, resched: res}
}

// resched is the reschedule interrupts every CPU has taken so far (from
// /proc/interrupts, as the OS collector reads them); -1 where unknown.
func resched() float64 {
	b, err := os.ReadFile("/proc/interrupts")
	if err != nil {
		return -1
	}
	n, ok := selfcost.ReschedulingInterrupts(b)
	if !ok {
		return -1
	}
	return n
}

// machineCPU is the CPU time of every CPU of the machine so far, from
// /proc/stat (selfcost): busy (user, nice, system, irq, softirq) and idle
// (idle, iowait). Steal (a VM's CPU time the host gave to others) is
// neither.
func machineCPU() (busy, idle time.Duration) {
	s := selfcost.Read()
	if s.HostTotal == 0 {
		fmt.Fprintln(os.Stderr, "pairs: /proc/stat has no CPU time to read")
		os.Exit(1)
	}
	// USER_HZ is 100 on Linux: the ticks are hundredths of a second.
	ticks := func(n uint64) time.Duration { return time.Duration(n) * 10 * time.Millisecond }
	return ticks(s.HostBusy - s.HostSteal), ticks(s.HostTotal - s.HostBusy)
}

func sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// quantile interpolates linearly between the order statistics.
func quantile(xs []float64, q float64) float64 {
	s := sorted(xs)
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

func median(xs []float64) float64 { return quantile(xs, 0.5) }

// medianCI is a confidence interval of at least 95% for the median of
// the ratios' distribution, which assumes nothing of its shape: the k-th
// smallest and the k-th largest of the n ratios, for the largest k at
// which fewer than k of n fall below the median with a chance of at most
// 2.5% (each falls below it with a chance of one half). It returns the
// interval's confidence too; ok is false below 6 pairs, where even the
// smallest and largest ratio bound the median with less than 95%.
func medianCI(xs []float64) (lo, hi, conf float64, ok bool) {
	n := len(xs)
	tail, k := 0.0, 0
	for i := 0; i <= n; i++ {
		p := math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
		if tail+p > 0.025 {
			break
		}
		tail += p
		k = i + 1
	}
	if k == 0 {
		return 0, 0, 0, false
	}
	s := sorted(xs)
	return s[k-1], s[n-k], 1 - 2*tail, true
}

// lchoose is the natural logarithm of n choose k.
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// ciText is the median's confidence interval as the summary prints it,
// or "" below 6 pairs.
func ciText(xs []float64) string {
	lo, hi, conf, ok := medianCI(xs)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%.0f%% CI %.3f-%.3f, ", math.Floor(100*conf), lo, hi)
}

func minOf(xs []float64) float64 { return sorted(xs)[0] }
func maxOf(xs []float64) float64 { s := sorted(xs); return s[len(s)-1] }
