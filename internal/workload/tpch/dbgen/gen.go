package dbgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Sizes and value domains of clause 4.2.3 (dbgen's constants).
const (
	// SuppliersPerPart is the number of PARTSUPP rows per part.
	SuppliersPerPart = 4

	baseParts     = 200_000
	baseSuppliers = 10_000
	baseCustomers = 150_000
	baseOrders    = 1_500_000 // 10 orders per customer

	totalDays    = 2557 // 1992-01-01 .. 1998-12-31
	currentDate  = 1263 // 1995-06-17, as a Date
	orderDateMax = totalDays - (121 + 30) - 1

	maxLines = 7
)

// MaxScale is the largest scale factor the generator accepts: above it
// dbgen draws two columns from a 64-bit generator this one does not have.
const MaxScale = 29999

// Stream seeds, one per column (dbgen's seed table). The comment after each
// is the number of draws budgeted per row.
const (
	seedPMfgr      = 1          // 1
	seedPBrand     = 46831694   // 1
	seedPType      = 1841581359 // 1
	seedPSize      = 1193163244 // 1
	seedPContainer = 727633698  // 1
	seedPComment   = 804159733  // 2
	seedPName      = 709314158  // 92
	seedPSQty      = 1671059989 // 4 (per part)
	seedPSCost     = 1051288424 // 4
	seedPSComment  = 1961692154 // 8
	seedOClerk     = 1171034773 // 1
	seedOComment   = 276090261  // 2
	seedODate      = 1066728069 // 1
	seedOPriority  = 591449447  // 1
	seedOCustKey   = 851767375  // 1
	seedOLines     = 1434868289 // 1
	seedLQty       = 209208115  // 7 (per order)
	seedLDiscount  = 554590007  // 7
	seedLTax       = 721958466  // 7
	seedLInstruct  = 1371272478 // 7
	seedLShipMode  = 675466456  // 7
	seedLPartKey   = 1808217256 // 7
	seedLSuppNum   = 2095021727 // 7
	seedLShipDate  = 1769349045 // 7
	seedLCommit    = 904914315  // 7
	seedLReceipt   = 373135028  // 7
	seedLRetFlag   = 717419739  // 7
	seedLComment   = 1095462486 // 14
	seedCAddress   = 881155353  // 9
	seedCNation    = 1489529863 // 1
	seedCPhone     = 1521138112 // 3
	seedCAcctBal   = 298370230  // 1
	seedCMktSeg    = 1140279430 // 1
	seedCComment   = 1335826707 // 2
	seedSAddress   = 706178559  // 9
	seedSNation    = 110356601  // 1
	seedSPhone     = 884434366  // 3
	seedSAcctBal   = 962338209  // 1
	seedSComment   = 1341315363 // 2
	seedSBBBJunk   = 263032577  // 1
	seedSBBBType   = 753643799  // 1
	seedSBBBPress  = 202794285  // 1
	seedSBBBOffset = 715851524  // 1
	seedNComment   = 606179079  // 2
	seedRComment   = 1500869201 // 2
)

// Gen generates the data of one scale factor. It is safe for concurrent use;
// each call generates its range from the streams' seeds alone.
type Gen struct {
	sf    float64
	scale int64 // dbgen's whole scale: 1 below SF 1
	// rows of the scaled tables at scale 1 (below SF 1: scaled down)
	parts, suppliers, customers, orders int64

	linesOnce sync.Once
	lines     int64
}

// New returns the generator for scale factor sf. As dbgen, a scale below 1
// counts in thousandths (SF 0.01 is 1,500 customers); one of 1 or more must
// be a whole number.
func New(sf float64) (*Gen, error) {
	if err := CheckScale(sf); err != nil {
		return nil, fmt.Errorf("scale factor %s: %w", strconv.FormatFloat(sf, 'g', -1, 64), err)
	}
	g := &Gen{sf: sf, scale: 1, parts: baseParts, suppliers: baseSuppliers, customers: baseCustomers, orders: baseOrders}
	if sf < 1 {
		k := int64(1000 * sf)
		sc := func(n int64) int64 { return max(k*n/1000, 1) }
		g.parts, g.suppliers, g.customers, g.orders = sc(g.parts), sc(g.suppliers), sc(g.customers), sc(g.orders)
	} else {
		g.scale = int64(sf)
	}
	return g, nil
}

// CheckScale says why sf is not a scale factor the generator can produce
// (a phrase that follows the value: "--scale 0: ..."), or returns nil.
func CheckScale(sf float64) error {
	switch {
	case math.IsNaN(sf) || math.IsInf(sf, 0):
		return errors.New("the scale factor must be a number, e.g. 1 or 0.01")
	case sf <= 0:
		return errors.New("the scale factor must be above 0, e.g. 1 or 0.01")
	case sf < 1 && int64(1000*sf) < 1:
		return errors.New("the scale factor must be at least 0.001 (below 1 it counts in thousandths, as dbgen's)")
	case sf >= 1 && sf != math.Trunc(sf):
		return errors.New("a scale factor of 1 or more must be a whole number, as dbgen's")
	case sf > MaxScale:
		return fmt.Errorf("the scale factor must be at most %d", MaxScale)
	}
	return nil
}

// ScaleFactor is the scale factor the generator was made for.
func (g *Gen) ScaleFactor() float64 { return g.sf }

// RowCount is the number of rows of table t at this scale (clause 4.2.5:
// SF x 10,000 suppliers, 200,000 parts, 800,000 partsupps, 150,000
// customers, 1,500,000 orders; 25 nations, 5 regions). LINEITEM's is the
// number the generator produces (about 4 per order), counted once and
// remembered.
func (g *Gen) RowCount(t Table) int64 {
	switch t {
	case Region:
		return 5
	case Nation:
		return 25
	case Supplier:
		return g.suppliers * g.scale
	case Customer:
		return g.customers * g.scale
	case Part:
		return g.parts * g.scale
	case PartSupp:
		return g.parts * g.scale * SuppliersPerPart
	case Orders:
		return g.orders * g.scale
	case LineItem:
		g.linesOnce.Do(func() { g.lines = g.LineCount(1, g.orders*g.scale) })
		return g.lines
	}
	return 0
}

// LineCount is the number of LINEITEM rows of the n orders from order
// number first (1-based).
func (g *Gen) LineCount(first, n int64) int64 {
	s := newStream(seedOLines, 1, first)
	var c int64
	for i := int64(0); i < n; i++ {
		c += s.next(1, maxLines)
	}
	return c
}

const alphaNum = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// vstr is a random string of lo..hi characters of alphaNum (clause
// 4.2.2.7's v-string), each draw giving five characters.
func vstr(s *stream, lo, hi int64) string {
	n := s.next(lo, hi)
	b := make([]byte, n)
	var c int64
	for i := range b {
		if i%5 == 0 {
			c = s.next31()
		}
		b[i] = alphaNum[c&63]
		c >>= 6
	}
	return string(b)
}

// phone is a phone number of the nation (clause 4.2.2.9).
func phone(s *stream, nation int64) string {
	a, x, n := s.next(100, 999), s.next(100, 999), s.next(1000, 9999)
	b := make([]byte, 0, 15)
	b = strconv.AppendInt(b, 10+nation%90, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, a, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, x, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, n, 10)
	return string(b)
}

func tagged(tag string, width int, n int64) string {
	s := strconv.FormatInt(n, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return tag + s
}

// Regions returns REGION's rows (all five).
func (g *Gen) Regions() []RegionRow {
	d := getDist("regions")
	s := newStream(seedRComment, 2, 1)
	out := make([]RegionRow, len(d.words))
	for i := range out {
		out[i] = RegionRow{RegionKey: int64(i), Name: d.words[i], Comment: text(&s, 28, 115)}
		s.rowDone()
	}
	return out
}

// Nations returns NATION's rows (all 25).
func (g *Gen) Nations() []NationRow {
	d := getDist("nations")
	s := newStream(seedNComment, 2, 1)
	out := make([]NationRow, len(d.words))
	for i := range out {
		out[i] = NationRow{NationKey: int64(i), Name: d.words[i], RegionKey: d.cum[i], Comment: text(&s, 28, 115)}
		s.rowDone()
	}
	return out
}

// Suppliers appends to dst[:0] the n suppliers from number first (1-based,
// also the key) and returns it.
func (g *Gen) Suppliers(first, n int64, dst []SupplierRow) []SupplierRow {
	addr, nat, ph := newStream(seedSAddress, 9, first), newStream(seedSNation, 1, first), newStream(seedSPhone, 3, first)
	bal, cmt := newStream(seedSAcctBal, 1, first), newStream(seedSComment, 2, first)
	press, typ := newStream(seedSBBBPress, 1, first), newStream(seedSBBBType, 1, first)
	junk, off := newStream(seedSBBBJunk, 1, first), newStream(seedSBBBOffset, 1, first)
	all := []*stream{&addr, &nat, &ph, &bal, &cmt, &press, &typ, &junk, &off}
	dst = dst[:0]
	for k := first; k < first+n; k++ {
		r := SupplierRow{SuppKey: k, Name: tagged("Supplier#", 9, k)}
		r.Address = vstr(&addr, 10, 40)
		r.NationKey = nat.next(0, 24)
		r.Phone = phone(&ph, r.NationKey)
		r.AcctBal = Money(bal.next(-99999, 999999))
		r.Comment = text(&cmt, 25, 100)
		// Clause 4.2.3: 10 suppliers in 10,000 (SF*5 each way) carry
		// "Customer ... Complaints" or "Customer ... Recommends" in
		// their comment. The draws happen for every supplier.
		bad := press.next(1, 10000)
		kind := typ.next(0, 100)
		noise := junk.next(0, int64(len(r.Comment))-19)
		at := off.next(0, int64(len(r.Comment))-(19+noise))
		if bad <= 10 {
			c := []byte(r.Comment)
			copy(c[at:], "Customer ")
			if kind < 50 {
				copy(c[at+9+noise:], "Complaints")
			} else {
				copy(c[at+9+noise:], "Recommends")
			}
			r.Comment = string(c)
		}
		for _, s := range all {
			s.rowDone()
		}
		dst = append(dst, r)
	}
	return dst
}

// Customers appends to dst[:0] the n customers from number first (1-based,
// also the key) and returns it.
func (g *Gen) Customers(first, n int64, dst []CustomerRow) []CustomerRow {
	addr, nat, ph := newStream(seedCAddress, 9, first), newStream(seedCNation, 1, first), newStream(seedCPhone, 3, first)
	bal, seg, cmt := newStream(seedCAcctBal, 1, first), newStream(seedCMktSeg, 1, first), newStream(seedCComment, 2, first)
	all := []*stream{&addr, &nat, &ph, &bal, &seg, &cmt}
	segs := getDist("msegmnt")
	dst = dst[:0]
	for k := first; k < first+n; k++ {
		r := CustomerRow{CustKey: k, Name: tagged("Customer#", 9, k)}
		r.Address = vstr(&addr, 10, 40)
		r.NationKey = nat.next(0, 24)
		r.Phone = phone(&ph, r.NationKey)
		r.AcctBal = Money(bal.next(-99999, 999999))
		r.MktSegment = segs.words[segs.pick(&seg)]
		r.Comment = text(&cmt, 29, 116)
		for _, s := range all {
			s.rowDone()
		}
		dst = append(dst, r)
	}
	return dst
}

// retailPrice is P_RETAILPRICE of a part, in cents (clause 4.2.3).
func retailPrice(p int64) int64 {
	return 90000 + (p/10)%20001 + (p%1000)*100
}

// partSupplier is the supplier key of a part's s-th (0..3) PARTSUPP row.
func (g *Gen) partSupplier(p, s int64) int64 {
	n := g.suppliers * g.scale
	return (p+s*(n/SuppliersPerPart+(p-1)/n))%n + 1
}

// Parts appends to dst[:0] the n parts from number first (1-based, also
// the key), each with its PARTSUPP rows, and returns it.
func (g *Gen) Parts(first, n int64, dst []PartRow) []PartRow {
	name, mfg, brand := newStream(seedPName, 92, first), newStream(seedPMfgr, 1, first), newStream(seedPBrand, 1, first)
	typ, size, cont := newStream(seedPType, 1, first), newStream(seedPSize, 1, first), newStream(seedPContainer, 1, first)
	cmt := newStream(seedPComment, 2, first)
	qty, cost, pscmt := newStream(seedPSQty, 4, first), newStream(seedPSCost, 4, first), newStream(seedPSComment, 8, first)
	all := []*stream{&name, &mfg, &brand, &typ, &size, &cont, &cmt, &qty, &cost, &pscmt}
	colors, types, conts := getDist("colors"), getDist("p_types"), getDist("p_cntr")
	perm := make([]int, len(colors.words))
	var nb []byte
	dst = dst[:0]
	for k := first; k < first+n; k++ {
		r := PartRow{PartKey: k}
		// Five distinct colours: the first five of a random permutation.
		for i := range perm {
			perm[i] = i
		}
		for i := range perm {
			j := name.next(int64(i), int64(len(perm)-1))
			perm[i], perm[j] = perm[j], perm[i]
		}
		nb = nb[:0]
		for i := 0; i < 5; i++ {
			if i > 0 {
				nb = append(nb, ' ')
			}
			nb = append(nb, colors.words[perm[i]]...)
		}
		r.Name = string(nb)
		m := mfg.next(1, 5)
		r.Mfgr = "Manufacturer#" + strconv.FormatInt(m, 10)
		r.Brand = "Brand#" + strconv.FormatInt(m*10+brand.next(1, 5), 10)
		r.Type = types.words[types.pick(&typ)]
		r.Size = size.next(1, 50)
		r.Container = conts.words[conts.pick(&cont)]
		r.RetailPrice = Money(retailPrice(k))
		r.Comment = text(&cmt, 5, 22)
		for s := int64(0); s < SuppliersPerPart; s++ {
			ps := &r.Supps[s]
			ps.PartKey, ps.SuppKey = k, g.partSupplier(k, s)
			ps.AvailQty = qty.next(1, 9999)
			ps.SupplyCost = Money(cost.next(100, 100000))
			ps.Comment = text(&pscmt, 49, 198)
		}
		for _, s := range all {
			s.rowDone()
		}
		dst = append(dst, r)
	}
	return dst
}

// orderStreams are the streams of ORDERS and LINEITEM.
type orderStreams struct {
	ckey, date, prio, clerk, cmt, lines                                       stream
	qty, disc, tax, instr, mode, pkey, snum, sdate, cdate, rdate, rflag, lcmt stream
}

// newOrderStreams positions the ORDERS streams at order row ofirst and the
// LINEITEM streams at order row lfirst (the same but for refresh sets).
func newOrderStreams(ofirst, lfirst int64) *orderStreams {
	return &orderStreams{
		ckey: newStream(seedOCustKey, 1, ofirst), date: newStream(seedODate, 1, ofirst),
		prio: newStream(seedOPriority, 1, ofirst), clerk: newStream(seedOClerk, 1, ofirst),
		cmt: newStream(seedOComment, 2, ofirst), lines: newStream(seedOLines, 1, ofirst),
		qty: newStream(seedLQty, maxLines, lfirst), disc: newStream(seedLDiscount, maxLines, lfirst),
		tax: newStream(seedLTax, maxLines, lfirst), instr: newStream(seedLInstruct, maxLines, lfirst),
		mode: newStream(seedLShipMode, maxLines, lfirst), pkey: newStream(seedLPartKey, maxLines, lfirst),
		snum: newStream(seedLSuppNum, maxLines, lfirst), sdate: newStream(seedLShipDate, maxLines, lfirst),
		cdate: newStream(seedLCommit, maxLines, lfirst), rdate: newStream(seedLReceipt, maxLines, lfirst),
		rflag: newStream(seedLRetFlag, maxLines, lfirst), lcmt: newStream(seedLComment, 2*maxLines, lfirst),
	}
}

func (o *orderStreams) rowDone() {
	for _, s := range []*stream{&o.ckey, &o.date, &o.prio, &o.clerk, &o.cmt, &o.lines,
		&o.qty, &o.disc, &o.tax, &o.instr, &o.mode, &o.pkey, &o.snum, &o.sdate, &o.cdate, &o.rdate, &o.rflag, &o.lcmt} {
		s.rowDone()
	}
}

// orderKey is the key of order number i: keys are sparse, 8 used of every
// 32 (clause 4.2.3), and refresh set k's new orders take the next 8.
func orderKey(i, seq int64) int64 {
	return ((i>>3)<<2|seq)<<3 | i&7
}

// Orders appends to dst[:0] the n orders from order number first (1-based;
// the key is sparse, see OrderKey), each with its LINEITEM rows, and
// returns it. Row slices of dst's old elements are reused.
func (g *Gen) Orders(first, n int64, dst []OrderRow) []OrderRow {
	return g.orders1(newOrderStreams(first, first), first, n, 0, dst)
}

// OrderKey is O_ORDERKEY of order number i (1-based) of the initial data.
func OrderKey(i int64) int64 { return orderKey(i, 0) }

func (g *Gen) orders1(st *orderStreams, first, n, seq int64, dst []OrderRow) []OrderRow {
	prios, instrs, modes, rflags := getDist("o_oprio"), getDist("instruct"), getDist("smode"), getDist("rflag")
	custMax := g.customers * g.scale
	partMax := g.parts * g.scale
	clerks := max(g.scale*1000, 1000)
	keep := dst[:cap(dst)]
	dst = dst[:0]
	for i := first; i < first+n; i++ {
		var lines []LineItemRow
		if len(dst) < len(keep) {
			lines = keep[len(dst)].Lines[:0]
		}
		r := OrderRow{OrderKey: orderKey(i, seq)}
		// A third of the customers have no orders (clause 4.2.3): a key
		// divisible by 3 moves to a neighbour.
		c, delta := st.ckey.next(1, custMax), int64(1)
		for c%3 == 0 {
			c = min(c+delta, custMax)
			delta = -delta
		}
		r.CustKey = c
		od := st.date.next(0, orderDateMax)
		r.OrderDate = Date(od)
		r.OrderPriority = prios.words[prios.pick(&st.prio)]
		r.Clerk = tagged("Clerk#", 9, st.clerk.next(1, clerks))
		r.Comment = text(&st.cmt, 19, 78)
		nl := st.lines.next(1, maxLines)
		shipped := int64(0)
		var total int64
		for l := int64(1); l <= nl; l++ {
			li := LineItemRow{OrderKey: r.OrderKey, LineNumber: l}
			li.Quantity = st.qty.next(1, 50)
			li.Discount = Money(st.disc.next(0, 10))
			li.Tax = Money(st.tax.next(0, 8))
			li.ShipInstruct = instrs.words[instrs.pick(&st.instr)]
			li.ShipMode = modes.words[modes.pick(&st.mode)]
			li.Comment = text(&st.lcmt, 10, 43)
			li.PartKey = st.pkey.next(1, partMax)
			li.SuppKey = g.partSupplier(li.PartKey, st.snum.next(0, 3))
			ep := retailPrice(li.PartKey) * li.Quantity
			li.ExtendedPrice = Money(ep)
			total += ep * (100 - int64(li.Discount)) / 100 * (100 + int64(li.Tax)) / 100
			sd := od + st.sdate.next(1, 121)
			cd := od + st.cdate.next(30, 90)
			rd := sd + st.rdate.next(1, 30)
			li.ShipDate, li.CommitDate, li.ReceiptDate = Date(sd), Date(cd), Date(rd)
			if rd <= currentDate {
				li.ReturnFlag = rflags.words[rflags.pick(&st.rflag)][0]
			} else {
				li.ReturnFlag = 'N'
			}
			if sd <= currentDate {
				shipped++
				li.LineStatus = 'F'
			} else {
				li.LineStatus = 'O'
			}
			lines = append(lines, li)
		}
		r.TotalPrice = Money(total)
		switch shipped {
		case 0:
			r.OrderStatus = 'O'
		case nl:
			r.OrderStatus = 'F'
		default:
			r.OrderStatus = 'P'
		}
		r.Lines = lines
		st.rowDone()
		dst = append(dst, r)
	}
	return dst
}

// RefreshSize is the number of orders each refresh set inserts (RF1) and
// deletes (RF2): dbgen's SF x 1,500 at SF 1 and above, and below SF 1
// 10 x (orders / 10,000) with the division truncated (10 at SF 0.01).
func (g *Gen) RefreshSize() int64 {
	return g.orders / 10000 * g.scale * 10
}

// RF1 appends to dst[:0] the new orders (with their line items) of refresh
// set k (1-based), as `dbgen -U` writes them to orders.tbl.uk and
// lineitem.tbl.uk, and returns it. Their keys are in the gaps the initial
// keys leave, so they never collide with the initial data nor with other
// sets'.
func (g *Gen) RF1(k int, dst []OrderRow) []OrderRow {
	if k < 1 {
		return dst[:0]
	}
	n := g.RefreshSize()
	total := g.orders * g.scale
	// dbgen moves the ORDERS streams past all the initial orders and the
	// LINEITEM streams past the first 100 x (orders/100) of them, then
	// past the earlier sets.
	prior := int64(k-1) * n
	st := newOrderStreams(total+prior+1, total/100*100+prior+1)
	return g.orders1(st, prior+1, n, 1+int64(k)/1000, dst)
}

// RF2 returns the order keys refresh set k (1-based) deletes, as `dbgen -U`
// writes them to delete.k: initial orders, set k taking the next
// RefreshSize of them.
func (g *Gen) RF2(k int) []int64 {
	if k < 1 {
		return nil
	}
	n := g.RefreshSize()
	out := make([]int64, n)
	for i := range out {
		out[i] = orderKey(int64(k-1)*n+int64(i)+1, int64(k)/1000&3)
	}
	return out
}
