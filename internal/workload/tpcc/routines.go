package tpcc

import (
	"fmt"
	"strconv"

	"github.com/dbharness/dbharness/internal/db"
)

// Server mode runs each transaction as one call of a routine that init
// creates on the server: a PL/pgSQL function on PostgreSQL, a stored
// procedure on MySQL and MariaDB, a T-SQL stored procedure on SQL Server
// (routines_tsql.go). The routines follow the transaction
// profiles of clause 2 exactly as the client mode's statements do (tx.go),
// with the same input data drawn by the client: the New-Order's lines, the
// Payment's customer (by number, or by last name when the number is 0),
// the Delivery's carrier, the Stock-Level's threshold. So both modes make
// the same changes to the database for the same input data, and every
// consistency condition of clause 3.3.2 holds after either.
//
// Each routine is one database transaction. A New-Order with an unused
// item number (clause 2.4.1.4) is rolled back by the routine itself, which
// then raises an error carrying rollbackMarker: the client counts it as a
// completed New-Order that did not commit, as in client mode. Any other
// error (a deadlock, a serialization failure) leaves the routine with the
// transaction rolled back and reaches the client as the engine's own
// error, which the driver retries as usual.

// routinesVersion is returned by the routines' version marker; Setup
// refuses routines of another version, created by another dbharness.
const routinesVersion = 1

// rollbackMarker is the message of the error a server-side New-Order
// raises after rolling back on an unused item number (clause 2.4.2.3).
const rollbackMarker = "tpcc: unused item number, New-Order rolled back (clause 2.4.2.3)"

// Server-side transaction modes (run --mode).
const (
	ModeServer = "server"
	ModeClient = "client"
)

// routineSet is one routine language's server-side transactions.
type routineSet struct {
	// create drops and creates the routines, the version marker last; drop
	// drops the version marker first, so that a database whose init did not
	// finish has none.
	create []string
	drop   string
	// version returns the marker's routinesVersion.
	version string
	// call is the statement that runs each transaction type, with $n
	// placeholders: New-Order (w, d, c, lines...), Payment (w, d, c_w, c_d,
	// c_id or 0, c_last, amount), Order-Status (w, d, c_id or 0, c_last,
	// augmented item bound or 0), Delivery (w, carrier), Stock-Level (w, d,
	// threshold, augmented item bound or 0). Each returns one row.
	call [5]string
	// lines appends a New-Order's lines to its arguments, as the routine
	// takes them.
	lines func(args []any, buf []byte, lines []line) ([]any, []byte)
}

// routineSets are the routines of each language (db.Caps.Routines).
var routineSets = map[string]*routineSet{
	db.RoutinesPLpgSQL: {
		create: []string{
			"DROP FUNCTION IF EXISTS tpcc_new_order", pgNewOrder,
			"DROP FUNCTION IF EXISTS tpcc_payment", pgPayment,
			"DROP FUNCTION IF EXISTS tpcc_order_status", pgOrderStatus,
			"DROP FUNCTION IF EXISTS tpcc_delivery", pgDelivery,
			"DROP FUNCTION IF EXISTS tpcc_stock_level", pgStockLevel,
			"DROP FUNCTION IF EXISTS tpcc_routines_version",
			fmt.Sprintf("CREATE FUNCTION tpcc_routines_version() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT %d'", routinesVersion),
		},
		drop:    "DROP FUNCTION IF EXISTS tpcc_routines_version",
		version: "SELECT tpcc_routines_version()",
		call: [5]string{
			NewOrder:    "SELECT * FROM tpcc_new_order($1, $2, $3, $4, $5, $6)",
			Payment:     "SELECT * FROM tpcc_payment($1, $2, $3, $4, $5, $6, $7)",
			OrderStatus: "SELECT * FROM tpcc_order_status($1, $2, $3, $4, $5)",
			Delivery:    "SELECT * FROM tpcc_delivery($1, $2)",
			StockLevel:  "SELECT * FROM tpcc_stock_level($1, $2, $3, $4)",
		},
		lines: pgLines,
	},
	db.RoutinesMySQL: {
		create: []string{
			"DROP PROCEDURE IF EXISTS tpcc_new_order", myNewOrder,
			"DROP PROCEDURE IF EXISTS tpcc_payment", myPayment,
			"DROP PROCEDURE IF EXISTS tpcc_order_status", myOrderStatus,
			"DROP PROCEDURE IF EXISTS tpcc_delivery", myDelivery,
			"DROP PROCEDURE IF EXISTS tpcc_stock_level", myStockLevel,
			"DROP PROCEDURE IF EXISTS tpcc_routines_version",
			fmt.Sprintf("CREATE PROCEDURE tpcc_routines_version() SELECT %d", routinesVersion),
		},
		drop:    "DROP PROCEDURE IF EXISTS tpcc_routines_version",
		version: "CALL tpcc_routines_version()",
		call: [5]string{
			NewOrder:    "CALL tpcc_new_order($1, $2, $3, $4)",
			Payment:     "CALL tpcc_payment($1, $2, $3, $4, $5, $6, $7)",
			OrderStatus: "CALL tpcc_order_status($1, $2, $3, $4, $5)",
			Delivery:    "CALL tpcc_delivery($1, $2)",
			StockLevel:  "CALL tpcc_stock_level($1, $2, $3, $4)",
		},
		lines: myLines,
	},
	db.RoutinesTSQL: tsqlRoutines,
}

// pgLines passes the lines as three int[] literals: items, supplying
// warehouses and quantities, in line order.
func pgLines(args []any, buf []byte, lines []line) ([]any, []byte) {
	for f := 0; f < 3; f++ {
		buf = append(buf[:0], '{')
		for i, l := range lines {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendInt(buf, int64([3]int{l.item, l.supply, l.qty}[f]), 10)
		}
		buf = append(buf, '}')
		args = append(args, string(buf))
	}
	return args, buf
}

// myLines passes the lines as one JSON array of [item, supplying
// warehouse, quantity] triples, in line order.
func myLines(args []any, buf []byte, lines []line) ([]any, []byte) {
	buf = append(buf[:0], '[')
	for i, l := range lines {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		buf = strconv.AppendInt(buf, int64(l.item), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(l.supply), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(l.qty), 10)
		buf = append(buf, ']')
	}
	buf = append(buf, ']')
	return append(args, string(buf)), buf
}

// The PL/pgSQL functions. Each runs in the caller's transaction: called
// alone in autocommit mode (as the workers call them), a function is one
// transaction, and an error inside it rolls all of it back.
//
// New-Order (clause 2.4.2.2). The stock rows are updated in one statement
// for all lines, in (warehouse, item) order, the order the client sorts the
// lines in, so that concurrent New-Orders lock them in one order. An item
// ordered on several lines has its quantities added up: taking the sum off
// S_QUANTITY once, with 91 added back if fewer than 10 would remain, gives
// the same S_QUANTITY as doing so line by line (as the client mode does),
// since one order (at most 150 units) cannot take S_QUANTITY (10 or more)
// below 10 twice. The order lines read their item's price and their stock
// row's S_DIST_xx of the district; if an item is missing (the unused item
// number of clause 2.4.1.4) fewer lines are written, and the function
// raises rollbackMarker, which rolls the transaction back.
const pgNewOrder = `CREATE FUNCTION tpcc_new_order(p_w int, p_d int, p_c int, p_items int[], p_supply int[], p_qty int[],
	OUT r_o_id int, OUT r_total numeric) LANGUAGE plpgsql AS $fn$
DECLARE
	v_discount numeric; v_last varchar; v_credit char(2); v_wtax numeric; v_dtax numeric;
	v_n int := cardinality(p_items); v_lines int; v_sum numeric;
BEGIN
	SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_wtax
	  FROM customer, warehouse WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
	UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
	  RETURNING d_next_o_id - 1, d_tax INTO r_o_id, v_dtax;
	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
	  VALUES (r_o_id, p_d, p_w, p_c, CURRENT_TIMESTAMP, v_n, CASE WHEN p_w = ALL (p_supply) THEN 1 ELSE 0 END);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (r_o_id, p_d, p_w);
	UPDATE stock SET s_quantity = CASE WHEN s_quantity < l.q + 10 THEN s_quantity - l.q + 91 ELSE s_quantity - l.q END,
	    s_ytd = s_ytd + l.q, s_order_cnt = s_order_cnt + l.n, s_remote_cnt = s_remote_cnt + l.r
	  FROM (SELECT x.s, x.i, sum(x.q) AS q, count(*) AS n, count(*) FILTER (WHERE x.s <> p_w) AS r
	          FROM unnest(p_supply, p_items, p_qty) AS x (s, i, q) GROUP BY x.s, x.i ORDER BY x.s, x.i) AS l
	  WHERE s_w_id = l.s AND s_i_id = l.i;
	WITH ins AS (
	  INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
	  SELECT r_o_id, p_d, p_w, x.n, x.i, x.s, x.q, x.q * i_price,
	         CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
	           WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
	           WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
	    FROM unnest(p_items, p_supply, p_qty) WITH ORDINALITY AS x (i, s, q, n)
	    JOIN item ON i_id = x.i JOIN stock ON s_w_id = x.s AND s_i_id = x.i
	  RETURNING ol_amount)
	SELECT count(*), sum(ol_amount) INTO v_lines, v_sum FROM ins;
	IF v_lines < v_n THEN
	  RAISE EXCEPTION '` + rollbackMarker + `';
	END IF;
	r_total := v_sum * (1 - v_discount) * (1 + v_wtax + v_dtax);
END $fn$`

// Payment (clause 2.5.2.2): p_c = 0 selects the customer by last name, the
// one at position ceil(n/2) of those with the name sorted by first name.
// A customer with bad credit gets the payment's details in front of C_DATA,
// which keeps its first 500 characters.
const pgPayment = `CREATE FUNCTION tpcc_payment(p_w int, p_d int, p_cw int, p_cd int, p_c int, p_last varchar, p_amount numeric,
	OUT r_c_id int, OUT r_balance numeric) LANGUAGE plpgsql AS $fn$
DECLARE
	v_wname varchar; v_dname varchar; v_ids int[];
	v_w1 varchar; v_w2 varchar; v_wcity varchar; v_wstate char(2); v_wzip char(9);
	v_d1 varchar; v_d2 varchar; v_dcity varchar; v_dstate char(2); v_dzip char(9);
	v_first varchar; v_middle char(2); v_last varchar; v_c1 varchar; v_c2 varchar; v_ccity varchar;
	v_cstate char(2); v_czip char(9); v_phone char(16); v_since timestamp; v_credit char(2);
	v_limit numeric; v_discount numeric;
BEGIN
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
	  RETURNING w_street_1, w_street_2, w_city, w_state, w_zip, w_name INTO v_w1, v_w2, v_wcity, v_wstate, v_wzip, v_wname;
	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d
	  RETURNING d_street_1, d_street_2, d_city, d_state, d_zip, d_name INTO v_d1, v_d2, v_dcity, v_dstate, v_dzip, v_dname;
	r_c_id := p_c;
	IF p_c = 0 THEN
	  v_ids := ARRAY(SELECT c_id FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last ORDER BY c_first);
	  IF cardinality(v_ids) = 0 THEN
	    RAISE EXCEPTION 'no customer named % in warehouse % district %', p_last, p_cw, p_cd;
	  END IF;
	  r_c_id := v_ids[(cardinality(v_ids) + 1) / 2];
	END IF;
	UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
	    c_payment_cnt = c_payment_cnt + 1,
	    c_data = CASE WHEN c_credit = 'BC'
	      THEN left(concat_ws(' ', c_id, p_cd, p_cw, p_d, p_w, p_amount, c_data), 500) ELSE c_data END
	  WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = r_c_id
	  RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
	    c_credit, c_credit_lim, c_discount, c_balance
	  INTO v_first, v_middle, v_last, v_c1, v_c2, v_ccity, v_cstate, v_czip, v_phone, v_since,
	    v_credit, v_limit, v_discount, r_balance;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	  VALUES (r_c_id, p_cd, p_cw, p_d, p_w, CURRENT_TIMESTAMP, p_amount, v_wname || '    ' || v_dname);
END $fn$`

// Order-Status (clause 2.6.2.2): the customer (by number, or by last name
// as in Payment), the customer's last order and its lines. STABLE: the
// function reads one snapshot and cannot write. p_avg_below > 0 adds
// tpcc-ro --augmented's read of the average item price.
const pgOrderStatus = `CREATE FUNCTION tpcc_order_status(p_w int, p_d int, p_c int, p_last varchar, p_avg_below int,
	OUT r_c_id int, OUT r_o_id int, OUT r_lines int) LANGUAGE plpgsql STABLE AS $fn$
DECLARE
	v_ids int[]; v_balance numeric; v_first varchar; v_middle char(2); v_last varchar;
	v_carrier int; v_entry timestamp; v_qty bigint; v_amount numeric; v_delivery timestamp; v_avg numeric;
BEGIN
	r_c_id := p_c;
	IF p_c = 0 THEN
	  v_ids := ARRAY(SELECT c_id FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last ORDER BY c_first);
	  IF cardinality(v_ids) = 0 THEN
	    RAISE EXCEPTION 'no customer named % in warehouse % district %', p_last, p_w, p_d;
	  END IF;
	  r_c_id := v_ids[(cardinality(v_ids) + 1) / 2];
	END IF;
	SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
	  FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = r_c_id;
	r_lines := 0;
	SELECT o_id, o_carrier_id, o_entry_d INTO r_o_id, v_carrier, v_entry
	  FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = r_c_id ORDER BY o_id DESC LIMIT 1;
	IF FOUND THEN
	  SELECT count(*), sum(ol_quantity), sum(ol_amount), max(ol_delivery_d) INTO r_lines, v_qty, v_amount, v_delivery
	    FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = r_o_id;
	ELSE
	  r_o_id := 0;
	END IF;
	IF p_avg_below > 0 THEN
	  SELECT avg(i_price) INTO v_avg FROM item WHERE i_id < p_avg_below;
	END IF;
END $fn$`

// Delivery (clause 2.7.4.2): for each of the ten districts in turn, its
// oldest undelivered order (none: the district is skipped), delivered by
// the carrier; the customer's balance grows by the sum of the order's lines.
// It returns the number of districts delivered.
const pgDelivery = `CREATE FUNCTION tpcc_delivery(p_w int, p_carrier int, OUT r_delivered int) LANGUAGE plpgsql AS $fn$
DECLARE
	v_o int; v_c int; v_sum numeric;
BEGIN
	r_delivered := 0;
	FOR v_d IN 1..10 LOOP
	  DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
	    AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d)
	    RETURNING no_o_id INTO v_o;
	  CONTINUE WHEN NOT FOUND;
	  UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o RETURNING o_c_id INTO v_c;
	  WITH l AS (UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP
	      WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o RETURNING ol_amount)
	    SELECT sum(ol_amount) INTO v_sum FROM l;
	  UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
	    WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
	  r_delivered := r_delivered + 1;
	END LOOP;
END $fn$`

// Stock-Level (clause 2.8.2.2): the district's next order number, then the
// distinct items of its last 20 orders whose stock is below the threshold.
const pgStockLevel = `CREATE FUNCTION tpcc_stock_level(p_w int, p_d int, p_threshold int, p_avg_below int,
	OUT r_low_stock int) LANGUAGE plpgsql STABLE AS $fn$
DECLARE
	v_next int; v_avg numeric;
BEGIN
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	SELECT count(DISTINCT s_i_id) INTO r_low_stock FROM order_line, stock
	  WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
	    AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
	IF p_avg_below > 0 THEN
	  SELECT avg(i_price) INTO v_avg FROM item WHERE i_id < p_avg_below;
	END IF;
END $fn$`

// The MySQL/MariaDB stored procedures. Each starts and commits its own
// transaction (the workers call them in autocommit mode), and on any error
// rolls it back and passes the error on unchanged (RESIGNAL keeps its
// number: 1213 for a deadlock), so the client sees what it would have seen
// sending the statements itself. Each returns one row.
//
// New-Order (clause 2.4.2.2): as the PL/pgSQL function, with the lines
// passed as a JSON array of [item, supplying warehouse, quantity] read
// with JSON_TABLE (MariaDB 10.6, MySQL 8.0.4). The items are read first:
// one missing is the unused item number of clause 2.4.1.4, and the
// procedure raises rollbackMarker after the district and order rows are
// written, which its handler rolls back. The stock rows are updated in one
// statement joined to the lines, which updates a row once however many
// lines match it: when an item appears on several lines (rarely), the
// lines are first added up per item, as in the PL/pgSQL function.
const myNewOrder = `CREATE PROCEDURE tpcc_new_order(IN p_w INT, IN p_d INT, IN p_c INT, IN p_lines TEXT)
BEGIN
	DECLARE v_discount, v_wtax, v_dtax DECIMAL(4,4);
	DECLARE v_last VARCHAR(16);
	DECLARE v_credit CHAR(2);
	DECLARE v_o, v_n, v_local, v_items, v_distinct INT;
	DECLARE v_sum DECIMAL(12,2);
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_wtax
	  FROM customer, warehouse WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
	SELECT d_next_o_id, d_tax INTO v_o, v_dtax FROM district WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
	UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
	SELECT count(*), min(l.s = p_w), count(i_id), sum(l.q * i_price), count(DISTINCT l.s, l.i)
	  INTO v_n, v_local, v_items, v_sum, v_distinct
	  FROM JSON_TABLE(p_lines, '$[*]' COLUMNS (i INT PATH '$[0]', s INT PATH '$[1]', q INT PATH '$[2]')) AS l
	  LEFT JOIN item ON i_id = l.i;
	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
	  VALUES (v_o, p_d, p_w, p_c, CURRENT_TIMESTAMP, v_n, v_local);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
	IF v_items < v_n THEN
	  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '` + rollbackMarker + `';
	END IF;
	IF v_distinct = v_n THEN
	  UPDATE stock JOIN JSON_TABLE(p_lines, '$[*]' COLUMNS (i INT PATH '$[0]', s INT PATH '$[1]', q INT PATH '$[2]')) AS l
	      ON s_w_id = l.s AND s_i_id = l.i
	    SET s_quantity = IF(s_quantity < l.q + 10, s_quantity - l.q + 91, s_quantity - l.q),
	      s_ytd = s_ytd + l.q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (l.s <> p_w);
	ELSE
	  UPDATE stock JOIN (SELECT l.s, l.i, sum(l.q) AS q, count(*) AS n, sum(l.s <> p_w) AS r
	      FROM JSON_TABLE(p_lines, '$[*]' COLUMNS (i INT PATH '$[0]', s INT PATH '$[1]', q INT PATH '$[2]')) AS l
	      GROUP BY l.s, l.i) AS l ON s_w_id = l.s AND s_i_id = l.i
	    SET s_quantity = IF(s_quantity < l.q + 10, s_quantity - l.q + 91, s_quantity - l.q),
	      s_ytd = s_ytd + l.q, s_order_cnt = s_order_cnt + l.n, s_remote_cnt = s_remote_cnt + l.r;
	END IF;
	INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
	  SELECT v_o, p_d, p_w, l.n, l.i, l.s, l.q, l.q * i_price,
	    ELT(p_d, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10)
	  FROM JSON_TABLE(p_lines, '$[*]' COLUMNS (n FOR ORDINALITY, i INT PATH '$[0]', s INT PATH '$[1]', q INT PATH '$[2]')) AS l
	  JOIN item ON i_id = l.i JOIN stock ON s_w_id = l.s AND s_i_id = l.i;
	COMMIT;
	SELECT v_o, v_sum * (1 - v_discount) * (1 + v_wtax + v_dtax);
END`

// Payment (clause 2.5.2.2), as the PL/pgSQL function; the customers with
// the last name are read once, their numbers in first-name order.
const myPayment = `CREATE PROCEDURE tpcc_payment(IN p_w INT, IN p_d INT, IN p_cw INT, IN p_cd INT, IN p_c INT,
	IN p_last VARCHAR(16), IN p_amount DECIMAL(6,2))
BEGIN
	DECLARE v_wname, v_dname VARCHAR(10);
	DECLARE v_w1, v_w2, v_wcity, v_d1, v_d2, v_dcity, v_c1, v_c2, v_ccity VARCHAR(20);
	DECLARE v_wstate, v_dstate, v_cstate, v_middle, v_credit CHAR(2);
	DECLARE v_wzip, v_dzip, v_czip CHAR(9);
	DECLARE v_first, v_clast VARCHAR(16);
	DECLARE v_phone CHAR(16);
	DECLARE v_since DATETIME(6);
	DECLARE v_limit, v_balance DECIMAL(12,2);
	DECLARE v_discount DECIMAL(4,4);
	DECLARE v_c, v_n INT;
	DECLARE v_ids TEXT;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w;
	SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name INTO v_w1, v_w2, v_wcity, v_wstate, v_wzip, v_wname
	  FROM warehouse WHERE w_id = p_w;
	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w AND d_id = p_d;
	SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name INTO v_d1, v_d2, v_dcity, v_dstate, v_dzip, v_dname
	  FROM district WHERE d_w_id = p_w AND d_id = p_d;
	SET v_c = p_c;
	IF p_c = 0 THEN
	  SELECT count(*), GROUP_CONCAT(c_id ORDER BY c_first SEPARATOR ',') INTO v_n, v_ids
	    FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
	  IF v_n = 0 THEN
	    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with the last name';
	  END IF;
	  SET v_c = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_ids, ',', (v_n + 1) DIV 2), ',', -1) AS SIGNED);
	END IF;
	SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
	    c_credit, c_credit_lim, c_discount, c_balance
	  INTO v_first, v_middle, v_clast, v_c1, v_c2, v_ccity, v_cstate, v_czip, v_phone, v_since,
	    v_credit, v_limit, v_discount, v_balance
	  FROM customer WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c FOR UPDATE;
	IF v_credit = 'BC' THEN
	  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
	      c_payment_cnt = c_payment_cnt + 1, c_data = LEFT(CONCAT_WS(' ', v_c, p_cd, p_cw, p_d, p_w, p_amount, c_data), 500)
	    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
	ELSE
	  UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
	      c_payment_cnt = c_payment_cnt + 1
	    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_c;
	END IF;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	  VALUES (v_c, p_cd, p_cw, p_d, p_w, CURRENT_TIMESTAMP, p_amount, CONCAT(v_wname, '    ', v_dname));
	COMMIT;
	SELECT v_c, v_balance - p_amount;
END`

// Order-Status (clause 2.6.2.2), in a read-only transaction.
const myOrderStatus = `CREATE PROCEDURE tpcc_order_status(IN p_w INT, IN p_d INT, IN p_c INT, IN p_last VARCHAR(16), IN p_avg_below INT)
BEGIN
	DECLARE v_c, v_n, v_carrier, v_qty INT;
	DECLARE v_o, v_lines INT DEFAULT 0;
	DECLARE v_ids TEXT;
	DECLARE v_balance, v_amount DECIMAL(12,2);
	DECLARE v_first, v_clast VARCHAR(16);
	DECLARE v_middle CHAR(2);
	DECLARE v_entry, v_delivery DATETIME(6);
	DECLARE v_avg DECIMAL(12,6);
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION READ ONLY;
	SET v_c = p_c;
	IF p_c = 0 THEN
	  SELECT count(*), GROUP_CONCAT(c_id ORDER BY c_first SEPARATOR ',') INTO v_n, v_ids
	    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
	  IF v_n = 0 THEN
	    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with the last name';
	  END IF;
	  SET v_c = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_ids, ',', (v_n + 1) DIV 2), ',', -1) AS SIGNED);
	END IF;
	SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_clast
	  FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_c;
	SELECT o_id, o_carrier_id, o_entry_d INTO v_o, v_carrier, v_entry
	  FROM orders WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_c ORDER BY o_id DESC LIMIT 1;
	IF v_o > 0 THEN
	  SELECT count(*), sum(ol_quantity), sum(ol_amount), max(ol_delivery_d) INTO v_lines, v_qty, v_amount, v_delivery
	    FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_o;
	END IF;
	IF p_avg_below > 0 THEN
	  SELECT avg(i_price) INTO v_avg FROM item WHERE i_id < p_avg_below;
	END IF;
	COMMIT;
	SELECT v_c, v_o, v_lines;
END`

// Delivery (clause 2.7.4.2), as the PL/pgSQL function.
const myDelivery = `CREATE PROCEDURE tpcc_delivery(IN p_w INT, IN p_carrier INT)
BEGIN
	DECLARE v_d, v_done INT DEFAULT 0;
	DECLARE v_o, v_c INT;
	DECLARE v_sum DECIMAL(12,2);
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION;
	SET v_d = 1;
	WHILE v_d <= 10 DO
	  SET v_o = NULL;
	  SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d ORDER BY no_o_id LIMIT 1 FOR UPDATE;
	  IF v_o IS NOT NULL THEN
	    DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
	    IF ROW_COUNT() > 0 THEN
	      UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
	      SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
	      UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
	      SELECT sum(ol_amount) INTO v_sum FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
	      UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
	        WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
	      SET v_done = v_done + 1;
	    END IF;
	  END IF;
	  SET v_d = v_d + 1;
	END WHILE;
	COMMIT;
	SELECT v_done;
END`

// Stock-Level (clause 2.8.2.2), in a read-only transaction.
const myStockLevel = `CREATE PROCEDURE tpcc_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT, IN p_avg_below INT)
BEGIN
	DECLARE v_next, v_low INT;
	DECLARE v_avg DECIMAL(12,6);
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
	START TRANSACTION READ ONLY;
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	SELECT count(DISTINCT s_i_id) INTO v_low FROM order_line, stock
	  WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
	    AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
	IF p_avg_below > 0 THEN
	  SELECT avg(i_price) INTO v_avg FROM item WHERE i_id < p_avg_below;
	END IF;
	COMMIT;
	SELECT v_low;
END`
