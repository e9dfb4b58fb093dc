package ch

import (
	"regexp"

	"github.com/dbharness/dbharness/internal/db"
)

// The 22 analytic queries of CH-benCHmark (Cole et al., "The mixed workload
// CH-benCHmark", DBTest 2011): TPC-H's queries restated on the TPC-C
// tables and SUPPLIER, NATION and REGION. They are written once, in SQL the
// four engines share, with two markers for what differs between them:
//
//   - {{year X}}: the year of timestamp X (Caps.Year: extract, strftime,
//     year());
//   - {{code X}}: the code of the first character of X (Caps.FirstCharCode:
//     ascii, unicode), which maps a customer's C_STATE to its nation.
//
// Where the paper's text would not run everywhere, or not mean what it
// meant, they differ from it (docs/ch.md lists each difference):
//
//   - the stock item's supplier, mod(s_w_id * s_i_id, 10000), is written
//     ((s_w_id % 10000) * (s_i_id % 10000)) % 10000, the same number, whose
//     product never leaves a 32-bit integer (s_w_id * s_i_id does from
//     21,475 warehouses on, where PostgreSQL and SQL Server refuse it);
//   - upper date bounds the paper set in 2012 and 2020, which the loader's
//     dates (the day of init) have passed, are 2100-01-01, so that the
//     ranges hold all the data as the paper meant them to;
//   - GROUP BY repeats expressions rather than naming select-list aliases
//     (SQL Server allows no alias there);
//   - Q8 divides by nullif(sum(ol_amount), 0), since a year whose matching
//     lines are all undelivered (amount 0) would divide by zero;
//   - Q15's view is a common table expression, so that a query stream
//     runs no DDL.
var queryText = [22]string{
	// Q1: the order lines delivered after a date, by line number.
	`SELECT ol_number, sum(ol_quantity) AS sum_qty, sum(ol_amount) AS sum_amount,
       avg(ol_quantity) AS avg_qty, avg(ol_amount) AS avg_amount, count(*) AS count_order
FROM order_line
WHERE ol_delivery_d > '2007-01-02 00:00:00'
GROUP BY ol_number
ORDER BY ol_number`,
	// Q2: the suppliers in Europe of the items with the lowest stock.
	`SELECT su_suppkey, su_name, n_name, i_id, i_name, su_address, su_phone, su_comment
FROM item, supplier, stock, nation, region,
     (SELECT s_i_id AS m_i_id, min(s_quantity) AS m_s_quantity
      FROM stock, supplier, nation, region
      WHERE ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
        AND su_nationkey = n_nationkey AND n_regionkey = r_regionkey
        AND r_name LIKE 'Europ%'
      GROUP BY s_i_id) m
WHERE i_id = s_i_id
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND su_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND i_data LIKE '%b' AND r_name LIKE 'Europ%'
  AND i_id = m_i_id AND s_quantity = m_s_quantity
ORDER BY n_name, su_name, i_id`,
	// Q3: the revenue of the undelivered orders of customers in states
	// starting with A.
	`SELECT ol_o_id, ol_w_id, ol_d_id, sum(ol_amount) AS revenue, o_entry_d
FROM customer, new_order, orders, order_line
WHERE c_state LIKE 'A%'
  AND c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id
  AND no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
  AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  AND o_entry_d > '2007-01-02 00:00:00'
GROUP BY ol_o_id, ol_w_id, ol_d_id, o_entry_d
ORDER BY revenue DESC, o_entry_d`,
	// Q4: the orders of a period with a line delivered on or after the
	// order's entry, by line count.
	`SELECT o_ol_cnt, count(*) AS order_count
FROM orders
WHERE o_entry_d >= '2007-01-02 00:00:00' AND o_entry_d < '2100-01-01 00:00:00'
  AND EXISTS (SELECT * FROM order_line
              WHERE o_id = ol_o_id AND o_w_id = ol_w_id AND o_d_id = ol_d_id
                AND ol_delivery_d >= o_entry_d)
GROUP BY o_ol_cnt
ORDER BY o_ol_cnt`,
	// Q5: the revenue of local suppliers in Europe, by nation.
	`SELECT n_name, sum(ol_amount) AS revenue
FROM customer, orders, order_line, stock, supplier, nation, region
WHERE c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id
  AND ol_o_id = o_id AND ol_w_id = o_w_id AND ol_d_id = o_d_id
  AND ol_w_id = s_w_id AND ol_i_id = s_i_id
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND {{code c_state}} = su_nationkey
  AND su_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'Europe'
  AND o_entry_d >= '2007-01-02 00:00:00'
GROUP BY n_name
ORDER BY revenue DESC`,
	// Q6: the revenue of the lines of a period and quantity range.
	`SELECT sum(ol_amount) AS revenue
FROM order_line
WHERE ol_delivery_d >= '1999-01-01 00:00:00' AND ol_delivery_d < '2100-01-01 00:00:00'
  AND ol_quantity BETWEEN 1 AND 100000`,
	// Q7: the trade between two nations, by year.
	`SELECT su_nationkey AS supp_nation, substring(c_state, 1, 1) AS cust_nation,
       {{year o_entry_d}} AS l_year, sum(ol_amount) AS revenue
FROM supplier, stock, order_line, orders, customer, nation n1, nation n2
WHERE ol_supply_w_id = s_w_id AND ol_i_id = s_i_id
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  AND c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id
  AND su_nationkey = n1.n_nationkey
  AND {{code c_state}} = n2.n_nationkey
  AND ((n1.n_name = 'Germany' AND n2.n_name = 'Cambodia')
    OR (n1.n_name = 'Cambodia' AND n2.n_name = 'Germany'))
  AND ol_delivery_d BETWEEN '2007-01-02 00:00:00' AND '2100-01-01 00:00:00'
GROUP BY su_nationkey, substring(c_state, 1, 1), {{year o_entry_d}}
ORDER BY supp_nation, cust_nation, l_year`,
	// Q8: a nation's share of its region's market, by year.
	`SELECT {{year o_entry_d}} AS l_year,
       sum(CASE WHEN n2.n_name = 'Germany' THEN ol_amount ELSE 0 END) / nullif(sum(ol_amount), 0) AS mkt_share
FROM item, supplier, stock, order_line, orders, customer, nation n1, nation n2, region
WHERE i_id = s_i_id AND ol_i_id = s_i_id AND ol_supply_w_id = s_w_id
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  AND c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id
  AND n1.n_nationkey = {{code c_state}}
  AND n1.n_regionkey = r_regionkey
  AND ol_i_id < 1000
  AND r_name = 'Europe'
  AND su_nationkey = n2.n_nationkey
  AND o_entry_d BETWEEN '2007-01-02 00:00:00' AND '2100-01-01 00:00:00'
  AND i_data LIKE '%b'
  AND i_id = ol_i_id
GROUP BY {{year o_entry_d}}
ORDER BY l_year`,
	// Q9: the profit of the items of a kind, by nation and year.
	`SELECT n_name, {{year o_entry_d}} AS l_year, sum(ol_amount) AS sum_profit
FROM item, stock, supplier, order_line, orders, nation
WHERE ol_i_id = s_i_id AND ol_supply_w_id = s_w_id
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  AND ol_i_id = i_id
  AND su_nationkey = n_nationkey
  AND i_data LIKE '%BB'
GROUP BY n_name, {{year o_entry_d}}
ORDER BY n_name, l_year DESC`,
	// Q10: the customers with the most revenue of lines delivered after
	// their order's entry.
	`SELECT c_id, c_last, sum(ol_amount) AS revenue, c_city, c_phone, n_name
FROM customer, orders, order_line, nation
WHERE c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id
  AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  AND o_entry_d >= '2007-01-02 00:00:00'
  AND o_entry_d <= ol_delivery_d
  AND n_nationkey = {{code c_state}}
GROUP BY c_id, c_last, c_city, c_phone, n_name
ORDER BY revenue DESC`,
	// Q11: the items most ordered from a nation's suppliers.
	`SELECT s_i_id, sum(s_order_cnt) AS ordercount
FROM stock, supplier, nation
WHERE ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND su_nationkey = n_nationkey
  AND n_name = 'Germany'
GROUP BY s_i_id
HAVING sum(s_order_cnt) > (SELECT sum(s_order_cnt) * .005
                           FROM stock, supplier, nation
                           WHERE ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
                             AND su_nationkey = n_nationkey
                             AND n_name = 'Germany')
ORDER BY ordercount DESC`,
	// Q12: the orders by carrier priority, by line count.
	`SELECT o_ol_cnt,
       sum(CASE WHEN o_carrier_id = 1 OR o_carrier_id = 2 THEN 1 ELSE 0 END) AS high_line_count,
       sum(CASE WHEN o_carrier_id <> 1 AND o_carrier_id <> 2 THEN 1 ELSE 0 END) AS low_line_count
FROM orders, order_line
WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  AND o_entry_d <= ol_delivery_d
  AND ol_delivery_d < '2100-01-01 00:00:00'
GROUP BY o_ol_cnt
ORDER BY o_ol_cnt`,
	// Q13: how many customers have how many orders of a carrier.
	`SELECT c_count, count(*) AS custdist
FROM (SELECT c_id, count(o_id) AS c_count
      FROM customer LEFT OUTER JOIN orders
        ON (c_w_id = o_w_id AND c_d_id = o_d_id AND c_id = o_c_id AND o_carrier_id > 8)
      GROUP BY c_id) c_orders
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC`,
	// Q14: the share of promotional items in a period's revenue.
	`SELECT 100.00 * sum(CASE WHEN i_data LIKE 'PR%' THEN ol_amount ELSE 0 END) / (1 + sum(ol_amount)) AS promo_revenue
FROM order_line, item
WHERE ol_i_id = i_id
  AND ol_delivery_d >= '2007-01-02 00:00:00' AND ol_delivery_d < '2100-01-01 00:00:00'`,
	// Q15: the suppliers with the most revenue.
	`WITH revenue (supplier_no, total_revenue) AS (
  SELECT ((s_w_id % 10000) * (s_i_id % 10000)) % 10000, sum(ol_amount)
  FROM order_line, stock
  WHERE ol_i_id = s_i_id AND ol_supply_w_id = s_w_id
    AND ol_delivery_d >= '2007-01-02 00:00:00'
  GROUP BY ((s_w_id % 10000) * (s_i_id % 10000)) % 10000)
SELECT su_suppkey, su_name, su_address, su_phone, total_revenue
FROM supplier, revenue
WHERE su_suppkey = supplier_no
  AND total_revenue = (SELECT max(total_revenue) FROM revenue)
ORDER BY su_suppkey`,
	// Q16: how many suppliers without complaints supply the items of each
	// kind.
	`SELECT i_name, substring(i_data, 1, 3) AS brand, i_price,
       count(DISTINCT ((s_w_id % 10000) * (s_i_id % 10000)) % 10000) AS supplier_cnt
FROM stock, item
WHERE i_id = s_i_id
  AND i_data NOT LIKE 'zz%'
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 NOT IN
      (SELECT su_suppkey FROM supplier WHERE su_comment LIKE '%bad%')
GROUP BY i_name, substring(i_data, 1, 3), i_price
ORDER BY supplier_cnt DESC`,
	// Q17: the yearly loss if the small orders of some items were lost.
	`SELECT sum(ol_amount) / 2.0 AS avg_yearly
FROM order_line,
     (SELECT i_id, avg(ol_quantity) AS a
      FROM item, order_line
      WHERE i_data LIKE '%b' AND ol_i_id = i_id
      GROUP BY i_id) t
WHERE ol_i_id = t.i_id
  AND ol_quantity < t.a`,
	// Q18: the customers with large orders.
	`SELECT c_last, c_id, o_id, o_entry_d, o_ol_cnt, sum(ol_amount) AS amount_sum
FROM customer, orders, order_line
WHERE c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id
  AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
GROUP BY o_id, o_w_id, o_d_id, c_id, c_last, o_entry_d, o_ol_cnt
HAVING sum(ol_amount) > 200
ORDER BY amount_sum DESC, o_entry_d`,
	// Q19: the revenue of three kinds of items in given warehouses.
	`SELECT sum(ol_amount) AS revenue
FROM order_line, item
WHERE (ol_i_id = i_id AND i_data LIKE '%a' AND ol_quantity >= 1 AND ol_quantity <= 10
       AND i_price BETWEEN 1 AND 400000 AND ol_w_id IN (1, 2, 3))
   OR (ol_i_id = i_id AND i_data LIKE '%b' AND ol_quantity >= 1 AND ol_quantity <= 10
       AND i_price BETWEEN 1 AND 400000 AND ol_w_id IN (1, 2, 4))
   OR (ol_i_id = i_id AND i_data LIKE '%c' AND ol_quantity >= 1 AND ol_quantity <= 10
       AND i_price BETWEEN 1 AND 400000 AND ol_w_id IN (1, 5, 3))`,
	// Q20: a nation's suppliers with surplus stock of some items.
	`SELECT su_name, su_address
FROM supplier, nation
WHERE su_suppkey IN
      (SELECT ((s_i_id % 10000) * (s_w_id % 10000)) % 10000
       FROM stock, order_line
       WHERE s_i_id IN (SELECT i_id FROM item WHERE i_data LIKE 'co%')
         AND ol_i_id = s_i_id
         AND ol_delivery_d > '2010-05-23 12:00:00'
       GROUP BY s_i_id, s_w_id, s_quantity
       HAVING 2 * s_quantity > sum(ol_quantity))
  AND su_nationkey = n_nationkey
  AND n_name = 'Germany'
ORDER BY su_name`,
	// Q21: a nation's suppliers who kept orders waiting.
	`SELECT su_name, count(*) AS numwait
FROM supplier, order_line l1, orders, stock, nation
WHERE ol_o_id = o_id AND ol_w_id = o_w_id AND ol_d_id = o_d_id
  AND ol_w_id = s_w_id AND ol_i_id = s_i_id
  AND ((s_w_id % 10000) * (s_i_id % 10000)) % 10000 = su_suppkey
  AND l1.ol_delivery_d > o_entry_d
  AND NOT EXISTS (SELECT * FROM order_line l2
                  WHERE l2.ol_o_id = l1.ol_o_id AND l2.ol_w_id = l1.ol_w_id
                    AND l2.ol_d_id = l1.ol_d_id AND l2.ol_delivery_d > l1.ol_delivery_d)
  AND su_nationkey = n_nationkey
  AND n_name = 'Germany'
GROUP BY su_name
ORDER BY numwait DESC, su_name`,
	// Q22: the customers of some areas with a good balance and no order.
	`SELECT substring(c_state, 1, 1) AS country, count(*) AS numcust, sum(c_balance) AS totacctbal
FROM customer
WHERE substring(c_phone, 1, 1) IN ('1', '2', '3', '4', '5', '6', '7')
  AND c_balance > (SELECT avg(c_balance) FROM customer
                   WHERE c_balance > 0.00
                     AND substring(c_phone, 1, 1) IN ('1', '2', '3', '4', '5', '6', '7'))
  AND NOT EXISTS (SELECT * FROM orders
                  WHERE o_c_id = c_id AND o_w_id = c_w_id AND o_d_id = c_d_id)
GROUP BY substring(c_state, 1, 1)
ORDER BY substring(c_state, 1, 1)`,
}

// QueryCount is the number of analytic queries.
const QueryCount = len(queryText)

// marker is a dialect marker of queryText: {{year X}} or {{code X}}.
var marker = regexp.MustCompile(`\{\{(year|code) ([a-z_.0-9]+)\}\}`)

// Queries returns the 22 queries in the engine's dialect, Q1 first.
func Queries(c db.Caps) []string {
	out := make([]string, len(queryText))
	for i, q := range queryText {
		out[i] = dialect(c, q)
	}
	return out
}

// dialect writes the markers of text in the engine's dialect.
func dialect(c db.Caps, text string) string {
	return marker.ReplaceAllStringFunc(text, func(m string) string {
		p := marker.FindStringSubmatch(m)
		if p[1] == "year" {
			return c.Year(p[2])
		}
		return c.FirstCharCode(p[2])
	})
}
