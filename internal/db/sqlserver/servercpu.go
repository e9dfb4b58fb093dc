package sqlserver

import (
	"context"
	"fmt"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// ServerProcess implements evidence.ServerProcessFinder. On Babelfish it
// is PostgreSQL's postmaster, found as the parent of the backend that
// serves this connection (a Babelfish session's @@SPID is its backend's
// process id: evidence.PostmasterOf). On SQL Server it is the sqlservr process that
// SERVERPROPERTY('ProcessID') names.
func (d *msDB) ServerProcess(ctx context.Context) (evidence.ServerProcess, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return evidence.ServerProcess{}, err
	}
	defer c.Close()
	mc := c.(*msConn)
	bf, err := d.babelfish(ctx, mc)
	if err != nil {
		return evidence.ServerProcess{}, err
	}
	if bf {
		return evidence.PostmasterOf(int(mc.id), "Babelfish's PostgreSQL postmaster")
	}
	pid, err := db.QueryInt64(ctx, c, "SELECT CAST(SERVERPROPERTY('ProcessID') AS int)")
	if err != nil {
		return evidence.ServerProcess{}, fmt.Errorf("read the server's process id: %w", err)
	}
	return evidence.ServerProcess{PID: int(pid), Names: []string{"sqlservr"}, What: "SQL Server process (sqlservr)"}, nil
}
