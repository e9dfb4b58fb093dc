package evidence

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dbharness/dbharness/internal/procfs"
)

// ServerProcess names a database server's main process on this host.
type ServerProcess struct {
	PID int
	// Names are the command names (/proc/PID/comm) the server's process
	// carries; the process is checked against them before it is profiled,
	// so that a PID from another host or container is not taken for it.
	Names []string
	// Children says that its child processes are part of the server
	// (PostgreSQL's backends and background processes); a process's
	// threads are always included.
	Children bool
	// What describes it, e.g. "PostgreSQL postmaster".
	What string
}

// PostmasterOf is the server process of PostgreSQL, or of a server built
// on it (Babelfish), whose backend process serving a connection is
// backend: the backend's parent, the postmaster, named what. Its children
// are the backends and the background processes (WAL writer,
// checkpointer, ...).
func PostmasterOf(backend int, what string) (ServerProcess, error) {
	if backend <= 0 {
		return ServerProcess{}, fmt.Errorf("the server did not say which process serves this connection")
	}
	pm, err := procfs.ParentPID(backend)
	if err != nil {
		return ServerProcess{}, fmt.Errorf("the server's backend %d is not a process on this host (another host or container?)", backend)
	}
	return ServerProcess{PID: pm, Names: []string{"postgres", "postmaster"}, Children: true, What: what}, nil
}

// ServerProcessFinder is a db.DB whose engine can find its server's main
// process on this host, asking the server through a connection. An engine
// whose server runs inside dbharness (SQLite) returns an error that says
// so.
type ServerProcessFinder interface {
	ServerProcess(ctx context.Context) (ServerProcess, error)
}

// InProcessError is what a ServerProcessFinder returns when its database
// runs inside dbharness (SQLite): its CPU is the harness's own.
type InProcessError struct{ Msg string }

func (e *InProcessError) Error() string { return e.Msg }

// On checks that the server's process is among procs, this host's
// processes (procfs.Processes), under one of its names, and returns its
// processes: the main one and, where its children belong to the server,
// their tree. The error says what was found instead: no such process (the
// server is on another host), or one of another name (another host's or
// container's PID).
func (sp ServerProcess) On(procs map[int]procfs.Proc) (map[int]bool, error) {
	p, ok := procs[sp.PID]
	switch {
	case !ok:
		return nil, fmt.Errorf("its process %d is not a process on this host", sp.PID)
	case !slices.Contains(sp.Names, p.Comm):
		return nil, fmt.Errorf("process %d on this host is %q, not the server (%s)", sp.PID, p.Comm, strings.Join(sp.Names, " or "))
	case sp.Children:
		return procfs.Tree(procs, sp.PID), nil
	}
	return map[int]bool{sp.PID: true}, nil
}
