// Package all links every built-in workload into the binary.
package all

import (
	// Each import registers one workload.
	_ "github.com/dbharness/dbharness/internal/workload/file"
	_ "github.com/dbharness/dbharness/internal/workload/inserts"
	_ "github.com/dbharness/dbharness/internal/workload/null"
	_ "github.com/dbharness/dbharness/internal/workload/script"
	_ "github.com/dbharness/dbharness/internal/workload/tpcb"
	_ "github.com/dbharness/dbharness/internal/workload/tpcc"
	_ "github.com/dbharness/dbharness/internal/workload/tpch"
	_ "github.com/dbharness/dbharness/internal/workload/transtats"
)
