package tpcc

import (
	"context"
	"strconv"

	"github.com/dbharness/dbharness/internal/db"
)

// The Payment transaction (clause 2.5): a customer pays, at home or at a
// remote warehouse.

// drawPayment draws the input data of a Payment (clause 2.5.1).
func (wk *worker) drawPayment(p *params, w, d int) {
	p.cw, p.cd = w, d
	// 85% home, 15% remote customer (clause 2.5.1.2).
	if wk.tpcc.warehouses > 1 && wk.between(1, 100) > 85 {
		p.cw, p.cd = wk.otherWarehouse(w), wk.between(1, districtsPerWH)
	}
	wk.customer(p)
	p.amount = float64(wk.between(100, 500_000)) / 100 // H_AMOUNT 1.00..5,000.00 (clause 2.5.1.3)
}

// preparePayment prepares the Payment's statements (clause 2.5.2).
func (s *stmts) preparePayment(p func(*db.Stmt, string), c db.Caps) {
	p(&s.payUpdWh, "UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2")
	p(&s.paySelWh, "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = $1")
	p(&s.payUpdDist, "UPDATE district SET d_ytd = d_ytd + $1 WHERE d_w_id = $2 AND d_id = $3")
	p(&s.paySelDist, "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = $1 AND d_id = $2")
	p(&s.payByName, sqlCustomerByLast)
	p(&s.payCust, c.SelectForUpdate("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer",
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"))
	p(&s.payCData, "SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3")
	p(&s.payUpdCust, "UPDATE customer SET c_balance = c_balance - $1, c_ytd_payment = c_ytd_payment + $2, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = $5")
	p(&s.payUpdCustBC, "UPDATE customer SET c_balance = c_balance - $1, c_ytd_payment = c_ytd_payment + $2, c_payment_cnt = c_payment_cnt + 1, c_data = $3 WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = $6")
	p(&s.payInsHist, "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES ($1, $2, $3, $4, $5, CURRENT_TIMESTAMP, $6, $7)")
}

// payment runs a Payment (clause 2.5.2).
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
