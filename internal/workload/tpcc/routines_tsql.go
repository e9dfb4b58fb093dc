package tpcc

import (
	"fmt"
)

// The T-SQL stored procedures (SQL Server, Babelfish), written from the
// transaction profiles of clause 2 and the PL/pgSQL functions and MySQL
// procedures above: the same input data, the same changes. Each is one
// transaction: it begins and commits its own, and on any error (in its
// CATCH block) rolls it back and throws the error on unchanged, so that
// the client sees the number it would have seen sending the statements
// itself (1205 for a deadlock victim, which the driver retries). Each
// returns its results in OUTPUT parameters; the call (tsqlRoutines.call)
// is a batch that passes them and selects them as the one row the worker
// reads. SET NOCOUNT ON keeps the row counts of the procedure's statements
// off the wire.
//
// Where the PL/pgSQL functions read a row that a later statement changes
// (the district's next order number), the procedures update it first and
// read it after, under the update's row lock: Babelfish ignores table
// hints such as UPDLOCK, so a locking read is not to be relied on.

// tsqlRoutines is the T-SQL routine set.
var tsqlRoutines = &routineSet{
	create: []string{
		"DROP PROCEDURE IF EXISTS tpcc_new_order", tsqlNewOrder,
		"DROP PROCEDURE IF EXISTS tpcc_payment", tsqlPayment,
		"DROP PROCEDURE IF EXISTS tpcc_order_status", tsqlOrderStatus,
		"DROP PROCEDURE IF EXISTS tpcc_delivery", tsqlDelivery,
		"DROP PROCEDURE IF EXISTS tpcc_stock_level", tsqlStockLevel,
		"DROP PROCEDURE IF EXISTS tpcc_routines_version",
		fmt.Sprintf("CREATE PROCEDURE tpcc_routines_version AS SELECT %d", routinesVersion),
	},
	drop:    "DROP PROCEDURE IF EXISTS tpcc_routines_version",
	version: "EXEC tpcc_routines_version",
	call: [5]string{
		NewOrder: "DECLARE @o int, @t decimal(12,2); EXEC tpcc_new_order $1, $2, $3, $4, @o OUTPUT, @t OUTPUT; " +
			"SELECT @o, CAST(@t AS float)",
		Payment: "DECLARE @c int, @b decimal(12,2); EXEC tpcc_payment $1, $2, $3, $4, $5, $6, $7, @c OUTPUT, @b OUTPUT; " +
			"SELECT @c, CAST(@b AS float)",
		OrderStatus: "DECLARE @c int, @o int, @n int; EXEC tpcc_order_status $1, $2, $3, $4, $5, @c OUTPUT, @o OUTPUT, @n OUTPUT; " +
			"SELECT @c, @o, @n",
		Delivery:   "DECLARE @n int; EXEC tpcc_delivery $1, $2, @n OUTPUT; SELECT @n",
		StockLevel: "DECLARE @n int; EXEC tpcc_stock_level $1, $2, $3, $4, @n OUTPUT; SELECT @n",
	},
	// The lines as one JSON array of [item, supplying warehouse,
	// quantity], read with OPENJSON.
	lines: myLines,
}

// tsqlCatch ends a procedure's TRY block: on any error, the transaction
// is rolled back and the error thrown on as it came.
const tsqlCatch = `
	END TRY
	BEGIN CATCH
		IF @@TRANCOUNT > 0 ROLLBACK;
		THROW;
	END CATCH
END`

// tsqlCustomerByName sets @c_id, when @c is 0, to the customer at
// position ceil(n/2) of the n customers of warehouse w and district d
// with the last name @last, sorted by first name (clauses 2.5.2.2,
// 2.6.2.2); @n is declared by the procedure.
func tsqlCustomerByName(w, d string) string {
	where := "c_w_id = " + w + " AND c_d_id = " + d + " AND c_last = @last"
	return `		IF @c = 0
		BEGIN
			SELECT @n = count(*) FROM customer WHERE ` + where + `;
			IF @n = 0
				THROW 50002, 'no customer with the last name', 1;
			SELECT @c_id = c_id FROM customer WHERE ` + where + `
			  ORDER BY c_first OFFSET (@n + 1) / 2 - 1 ROWS FETCH NEXT 1 ROWS ONLY;
		END
`
}

// New-Order (clause 2.4.2.2). The lines are read into a table variable
// with their number (OPENJSON's key is the array index). An unused item
// number (clause 2.4.1.4) shows as a line without its item; the procedure
// then throws rollbackMarker after the district and order rows are
// written, and its CATCH block rolls them back. The stock rows are updated
// in one statement, the quantities of an item ordered on several lines
// added up, as in the PL/pgSQL function.
var tsqlNewOrder = `CREATE PROCEDURE tpcc_new_order @w int, @d int, @c int, @lines nvarchar(max),
	@o_id int OUTPUT, @total decimal(12,2) OUTPUT
AS
BEGIN
	SET NOCOUNT ON;
	DECLARE @discount decimal(4,4), @last varchar(16), @credit char(2), @wtax decimal(4,4), @dtax decimal(4,4);
	DECLARE @n int, @local int, @items int, @sum decimal(12,2);
	DECLARE @l TABLE (n int, i int, s int, q int);
	BEGIN TRY
		BEGIN TRANSACTION;
		SELECT @discount = c_discount, @last = c_last, @credit = c_credit, @wtax = w_tax
		  FROM customer, warehouse WHERE w_id = @w AND c_w_id = w_id AND c_d_id = @d AND c_id = @c;
		UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = @w AND d_id = @d;
		SELECT @o_id = d_next_o_id - 1, @dtax = d_tax FROM district WHERE d_w_id = @w AND d_id = @d;
		INSERT INTO @l (n, i, s, q)
		  SELECT CAST([key] AS int) + 1, CAST(JSON_VALUE(value, '$[0]') AS int), CAST(JSON_VALUE(value, '$[1]') AS int),
		    CAST(JSON_VALUE(value, '$[2]') AS int)
		  FROM OPENJSON(@lines);
		SELECT @n = count(*), @local = min(CASE WHEN l.s = @w THEN 1 ELSE 0 END), @items = count(i_id), @sum = sum(l.q * i_price)
		  FROM @l AS l LEFT JOIN item ON i_id = l.i;
		INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
		  VALUES (@o_id, @d, @w, @c, CURRENT_TIMESTAMP, @n, @local);
		INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (@o_id, @d, @w);
		IF @items < @n
			THROW 50001, '` + rollbackMarker + `', 1;
		UPDATE stock SET s_quantity = CASE WHEN s_quantity < g.q + 10 THEN s_quantity - g.q + 91 ELSE s_quantity - g.q END,
		    s_ytd = s_ytd + g.q, s_order_cnt = s_order_cnt + g.n, s_remote_cnt = s_remote_cnt + g.r
		  FROM stock JOIN (SELECT s, i, sum(q) AS q, count(*) AS n, sum(CASE WHEN s <> @w THEN 1 ELSE 0 END) AS r
		      FROM @l GROUP BY s, i) AS g ON s_w_id = g.s AND s_i_id = g.i;
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
		  SELECT @o_id, @d, @w, l.n, l.i, l.s, l.q, l.q * i_price,
		    CASE @d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
		      WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
		      WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
		  FROM @l AS l JOIN item ON i_id = l.i JOIN stock ON s_w_id = l.s AND s_i_id = l.i;
		COMMIT;
		SET @total = @sum * (1 - @discount) * (1 + @wtax + @dtax);
` + tsqlCatch

// Payment (clause 2.5.2.2): @c = 0 selects the customer by last name, the
// one at position ceil(n/2) of those with the name sorted by first name.
// A customer with bad credit gets the payment's details in front of C_DATA,
// which keeps its first 500 characters.
var tsqlPayment = `CREATE PROCEDURE tpcc_payment @w int, @d int, @cw int, @cd int, @c int, @last varchar(16), @amount decimal(6,2),
	@c_id int OUTPUT, @balance decimal(12,2) OUTPUT
AS
BEGIN
	SET NOCOUNT ON;
	DECLARE @wname varchar(10), @dname varchar(10), @n int;
	DECLARE @w1 varchar(20), @w2 varchar(20), @wcity varchar(20), @wstate char(2), @wzip char(9);
	DECLARE @d1 varchar(20), @d2 varchar(20), @dcity varchar(20), @dstate char(2), @dzip char(9);
	DECLARE @first varchar(16), @middle char(2), @clast varchar(16), @c1 varchar(20), @c2 varchar(20), @ccity varchar(20);
	DECLARE @cstate char(2), @czip char(9), @phone char(16), @since datetime2(6), @credit char(2);
	DECLARE @limit decimal(12,2), @discount decimal(4,4);
	BEGIN TRY
		BEGIN TRANSACTION;
		UPDATE warehouse SET w_ytd = w_ytd + @amount WHERE w_id = @w;
		SELECT @w1 = w_street_1, @w2 = w_street_2, @wcity = w_city, @wstate = w_state, @wzip = w_zip, @wname = w_name
		  FROM warehouse WHERE w_id = @w;
		UPDATE district SET d_ytd = d_ytd + @amount WHERE d_w_id = @w AND d_id = @d;
		SELECT @d1 = d_street_1, @d2 = d_street_2, @dcity = d_city, @dstate = d_state, @dzip = d_zip, @dname = d_name
		  FROM district WHERE d_w_id = @w AND d_id = @d;
		SET @c_id = @c;
` + tsqlCustomerByName("@cw", "@cd") + `		UPDATE customer SET c_balance = c_balance - @amount, c_ytd_payment = c_ytd_payment + @amount,
		    c_payment_cnt = c_payment_cnt + 1,
		    c_data = CASE WHEN c_credit = 'BC'
		      THEN LEFT(CONCAT(c_id, ' ', @cd, ' ', @cw, ' ', @d, ' ', @w, ' ', @amount, ' ', c_data), 500) ELSE c_data END
		  WHERE c_w_id = @cw AND c_d_id = @cd AND c_id = @c_id;
		SELECT @first = c_first, @middle = c_middle, @clast = c_last, @c1 = c_street_1, @c2 = c_street_2, @ccity = c_city,
		    @cstate = c_state, @czip = c_zip, @phone = c_phone, @since = c_since, @credit = c_credit, @limit = c_credit_lim,
		    @discount = c_discount, @balance = c_balance
		  FROM customer WHERE c_w_id = @cw AND c_d_id = @cd AND c_id = @c_id;
		INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		  VALUES (@c_id, @cd, @cw, @d, @w, CURRENT_TIMESTAMP, @amount, CONCAT(@wname, '    ', @dname));
		COMMIT;
` + tsqlCatch

// Order-Status (clause 2.6.2.2): the customer (by number, or by last name
// as in Payment), the customer's last order and its lines, in one
// transaction. @avg_below > 0 adds tpcc-ro --augmented's read of the
// average item price.
var tsqlOrderStatus = `CREATE PROCEDURE tpcc_order_status @w int, @d int, @c int, @last varchar(16), @avg_below int,
	@c_id int OUTPUT, @o_id int OUTPUT, @lines int OUTPUT
AS
BEGIN
	SET NOCOUNT ON;
	DECLARE @n int, @balance decimal(12,2), @first varchar(16), @middle char(2), @clast varchar(16);
	DECLARE @carrier int, @entry datetime2(6), @qty bigint, @amount decimal(12,2), @delivery datetime2(6), @avg decimal(12,6);
	BEGIN TRY
		BEGIN TRANSACTION;
		SET @c_id = @c;
` + tsqlCustomerByName("@w", "@d") + `		SELECT @balance = c_balance, @first = c_first, @middle = c_middle, @clast = c_last
		  FROM customer WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c_id;
		SET @o_id = 0;
		SET @lines = 0;
		SELECT @o_id = o_id, @carrier = o_carrier_id, @entry = o_entry_d
		  FROM orders WHERE o_w_id = @w AND o_d_id = @d AND o_c_id = @c_id
		  ORDER BY o_id DESC OFFSET 0 ROWS FETCH NEXT 1 ROWS ONLY;
		IF @o_id > 0
			SELECT @lines = count(*), @qty = sum(ol_quantity), @amount = sum(ol_amount), @delivery = max(ol_delivery_d)
			  FROM order_line WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o_id;
		IF @avg_below > 0
			SELECT @avg = avg(i_price) FROM item WHERE i_id < @avg_below;
		COMMIT;
` + tsqlCatch

// Delivery (clause 2.7.4.2): for each of the ten districts in turn, its
// oldest undelivered order (none: the district is skipped), delivered by
// the carrier; the customer's balance grows by the sum of the order's
// lines. A new order that another Delivery deleted meanwhile (the DELETE
// finds no row) skips the district, as in client mode.
var tsqlDelivery = `CREATE PROCEDURE tpcc_delivery @w int, @carrier int, @delivered int OUTPUT
AS
BEGIN
	SET NOCOUNT ON;
	DECLARE @d int, @o int, @c int, @sum decimal(12,2);
	BEGIN TRY
		BEGIN TRANSACTION;
		SET @delivered = 0;
		SET @d = 1;
		WHILE @d <= 10
		BEGIN
			SET @o = NULL;
			SELECT @o = no_o_id FROM new_order WITH (UPDLOCK, ROWLOCK) WHERE no_w_id = @w AND no_d_id = @d
			  ORDER BY no_o_id OFFSET 0 ROWS FETCH NEXT 1 ROWS ONLY;
			IF @o IS NOT NULL
			BEGIN
				DELETE FROM new_order WHERE no_w_id = @w AND no_d_id = @d AND no_o_id = @o;
				IF @@ROWCOUNT > 0
				BEGIN
					UPDATE orders SET o_carrier_id = @carrier WHERE o_w_id = @w AND o_d_id = @d AND o_id = @o;
					SELECT @c = o_c_id FROM orders WHERE o_w_id = @w AND o_d_id = @d AND o_id = @o;
					UPDATE order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;
					SELECT @sum = sum(ol_amount) FROM order_line WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id = @o;
					UPDATE customer SET c_balance = c_balance + @sum, c_delivery_cnt = c_delivery_cnt + 1
					  WHERE c_w_id = @w AND c_d_id = @d AND c_id = @c;
					SET @delivered = @delivered + 1;
				END
			END
			SET @d = @d + 1;
		END
		COMMIT;
` + tsqlCatch

// Stock-Level (clause 2.8.2.2): the district's next order number, then the
// distinct items of its last 20 orders whose stock is below the threshold.
var tsqlStockLevel = `CREATE PROCEDURE tpcc_stock_level @w int, @d int, @threshold int, @avg_below int, @low int OUTPUT
AS
BEGIN
	SET NOCOUNT ON;
	DECLARE @next int, @avg decimal(12,6);
	BEGIN TRY
		BEGIN TRANSACTION;
		SELECT @next = d_next_o_id FROM district WHERE d_w_id = @w AND d_id = @d;
		SELECT @low = count(DISTINCT s_i_id) FROM order_line, stock
		  WHERE ol_w_id = @w AND ol_d_id = @d AND ol_o_id < @next AND ol_o_id >= @next - 20
		    AND s_w_id = @w AND s_i_id = ol_i_id AND s_quantity < @threshold;
		IF @avg_below > 0
			SELECT @avg = avg(i_price) FROM item WHERE i_id < @avg_below;
		COMMIT;
` + tsqlCatch
