package procfs_test

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dbharness/dbharness/internal/procfs"
)

// A command name may hold spaces and parentheses: the fields start after
// the last ")".
func TestProcStatSplitsANameWithParentheses(t *testing.T) {
	comm, f, ok := procfs.ParseProcStat([]byte("4242 (a) (b c) S 1 4242 4242 0 -1\n"))
	if !ok || comm != "a) (b c" || len(f) != 6 || f[0] != "S" || f[1] != "1" {
		t.Errorf("parsed as %q, %q, %v", comm, f, ok)
	}
	if _, _, ok := procfs.ParseProcStat([]byte("4242 no name here")); ok {
		t.Error("a line without a name parsed")
	}
}

// ProcessCPU reads the CPU a thread last ran on, and only when the name
// matches.
func TestProcessCPUReadsWhereAThreadRanWhenItsNameMatches(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for i := range len(allowed) * 64 {
		if allowed.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	if len(cpus) < 2 {
		t.Fatalf("this test needs two CPUs; the process may use %v", cpus)
	}
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	comm := strings.TrimSpace(string(b))
	for _, cpu := range []int{cpus[0], cpus[len(cpus)-1]} {
		type reading struct{ got, wrongName int }
		done := make(chan reading, 1)
		go func() {
			// The thread stays on cpu: it ends with the goroutine (no
			// Unlock).
			runtime.LockOSThread()
			var set unix.CPUSet
			set.Set(cpu)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				done <- reading{-2, -2}
				return
			}
			tid := unix.Gettid()
			done <- reading{procfs.ProcessCPU(tid, comm), procfs.ProcessCPU(tid, comm+"x")}
		}()
		r := <-done
		if r.got == -2 {
			t.Fatalf("could not keep a thread on CPU %d", cpu)
		}
		if r.got != cpu {
			t.Errorf("ProcessCPU of a thread kept on CPU %d = %d", cpu, r.got)
		}
		if r.wrongName != -1 {
			t.Errorf("ProcessCPU under another name = %d, want -1", r.wrongName)
		}
	}
	if got := procfs.ProcessCPU(0, comm); got != -1 {
		t.Errorf("ProcessCPU(0) = %d, want -1", got)
	}
}
