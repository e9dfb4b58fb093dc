package tpcc

import (
	"context"
	"errors"
	"math"

	"github.com/dbharness/dbharness/internal/db"
)

// The Delivery transaction (clause 2.7): each district's oldest
// undelivered order is delivered.

// drawDelivery draws the input data of a Delivery (clause 2.7.1).
func (wk *worker) drawDelivery(p *params, w, d int) {
	p.carrier = wk.between(1, 10)
}

// prepareDelivery prepares the Delivery's statements (clause 2.7.4).
func (s *stmts) prepareDelivery(p func(*db.Stmt, string), c db.Caps) {
	p(&s.dlNewOrder, oldestNewOrderSQL(c))
	p(&s.dlDelNewOrder, "DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3")
	p(&s.dlOrder, c.SelectForUpdate("SELECT o_c_id FROM orders", " WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3"))
	p(&s.dlUpdOrder, "UPDATE orders SET o_carrier_id = $1 WHERE o_w_id = $2 AND o_d_id = $3 AND o_id = $4")
	p(&s.dlLines, deliveryLinesSQL(c))
	p(&s.dlUpdLines, "UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")
	p(&s.dlUpdCust, "UPDATE customer SET c_balance = c_balance + $1, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4")
}

// delivery runs a Delivery (clause 2.7.4).
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
