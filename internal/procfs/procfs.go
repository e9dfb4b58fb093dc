// Package procfs reads the facts of this host's processes that dbharness
// needs from /proc: a process's parent and the CPU it last ran on, and the
// CPU time of every process and of the host, which tells who used the host
// during a run. It is a leaf, so that the engines' drivers can call it on
// their hot path.
package procfs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ParentPID returns the parent of process pid on this host, from
// /proc/PID/stat.
func ParentPID(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	_, f, ok := parseProcStat(b)
	if !ok || len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return strconv.Atoi(f[1])
}

// ProcessCPU returns the CPU that process pid of this host last ran on
// (the 39th field of /proc/PID/stat), when its command name is comm; else
// -1. The name check keeps a PID of another namespace (a server in a
// container) from naming an unrelated process of this one.
func ProcessCPU(pid int, comm string) int {
	if pid <= 0 {
		return -1
	}
	// It runs on the event loops' threads: the line is read into the
	// stack and parsed where it lies, without allocating.
	var room [512]byte
	b, err := readProc("/proc/"+strconv.Itoa(pid)+"/stat", room[:0])
	if err != nil {
		return -1
	}
	name, rest, ok := splitProcStat(b)
	var f [37][2]int
	if !ok || string(name) != comm || statFields(rest, f[:]) < len(f) {
		return -1
	}
	cpu, err := strconv.Atoi(string(rest[f[36][0]:f[36][1]]))
	if err != nil || cpu < 0 {
		return -1
	}
	return cpu
}

// splitProcStat splits a /proc/PID/stat line into the command name and
// what follows it, from the third field (the state) on. The name is in
// parentheses and may hold spaces and parentheses itself: it ends at the
// line's last ")".
func splitProcStat(b []byte) (comm, rest []byte, ok bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return nil, nil, false
	}
	return b[open+1 : end], b[end+1:], true
}

// statFields finds the first len(out) blank-separated fields of rest, the
// field out[i] being rest[out[i][0]:out[i][1]], and returns how many there
// were. (Places rather than slices keep rest off the heap.)
func statFields(rest []byte, out [][2]int) int {
	n := 0
	for i := 0; i < len(rest) && n < len(out); {
		for i < len(rest) && (rest[i] == ' ' || rest[i] == '\n' || rest[i] == '\t') {
			i++
		}
		j := i
		for j < len(rest) && rest[j] != ' ' && rest[j] != '\n' && rest[j] != '\t' {
			j++
		}
		if j > i {
			out[n] = [2]int{i, j}
			n++
		}
		i = j
	}
	return n
}

// parseProcStat is splitProcStat with the name and every field as strings.
func parseProcStat(b []byte) (comm string, fields []string, ok bool) {
	name, rest, ok := splitProcStat(b)
	if !ok {
		return "", nil, false
	}
	return string(name), strings.Fields(string(rest)), true
}
