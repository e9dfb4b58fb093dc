package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// The New-Order transaction (clause 2.4): an order of 5 to 15 lines,
// 1% of them rolled back by design.

// drawNewOrder draws the input data of a New-Order (clause 2.4.1).
func (wk *worker) drawNewOrder(p *params, w, d int) {
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
}

// prepareNewOrder prepares the New-Order's statements (clause 2.4.2).
// The district's row is updated before it is read, and the stock rows are
// updated from their own values, so that neither depends on a locking
// read: Babelfish ignores SQL Server's table hints (Caps.LockHint), and
// there the update's row lock is the only one.
func (s *stmts) prepareNewOrder(p func(*db.Stmt, string)) {
	p(&s.newOrdCustWh, "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3")
	p(&s.newOrdUpdDistrict, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2")
	p(&s.newOrdDistrict, "SELECT d_next_o_id - 1, d_tax FROM district WHERE d_w_id = $1 AND d_id = $2")
	p(&s.newOrdInsOrder, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP, $5, $6)")
	p(&s.newOrdInsNewOrder, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)")
	s.newOrdItems, s.newOrdStocks, s.newOrdLines = map[int]db.Stmt{}, map[[2]int]db.Stmt{}, map[int]db.Stmt{}
	// S_QUANTITY goes down by the quantity ($2, $3), or up by 91 less it
	// when fewer than 10 would remain ($1 is the quantity plus 10) (clause
	// 2.4.2.2).
	p(&s.newOrdUpdStock, "UPDATE stock SET s_quantity = CASE WHEN s_quantity < $1 THEN s_quantity - $2 + 91 ELSE s_quantity - $3 END, "+
		"s_ytd = s_ytd + $4, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $5 WHERE s_i_id = $6 AND s_w_id = $7")
}

// newOrder runs a New-Order (clause 2.4.2).
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
	if _, err := s.newOrdUpdDistrict.Exec(ctx, p.w, p.d); err != nil {
		return err
	}
	if err := s.newOrdDistrict.QueryRow(ctx, []any{&nextOID, &dTax}, p.w, p.d); err != nil {
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
		remote := 0
		if l.supply != p.w {
			remote = 1
		}
		if _, err := s.newOrdUpdStock.Exec(ctx, l.qty+10, l.qty, l.qty, l.qty, remote, l.item, l.supply); err != nil {
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

// errRollback is the New-Order's rollback by design (clause 2.4.2.3).
var errRollback = errors.New("item number is not valid")

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
		st, err = wk.conn.Prepare(ctx, wk.tpcc.caps.SelectForUpdate(fmt.Sprintf("SELECT s_i_id, s_quantity, s_data, s_dist_%02d FROM stock", d),
			" WHERE s_w_id = $1 AND s_i_id IN ("+placeholders(2, n)+") ORDER BY s_i_id"))
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
