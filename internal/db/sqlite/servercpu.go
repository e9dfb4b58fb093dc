package sqlite

import (
	"context"

	"github.com/dbharness/dbharness/internal/evidence"
)

// ServerProcess implements evidence.ServerProcessFinder: SQLite has no
// server process. It runs inside dbharness, whose own profile would mix
// the clients' work with the database's, so none is taken.
func (d *liteDB) ServerProcess(context.Context) (evidence.ServerProcess, error) {
	return evidence.ServerProcess{}, &evidence.InProcessError{Msg: "SQLite runs inside dbharness, not in a server process of its own; profiling dbharness would mix the clients' CPU with the database's, so no profile is taken"}
}
