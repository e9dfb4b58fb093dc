package tpcc

import (
	"math/rand/v2"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// Statements whose plans depend on their parameters, shared by the
// transactions and by the plan check.
const (
	// Payment and Order-Status by last name (clauses 2.5.2.2, 2.6.2.2).
	sqlCustomerByLast = "SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first"
	// Order-Status (clause 2.6.2.2).
	sqlCustomerBalance = "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"
	// Order-Status's last order, before the engine's LimitClause(1)
	// (lastOrderSQL).
	sqlLastOrder  = "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC"
	sqlOrderLines = "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3"
	// Stock-Level (clause 2.8.2.2): distinct items of the district's last
	// 20 orders whose stock is below the threshold.
	sqlStockLevelCount = "SELECT count(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $4 AND s_w_id = $5 AND s_i_id = ol_i_id AND s_quantity < $6"
	// tpcc-ro --augmented: the average price of the first items.
	sqlAvgPrice = "SELECT avg(i_price) FROM item WHERE i_id < $1"
)

// lastOrderSQL is Order-Status's read of the customer's last order.
func lastOrderSQL(c db.Caps) string { return sqlLastOrder + c.LimitClause(1) }

// Delivery's locking reads (clause 2.7.4.2): the district's oldest new
// order, and the order's lines.
func oldestNewOrderSQL(c db.Caps) string {
	return c.SelectForUpdate("SELECT no_o_id FROM new_order", " WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id"+c.LimitClause(1))
}

func deliveryLinesSQL(c db.Caps) string {
	return c.SelectForUpdate("SELECT ol_amount FROM order_line", " WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3")
}

// Statements implements workload.Statementer: the reads of Order-Status,
// Payment by last name, Delivery and Stock-Level (and the augmented price
// scan), with the parameter domains of clause 2, for the plan check.
// Stock-Level's lower order bound and stock warehouse are derived from
// the other parameters, as the transaction derives them.
func (w *TPCC) Statements() []workload.Statement {
	intDomain := func(name string, lo, hi int64, sample func(*rand.Rand) int64) workload.ParamDomain {
		return workload.ParamDomain{Name: name, Min: lo, Max: hi, Median: lo + (hi-lo)/2,
			Sample: func(r *rand.Rand) any { return sample(r) }}
	}
	wh := intDomain("w_id", 1, int64(w.warehouses), func(r *rand.Rand) int64 { return 1 + r.Int64N(int64(w.warehouses)) })
	d := intDomain("d_id", 1, districtsPerWH, func(r *rand.Rand) int64 { return 1 + r.Int64N(districtsPerWH) })
	customers := int64(w.pop.Customers)
	nuCID := datagen.Must(datagen.NewNURand(1023, 1, customers, w.cID))                               // clause 2.1.6
	nuLast := datagen.Must(datagen.NewNURand(lastNameLoadNURandA, 0, min(999, customers-1), w.cLast)) // clause 2.1.6
	cid := intDomain("c_id", 1, customers, nuCID.Int64)
	last := workload.ParamDomain{Name: "c_last", Min: LastName(0), Max: LastName(int(min(999, customers-1))),
		Median: LastName(int(min(999, customers-1) / 2)),
		Sample: func(r *rand.Rand) any { return LastName(int(nuLast.Int64(r))) }}
	// Orders loaded per district (clause 4.3.3.1); runs add more.
	oid := intDomain("o_id", 1, customers, func(r *rand.Rand) int64 { return 1 + r.Int64N(customers) })
	// Stock-Level reads the district's next order id: at least the loaded
	// orders plus one, growing during runs; its window is the 20 orders
	// below it (clause 2.8.2.2).
	next := intDomain("next_o_id", 21, customers+1, func(r *rand.Rand) int64 { return 21 + r.Int64N(customers-19) })
	lowO := workload.ParamDomain{Name: "next_o_id-20", Derive: func(e []any) any { return e[2].(int64) - 20 }}
	sw := workload.ParamDomain{Name: "s_w_id", Derive: func(e []any) any { return e[0] }}
	threshold := intDomain("threshold", 10, 20, func(r *rand.Rand) int64 { return 10 + r.Int64N(11) })
	var out []workload.Statement
	out = append(out,
		workload.Statement{Name: "customer_by_last_name", SQL: sqlCustomerByLast, Params: []workload.ParamDomain{wh, d, last}},
		workload.Statement{Name: "customer_balance", SQL: sqlCustomerBalance, Params: []workload.ParamDomain{wh, d, cid}},
		workload.Statement{Name: "last_order", SQL: lastOrderSQL(w.caps), Params: []workload.ParamDomain{wh, d, cid}},
		workload.Statement{Name: "order_lines", SQL: sqlOrderLines, Params: []workload.ParamDomain{wh, d, oid}},
		workload.Statement{Name: "stock_level_count", SQL: sqlStockLevelCount, Params: []workload.ParamDomain{wh, d, next, lowO, sw, threshold}},
	)
	if !w.RO {
		out = append(out,
			workload.Statement{Name: "oldest_new_order", SQL: oldestNewOrderSQL(w.caps), Params: []workload.ParamDomain{wh, d}},
			workload.Statement{Name: "delivery_lines", SQL: deliveryLinesSQL(w.caps), Params: []workload.ParamDomain{wh, d, oid}})
	}
	if w.Augmented {
		out = append(out, workload.Statement{Name: "average_item_price", SQL: sqlAvgPrice,
			Params: []workload.ParamDomain{{Name: "i_id", Min: int64(augmentedMaxItem), Max: int64(augmentedMaxItem),
				Median: int64(augmentedMaxItem), Sample: func(*rand.Rand) any { return int64(augmentedMaxItem) }}}})
	}
	return out
}
