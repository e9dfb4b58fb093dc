package results_test

import (
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// The store's tests run against the real PostgreSQL server too, in
// databases that testdb names with the checkout's prefix.
func init() { results.TestPostgres = testdb.Postgres }
