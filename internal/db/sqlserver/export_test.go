package sqlserver

import (
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlconn"
)

// WithMaxDOP is withMaxDOP, for the tests.
var WithMaxDOP = withMaxDOP

// HintDOP makes d's connections hint OPTION (MAXDOP n) on each SELECT, as
// SetDOP does on SQL Server (on Babelfish it sets the session instead).
func HintDOP(d db.DB, n int) { d.(*msDB).maxdop = n }

// NextResultSet moves r, a connection's Query rows, to its next result
// set.
func NextResultSet(r db.Rows) bool { return r.(*msRows).Rows.(sqlconn.Rows).R.NextResultSet() }

// StageName is stageName, for the tests.
var StageName = stageName
