package tpch

import (
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

// batchRows is the number of rows (of ORDERS and PART: orders and parts,
// whose LINEITEM and PARTSUPP rows come with them) in one load batch; a
// loading choice, not the specification's.
const batchRows = 10_000

// loadTables returns the eight tables as numbered batches: batch b of a
// table is its rows b*batchRows+1 .. (b+1)*batchRows, generated from the
// streams' seeds alone, so batches load in any order and in parallel and
// give the same data as one pass (dbgen's own parallel generation, -C/-S,
// rests on the same property).
func loadTables(g *dbgen.Gen, caps db.Caps) []workload.Table {
	date := func(d dbgen.Date) any {
		if caps.DateText {
			return d.String()
		}
		return d.Time()
	}
	cols := func(n string) []string { return tableByName(n).columns() }
	batches := func(rows int64) int { return int((rows + batchRows - 1) / batchRows) }
	span := func(b int, rows int64) (first, n int64) {
		first = int64(b)*batchRows + 1
		return first, min(batchRows, rows-first+1)
	}
	nSupp, nCust, nPart, nOrd := g.RowCount(dbgen.Supplier), g.RowCount(dbgen.Customer), g.RowCount(dbgen.Part), g.RowCount(dbgen.Orders)
	return []workload.Table{
		{Name: "region", Columns: cols("region"), Rows: g.RowCount(dbgen.Region), Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				for _, r := range g.Regions() {
					dst = append(dst, []any{r.RegionKey, r.Name, r.Comment})
				}
				return dst
			}},
		{Name: "nation", Columns: cols("nation"), Rows: g.RowCount(dbgen.Nation), Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				for _, r := range g.Nations() {
					dst = append(dst, []any{r.NationKey, r.Name, r.RegionKey, r.Comment})
				}
				return dst
			}},
		{Name: "supplier", Columns: cols("supplier"), Rows: nSupp, Batches: batches(nSupp),
			Batch: func(b int, dst [][]any) [][]any {
				first, n := span(b, nSupp)
				for _, r := range g.Suppliers(first, n, nil) {
					var v []any
					dst, v = workload.NextRow(dst, 7)
					v[0], v[1], v[2], v[3], v[4], v[5], v[6] = r.SuppKey, r.Name, r.Address, r.NationKey, r.Phone, money(r.AcctBal), r.Comment
				}
				return dst
			}},
		{Name: "customer", Columns: cols("customer"), Rows: nCust, Batches: batches(nCust),
			Batch: func(b int, dst [][]any) [][]any {
				first, n := span(b, nCust)
				for _, r := range g.Customers(first, n, nil) {
					var v []any
					dst, v = workload.NextRow(dst, 8)
					v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] = r.CustKey, r.Name, r.Address, r.NationKey, r.Phone, money(r.AcctBal), r.MktSegment, r.Comment
				}
				return dst
			}},
		{Name: "part", Columns: cols("part"), Rows: nPart, Batches: batches(nPart),
			Batch: func(b int, dst [][]any) [][]any {
				first, n := span(b, nPart)
				for _, r := range g.Parts(first, n, nil) {
					var v []any
					dst, v = workload.NextRow(dst, 9)
					v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8] = r.PartKey, r.Name, r.Mfgr, r.Brand, r.Type, r.Size, r.Container, money(r.RetailPrice), r.Comment
				}
				return dst
			}},
		{Name: "partsupp", Columns: cols("partsupp"), Rows: g.RowCount(dbgen.PartSupp), Batches: batches(nPart),
			Batch: func(b int, dst [][]any) [][]any {
				first, n := span(b, nPart)
				for _, p := range g.Parts(first, n, nil) {
					for _, r := range p.Supps {
						var v []any
						dst, v = workload.NextRow(dst, 5)
						v[0], v[1], v[2], v[3], v[4] = r.PartKey, r.SuppKey, r.AvailQty, money(r.SupplyCost), r.Comment
					}
				}
				return dst
			}},
		{Name: "orders", Columns: cols("orders"), Rows: nOrd, Batches: batches(nOrd),
			Batch: func(b int, dst [][]any) [][]any {
				first, n := span(b, nOrd)
				for _, o := range g.Orders(first, n, nil) {
					var v []any
					dst, v = workload.NextRow(dst, 9)
					orderValues(v, &o, date)
				}
				return dst
			}},
		{Name: "lineitem", Columns: cols("lineitem"), Rows: g.RowCount(dbgen.LineItem), Batches: batches(nOrd),
			Batch: func(b int, dst [][]any) [][]any {
				first, n := span(b, nOrd)
				for _, o := range g.Orders(first, n, nil) {
					for i := range o.Lines {
						var v []any
						dst, v = workload.NextRow(dst, 16)
						lineValues(v, &o.Lines[i], date)
					}
				}
				return dst
			}},
	}
}

// OrderColumns and LineItemColumns are the columns of ORDERS and LINEITEM
// in the order OrderValues and LineItemValues fill them (for RF1).
var (
	OrderColumns    = tableByName("orders").columns()
	LineItemColumns = tableByName("lineitem").columns()
)

// OrderValues returns an order's row of ORDERS as values for the engine
// (dates as DateValue makes them), in OrderColumns' order.
func OrderValues(o *dbgen.OrderRow, caps db.Caps) []any {
	v := make([]any, len(OrderColumns))
	orderValues(v, o, func(d dbgen.Date) any { return DateValue(d, caps) })
	return v
}

// LineItemValues returns a line item's row of LINEITEM as values for the
// engine, in LineItemColumns' order.
func LineItemValues(l *dbgen.LineItemRow, caps db.Caps) []any {
	v := make([]any, len(LineItemColumns))
	lineValues(v, l, func(d dbgen.Date) any { return DateValue(d, caps) })
	return v
}

// DateValue is a date as the engine takes it: a time.Time, or its
// 'YYYY-MM-DD' text where the engine keeps dates as text (caps.DateText).
func DateValue(d dbgen.Date, caps db.Caps) any {
	if caps.DateText {
		return d.String()
	}
	return d.Time()
}

// money is an amount as an exact decimal for the engine.
func money(m dbgen.Money) db.Decimal { return db.Decimal{Unscaled: int64(m), Scale: 2} }

func orderValues(v []any, o *dbgen.OrderRow, date func(dbgen.Date) any) {
	v[0], v[1], v[2], v[3], v[4] = o.OrderKey, o.CustKey, flag(o.OrderStatus), money(o.TotalPrice), date(o.OrderDate)
	v[5], v[6], v[7], v[8] = o.OrderPriority, o.Clerk, o.ShipPriority, o.Comment
}

func lineValues(v []any, l *dbgen.LineItemRow, date func(dbgen.Date) any) {
	v[0], v[1], v[2], v[3], v[4] = l.OrderKey, l.PartKey, l.SuppKey, l.LineNumber, db.Decimal{Unscaled: l.Quantity}
	v[5], v[6], v[7], v[8], v[9] = money(l.ExtendedPrice), money(l.Discount), money(l.Tax), flag(l.ReturnFlag), flag(l.LineStatus)
	v[10], v[11], v[12] = date(l.ShipDate), date(l.CommitDate), date(l.ReceiptDate)
	v[13], v[14], v[15] = l.ShipInstruct, l.ShipMode, l.Comment
}

// flags are the one-letter strings of the flag columns, so that a row does
// not allocate one.
var flags = func() (s [256]string) {
	for i := range s {
		s[i] = string(rune(i))
	}
	return
}()

func flag(b byte) string { return flags[b] }
