package evidence

import (
	"context"

	"github.com/dbharness/dbharness/internal/db"
)

// Explainer is a db.DB whose engine can show the plan of a statement: the
// engine's package implements it on its DB, and the plan check finds it by
// type assertion.
type Explainer interface {
	// Explain returns the normalized plan of sql (with $1..$n
	// placeholders) for the parameter values args, run on conn: the plan's
	// shape (operations, tables, indexes, join order) without estimates,
	// costs or values, so that equal plans give equal text.
	Explain(ctx context.Context, conn db.Conn, sql string, args []any) (string, error)
}

// GenericPlanner is an Explainer whose engine may run a prepared statement
// with one generic plan for all parameter values instead of a plan for each
// (PostgreSQL's plan cache, after five executions).
type GenericPlanner interface {
	Explainer
	// GenericPlan prepares sql on conn under name as the clients do,
	// explains executions of it with values from draw as the server chooses
	// their plan, and then its generic plan. It returns the generic plan's
	// normalized shape and whether the server chose the generic plan.
	GenericPlan(ctx context.Context, conn db.Conn, name, sql string, draw func() []any) (shape string, chosen bool, err error)
}

// WorkerCounter is an Explainer whose engine can tell whether a statement's
// plan went parallel, from one execution of it.
type WorkerCounter interface {
	// Workers runs sql once with args on conn under the engine's EXPLAIN
	// ANALYZE, in a read-only transaction that it rolls back, and returns
	// the parallel workers its plan planned and launched. A statement that
	// the engine will not run that way (one that writes) is not measured:
	// Workers.NotMeasured says why, and err is nil.
	Workers(ctx context.Context, conn db.Conn, sql string, args []any) (Workers, error)
}

// Workers are the parallel workers of one execution of a statement, summed
// over its plan's nodes that start them (PostgreSQL's Gather and Gather
// Merge).
type Workers struct {
	Planned, Launched int
	// NotMeasured, when set, says why there are no figures.
	NotMeasured string
}

// ExplainProber is an Explainer whose server may accept its way of
// explaining without honouring it (Babelfish accepts SQL Server's SET
// SHOWPLAN_XML ON and then runs the statements). The plan check probes it
// once on its own connection before it explains anything: an error is why
// the plans are not measured, and no statement is explained.
type ExplainProber interface {
	Explainer
	ProbeExplain(ctx context.Context, conn db.Conn) error
}
