package tpcc

import (
	"math/rand/v2"
	"time"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/workload"
)

// Cardinalities of the initial population (clause 1.2 and 4.3.3.1).
const (
	numItems            = 100_000 // ITEM rows (clause 4.3.3.1)
	stockPerWarehouse   = 100_000 // STOCK rows per warehouse (clause 4.3.3.1)
	districtsPerWH      = 10      // DISTRICT rows per warehouse (clause 4.3.3.1)
	customersPerDist    = 3_000   // CUSTOMER rows per district (clause 4.3.3.1)
	ordersPerDist       = 3_000   // ORDER rows per district (clause 4.3.3.1)
	firstUndelivered    = 2_101   // orders 2,101..3,000 are undelivered: 900 NEW-ORDER rows per district (clause 4.3.3.1)
	namedCustomers      = 1_000   // the first 1,000 customers take C_LAST from their number (clause 4.3.3.1)
	initialDNextOID     = 3_001   // D_NEXT_O_ID (clause 4.3.3.1)
	initialWYTD         = 300_000 // W_YTD = 300,000.00 (clause 4.3.3.1)
	initialDYTD         = 30_000  // D_YTD = 30,000.00 (clause 4.3.3.1)
	initialCBalance     = -10     // C_BALANCE = -10.00 (clause 4.3.3.1)
	initialCYTDPayment  = 10      // C_YTD_PAYMENT = 10.00 (clause 4.3.3.1)
	initialHAmount      = 10      // H_AMOUNT = 10.00 (clause 4.3.3.1)
	creditLimit         = 50_000  // C_CREDIT_LIM = 50,000.00 (clause 4.3.3.1)
	originalPercent     = 10      // 10% of ITEM and STOCK rows hold "ORIGINAL" in their data (clause 4.3.3.1)
	badCreditPercent    = 10      // C_CREDIT = "BC" for 10% of customers (clause 4.3.3.1)
	stockBatch          = 10_000  // rows per stock and item batch (a loading choice, not the spec's)
	lastNameLoadNURandA = 255     // NURand(255, 0, 999) for C_LAST (clause 4.3.2.3, 2.1.6)
)

// cLoadLast is the run-time constant C of NURand(255, 0, 999) used for
// C_LAST while loading (clause 2.1.6). It is fixed rather than drawn from
// the seed so that a run, which does not know the loader's seed, can pick
// its own constant by the rule of clause 2.1.6.1 (C_RUN - C_LOAD in
// 65..119, not 96 nor 112).
const cLoadLast = 157

// syllables build customer last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName returns the customer last name of number n (0..999) by
// concatenating the syllables of its three digits (clause 4.3.2.3).
func LastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// appendLastName appends LastName(n) to b without allocating.
func appendLastName(b []byte, n int) []byte {
	return append(append(append(b, syllables[n/100]...), syllables[n/10%10]...), syllables[n%10]...)
}

// Streams of the loader's random numbers, one per table (and per batch).
const (
	streamItem = iota + 1
	streamWarehouse
	streamDistrict
	streamStock
	streamCustomer
	streamHistory
	streamOrders
	streamOrderLine
	streamOLCnt
	streamPerm
)

// gen holds one batch's random source and scratch buffer.
type gen struct {
	r   *rand.Rand
	buf []byte
}

func newGen(seed uint64, streams ...uint64) *gen {
	return &gen{r: datagen.NewRand(seed, streams...), buf: make([]byte, 0, 512)}
}

// between draws an integer uniformly in [lo, hi] (clause 4.3.2.5's random(x..y)).
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// astr is a random a-string of lo..hi characters (clause 4.3.2.2).
func (g *gen) astr(lo, hi int) string {
	g.buf = datagen.RandString(g.r, g.buf[:0], g.between(lo, hi))
	return string(g.buf)
}

// nstr is a random n-string of n digits (clause 4.3.2.2).
func (g *gen) nstr(n int) string {
	g.buf = g.buf[:0]
	for i := 0; i < n; i++ {
		g.buf = append(g.buf, byte('0'+g.r.IntN(10)))
	}
	return string(g.buf)
}

// zip is 4 random digits followed by "11111" (clause 4.3.2.7).
func (g *gen) zip() string {
	g.buf = g.buf[:0]
	for i := 0; i < 4; i++ {
		g.buf = append(g.buf, byte('0'+g.r.IntN(10)))
	}
	return string(append(g.buf, "11111"...))
}

// data is I_DATA or S_DATA: an a-string of 26..50 characters, of which
// originalPercent hold "ORIGINAL" at a random position (clause 4.3.3.1).
func (g *gen) data() string {
	n := g.between(26, 50)
	if g.r.IntN(100) >= originalPercent {
		g.buf = datagen.RandString(g.r, g.buf[:0], n)
		return string(g.buf)
	}
	pos := g.r.IntN(n - 8 + 1)
	g.buf = datagen.RandString(g.r, g.buf[:0], pos)
	g.buf = append(g.buf, "ORIGINAL"...)
	g.buf = datagen.RandString(g.r, g.buf, n-8-pos)
	return string(g.buf)
}

// money returns cents/100 as a decimal value for the loader.
func money(cents int) float64 { return float64(cents) / 100 }

// rate returns a random rate in lo/10000..hi/10000 (4 decimals: W_TAX,
// D_TAX, C_DISCOUNT).
func (g *gen) rate(lo, hi int) float64 { return float64(g.between(lo, hi)) / 10000 }

// Population is the size of the initial population. Spec is clause
// 4.3.3.1's; tests may load a smaller one (Customers is also the number of
// orders per district, Items a multiple of 10,000 or below it).
type Population struct {
	Items, Customers, Undelivered int
}

// Spec is the population of clause 4.3.3.1.
var Spec = Population{Items: numItems, Customers: customersPerDist, Undelivered: ordersPerDist - firstUndelivered + 1}

// olCounts returns O_OL_CNT of the orders of one district, random in 5..15
// (clause 4.3.3.1), from their own stream so that the ORDER and ORDER-LINE
// batches agree.
func olCounts(seed uint64, w, d, orders int) []int {
	g := newGen(seed, streamOLCnt, uint64(w), uint64(d))
	out := make([]int, orders+1)
	for o := 1; o <= orders; o++ {
		out[o] = g.between(5, 15)
	}
	return out
}

// customerPerm is O_C_ID of the orders of one district: a random
// permutation of the customer numbers (clause 4.3.3.1).
func customerPerm(seed uint64, w, d, orders int) []int {
	g := newGen(seed, streamPerm, uint64(w), uint64(d))
	p := make([]int, orders+1)
	for i := 1; i <= orders; i++ {
		p[i] = i
	}
	for i := orders; i > 1; i-- {
		j := 1 + g.r.IntN(i)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// loadTables returns the initial population of clause 4.3.3.1 for
// warehouses warehouses, as batches deterministic from seed (only the
// dates come from now). Every value range below (I_IM_ID 1..10,000, I_PRICE
// 1.00..100.00, S_QUANTITY 10..100, W_TAX and D_TAX 0..0.2000, C_DISCOUNT
// 0..0.5000, O_CARRIER_ID 1..10, OL_I_ID 1..100,000, OL_QUANTITY 5,
// OL_AMOUNT 0.01..9,999.99 for undelivered orders, string lengths) is
// clause 4.3.3.1's.
func loadTables(seed uint64, warehouses int, now time.Time, pop Population) []workload.Table {
	items, customers := pop.Items, pop.Customers
	first := customers - pop.Undelivered + 1
	batch := min(stockBatch, items)
	batchesPerWH := items / batch
	named := min(namedCustomers, customers)
	// The year-to-date sums match the history rows (one of 10.00 per
	// customer): for the specification's population they are W_YTD
	// 300,000.00, D_YTD 30,000.00 and D_NEXT_O_ID 3,001 (clause 4.3.3.1).
	dYTD := customers * initialHAmount * 100 // cents
	wYTD := districtsPerWH * dYTD
	// The exact number of order lines, for the progress bar.
	var lines int64
	for w := 1; w <= warehouses; w++ {
		for d := 1; d <= districtsPerWH; d++ {
			for _, n := range olCounts(seed, w, d, customers) {
				lines += int64(n)
			}
		}
	}
	byName := map[string]*tableDef{}
	for i := range schema {
		byName[schema[i].name] = &schema[i]
	}
	cols := func(n string) []string { return byName[n].columns() }
	W := warehouses
	wd := func(b int) (w, d int) { return b/districtsPerWH + 1, b%districtsPerWH + 1 }
	lastNURand := datagen.Must(datagen.NewNURand(lastNameLoadNURandA, 0, 999, cLoadLast))
	return []workload.Table{
		{Name: "item", Columns: cols("item"), Rows: int64(items), Batches: items / batch,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamItem, uint64(b))
				for i := b*batch + 1; i <= (b+1)*batch; i++ {
					var r []any
					dst, r = workload.NextRow(dst, 5)
					r[0], r[1], r[2], r[3], r[4] = i, g.between(1, 10_000), g.astr(14, 24), money(g.between(100, 10_000)), g.data()
				}
				return dst
			}},
		{Name: "warehouse", Columns: cols("warehouse"), Rows: int64(W), Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				g := newGen(seed, streamWarehouse)
				for w := 1; w <= W; w++ {
					var r []any
					dst, r = workload.NextRow(dst, 9)
					r[0], r[1], r[2], r[3], r[4] = w, g.astr(6, 10), g.astr(10, 20), g.astr(10, 20), g.astr(10, 20)
					r[5], r[6], r[7], r[8] = g.astr(2, 2), g.zip(), g.rate(0, 2000), money(wYTD)
				}
				return dst
			}},
		{Name: "district", Columns: cols("district"), Rows: int64(W * districtsPerWH), Batches: 1,
			Batch: func(_ int, dst [][]any) [][]any {
				g := newGen(seed, streamDistrict)
				for w := 1; w <= W; w++ {
					for d := 1; d <= districtsPerWH; d++ {
						var r []any
						dst, r = workload.NextRow(dst, 11)
						r[0], r[1], r[2], r[3], r[4], r[5] = d, w, g.astr(6, 10), g.astr(10, 20), g.astr(10, 20), g.astr(10, 20)
						r[6], r[7], r[8], r[9], r[10] = g.astr(2, 2), g.zip(), g.rate(0, 2000), money(dYTD), customers+1
					}
				}
				return dst
			}},
		{Name: "stock", Columns: cols("stock"), Rows: int64(W) * int64(items), Batches: W * batchesPerWH,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamStock, uint64(b))
				w := b/batchesPerWH + 1
				lo := b%batchesPerWH*batch + 1
				for i := lo; i < lo+batch; i++ {
					var r []any
					dst, r = workload.NextRow(dst, 17)
					r[0], r[1], r[2] = i, w, g.between(10, 100)
					for k := 3; k <= 12; k++ {
						r[k] = g.astr(24, 24)
					}
					r[13], r[14], r[15], r[16] = 0, 0, 0, g.data()
				}
				return dst
			}},
		{Name: "customer", Columns: cols("customer"), Rows: int64(W) * districtsPerWH * int64(customers), Batches: W * districtsPerWH,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamCustomer, uint64(b))
				w, d := wd(b)
				for c := 1; c <= customers; c++ {
					var r []any
					dst, r = workload.NextRow(dst, 21)
					n := c - 1
					if c > named {
						n = int(lastNURand.Int64(g.r))
					}
					credit := "GC"
					if g.r.IntN(100) < badCreditPercent {
						credit = "BC"
					}
					r[0], r[1], r[2], r[3], r[4] = c, d, w, g.astr(8, 16), "OE"
					r[5] = string(appendLastName(g.buf[:0], n))
					r[6], r[7], r[8], r[9], r[10] = g.astr(10, 20), g.astr(10, 20), g.astr(10, 20), g.astr(2, 2), g.zip()
					r[11], r[12], r[13], r[14] = g.nstr(16), now, credit, money(creditLimit*100)
					r[15], r[16], r[17] = g.rate(0, 5000), money(initialCBalance*100), money(initialCYTDPayment*100)
					r[18], r[19], r[20] = 1, 0, g.astr(300, 500)
				}
				return dst
			}},
		{Name: "history", Columns: cols("history"), Rows: int64(W) * districtsPerWH * int64(customers), Batches: W * districtsPerWH,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamHistory, uint64(b))
				w, d := wd(b)
				for c := 1; c <= customers; c++ {
					var r []any
					dst, r = workload.NextRow(dst, 8)
					r[0], r[1], r[2], r[3], r[4] = c, d, w, d, w
					r[5], r[6], r[7] = now, money(initialHAmount*100), g.astr(12, 24)
				}
				return dst
			}},
		{Name: "orders", Columns: cols("orders"), Rows: int64(W) * districtsPerWH * int64(customers), Batches: W * districtsPerWH,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamOrders, uint64(b))
				w, d := wd(b)
				cnt, perm := olCounts(seed, w, d, customers), customerPerm(seed, w, d, customers)
				for o := 1; o <= customers; o++ {
					var r []any
					dst, r = workload.NextRow(dst, 8)
					var carrier any
					if o < first {
						carrier = g.between(1, 10)
					}
					r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = o, d, w, perm[o], now, carrier, cnt[o], 1
				}
				return dst
			}},
		{Name: "order_line", Columns: cols("order_line"), Rows: lines, Batches: W * districtsPerWH,
			Batch: func(b int, dst [][]any) [][]any {
				g := newGen(seed, streamOrderLine, uint64(b))
				w, d := wd(b)
				cnt := olCounts(seed, w, d, customers)
				for o := 1; o <= customers; o++ {
					for n := 1; n <= cnt[o]; n++ {
						var r []any
						dst, r = workload.NextRow(dst, 10)
						var delivery any
						amount := 0.0
						if o < first {
							delivery = now
						} else {
							amount = money(g.between(1, 999_999))
						}
						r[0], r[1], r[2], r[3], r[4], r[5] = o, d, w, n, g.between(1, items), w
						r[6], r[7], r[8], r[9] = delivery, 5, amount, g.astr(24, 24)
					}
				}
				return dst
			}},
		{Name: "new_order", Columns: cols("new_order"), Rows: int64(W) * districtsPerWH * int64(customers-first+1), Batches: W * districtsPerWH,
			Batch: func(b int, dst [][]any) [][]any {
				w, d := wd(b)
				for o := first; o <= customers; o++ {
					var r []any
					dst, r = workload.NextRow(dst, 3)
					r[0], r[1], r[2] = o, d, w
				}
				return dst
			}},
	}
}
