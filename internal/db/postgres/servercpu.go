package postgres

import (
	"context"

	"github.com/dbharness/dbharness/internal/evidence"
)

// ServerProcess implements evidence.ServerProcessFinder: the postmaster,
// found as the parent of a backend this connection is served by
// (evidence.PostmasterOf).
func (d *pgDB) ServerProcess(ctx context.Context) (evidence.ServerProcess, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return evidence.ServerProcess{}, err
	}
	defer c.Close()
	return evidence.PostmasterOf(int(c.BackendID(ctx)), "PostgreSQL postmaster")
}
