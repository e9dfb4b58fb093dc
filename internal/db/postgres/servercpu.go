package postgres

import (
	"context"
	"fmt"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
)

// ServerProcess implements evidence.ServerProcessFinder: the postmaster,
// found as the parent of a backend this connection is served by. Its
// children are the backends (the clients' included) and the background
// processes (WAL writer, checkpointer, ...).
func (d *pgDB) ServerProcess(ctx context.Context) (evidence.ServerProcess, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return evidence.ServerProcess{}, err
	}
	defer c.Close()
	backend := int(c.BackendID(ctx))
	if backend <= 0 {
		return evidence.ServerProcess{}, fmt.Errorf("the server did not say which process serves this connection")
	}
	pm, err := procfs.ParentPID(backend)
	if err != nil {
		return evidence.ServerProcess{}, fmt.Errorf("the server's backend %d is not a process on this host (another host or container?)", backend)
	}
	return evidence.ServerProcess{PID: pm, Names: []string{"postgres", "postmaster"}, Children: true, What: "PostgreSQL postmaster"}, nil
}
