package dbgen

import "strconv"

// The Append methods append a row as a line of dbgen's .tbl files: every
// column followed by '|', then a newline. They make the data comparable
// with dbgen's output byte for byte, and a file a server can load.

type tbl []byte

func (b tbl) i(v int64) tbl  { return append(strconv.AppendInt(b, v, 10), '|') }
func (b tbl) s(v string) tbl { return append(append(b, v...), '|') }
func (b tbl) m(v Money) tbl  { return append(v.Append(b), '|') }
func (b tbl) c(v byte) tbl   { return append(b, v, '|') }
func (b tbl) d(v Date) tbl   { return append(append(b, v.String()...), '|') }
func (b tbl) end() []byte    { return append(b, '\n') }

// Append appends the row as a line of region.tbl.
func (r *RegionRow) Append(b []byte) []byte {
	return tbl(b).i(r.RegionKey).s(r.Name).s(r.Comment).end()
}

// Append appends the row as a line of nation.tbl.
func (r *NationRow) Append(b []byte) []byte {
	return tbl(b).i(r.NationKey).s(r.Name).i(r.RegionKey).s(r.Comment).end()
}

// Append appends the row as a line of supplier.tbl.
func (r *SupplierRow) Append(b []byte) []byte {
	return tbl(b).i(r.SuppKey).s(r.Name).s(r.Address).i(r.NationKey).s(r.Phone).m(r.AcctBal).s(r.Comment).end()
}

// Append appends the row as a line of customer.tbl.
func (r *CustomerRow) Append(b []byte) []byte {
	return tbl(b).i(r.CustKey).s(r.Name).s(r.Address).i(r.NationKey).s(r.Phone).m(r.AcctBal).s(r.MktSegment).s(r.Comment).end()
}

// Append appends the row (without its PARTSUPP rows) as a line of part.tbl.
func (r *PartRow) Append(b []byte) []byte {
	return tbl(b).i(r.PartKey).s(r.Name).s(r.Mfgr).s(r.Brand).s(r.Type).i(r.Size).s(r.Container).m(r.RetailPrice).s(r.Comment).end()
}

// Append appends the row as a line of partsupp.tbl.
func (r *PartSuppRow) Append(b []byte) []byte {
	return tbl(b).i(r.PartKey).i(r.SuppKey).i(r.AvailQty).m(r.SupplyCost).s(r.Comment).end()
}

// Append appends the row (without its LINEITEM rows) as a line of
// orders.tbl.
func (r *OrderRow) Append(b []byte) []byte {
	return tbl(b).i(r.OrderKey).i(r.CustKey).c(r.OrderStatus).m(r.TotalPrice).d(r.OrderDate).s(r.OrderPriority).s(r.Clerk).i(r.ShipPriority).s(r.Comment).end()
}

// Append appends the row as a line of lineitem.tbl.
func (r *LineItemRow) Append(b []byte) []byte {
	return tbl(b).i(r.OrderKey).i(r.PartKey).i(r.SuppKey).i(r.LineNumber).i(r.Quantity).m(r.ExtendedPrice).m(r.Discount).m(r.Tax).
		c(r.ReturnFlag).c(r.LineStatus).d(r.ShipDate).d(r.CommitDate).d(r.ReceiptDate).s(r.ShipInstruct).s(r.ShipMode).s(r.Comment).end()
}

// Span is the number of row numbers AppendTable's range runs over for
// table t: its RowCount, but PART's for PARTSUPP and ORDERS' for LINEITEM,
// whose rows come with a part's or an order's.
func (g *Gen) Span(t Table) int64 {
	switch t {
	case PartSupp:
		return g.RowCount(Part)
	case LineItem:
		return g.RowCount(Orders)
	}
	return g.RowCount(t)
}

// AppendTable appends the .tbl lines of rows first..first+n-1 of table t
// (for PARTSUPP and LINEITEM: those of parts, or orders, first..first+n-1;
// REGION and NATION ignore the range) and returns the buffer.
func (g *Gen) AppendTable(b []byte, t Table, first, n int64) []byte {
	switch t {
	case Region:
		for _, r := range g.Regions() {
			b = r.Append(b)
		}
	case Nation:
		for _, r := range g.Nations() {
			b = r.Append(b)
		}
	case Supplier:
		for _, r := range g.Suppliers(first, n, nil) {
			b = r.Append(b)
		}
	case Customer:
		for _, r := range g.Customers(first, n, nil) {
			b = r.Append(b)
		}
	case Part, PartSupp:
		for _, r := range g.Parts(first, n, nil) {
			if t == Part {
				b = r.Append(b)
				continue
			}
			for i := range r.Supps {
				b = r.Supps[i].Append(b)
			}
		}
	case Orders, LineItem:
		for _, r := range g.Orders(first, n, nil) {
			if t == Orders {
				b = r.Append(b)
				continue
			}
			for i := range r.Lines {
				b = r.Lines[i].Append(b)
			}
		}
	}
	return b
}
