package tpcc

import (
	"context"
	"errors"

	"github.com/dbharness/dbharness/internal/db"
)

// The Order-Status transaction (clause 2.6): a customer's last order,
// read only.

// drawOrderStatus draws the input data of a Order-Status (clause 2.6.1).
func (wk *worker) drawOrderStatus(p *params, w, d int) {
	p.cw, p.cd = w, d
	wk.customer(p)
}

// prepareOrderStatus prepares the Order-Status's statements (clause 2.6.2).
func (s *stmts) prepareOrderStatus(p func(*db.Stmt, string), c db.Caps) {
	p(&s.osByName, sqlCustomerByLast)
	p(&s.osCust, sqlCustomerBalance)
	p(&s.osOrder, lastOrderSQL(c))
	p(&s.osLines, sqlOrderLines)
}

// orderStatus runs an Order-Status (clause 2.6.2).
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
