package evidence_test

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
)

// A server's processes are found on this host only under one of its names,
// with its children's tree where they belong to it.
func TestAServerProcessIsFoundByPIDAndName(t *testing.T) {
	procs := map[int]procfs.Proc{
		10: {PID: 10, PPID: 1, Comm: "postgres"},
		11: {PID: 11, PPID: 10, Comm: "postgres"},
		12: {PID: 12, PPID: 11, Comm: "postgres"},
		20: {PID: 20, PPID: 1, Comm: "bash"},
	}
	pg := evidence.ServerProcess{PID: 10, Names: []string{"postgres", "postmaster"}, Children: true}
	got, err := pg.On(procs)
	if err != nil || len(got) != 3 || !got[12] {
		t.Errorf("postmaster's tree %v, %v", got, err)
	}
	alone := evidence.ServerProcess{PID: 10, Names: []string{"postgres"}}
	if got, err := alone.On(procs); err != nil || len(got) != 1 || !got[10] {
		t.Errorf("one process %v, %v", got, err)
	}
	if _, err := (evidence.ServerProcess{PID: 20, Names: []string{"mariadbd", "mysqld"}}).On(procs); err == nil || !strings.Contains(err.Error(), `is "bash", not the server (mariadbd or mysqld)`) {
		t.Errorf("a process of another name: %v", err)
	}
	if _, err := (evidence.ServerProcess{PID: 99, Names: []string{"postgres"}}).On(procs); err == nil || !strings.Contains(err.Error(), "not a process on this host") {
		t.Errorf("a missing process: %v", err)
	}
}
