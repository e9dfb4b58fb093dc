package evidence

import "context"

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
