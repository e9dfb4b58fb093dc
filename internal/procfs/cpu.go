package procfs

import (
	"bytes"
	"os"
	"sort"
	"strconv"
	"strings"
)

// ClockTick is the unit of the CPU times in /proc/PID/stat and /proc/stat:
// USER_HZ, which Linux fixes at 100 per second for user space whatever the
// kernel's own tick rate.
const ClockTick = 0.01 // seconds

// Proc is one process of this host as /proc/PID/stat shows it.
type Proc struct {
	PID, PPID int
	// Comm is the command name (at most 15 bytes, as the kernel keeps it).
	Comm string
	// Ticks is the CPU time its threads have used, user and system, in
	// clock ticks (ClockTick), including its ended threads' but not its
	// reaped children's.
	Ticks uint64
	// ChildTicks is the CPU time of its children that ended and that it
	// has waited for (cutime and cstime, each child's own ChildTicks
	// included), in clock ticks.
	ChildTicks uint64
	// Start is when it started, in clock ticks after boot: with PID it
	// tells a process from a later one that reused its PID.
	Start uint64
}

// Processes reads every process of this host from /proc (those that end
// while it reads are left out), by PID.
func Processes() (map[int]Proc, error) {
	return processesIn("/proc")
}

func processesIn(root string) (map[int]Proc, error) {
	d, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	ps := make(map[int]Proc, len(names))
	buf := make([]byte, 0, 1024)
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		b, err := readProc(root+"/"+n+"/stat", buf)
		if err != nil {
			continue // it ended meanwhile
		}
		buf = b
		if p, ok := parseProc(pid, b); ok {
			ps[pid] = p
		}
	}
	return ps, nil
}

// ProcessesAmong reads the processes pids of this host from /proc, by PID,
// as Processes does but without listing every process: those that have
// ended are left out.
func ProcessesAmong(pids []int) map[int]Proc {
	ps := make(map[int]Proc, len(pids))
	buf := make([]byte, 0, 1024)
	for _, pid := range pids {
		b, err := readProc("/proc/"+strconv.Itoa(pid)+"/stat", buf)
		if err != nil {
			continue // it ended
		}
		buf = b
		if p, ok := parseProc(pid, b); ok {
			ps[pid] = p
		}
	}
	return ps
}

// parseProc reads one /proc/PID/stat line: the parent (field 4), user and
// system time (14 and 15) and the start time (22), counted from 1 as
// proc(5) counts them.
func parseProc(pid int, b []byte) (Proc, bool) {
	comm, rest, ok := splitProcStat(b)
	var f [20][2]int
	if !ok || statFields(rest, f[:]) < len(f) {
		return Proc{}, false
	}
	field := func(i int) string { return string(rest[f[i][0]:f[i][1]]) }
	ppid, err1 := strconv.Atoi(field(1))
	utime, err2 := strconv.ParseUint(field(11), 10, 64)
	stime, err3 := strconv.ParseUint(field(12), 10, 64)
	start, err4 := strconv.ParseUint(field(19), 10, 64)
	cutime, err5 := strconv.ParseInt(field(13), 10, 64)
	cstime, err6 := strconv.ParseInt(field(14), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || err6 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, Comm: string(comm), Ticks: utime + stime, ChildTicks: uint64(max(0, cutime) + max(0, cstime)), Start: start}, true
}

// HostTicks reads the host's CPU time from /proc/stat's "cpu" line, in
// clock ticks summed over its CPUs: busy is every state but idle and
// iowait (guest time is already counted in user); total includes them.
func HostTicks() (busy, total uint64, err error) {
	b, err := readProc("/proc/stat", make([]byte, 0, 4096))
	if err != nil {
		return 0, 0, err
	}
	busy, total, ok := parseHostTicks(b)
	if !ok {
		return 0, 0, errFormat("/proc/stat")
	}
	return busy, total, nil
}

func parseHostTicks(b []byte) (busy, total uint64, ok bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, false
	}
	// user nice system idle iowait irq softirq steal guest guest_nice:
	// guest and guest_nice are part of user and nice already.
	for i, s := range f[1:] {
		if i >= 8 {
			break
		}
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += v
		if i != 3 && i != 4 {
			busy += v
		}
	}
	return busy, total, true
}

type errFormat string

func (e errFormat) Error() string { return string(e) + ": unexpected format" }

// Use is the CPU a set of processes used between two readings.
type Use struct {
	// Comm is the command name they share.
	Comm string
	// PIDs are the processes, in order.
	PIDs []int
	// Ticks is their CPU time between the readings, in clock ticks.
	Ticks uint64
}

// Delta returns the CPU each process used between two readings of
// Processes, by PID: a process that started after the first reading counts
// from zero. A process that ended between the readings is in neither's
// view, but its parent, once it has waited for it, holds its time in
// ChildTicks: the growth of a process's ChildTicks, less what its ended
// children had used by the first reading, is counted as the process's
// own. So a server's connection processes that end within an interval
// (a run's last, or a connection per transaction) count to the server
// that waits for them.
func Delta(before, after map[int]Proc) map[int]uint64 {
	// What the children that ended had used by the first reading, by the
	// parent that had them then.
	counted := map[int]uint64{}
	for pid, b := range before {
		if a, ok := after[pid]; !ok || a.Start != b.Start {
			counted[b.PPID] += b.Ticks + b.ChildTicks
		}
	}
	d := make(map[int]uint64, len(after))
	for pid, a := range after {
		t := a.Ticks + a.ChildTicks
		if b, ok := before[pid]; ok && b.Start == a.Start {
			was := b.Ticks + b.ChildTicks + counted[pid]
			t = 0
			if a.Ticks+a.ChildTicks > was {
				t = a.Ticks + a.ChildTicks - was
			}
			// Its own time never goes back, whatever its children's
			// accounting says.
			if a.Ticks >= b.Ticks {
				t = max(t, a.Ticks-b.Ticks)
			}
		}
		if t > 0 {
			d[pid] = t
		}
	}
	return d
}

// ByComm adds up the processes' CPU of delta (from Delta) by command name,
// leaving out the PIDs in skip, largest first (then by name).
func ByComm(delta map[int]uint64, procs map[int]Proc, skip map[int]bool) []Use {
	by := map[string]*Use{}
	for pid, t := range delta {
		if skip[pid] {
			continue
		}
		comm := procs[pid].Comm
		u := by[comm]
		if u == nil {
			u = &Use{Comm: comm}
			by[comm] = u
		}
		u.PIDs = append(u.PIDs, pid)
		u.Ticks += t
	}
	out := make([]Use, 0, len(by))
	for _, u := range by {
		sort.Ints(u.PIDs)
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Ticks != out[j].Ticks {
			return out[i].Ticks > out[j].Ticks
		}
		return out[i].Comm < out[j].Comm
	})
	return out
}

// Tree returns root and every process below it in procs, by PID: the
// processes of a server whose main process is root (PostgreSQL's
// postmaster and its backends), or of a harness and its children.
func Tree(procs map[int]Proc, root int) map[int]bool {
	children := map[int][]int{}
	for pid, p := range procs {
		children[p.PPID] = append(children[p.PPID], pid)
	}
	in := map[int]bool{}
	if _, ok := procs[root]; !ok {
		return in
	}
	next := []int{root}
	for len(next) > 0 {
		pid := next[len(next)-1]
		next = next[:len(next)-1]
		if in[pid] {
			continue
		}
		in[pid] = true
		next = append(next, children[pid]...)
	}
	return in
}

// ParseMeminfo reads /proc/meminfo's lines ("MemTotal:  24576000 kB") into
// their values by name, as given (kB for the sizes); a line it cannot read
// is left out.
func ParseMeminfo(b []byte) map[string]int64 {
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			m[k] = v
		}
	}
	return m
}
