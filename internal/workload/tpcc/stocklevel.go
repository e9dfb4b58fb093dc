package tpcc

import (
	"context"

	"github.com/dbharness/dbharness/internal/db"
)

// The Stock-Level transaction (clause 2.8): how many recently sold items
// of a district are low in stock, read only.

// drawStockLevel draws the input data of a Stock-Level (clause 2.8.1).
func (wk *worker) drawStockLevel(p *params, w, d int) {
	p.threshold = wk.between(10, 20)
}

// prepareStockLevel prepares the Stock-Level's statements (clause 2.8.2).
func (s *stmts) prepareStockLevel(p func(*db.Stmt, string)) {
	p(&s.slDistrict, "SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2")
	p(&s.slCount, sqlStockLevelCount)
}

// stockLevel runs a Stock-Level (clause 2.8.2).
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
