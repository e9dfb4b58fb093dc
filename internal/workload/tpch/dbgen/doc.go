// Package dbgen generates the TPC-H data (clause 4.2) without a database:
// the same rows, byte for byte, as the reference generator dbgen writes,
// from its algorithm (one Park-Miller stream per column with dbgen's seeds,
// a fixed budget of draws per row so that any row range is generated
// independently, the 300 MiB text pool built from the grammar and word
// lists of clause 4.2.2.13).
//
// API, for the loader and the refresh functions:
//
//	g, err := dbgen.New(sf)        // sf as dbgen -s: thousandths below 1, whole numbers from 1
//	dbgen.CheckScale(sf)           // the one-sentence error New returns
//	g.RowCount(dbgen.Customer)     // clause 4.2.5's count; LineItem's is what the generator produces
//	g.Regions(), g.Nations()       // all rows
//	g.Suppliers(first, n, dst)     // rows first..first+n-1 (1-based row numbers = keys)
//	g.Customers(first, n, dst)
//	g.Parts(first, n, dst)         // each PartRow holds its 4 PARTSUPP rows in Supps
//	g.Orders(first, n, dst)        // order numbers (1-based); each OrderRow holds its LINEITEM rows in Lines;
//	                               // keys are sparse: dbgen.OrderKey(i)
//	g.RefreshSize()                // orders per refresh set (dbgen -U: SF*1500; 10 at SF 0.01)
//	g.RF1(k, dst)                  // refresh set k's (1-based) new orders with their lines (orders.tbl.uk, lineitem.tbl.uk)
//	g.RF2(k)                       // refresh set k's order keys to delete (delete.k)
//	dbgen.Distribution(name)       // a word list of dists.dss with its weights (for substitution parameters)
//	row.Append(b), g.AppendTable(b, t, first, n), g.Span(t)  // dbgen's .tbl lines
//
// The workload package (internal/workload/tpch) adds, for the refresh
// functions and the checks: tpch.OrderColumns, tpch.LineItemColumns,
// tpch.OrderValues(&o, caps), tpch.LineItemValues(&l, caps) (rows ready for
// db.DB.CopyIn or an INSERT), tpch.DateValue, tpch.ReadScale (the loaded
// SF, from SUPPLIER) and tpch.RowCountChecks.
//
// Money is in cents (Money.String prints dbgen's "711.56"), Date counts days
// from 1992-01-01 (Date.String is "1996-01-02", Date.Time a time.Time).
// Calls are safe for concurrent use; the first call that needs text builds
// the pool (a few seconds, 300 MiB, kept for the life of the process).
package dbgen
