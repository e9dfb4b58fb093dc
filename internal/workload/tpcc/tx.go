package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// Deck is the mix as a deck of 100 cards, shuffled and dealt without
// replacement and reshuffled when empty (clause 5.2.4.2), so every 100
// transactions hold exactly the percentages of clause 5.2.3.
type Deck struct {
	cards []int
	next  int
}

// NewDeck returns a deck with pct[i] cards of type i.
func NewDeck(pct []int) *Deck {
	d := &Deck{}
	for op, n := range pct {
		for i := 0; i < n; i++ {
			d.cards = append(d.cards, op)
		}
	}
	d.next = len(d.cards)
	return d
}

// Deal returns the next card, reshuffling with r when the deck is empty.
func (d *Deck) Deal(r *rand.Rand) int {
	if d.next == len(d.cards) {
		r.Shuffle(len(d.cards), func(i, j int) { d.cards[i], d.cards[j] = d.cards[j], d.cards[i] })
		d.next = 0
	}
	d.next++
	return d.cards[d.next-1]
}

// line is one order line of a New-Order.
type line struct {
	item, supply, qty int
}

// params are one transaction's input data, drawn per clause 2.x.1.
type params struct {
	w, d         int
	cw, cd, cid  int // customer (Payment: possibly remote)
	byName       bool
	last         []byte
	lines        []line
	allLocal     int
	rollback     bool
	amount       float64 // Payment H_AMOUNT
	carrier      int
	threshold    int
	orderLineCnt int
}

type worker struct {
	tpcc   *TPCC
	conn   db.Conn
	rng    *rand.Rand
	deck   *Deck
	home   int
	params params
	nuCID  *datagen.NURand
	nuItm  *datagen.NURand
	nuLst  *datagen.NURand
	stmts  stmts
	// calls are server mode's routine calls, by transaction type.
	calls [5]db.Stmt
	// scratch
	ids   []int
	args  []any
	buf   []byte
	items map[int]item
	stock map[[2]int]*stockRow
}

type item struct {
	price float64
}

type stockRow struct {
	qty  int
	dist string
}

type stmts struct {
	newOrdCustWh, newOrdDistrict, newOrdUpdDistrict, newOrdInsOrder, newOrdInsNewOrder, newOrdUpdStock db.Stmt
	// Prepared on first use, by number of values: item reads, stock reads
	// (per district) and order-line inserts of one New-Order.
	newOrdItems                                                                          map[int]db.Stmt
	newOrdStocks                                                                         map[[2]int]db.Stmt
	newOrdLines                                                                          map[int]db.Stmt
	payUpdWh, paySelWh, payUpdDist, paySelDist, payByName, payCust, payCData, payUpdCust db.Stmt
	payUpdCustBC, payInsHist                                                             db.Stmt
	osByName, osCust, osOrder, osLines                                                   db.Stmt
	dlNewOrder, dlDelNewOrder, dlOrder, dlUpdOrder, dlLines, dlUpdLines, dlUpdCust       db.Stmt
	slDistrict, slCount, avgPrice                                                        db.Stmt
}

// NewWorker implements workload.Runner: it prepares the statements on conn.
func (w *TPCC) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{tpcc: w, conn: conn, rng: datagen.NewRand(w.seed, 0x7c, uint64(id)), deck: NewDeck(mix[:]),
		home:  id%w.warehouses + 1,
		nuCID: datagen.Must(datagen.NewNURand(1023, 1, int64(w.pop.Customers), w.cID)),                              // C_ID: NURand(1023, 1, 3000) (clause 2.1.6)
		nuItm: datagen.Must(datagen.NewNURand(8191, 1, int64(w.pop.Items), w.cItem)),                                // OL_I_ID: NURand(8191, 1, 100000) (clause 2.1.6)
		nuLst: datagen.Must(datagen.NewNURand(lastNameLoadNURandA, 0, int64(min(999, w.pop.Customers-1)), w.cLast)), // C_LAST: NURand(255, 0, 999) (clause 2.1.6)
	}
	if err := wk.prepare(ctx); err != nil {
		return nil, fmt.Errorf("prepare tpcc statements: %w", err)
	}
	return wk, nil
}

func (wk *worker) prepare(ctx context.Context) error {
	if set := wk.tpcc.routines; set != nil {
		for op := range wk.tpcc.Ops() {
			k := wk.tpcc.kind(op)
			st, err := wk.conn.Prepare(ctx, set.call[k])
			if err != nil {
				return err
			}
			wk.calls[k] = st
		}
		return nil
	}
	fu := wk.tpcc.caps.ForUpdate
	var err error
	p := func(dst *db.Stmt, sql string) {
		if err == nil {
			*dst, err = wk.conn.Prepare(ctx, sql)
		}
	}
	s := &wk.stmts
	ro := wk.tpcc.RO
	if !ro {
		// New-Order (clause 2.4.2).
		p(&s.newOrdCustWh, "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3")
		p(&s.newOrdDistrict, "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = $1 AND d_id = $2"+fu)
		p(&s.newOrdUpdDistrict, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2")
		p(&s.newOrdInsOrder, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP, $5, $6)")
		p(&s.newOrdInsNewOrder, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)")
		s.newOrdItems, s.newOrdStocks, s.newOrdLines = map[int]db.Stmt{}, map[[2]int]db.Stmt{}, map[int]db.Stmt{}
		p(&s.newOrdUpdStock, "UPDATE stock SET s_quantity = $1, s_ytd = s_ytd + $2, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $3 WHERE s_i_id = $4 AND s_w_id = $5")
		// Payment (clause 2.5.2).
		p(&s.payUpdWh, "UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2")
		p(&s.paySelWh, "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = $1")
		p(&s.payUpdDist, "UPDATE district SET d_ytd = d_ytd + $1 WHERE d_w_id = $2 AND d_id = $3")
		p(&s.paySelDist, "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = $1 AND d_id = $2")
		p(&s.payByName, sqlCustomerByLast)
		p(&s.payCust, "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"+fu)
		p(&s.payCData, "SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3")
		p(&s.payUpdCust, "UPDATE customer SET c_balance = c_balance - $1, c_ytd_payment = c_ytd_payment + $2, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = $5")
		p(&s.payUpdCustBC, "UPDATE customer SET c_balance = c_balance - $1, c_ytd_payment = c_ytd_payment + $2, c_payment_cnt = c_payment_cnt + 1, c_data = $3 WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = $6")
		p(&s.payInsHist, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP, $6, $7)")
		// Delivery (clause 2.7.4).
		p(&s.dlNewOrder, sqlOldestNewOrder+fu)
		p(&s.dlDelNewOrder, "DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3")
		p(&s.dlOrder, "SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3"+fu)
		p(&s.dlUpdOrder, "UPDATE orders SET o_carrier_id = $1 WHERE o_w_id = $2 AND o_d_id = $3 AND o_id = $4")
		p(&s.dlLines, sqlDeliveryLines+fu)
		p(&s.dlUpdLines, "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")
		p(&s.dlUpdCust, "UPDATE customer SET c_balance = c_balance + $1, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4")
	}
	// Order-Status (clause 2.6.2).
	p(&s.osByName, sqlCustomerByLast)
	p(&s.osCust, sqlCustomerBalance)
	p(&s.osOrder, sqlLastOrder)
	p(&s.osLines, sqlOrderLines)
	// Stock-Level (clause 2.8.2).
	p(&s.slDistrict, "SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2")
	p(&s.slCount, sqlStockLevelCount)
	if wk.tpcc.Augmented {
		p(&s.avgPrice, sqlAvgPrice)
	}
	return err
}

// Next implements workload.Worker: the next card of the deck (tpcc) or a
// 1..100 draw, 1..50 Order-Status and 51..100 Stock-Level (tpcc-ro), with
// its input data for the client's home warehouse.
func (wk *worker) Next() int {
	var op int
	if wk.tpcc.RO {
		op = 0
		if wk.rng.IntN(100) >= 50 {
			op = 1
		}
	} else {
		op = wk.deck.Deal(wk.rng)
	}
	w := wk.home
	if !wk.tpcc.Affinity {
		w = wk.rng.IntN(wk.tpcc.warehouses) + 1
	}
	// District random in 1..10 (clause 2.4.1.2, 2.5.1.2, 2.6.1.2); the
	// Stock-Level district is the terminal's (clause 2.8.1.2), for a
	// client any.
	wk.draw(wk.tpcc.kind(op), w, wk.rng.IntN(districtsPerWH)+1)
	return op
}

// DefaultMaxTries implements workload.TriesDefaulter: a New-Order, Payment
// or Delivery that loses a deadlock or a serialization conflict is tried
// again (up to 10 times, counted as retries) rather than counted as failed,
// since concurrent TPC-C transactions conflict by design.
func (t *TPCC) DefaultMaxTries() int { return 10 }

// CheckTerminals implements workload.TerminalChecker: a terminal has a
// fixed home warehouse and district, so terminal mode cannot draw a random
// home warehouse per transaction.
func (t *TPCC) CheckTerminals(terminals int) error {
	if terminals > 0 && !t.Affinity {
		return fmt.Errorf("--warehouse-affinity=false cannot be used with --terminals: each terminal has a fixed home warehouse and district (clauses 2.8.1.1, 4.2.2)")
	}
	return nil
}

// Prepare implements workload.TerminalWorker: the input data of a
// transaction of terminal term, whose home warehouse and district are fixed
// (clause 2.8.1.1, 4.2.2).
func (wk *worker) Prepare(term, op int) {
	w := term/terminalsPerWarehouse%wk.tpcc.warehouses + 1
	d := term%terminalsPerWarehouse + 1
	k := wk.tpcc.kind(op)
	if k != StockLevel {
		d = wk.rng.IntN(districtsPerWH) + 1
	}
	wk.draw(k, w, d)
}

func (wk *worker) between(lo, hi int) int { return lo + wk.rng.IntN(hi-lo+1) }

// otherWarehouse is a warehouse other than w, random (clause 2.4.1.5,
// 2.5.1.2); w itself when there is only one.
func (wk *worker) otherWarehouse(w int) int {
	W := wk.tpcc.warehouses
	if W == 1 {
		return w
	}
	o := wk.rng.IntN(W-1) + 1
	if o >= w {
		o++
	}
	return o
}

func (wk *worker) customer(p *params) {
	// 60% by last name, 40% by number (clause 2.5.1.2, 2.6.1.2).
	p.byName = wk.rng.IntN(100) < 60
	if p.byName {
		p.last = appendLastName(p.last[:0], int(wk.nuLst.Int64(wk.rng)))
	} else {
		p.cid = int(wk.nuCID.Int64(wk.rng))
	}
}

// draw chooses the input data of a transaction of type k.
func (wk *worker) draw(k, w, d int) {
	p := &wk.params
	p.w, p.d = w, d
	switch k {
	case NewOrder: // clause 2.4.1
		p.cid = int(wk.nuCID.Int64(wk.rng))
		n := wk.between(5, 15)
		p.rollback = wk.between(1, 100) == 1
		p.lines = p.lines[:0]
		p.allLocal = 1
		for i := 0; i < n; i++ {
			l := line{item: int(wk.nuItm.Int64(wk.rng)), supply: w, qty: wk.between(1, 10)}
			if p.rollback && i == n-1 {
				l.item = wk.tpcc.pop.Items + 1 // an unused item number (clause 2.4.1.4)
			}
			// 1% of the lines come from a remote warehouse (clause 2.4.1.5).
			if wk.tpcc.warehouses > 1 && wk.between(1, 100) == 1 {
				l.supply = wk.otherWarehouse(w)
				p.allLocal = 0
			}
			p.lines = append(p.lines, l)
		}
		// Lines in (warehouse, item) order, so concurrent New-Orders lock
		// stock rows in one order and cannot deadlock each other.
		slices.SortFunc(p.lines, func(a, b line) int {
			if a.supply != b.supply {
				return a.supply - b.supply
			}
			return a.item - b.item
		})
	case Payment: // clause 2.5.1
		p.cw, p.cd = w, d
		// 85% home, 15% remote customer (clause 2.5.1.2).
		if wk.tpcc.warehouses > 1 && wk.between(1, 100) > 85 {
			p.cw, p.cd = wk.otherWarehouse(w), wk.between(1, districtsPerWH)
		}
		wk.customer(p)
		p.amount = float64(wk.between(100, 500_000)) / 100 // H_AMOUNT 1.00..5,000.00 (clause 2.5.1.3)
	case OrderStatus: // clause 2.6.1
		p.cw, p.cd = w, d
		wk.customer(p)
	case Delivery: // clause 2.7.1
		p.carrier = wk.between(1, 10)
	case StockLevel: // clause 2.8.1
		p.threshold = wk.between(10, 20)
	}
}

// Do implements workload.Worker: one transaction, in one database
// transaction, rolled back on error.
func (wk *worker) Do(ctx context.Context, op int) error {
	k := wk.tpcc.kind(op)
	if wk.tpcc.routines != nil {
		return wk.call(ctx, k)
	}
	begin := wk.tpcc.caps.BeginWrite
	if k == OrderStatus || k == StockLevel {
		// Read-only transactions (clause 3.4.0: Stock-Level may run at
		// isolation level 1, Order-Status reads committed data).
		begin = wk.tpcc.caps.BeginRead
	}
	if err := wk.conn.Exec(ctx, begin); err != nil {
		return err
	}
	var err error
	switch k {
	case NewOrder:
		err = wk.newOrder(ctx)
	case Payment:
		err = wk.payment(ctx)
	case OrderStatus:
		err = wk.orderStatus(ctx)
	case Delivery:
		err = wk.delivery(ctx)
	case StockLevel:
		err = wk.stockLevel(ctx)
	}
	if err == nil && wk.tpcc.Augmented {
		var avg *float64
		err = wk.stmts.avgPrice.QueryRow(ctx, []any{&avg}, augmentedMaxItem)
	}
	if errors.Is(err, errRollback) {
		if err = wk.conn.Exec(ctx, "ROLLBACK"); err == nil {
			wk.tpcc.rb.add(time.Now())
		}
		return err
	}
	if err != nil {
		if wk.conn.Alive() {
			_ = wk.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		return err
	}
	return wk.conn.Exec(ctx, "COMMIT")
}

// errRollback is the New-Order's rollback by design (clause 2.4.2.3).
var errRollback = errors.New("item number is not valid")

// call runs a transaction of type k as one call of its server-side routine
// (server mode), with the input data drawn for it. The routine commits or
// rolls back itself; its error, if any, is returned as it came, except the
// New-Order's rollback by design, which is counted as in client mode.
func (wk *worker) call(ctx context.Context, k int) error {
	p, st := &wk.params, wk.calls[k]
	var (
		id, n, m int64
		x        float64
		err      error
	)
	// Payment and Order-Status pass customer number 0 to select the
	// customer by last name.
	cid, last := p.cid, ""
	if p.byName {
		cid, last = 0, string(p.last)
	}
	avgBelow := 0
	if wk.tpcc.Augmented {
		avgBelow = augmentedMaxItem
	}
	switch k {
	case NewOrder:
		args := append(wk.args[:0], p.w, p.d, p.cid)
		args, wk.buf = wk.tpcc.routines.lines(args, wk.buf, p.lines)
		wk.args = args
		err = st.QueryRow(ctx, []any{&id, &x}, args...)
	case Payment:
		wk.buf = strconv.AppendFloat(wk.buf[:0], p.amount, 'f', 2, 64)
		err = st.QueryRow(ctx, []any{&id, &x}, p.w, p.d, p.cw, p.cd, cid, last, string(wk.buf))
	case OrderStatus:
		err = st.QueryRow(ctx, []any{&id, &n, &m}, p.cw, p.cd, cid, last, avgBelow)
	case Delivery:
		err = st.QueryRow(ctx, []any{&n}, p.w, p.carrier)
	case StockLevel:
		err = st.QueryRow(ctx, []any{&n}, p.w, p.d, p.threshold, avgBelow)
	}
	if err != nil && k == NewOrder && strings.Contains(err.Error(), rollbackMarker) {
		wk.tpcc.rb.add(time.Now())
		return nil
	}
	return err
}

func (wk *worker) newOrder(ctx context.Context) error {
	p, s := &wk.params, &wk.stmts
	var (
		discount, wTax, dTax float64
		cLast, cCredit       string
		nextOID              int
	)
	if err := s.newOrdCustWh.QueryRow(ctx, []any{&discount, &cLast, &cCredit, &wTax}, p.w, p.d, p.cid); err != nil {
		return err
	}
	if err := s.newOrdDistrict.QueryRow(ctx, []any{&nextOID, &dTax}, p.w, p.d); err != nil {
		return err
	}
	if _, err := s.newOrdUpdDistrict.Exec(ctx, p.w, p.d); err != nil {
		return err
	}
	if _, err := s.newOrdInsOrder.Exec(ctx, nextOID, p.d, p.w, p.cid, len(p.lines), p.allLocal); err != nil {
		return err
	}
	if _, err := s.newOrdInsNewOrder.Exec(ctx, nextOID, p.d, p.w); err != nil {
		return err
	}
	// The order's items in one read; a missing one is the unused item
	// number of the 1% rollback (clause 2.4.2.3).
	wk.ids = wk.ids[:0]
	for _, l := range p.lines {
		wk.ids = append(wk.ids, l.item)
	}
	slices.Sort(wk.ids)
	wk.ids = slices.Compact(wk.ids)
	if err := wk.readItems(ctx); err != nil {
		return err
	}
	if len(wk.items) < len(wk.ids) {
		return errRollback
	}
	// The stock rows, locked, one read per supplying warehouse, in
	// (warehouse, item) order as the lines are sorted.
	clear(wk.stock)
	for i := 0; i < len(p.lines); {
		j := i
		wk.ids = wk.ids[:0]
		for ; j < len(p.lines) && p.lines[j].supply == p.lines[i].supply; j++ {
			if n := len(wk.ids); n == 0 || wk.ids[n-1] != p.lines[j].item {
				wk.ids = append(wk.ids, p.lines[j].item)
			}
		}
		if err := wk.readStock(ctx, p.lines[i].supply, p.d); err != nil {
			return err
		}
		i = j
	}
	var total float64
	args := wk.args[:0]
	for i, l := range p.lines {
		st := wk.stock[[2]int{l.supply, l.item}]
		if st == nil {
			return fmt.Errorf("stock row of item %d in warehouse %d is missing", l.item, l.supply)
		}
		// S_QUANTITY goes down by the quantity, or up by 91 less it when
		// fewer than 10 would remain (clause 2.4.2.2).
		q := st.qty - l.qty
		if st.qty < l.qty+10 {
			q += 91
		}
		st.qty = q
		remote := 0
		if l.supply != p.w {
			remote = 1
		}
		if _, err := s.newOrdUpdStock.Exec(ctx, q, l.qty, remote, l.item, l.supply); err != nil {
			return err
		}
		amount := math.Round(float64(l.qty)*wk.items[l.item].price*100) / 100
		total += amount
		args = append(args, nextOID, p.d, p.w, i+1, l.item, l.supply, l.qty, amount, st.dist)
	}
	wk.args = args
	ins, err := wk.stmt(ctx, s.newOrdLines, len(p.lines), func(n int) string {
		var b strings.Builder
		b.WriteString("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES ")
		for r := 0; r < n; r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(")
			for c := 1; c <= 9; c++ {
				if c > 1 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "$%d", r*9+c)
			}
			b.WriteString(")")
		}
		return b.String()
	})
	if err != nil {
		return err
	}
	if _, err := ins.Exec(ctx, args...); err != nil {
		return err
	}
	_ = total * (1 - discount) * (1 + wTax + dTax) // the displayed total (clause 2.4.2.2)
	return nil
}

// customerByName finds the customer at position ceil(n/2) of those with the
// last name, sorted by first name (clause 2.5.2.2, 2.6.2.2).
func (wk *worker) customerByName(ctx context.Context, st db.Stmt, w, d int, last []byte) (int, error) {
	rows, err := st.Query(ctx, w, d, string(last))
	if err != nil {
		return 0, err
	}
	wk.ids = wk.ids[:0]
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		wk.ids = append(wk.ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(wk.ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in warehouse %d district %d", last, w, d)
	}
	return wk.ids[(len(wk.ids)+1)/2-1], nil
}

func (wk *worker) payment(ctx context.Context) error {
	p, s := &wk.params, &wk.stmts
	var a1, a2, a3, a4, a5, name string
	addr := []any{&a1, &a2, &a3, &a4, &a5, &name}
	if _, err := s.payUpdWh.Exec(ctx, p.amount, p.w); err != nil {
		return err
	}
	if err := s.paySelWh.QueryRow(ctx, addr, p.w); err != nil {
		return err
	}
	wName := name
	if _, err := s.payUpdDist.Exec(ctx, p.amount, p.w, p.d); err != nil {
		return err
	}
	if err := s.paySelDist.QueryRow(ctx, addr, p.w, p.d); err != nil {
		return err
	}
	dName := name
	cid := p.cid
	if p.byName {
		var err error
		if cid, err = wk.customerByName(ctx, s.payByName, p.cw, p.cd, p.last); err != nil {
			return err
		}
	}
	var (
		first, middle, last, st1, st2, city, state, zip, phone, credit string
		limit, discount, balance                                       float64
		since                                                          any
	)
	if err := s.payCust.QueryRow(ctx, []any{&first, &middle, &last, &st1, &st2, &city, &state, &zip, &phone, &credit,
		&limit, &discount, &balance, &since}, p.cw, p.cd, cid); err != nil {
		return err
	}
	if credit == "BC" {
		// Bad credit: the payment's details go in front of C_DATA, which
		// keeps at most 500 characters (clause 2.5.2.2).
		var data string
		if err := s.payCData.QueryRow(ctx, []any{&data}, p.cw, p.cd, cid); err != nil {
			return err
		}
		b := make([]byte, 0, 520)
		for _, v := range []int{cid, p.cd, p.cw, p.d, p.w} {
			b = append(strconv.AppendInt(b, int64(v), 10), ' ')
		}
		b = strconv.AppendFloat(b, p.amount, 'f', 2, 64)
		b = append(b, ' ')
		b = append(b, data...)
		if len(b) > 500 {
			b = b[:500]
		}
		if _, err := s.payUpdCustBC.Exec(ctx, p.amount, p.amount, string(b), p.cw, p.cd, cid); err != nil {
			return err
		}
	} else if _, err := s.payUpdCust.Exec(ctx, p.amount, p.amount, p.cw, p.cd, cid); err != nil {
		return err
	}
	// H_DATA is W_NAME and D_NAME separated by 4 spaces (clause 2.5.2.2).
	_, err := s.payInsHist.Exec(ctx, cid, p.cd, p.cw, p.d, p.w, p.amount, wName+"    "+dName)
	return err
}

func (wk *worker) orderStatus(ctx context.Context) error {
	p, s := &wk.params, &wk.stmts
	cid := p.cid
	if p.byName {
		var err error
		if cid, err = wk.customerByName(ctx, s.osByName, p.cw, p.cd, p.last); err != nil {
			return err
		}
	}
	var (
		balance             float64
		first, middle, last string
		oid                 int
		carrier             *int
		entry               any
		iid, supply, qty    int
		amount              float64
		delivery            any
		err                 error
		rows                db.Rows
	)
	olDest := []any{&iid, &supply, &qty, &amount, &delivery}
	custDest, orderDest := []any{&balance, &first, &middle, &last}, []any{&oid, &carrier, &entry}
	if err = s.osCust.QueryRow(ctx, custDest, p.cw, p.cd, cid); err != nil {
		return err
	}
	if err = s.osOrder.QueryRow(ctx, orderDest, p.cw, p.cd, cid); err != nil {
		if errors.Is(err, db.ErrNoRows) {
			return nil // a customer may have no order yet
		}
		return err
	}
	if rows, err = s.osLines.Query(ctx, p.cw, p.cd, oid); err != nil {
		return err
	}
	for rows.Next() {
		if err = rows.Scan(olDest...); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	return rows.Err()
}

func (wk *worker) delivery(ctx context.Context) error {
	p, s := &wk.params, &wk.stmts
	var oid, cid int
	var amount float64
	// Each district's oldest undelivered order (clause 2.7.4.2).
	for d := 1; d <= districtsPerWH; d++ {
		if err := s.dlNewOrder.QueryRow(ctx, []any{&oid}, p.w, d); err != nil {
			if errors.Is(err, db.ErrNoRows) {
				continue // none: the district is skipped (clause 2.7.4.2)
			}
			return err
		}
		n, err := s.dlDelNewOrder.Exec(ctx, p.w, d, oid)
		if err != nil {
			return err
		}
		if n == 0 {
			continue // delivered meanwhile by another Delivery
		}
		if err := s.dlOrder.QueryRow(ctx, []any{&cid}, p.w, d, oid); err != nil {
			return err
		}
		if _, err := s.dlUpdOrder.Exec(ctx, p.carrier, p.w, d, oid); err != nil {
			return err
		}
		rows, err := s.dlLines.Query(ctx, p.w, d, oid)
		if err != nil {
			return err
		}
		sum := 0.0
		for rows.Next() {
			if err := rows.Scan(&amount); err != nil {
				rows.Close()
				return err
			}
			sum += amount
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := s.dlUpdLines.Exec(ctx, p.w, d, oid); err != nil {
			return err
		}
		if _, err := s.dlUpdCust.Exec(ctx, math.Round(sum*100)/100, p.w, d, cid); err != nil {
			return err
		}
	}
	return nil
}

func (wk *worker) stockLevel(ctx context.Context) error {
	p, s := &wk.params, &wk.stmts
	var next, low int
	if err := s.slDistrict.QueryRow(ctx, []any{&next}, p.w, p.d); err != nil {
		return err
	}
	// Distinct items of the district's last 20 orders whose stock is below
	// the threshold (clause 2.8.2.2).
	return s.slCount.QueryRow(ctx, []any{&low}, p.w, p.d, next, next-20, p.w, p.threshold)
}

// stmt returns the statement of cache[n], preparing sqlFor(n) on first use.
func (wk *worker) stmt(ctx context.Context, cache map[int]db.Stmt, n int, sqlFor func(n int) string) (db.Stmt, error) {
	if st, ok := cache[n]; ok {
		return st, nil
	}
	st, err := wk.conn.Prepare(ctx, sqlFor(n))
	if err != nil {
		return nil, err
	}
	cache[n] = st
	return st, nil
}

// placeholders returns "$from, ..., $(from+n-1)".
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// readItems reads the prices of the items in wk.ids (sorted, distinct)
// into wk.items.
func (wk *worker) readItems(ctx context.Context) error {
	st, err := wk.stmt(ctx, wk.stmts.newOrdItems, len(wk.ids), func(n int) string {
		return "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + placeholders(1, n) + ")"
	})
	if err != nil {
		return err
	}
	args := wk.args[:0]
	for _, id := range wk.ids {
		args = append(args, id)
	}
	wk.args = args
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if wk.items == nil {
		wk.items = map[int]item{}
	}
	clear(wk.items)
	var (
		id          int
		price       float64
		name, idata string
	)
	for rows.Next() {
		if err := rows.Scan(&id, &price, &name, &idata); err != nil {
			return err
		}
		wk.items[id] = item{price: price}
	}
	return rows.Err()
}

// readStock locks and reads the stock rows of the items in wk.ids (sorted,
// distinct) in warehouse w, with the S_DIST column of district d, into
// wk.stock.
func (wk *worker) readStock(ctx context.Context, w, d int) error {
	n := len(wk.ids)
	key := [2]int{d, n}
	st, ok := wk.stmts.newOrdStocks[key]
	if !ok {
		var err error
		st, err = wk.conn.Prepare(ctx, fmt.Sprintf("SELECT s_i_id, s_quantity, s_data, s_dist_%02d FROM stock WHERE s_w_id = $1 AND s_i_id IN (%s) ORDER BY s_i_id",
			d, placeholders(2, n))+wk.tpcc.caps.ForUpdate)
		if err != nil {
			return err
		}
		wk.stmts.newOrdStocks[key] = st
	}
	args := append(wk.args[:0], w)
	for _, id := range wk.ids {
		args = append(args, id)
	}
	wk.args = args
	rows, err := st.Query(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if wk.stock == nil {
		wk.stock = map[[2]int]*stockRow{}
	}
	var (
		id, qty     int
		sdata, dist string
	)
	for rows.Next() {
		if err := rows.Scan(&id, &qty, &sdata, &dist); err != nil {
			return err
		}
		wk.stock[[2]int{w, id}] = &stockRow{qty: qty, dist: dist}
	}
	return rows.Err()
}
