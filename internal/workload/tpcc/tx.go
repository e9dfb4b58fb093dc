package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
	c := wk.tpcc.caps
	var err error
	p := func(dst *db.Stmt, sql string) {
		if err == nil {
			*dst, err = wk.conn.Prepare(ctx, sql)
		}
	}
	s := &wk.stmts
	ro := wk.tpcc.RO
	if !ro {
		s.prepareNewOrder(p)
		s.preparePayment(p, c)
		s.prepareDelivery(p, c)
	}
	s.prepareOrderStatus(p, c)
	s.prepareStockLevel(p)
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
	case NewOrder:
		wk.drawNewOrder(p, w, d)
	case Payment:
		wk.drawPayment(p, w, d)
	case OrderStatus:
		wk.drawOrderStatus(p, w, d)
	case Delivery:
		wk.drawDelivery(p, w, d)
	case StockLevel:
		wk.drawStockLevel(p, w, d)
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
