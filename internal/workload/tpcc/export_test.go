package tpcc

import "github.com/dbharness/dbharness/internal/workload"

// Drawn reports, for the transaction a tpcc worker has just drawn (Next or
// Prepare), whether it selects its customer by last name (Payment,
// Order-Status) and whether it is a New-Order meant to roll back.
func Drawn(w workload.Worker) (byName, rollback bool) {
	p := &w.(*worker).params
	return p.byName, p.rollback
}

// RollbackMarker is the message of a server-side New-Order's rollback.
const RollbackMarker = rollbackMarker
