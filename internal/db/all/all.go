// Package all registers every database engine: import it for its side
// effect where databases are opened (the command, test helpers).
package all

import (
	// The engines, each registered in its init.
	_ "github.com/dbharness/dbharness/internal/db/mysql"
	_ "github.com/dbharness/dbharness/internal/db/postgres"
	_ "github.com/dbharness/dbharness/internal/db/sqlite"
	_ "github.com/dbharness/dbharness/internal/db/sqlserver"
)
