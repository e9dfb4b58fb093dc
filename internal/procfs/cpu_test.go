package procfs_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/procfs"
)

// The fields of /proc/PID/stat are read by their place after the name,
// which may hold spaces.
func TestAProcessLineGivesParentTicksAndStart(t *testing.T) {
	line := "4242 (my prog) R 17 4242 4242 0 -1 4194560 100 0 0 0 250 50 3 4 20 0 1 0 98765 1000 10 18446744073709551615\n"
	p, ok := procfs.ParseProc(4242, []byte(line))
	if !ok || p.PPID != 17 || p.Comm != "my prog" || p.Ticks != 300 || p.Start != 98765 {
		t.Errorf("parsed as %+v, %v", p, ok)
	}
	if _, ok := procfs.ParseProc(1, []byte("1 (short) S 0 1")); ok {
		t.Error("a short line parsed")
	}
}

// The host's busy time leaves out idle and iowait, and guest time (already
// in user) is not counted twice.
func TestHostTicksCountBusyAndTotal(t *testing.T) {
	b := []byte("cpu  100 5 30 800 40 2 3 1 50 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
	busy, total, ok := procfs.ParseHostTicks(b)
	if !ok || busy != 141 || total != 981 {
		t.Errorf("busy %d total %d ok %v, want 141 981", busy, total, ok)
	}
	if _, _, ok := procfs.ParseHostTicks([]byte("intr 1 2 3\n")); ok {
		t.Error("a file without a cpu line parsed")
	}
}

// A process that reuses an ended one's PID counts from zero; one that is
// gone is left out.
func TestDeltaCountsEachProcessFromItsOwnStart(t *testing.T) {
	before := map[int]procfs.Proc{
		10: {PID: 10, Comm: "a", Ticks: 100, Start: 5},
		11: {PID: 11, Comm: "b", Ticks: 50, Start: 6},
		12: {PID: 12, Comm: "gone", Ticks: 70, Start: 7},
	}
	after := map[int]procfs.Proc{
		10: {PID: 10, Comm: "a", Ticks: 130, Start: 5},
		11: {PID: 11, Comm: "c", Ticks: 20, Start: 99}, // a new process on an old PID
		13: {PID: 13, Comm: "a", Ticks: 5, Start: 100},
	}
	d := procfs.Delta(before, after)
	if len(d) != 3 || d[10] != 30 || d[11] != 20 || d[13] != 5 {
		t.Errorf("delta %v", d)
	}
	uses := procfs.ByComm(d, after, map[int]bool{13: true})
	if len(uses) != 2 || uses[0].Comm != "a" || uses[0].Ticks != 30 || uses[1].Comm != "c" {
		t.Errorf("by command %+v", uses)
	}
}

// A child that ends between two readings counts to its parent once the
// parent has waited for it (its ChildTicks grow): the part it used after
// the first reading, and all of one that started and ended in between.
func TestDeltaCountsChildrenThatEndedToTheirParent(t *testing.T) {
	before := map[int]procfs.Proc{
		1:  {PID: 1, Comm: "postgres", Ticks: 100, ChildTicks: 40, Start: 5},
		20: {PID: 20, PPID: 1, Comm: "postgres", Ticks: 50, ChildTicks: 0, Start: 6},
		21: {PID: 21, PPID: 1, Comm: "postgres", Ticks: 30, Start: 7},
	}
	after := map[int]procfs.Proc{
		// 20 ended with 80 ticks, and one never seen used 20: 40 + 80 + 20.
		1:  {PID: 1, Comm: "postgres", Ticks: 105, ChildTicks: 140, Start: 5},
		21: {PID: 21, PPID: 1, Comm: "postgres", Ticks: 45, Start: 7},
	}
	d := procfs.Delta(before, after)
	// 5 of its own, 80 - 50 of 20's, 20 of the unseen one's.
	if len(d) != 2 || d[1] != 55 || d[21] != 15 {
		t.Errorf("delta %v, want 1: 55 and 21: 15", d)
	}
	// A parent whose ended child is not yet waited for counts only its
	// own time, never less.
	after[1] = procfs.Proc{PID: 1, Comm: "postgres", Ticks: 107, ChildTicks: 40, Start: 5}
	if d := procfs.Delta(before, after); d[1] != 7 {
		t.Errorf("delta of a parent that has not waited %v, want 7", d)
	}
}

// The /proc reading carries cutime and cstime: a child that used CPU and
// was waited for shows in this process's ChildTicks.
func TestProcessesReadTheTimeOfChildrenWaitedFor(t *testing.T) {
	before, err := procfs.Processes()
	if err != nil {
		t.Fatal(err)
	}
	// About 0.2 s of CPU in a child, many clock ticks, however busy the host.
	if out, err := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	after, err := procfs.Processes()
	if err != nil {
		t.Fatal(err)
	}
	pid := os.Getpid()
	if a, b := after[pid].ChildTicks, before[pid].ChildTicks; a <= b {
		t.Errorf("ChildTicks %d after a child's CPU, %d before", a, b)
	}
	if d := procfs.Delta(before, after); d[pid] < after[pid].ChildTicks-before[pid].ChildTicks {
		t.Errorf("the child's time is not in this process's delta: %v", d[pid])
	}
}

// Tree follows parents down from the root and nowhere else.
func TestTreeHoldsTheRootAndItsDescendants(t *testing.T) {
	procs := map[int]procfs.Proc{1: {PPID: 0}, 2: {PPID: 1}, 3: {PPID: 2}, 4: {PPID: 1}, 5: {PPID: 0}}
	got := procfs.Tree(procs, 2)
	if len(got) != 2 || !got[2] || !got[3] {
		t.Errorf("tree of 2 is %v", got)
	}
	if len(procfs.Tree(procs, 9)) != 0 {
		t.Error("a missing root has a tree")
	}
}

// A CPU-bound child started between two readings of the real /proc is
// named, with the time it used, and its parent (this test) is its tree's
// root.
func TestABusyChildIsSeenInTheRealProc(t *testing.T) {
	before, err := procfs.Processes()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("yes") // its output goes to the null device
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// Wait until it has used at least 20 ticks, however busy the host.
	deadline := time.Now().Add(time.Minute)
	var after map[int]procfs.Proc
	for {
		time.Sleep(50 * time.Millisecond)
		if after, err = procfs.Processes(); err != nil {
			t.Fatal(err)
		}
		if after[cmd.Process.Pid].Ticks >= 20 || time.Now().After(deadline) {
			break
		}
	}
	uses := procfs.ByComm(procfs.Delta(before, after), after, nil)
	var yes *procfs.Use
	for i := range uses {
		if uses[i].Comm == "yes" {
			yes = &uses[i]
		}
	}
	if yes == nil || yes.Ticks < 20 {
		t.Fatalf("the busy child is not among %+v", uses)
	}
	if !procfs.Tree(after, os.Getpid())[cmd.Process.Pid] {
		t.Error("the child is not in this process's tree")
	}
	busy, total, err := procfs.HostTicks()
	if err != nil || busy == 0 || total < busy {
		t.Errorf("host ticks %d of %d: %v", busy, total, err)
	}
}

// /proc/meminfo's values are read by name, in the file's own unit.
func TestMeminfoIsReadByName(t *testing.T) {
	m := procfs.ParseMeminfo([]byte("MemTotal:       24576000 kB\nMemAvailable:   20000000 kB\nHugePages_Total:       0\nbroken line\nSwapFree: x kB\n"))
	if len(m) != 3 || m["MemTotal"] != 24576000 || m["MemAvailable"] != 20000000 || m["HugePages_Total"] != 0 {
		t.Errorf("read %v", m)
	}
}
