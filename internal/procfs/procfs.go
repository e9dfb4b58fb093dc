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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	name, f, ok := parseProcStat(b)
	if !ok || name != comm || len(f) < 37 {
		return -1
	}
	cpu, err := strconv.Atoi(f[36])
	if err != nil || cpu < 0 {
		return -1
	}
	return cpu
}

// parseProcStat splits a /proc/PID/stat line into the command name and the
// fields after it, from the third (the state) on. The name is in
// parentheses and may hold spaces and parentheses itself: it ends at the
// line's last ")".
func parseProcStat(b []byte) (comm string, fields []string, ok bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", nil, false
	}
	return string(b[open+1 : end]), strings.Fields(string(b[end+1:])), true
}
