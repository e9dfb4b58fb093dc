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

// readProc reads a file larger than the room it is given whole, growing
// the room, and one that fits in one read.
func TestReadProcReadsAFileWhole(t *testing.T) {
	big := []byte(strings.Repeat("0123456789abcdef", 300)) // 4,800 bytes
	path := t.TempDir() + "/big"
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, room := range []int{0, 16, 4800, 8192} {
		got, err := procfs.ReadProc(path, make([]byte, 0, room))
		if err != nil || string(got) != string(big) {
			t.Errorf("with room for %d bytes: read %d bytes, %v; want the file's %d", room, len(got), err, len(big))
		}
	}
	want, err := os.ReadFile("/proc/self/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := procfs.ReadProc("/proc/self/cmdline", nil); err != nil || string(got) != string(want) {
		t.Errorf("/proc/self/cmdline read as %q, %v; want %q", got, err, want)
	}
	if _, err := procfs.ReadProc(path+".missing", nil); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want a not-exist error", err)
	}
}
