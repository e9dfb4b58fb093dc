package tpcc

import (
	"context"
	"fmt"
	"math"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// tolerance for comparing money sums (cents); SQLite keeps decimals as
// binary floats.
const tolerance = 0.005

// Check implements workload.Checker: the consistency conditions of clause
// 3.3.2. Conditions 1 to 10 and 12 hold after any run (also an interrupted
// one, since every transaction is atomic); condition 11 (orders minus new
// orders = 2,100 per district) holds only until the first Delivery, so it
// is not checked.
func (w *TPCC) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := workload.RequireTables(ctx, env, conn, "tpcc", Tables...); err != nil {
		return nil, err
	}
	var out []workload.CheckResult
	for _, c := range conditions {
		r, err := c.run(ctx, conn)
		if err != nil {
			return out, fmt.Errorf("condition %s: %w", c.name, err)
		}
		r.Name = c.name
		out = append(out, r)
	}
	return out, nil
}

type condition struct {
	name string
	run  func(ctx context.Context, c db.Conn) (workload.CheckResult, error)
}

var conditions = []condition{
	{"1: W_YTD = sum(D_YTD)", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return compareRows(ctx, c, "warehouses",
			"SELECT w_id, 0, w_ytd, (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id) FROM warehouse", "W_YTD", "sum(D_YTD)")
	}},
	{"2: D_NEXT_O_ID-1 = max(O_ID) = max(NO_O_ID)", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		r, err := compareRows(ctx, c, "districts",
			"SELECT d_w_id, d_id, d_next_o_id - 1, (SELECT max(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) FROM district",
			"D_NEXT_O_ID-1", "max(O_ID)")
		if err != nil || !r.Pass {
			return r, err
		}
		// max(NO_O_ID) is compared where the district has new orders.
		r2, err := compareRows(ctx, c, "districts with new orders",
			"SELECT d_w_id, d_id, d_next_o_id - 1, (SELECT max(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) FROM district WHERE EXISTS (SELECT 1 FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id)",
			"D_NEXT_O_ID-1", "max(NO_O_ID)")
		r2.Detail = r.Detail + "; " + r2.Detail
		return r2, err
	}},
	{"3: max(NO_O_ID)-min(NO_O_ID)+1 = rows in NEW-ORDER", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return compareRows(ctx, c, "districts",
			"SELECT no_w_id, no_d_id, max(no_o_id) - min(no_o_id) + 1, count(*) FROM new_order GROUP BY no_w_id, no_d_id",
			"max-min+1", "count(*)")
	}},
	{"4: sum(O_OL_CNT) = rows in ORDER-LINE", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return compareRows(ctx, c, "districts",
			`SELECT o.w, o.d, o.n, l.n FROM
			 (SELECT o_w_id w, o_d_id d, sum(o_ol_cnt) n FROM orders GROUP BY o_w_id, o_d_id) o
			 LEFT JOIN (SELECT ol_w_id w, ol_d_id d, count(*) n FROM order_line GROUP BY ol_w_id, ol_d_id) l ON l.w = o.w AND l.d = o.d`,
			"sum(O_OL_CNT)", "count(*)")
	}},
	{"5: O_CARRIER_ID null iff a NEW-ORDER row", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return countViolations(ctx, c, "orders", "SELECT count(*) FROM orders",
			`SELECT count(*) FROM orders LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
			 WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL)`)
	}},
	{"6: O_OL_CNT = order's ORDER-LINE rows", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return countViolations(ctx, c, "orders", "SELECT count(*) FROM orders",
			`SELECT count(*) FROM orders LEFT JOIN
			 (SELECT ol_w_id w, ol_d_id d, ol_o_id o, count(*) n FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
			 ON l.w = o_w_id AND l.d = o_d_id AND l.o = o_id WHERE l.n IS NULL OR l.n <> o_ol_cnt`)
	}},
	{"7: OL_DELIVERY_D null iff O_CARRIER_ID null", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return countViolations(ctx, c, "order lines", "SELECT count(*) FROM order_line",
			`SELECT count(*) FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
			 WHERE (o_carrier_id IS NULL AND ol_delivery_d IS NOT NULL) OR (o_carrier_id IS NOT NULL AND ol_delivery_d IS NULL)`)
	}},
	{"8: W_YTD = sum(H_AMOUNT)", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return compareRows(ctx, c, "warehouses",
			"SELECT w_id, 0, w_ytd, (SELECT sum(h_amount) FROM history WHERE h_w_id = w_id) FROM warehouse", "W_YTD", "sum(H_AMOUNT)")
	}},
	{"9: D_YTD = sum(H_AMOUNT)", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return compareRows(ctx, c, "districts",
			`SELECT d_w_id, d_id, d_ytd, h.s FROM district LEFT JOIN
			 (SELECT h_w_id w, h_d_id d, sum(h_amount) s FROM history GROUP BY h_w_id, h_d_id) h ON h.w = d_w_id AND h.d = d_id`,
			"D_YTD", "sum(H_AMOUNT)")
	}},
	{"10: C_BALANCE = delivered sum(OL_AMOUNT) - sum(H_AMOUNT)", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return countViolations(ctx, c, "customers", "SELECT count(*) FROM customer",
			`SELECT count(*) FROM customer `+deliveredJoin+` LEFT JOIN
			 (SELECT h_c_w_id w, h_c_d_id d, h_c_id c, sum(h_amount) s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
			 ON h.w = c_w_id AND h.d = c_d_id AND h.c = c_id
			 WHERE abs(c_balance - (coalesce(ol.s, 0) - coalesce(h.s, 0))) > 0.005`)
	}},
	{"12: C_BALANCE + C_YTD_PAYMENT = delivered sum(OL_AMOUNT)", func(ctx context.Context, c db.Conn) (workload.CheckResult, error) {
		return countViolations(ctx, c, "customers", "SELECT count(*) FROM customer",
			`SELECT count(*) FROM customer `+deliveredJoin+`
			 WHERE abs(c_balance + c_ytd_payment - coalesce(ol.s, 0)) > 0.005`)
	}},
}

// deliveredJoin adds ol.s, the amount of each customer's delivered order
// lines.
const deliveredJoin = `LEFT JOIN
 (SELECT o_w_id w, o_d_id d, o_c_id c, sum(ol_amount) s FROM orders
  JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) ol
 ON ol.w = c_w_id AND ol.d = c_d_id AND ol.c = c_id`

// compareRows runs a query returning (w, d, a, b) rows and checks a = b in
// each, reporting how many rows differ and the first that does.
func compareRows(ctx context.Context, c db.Conn, what, sql, aName, bName string) (workload.CheckResult, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return workload.CheckResult{}, err
	}
	defer rows.Close()
	var n, bad int
	first := ""
	for rows.Next() {
		var w, d int64
		var a, b *float64
		if err := rows.Scan(&w, &d, &a, &b); err != nil {
			return workload.CheckResult{}, err
		}
		n++
		if a == nil || b == nil || math.Abs(*a-*b) > tolerance {
			bad++
			if first == "" {
				first = fmt.Sprintf("; first: w=%d d=%d %s=%s %s=%s", w, d, aName, fmtNum(a), bName, fmtNum(b))
			}
		}
	}
	if err := rows.Err(); err != nil {
		return workload.CheckResult{}, err
	}
	return workload.CheckResult{Pass: bad == 0 && n > 0,
		Detail: fmt.Sprintf("%d %s, %d differ%s", n, what, bad, first)}, nil
}

// countViolations reports the rows a violation query counts among all.
func countViolations(ctx context.Context, c db.Conn, what, allSQL, badSQL string) (workload.CheckResult, error) {
	all, err := db.QueryInt64(ctx, c, allSQL)
	if err != nil {
		return workload.CheckResult{}, err
	}
	bad, err := db.QueryInt64(ctx, c, badSQL)
	if err != nil {
		return workload.CheckResult{}, err
	}
	return workload.CheckResult{Pass: bad == 0 && all > 0, Detail: fmt.Sprintf("%d %s, %d violate", all, what, bad)}, nil
}

func fmtNum(v *float64) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprintf("%.2f", *v)
}
