// Package doctor is the pre-flight check of `dbharness doctor` and of
// every run: the client host's CPU over a second and the settings of the
// host that move a benchmark's figures (the CPU frequency governor,
// transparent huge pages, swap, the clock source), and the server's
// settings through the engine's evidence.ServerChecker. Each check is a
// pure function of what was read, so that its warning can be tested
// without changing the host.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
)

// Check is one line of the pre-flight check.
type Check = evidence.Check

// OthersThreshold is the share of the host's CPU that processes other than
// dbharness (and, in a run, the database server) may use before the CPU
// check warns: 5%, a share that can move a lock-bound run's figures by more
// than its run-to-run noise.
const OthersThreshold = 5.0

// Warnings returns the checks that warn.
func Warnings(cs []Check) []Check {
	var w []Check
	for _, c := range cs {
		if c.Status == evidence.StatusWarn {
			w = append(w, c)
		}
	}
	return w
}

// Probe is the host's check under way: the first reading of the CPU, taken
// by StartHost, and the second taken by Finish.
type Probe struct {
	start       time.Time
	span        time.Duration
	procs       map[int]procfs.Proc
	busy, total uint64
	err         error
}

// StartHost takes the first reading of the host's CPU; Finish takes the
// second, span later, so that the caller can do its own work in between.
func StartHost(span time.Duration) *Probe {
	p := &Probe{start: time.Now(), span: span}
	if p.procs, p.err = procfs.Processes(); p.err == nil {
		p.busy, p.total, p.err = procfs.HostTicks()
	}
	return p
}

// Finish waits until the span has passed since StartHost (or ctx ends),
// takes the second reading and returns the host's checks. The processes in
// skip (the database server's, in a run) are not counted as others; this
// process and its children never are.
func (p *Probe) Finish(ctx context.Context, skip map[int]bool) []Check {
	t := time.NewTimer(time.Until(p.start.Add(p.span)))
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	var cs []Check
	cs = append(cs, loadCheck(readFile("/proc/loadavg"), runtime.NumCPU()))
	cs = append(cs, p.cpu(skip))
	govs, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")
	var gs []string
	for _, g := range govs {
		if s := readFile(g); s != "" {
			gs = append(gs, s)
		}
	}
	cs = append(cs, governorCheck(gs))
	cs = append(cs, thpCheck(readFile("/sys/kernel/mm/transparent_hugepage/enabled")))
	b, _ := os.ReadFile("/proc/meminfo")
	cs = append(cs, swapCheck(parseMeminfo(b)))
	cs = append(cs, clockCheck(readFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")))
	return cs
}

// cpu reads the host's CPU a second time and makes the CPU check.
func (p *Probe) cpu(skip map[int]bool) Check {
	if p.err != nil {
		return hostInfo("cpu", "not measured: "+p.err.Error(), "")
	}
	after, err := procfs.Processes()
	if err != nil {
		return hostInfo("cpu", "not measured: "+err.Error(), "")
	}
	busy, total, err := procfs.HostTicks()
	if err != nil {
		return hostInfo("cpu", "not measured: "+err.Error(), "")
	}
	ours := procfs.Tree(after, os.Getpid())
	for pid := range skip {
		ours[pid] = true
	}
	uses := procfs.ByComm(procfs.Delta(p.procs, after), after, ours)
	return cpuCheck(busy-p.busy, total-p.total, uses, time.Since(p.start))
}

func hostCheck(name, status, value, advice string) Check {
	return Check{Section: evidence.SectionHost, Name: name, Status: status, Value: value, Advice: advice}
}

func hostInfo(name, value, advice string) Check {
	return hostCheck(name, evidence.StatusInfo, value, advice)
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// cpuCheck says how idle the host was and who else used it: busy and total
// are the host's ticks over the span (all CPUs), uses the other processes'
// (procfs.ByComm). It warns when the others took OthersThreshold or more of
// the host's CPU.
func cpuCheck(busy, total uint64, uses []procfs.Use, span time.Duration) Check {
	if total == 0 {
		return hostInfo("cpu", "not measured: /proc/stat did not move", "")
	}
	var others uint64
	for _, u := range uses {
		others += u.Ticks
	}
	pct := func(t uint64) float64 { return 100 * float64(t) / float64(total) }
	v := fmt.Sprintf("idle %.0f%% over %.1fs; other processes %.0f%%", 100-pct(busy), span.Seconds(), pct(others))
	var top []string
	for _, u := range uses {
		if len(top) == 3 || pct(u.Ticks) < 1 {
			break
		}
		top = append(top, fmt.Sprintf("%s %.0f%%", u.Comm, pct(u.Ticks)))
	}
	if len(top) > 0 {
		v += " (" + strings.Join(top, ", ") + ")"
	}
	if pct(others) >= OthersThreshold {
		return hostCheck("cpu", evidence.StatusWarn, v, "stop them or run elsewhere, or the figures include their interference: a process at even the lowest priority takes CPU from a lock holder")
	}
	return hostCheck("cpu", evidence.StatusOK, v, "")
}

// loadCheck reads /proc/loadavg: it warns when the 1-minute load average
// (runnable and uninterruptible tasks) is above half the CPUs, a host that
// has been busy over the last minute.
func loadCheck(loadavg string, cpus int) Check {
	f := strings.Fields(loadavg)
	if len(f) < 1 {
		return hostInfo("load", "not exposed (/proc/loadavg)", "")
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return hostInfo("load", "unreadable: "+loadavg, "")
	}
	v := fmt.Sprintf("%.2f over the last minute, %d CPUs", l, cpus)
	if l > float64(cpus)/2 {
		return hostCheck("load", evidence.StatusWarn, v, "the host has been busy over the last minute: find what runs with top, and wait for it to end")
	}
	return hostCheck("load", evidence.StatusOK, v, "")
}

// governorCheck takes each CPU's scaling_governor: none exposed (a VM, or
// a kernel without cpufreq) is a fact; performance everywhere is OK; any
// other governor changes the clock speed with the load.
func governorCheck(govs []string) Check {
	if len(govs) == 0 {
		return hostInfo("cpu governor", "not exposed (a VM or no cpufreq driver): the clock speed is the host's to set", "")
	}
	n := map[string]int{}
	for _, g := range govs {
		n[g]++
	}
	names := make([]string, 0, len(n))
	for g := range n {
		names = append(names, g)
	}
	sort.Strings(names)
	var parts []string
	for _, g := range names {
		parts = append(parts, fmt.Sprintf("%s on %d CPUs", g, n[g]))
	}
	v := strings.Join(parts, ", ")
	if len(n) == 1 && n["performance"] > 0 {
		return hostCheck("cpu governor", evidence.StatusOK, v, "")
	}
	return hostCheck("cpu governor", evidence.StatusWarn, v, "the CPUs' clock speed follows the load, so short or light runs measure a slower CPU: set the performance governor (cpupower frequency-set -g performance)")
}

// thpCheck takes transparent_hugepage/enabled ("always [madvise] never"):
// always warns, as the kernel then stalls processes to compact memory, which
// PostgreSQL's and MySQL's documentation advise against.
func thpCheck(s string) Check {
	const name = "transparent huge pages"
	if s == "" {
		return hostInfo(name, "not exposed", "")
	}
	mode := s
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			mode = s[i+1 : i+j]
		}
	}
	if mode == "always" {
		return hostCheck(name, evidence.StatusWarn, mode, "the kernel stalls the server at random to compact memory into huge pages: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled")
	}
	return hostCheck(name, evidence.StatusOK, mode, "")
}

// meminfo is what swapCheck reads of /proc/meminfo, in bytes.
type meminfo struct {
	total, available, swapTotal, swapFree int64
	ok                                    bool
}

func parseMeminfo(b []byte) meminfo {
	kb := procfs.ParseMeminfo(b)
	total, ok := kb["MemTotal"]
	return meminfo{total: total * 1024, available: kb["MemAvailable"] * 1024,
		swapTotal: kb["SwapTotal"] * 1024, swapFree: kb["SwapFree"] * 1024, ok: ok}
}

// swapCheck warns when the swap in use is above 1% of memory: the host ran
// short of memory, and a server whose pages are out waits for the disk.
func swapCheck(m meminfo) Check {
	if !m.ok {
		return hostInfo("swap", "not exposed (/proc/meminfo)", "")
	}
	if m.swapTotal == 0 {
		return hostCheck("swap", evidence.StatusOK, "none configured", "")
	}
	used := m.swapTotal - m.swapFree
	v := fmt.Sprintf("%s of %s in use; %s of memory available", evidence.SizeText(used), evidence.SizeText(m.swapTotal), evidence.SizeText(m.available))
	if used*100 > m.total {
		return hostCheck("swap", evidence.StatusWarn, v, "the host has run short of memory, and a process whose pages are swapped out waits for the disk: free memory (or swapoff -a && swapon -a once it is free)")
	}
	return hostCheck("swap", evidence.StatusOK, v, "")
}

// clockCheck takes the current clock source: tsc (and arm64's
// arch_sys_counter) are read in user space in nanoseconds; the hypervisors'
// paravirtual clocks are too, nearly as fast; others (hpet, acpi_pm) cost a
// system call and a slow device read for every timestamp.
func clockCheck(src string) Check {
	const name = "clock source"
	switch src {
	case "":
		return hostInfo(name, "not exposed", "")
	case "tsc", "arch_sys_counter":
		return hostCheck(name, evidence.StatusOK, src, "")
	case "kvm-clock", "hyperv_clocksource_tsc_page", "xen":
		return hostInfo(name, src+" (a hypervisor's clock, read in user space like tsc)", "")
	}
	return hostCheck(name, evidence.StatusWarn, src, "every timestamp is a system call and a slow device read (a microsecond or more rather than tens of nanoseconds), which inflates latencies and the server's own timing: use tsc if the CPU's is stable (clocksource=tsc on the kernel's command line)")
}

// Server runs the engine's checks of d's server (evidence.ServerChecker)
// for a run of clients, with the host's memory when the server is on this
// host; ok is false when the engine has none.
func Server(ctx context.Context, d db.DB, clients int) (cs []Check, ok bool, err error) {
	sc, ok := d.(evidence.ServerChecker)
	if !ok {
		return nil, false, nil
	}
	cs, err = sc.ServerChecks(ctx, evidence.DoctorOptions{Clients: clients, Memory: serverMemory(ctx, d)})
	return cs, true, err
}

// serverMemory returns this host's memory when d's server runs on it: a
// database file, or a server whose process the engine finds here.
func serverMemory(ctx context.Context, d db.DB) *evidence.Memory {
	if d.Target().Path == "" {
		if _, ok := ServerProcesses(ctx, d); !ok {
			return nil
		}
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return nil
	}
	m := parseMeminfo(b)
	if !m.ok {
		return nil
	}
	return &evidence.Memory{Total: m.total, Available: m.available}
}

// ServerProcesses returns the PIDs of d's server on this host (its main
// process, and its children where they are part of it), found through the
// engine's evidence.ServerProcessFinder; ok is false when the server is
// not found here.
func ServerProcesses(ctx context.Context, d db.DB) (map[int]bool, bool) {
	f, ok := d.(evidence.ServerProcessFinder)
	if !ok {
		return nil, false
	}
	sp, err := f.ServerProcess(ctx)
	if err != nil {
		return nil, false
	}
	procs, err := procfs.Processes()
	if err != nil {
		return nil, false
	}
	set, err := sp.On(procs)
	return set, err == nil
}
