package ch

import (
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// Dialect writes a query text's markers in the engine's dialect, as
// Queries does.
func Dialect(c db.Caps, text string) string { return dialect(c, text) }

// LoadTables is the rows of SUPPLIER, NATION and REGION for seed.
func LoadTables(seed uint64) []workload.Table { return loadTables(seed) }
