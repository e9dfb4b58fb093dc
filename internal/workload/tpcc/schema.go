package tpcc

import (
	"github.com/dbharness/dbharness/internal/db"
)

// Tables are the nine tables of TPC-C clause 1.3, with their standard names.
var Tables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// tableDef is one table's columns (clause 1.3) and primary key (clause
// 1.3, "Primary Key"). history has none (clause 1.3.1, note 2).
type tableDef struct {
	name string
	cols [][2]string // name, portable type ("ts" = the engine's timestamp)
	pk   string
}

var schema = []tableDef{
	{"warehouse", [][2]string{{"w_id", "int"}, {"w_name", "varchar(10)"}, {"w_street_1", "varchar(20)"},
		{"w_street_2", "varchar(20)"}, {"w_city", "varchar(20)"}, {"w_state", "char(2)"}, {"w_zip", "char(9)"},
		{"w_tax", "decimal(4,4)"}, {"w_ytd", "decimal(12,2)"}}, "w_id"},
	{"district", [][2]string{{"d_id", "int"}, {"d_w_id", "int"}, {"d_name", "varchar(10)"}, {"d_street_1", "varchar(20)"},
		{"d_street_2", "varchar(20)"}, {"d_city", "varchar(20)"}, {"d_state", "char(2)"}, {"d_zip", "char(9)"},
		{"d_tax", "decimal(4,4)"}, {"d_ytd", "decimal(12,2)"}, {"d_next_o_id", "int"}}, "d_w_id, d_id"},
	{"customer", [][2]string{{"c_id", "int"}, {"c_d_id", "int"}, {"c_w_id", "int"}, {"c_first", "varchar(16)"},
		{"c_middle", "char(2)"}, {"c_last", "varchar(16)"}, {"c_street_1", "varchar(20)"}, {"c_street_2", "varchar(20)"},
		{"c_city", "varchar(20)"}, {"c_state", "char(2)"}, {"c_zip", "char(9)"}, {"c_phone", "char(16)"},
		{"c_since", "ts"}, {"c_credit", "char(2)"}, {"c_credit_lim", "decimal(12,2)"}, {"c_discount", "decimal(4,4)"},
		{"c_balance", "decimal(12,2)"}, {"c_ytd_payment", "decimal(12,2)"}, {"c_payment_cnt", "int"},
		{"c_delivery_cnt", "int"}, {"c_data", "varchar(500)"}}, "c_w_id, c_d_id, c_id"},
	{"history", [][2]string{{"h_c_id", "int"}, {"h_c_d_id", "int"}, {"h_c_w_id", "int"}, {"h_d_id", "int"},
		{"h_w_id", "int"}, {"h_date", "ts"}, {"h_amount", "decimal(6,2)"}, {"h_data", "varchar(24)"}}, ""},
	{"new_order", [][2]string{{"no_o_id", "int"}, {"no_d_id", "int"}, {"no_w_id", "int"}}, "no_w_id, no_d_id, no_o_id"},
	{"orders", [][2]string{{"o_id", "int"}, {"o_d_id", "int"}, {"o_w_id", "int"}, {"o_c_id", "int"}, {"o_entry_d", "ts"},
		{"o_carrier_id", "int"}, {"o_ol_cnt", "int"}, {"o_all_local", "int"}}, "o_w_id, o_d_id, o_id"},
	{"order_line", [][2]string{{"ol_o_id", "int"}, {"ol_d_id", "int"}, {"ol_w_id", "int"}, {"ol_number", "int"},
		{"ol_i_id", "int"}, {"ol_supply_w_id", "int"}, {"ol_delivery_d", "ts"}, {"ol_quantity", "int"},
		{"ol_amount", "decimal(6,2)"}, {"ol_dist_info", "char(24)"}}, "ol_w_id, ol_d_id, ol_o_id, ol_number"},
	{"item", [][2]string{{"i_id", "int"}, {"i_im_id", "int"}, {"i_name", "varchar(24)"}, {"i_price", "decimal(5,2)"},
		{"i_data", "varchar(50)"}}, "i_id"},
	{"stock", [][2]string{{"s_i_id", "int"}, {"s_w_id", "int"}, {"s_quantity", "int"}, {"s_dist_01", "char(24)"},
		{"s_dist_02", "char(24)"}, {"s_dist_03", "char(24)"}, {"s_dist_04", "char(24)"}, {"s_dist_05", "char(24)"},
		{"s_dist_06", "char(24)"}, {"s_dist_07", "char(24)"}, {"s_dist_08", "char(24)"}, {"s_dist_09", "char(24)"},
		{"s_dist_10", "char(24)"}, {"s_ytd", "int"}, {"s_order_cnt", "int"}, {"s_remote_cnt", "int"},
		{"s_data", "varchar(50)"}}, "s_w_id, s_i_id"},
}

// secondaryIndexes are the indexes the transactions need beyond the
// primary keys: Payment and Order-Status find a customer by last name
// (clause 2.5.2.2, 2.6.2.2), and Order-Status finds a customer's last order
// (clause 2.6.2.2).
var secondaryIndexes = []string{
	"CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)",
	"CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
}

func (t *tableDef) columns() []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c[0]
	}
	return out
}

// createStatement is the table's DDL in the engine's types; the primary key
// is inline where the engine clusters on it (caps.KeysAfterLoad false).
func (t *tableDef) createStatement(caps db.Caps) string {
	s := "CREATE TABLE " + t.name + " ("
	for i, c := range t.cols {
		if i > 0 {
			s += ", "
		}
		typ := c[1]
		if typ == "ts" {
			typ = caps.TimestampType
		}
		s += c[0] + " " + typ
		if c[0] == t.cols[0][0] || t.pk != "" && isKeyCol(t.pk, c[0]) {
			s += " not null"
		}
	}
	if t.pk != "" && !caps.KeysAfterLoad {
		s += ", PRIMARY KEY (" + t.pk + ")"
	}
	return s + ")" + caps.TableOptions
}

func (t *tableDef) addKeyStatement() string {
	return "ALTER TABLE " + t.name + " ADD PRIMARY KEY (" + t.pk + ")"
}

func isKeyCol(pk, col string) bool {
	for _, k := range splitComma(pk) {
		if k == col {
			return true
		}
	}
	return false
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			f := s[start:i]
			for len(f) > 0 && f[0] == ' ' {
				f = f[1:]
			}
			out = append(out, f)
			start = i + 1
		}
	}
	return out
}
