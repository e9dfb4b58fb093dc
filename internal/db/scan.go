package db

import (
	"context"
	"errors"
)

// TableScanner is a DB that can measure a full scan of one table: it
// knows the table's stored size and a query that reads every row of it
// with a plan checked to be a full scan (`dbharness scan`).
type TableScanner interface {
	// PrepareScan sets conn up to scan table with parallel processes per
	// query (1: no parallelism) and returns the query and the table's
	// size. A table that does not exist, or a plan that is not a full
	// scan, is an error; ErrNoParallelScan says the engine cannot run the
	// scan in parallel.
	PrepareScan(ctx context.Context, conn Conn, table string, parallel int) (Scan, error)
}

// Scan is a prepared full scan of one table.
type Scan struct {
	// SQL reads every row of the table and returns one row: their count.
	SQL string
	// Bytes is the table's stored size: Pages of PageSize bytes.
	Bytes    int64
	Pages    int64
	PageSize int64
	// SizeSource says where the size comes from (pg_relation_size,
	// information_schema.tables.data_length).
	SizeSource string
	// Plan is the query's plan as EXPLAIN gave it, reduced to its shape.
	Plan string
	// Cold says why the engine cannot scan the table cold (evicted from
	// its caches) from a client; empty when it can.
	Cold string
}

// ErrNoParallelScan is PrepareScan's answer to a parallel degree the
// engine does not have.
var ErrNoParallelScan = errors.New("this engine has no parallel scan")
