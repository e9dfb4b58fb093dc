package tpch

import (
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// Tables are the eight tables of TPC-H clause 1.4, in the order init loads
// them (small first).
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// tableDef is one table's columns and primary key (clause 1.4). Types are
// portable: "id" is an identifier (integer, or bigint where the scale
// needs it), "key8" an identifier always 8 bytes (order keys are sparse:
// 4 x SF x 1,500,000), "money" decimal(15,2), "date" the engine's date.
// Fixed-length text (clause 1.3.1's "fixed text") is varchar as the
// variable text is, so that no engine pads it with spaces in answers.
type tableDef struct {
	name string
	cols [][2]string
	pk   string
}

var schema = []tableDef{
	{"region", [][2]string{{"r_regionkey", "id"}, {"r_name", "varchar(25)"}, {"r_comment", "varchar(152)"}}, "r_regionkey"},
	{"nation", [][2]string{{"n_nationkey", "id"}, {"n_name", "varchar(25)"}, {"n_regionkey", "id"}, {"n_comment", "varchar(152)"}}, "n_nationkey"},
	{"supplier", [][2]string{{"s_suppkey", "id"}, {"s_name", "varchar(25)"}, {"s_address", "varchar(40)"}, {"s_nationkey", "id"},
		{"s_phone", "varchar(15)"}, {"s_acctbal", "money"}, {"s_comment", "varchar(101)"}}, "s_suppkey"},
	{"customer", [][2]string{{"c_custkey", "id"}, {"c_name", "varchar(25)"}, {"c_address", "varchar(40)"}, {"c_nationkey", "id"},
		{"c_phone", "varchar(15)"}, {"c_acctbal", "money"}, {"c_mktsegment", "varchar(10)"}, {"c_comment", "varchar(117)"}}, "c_custkey"},
	{"part", [][2]string{{"p_partkey", "id"}, {"p_name", "varchar(55)"}, {"p_mfgr", "varchar(25)"}, {"p_brand", "varchar(10)"},
		{"p_type", "varchar(25)"}, {"p_size", "int"}, {"p_container", "varchar(10)"}, {"p_retailprice", "money"}, {"p_comment", "varchar(23)"}}, "p_partkey"},
	{"partsupp", [][2]string{{"ps_partkey", "id"}, {"ps_suppkey", "id"}, {"ps_availqty", "int"}, {"ps_supplycost", "money"},
		{"ps_comment", "varchar(199)"}}, "ps_partkey, ps_suppkey"},
	{"orders", [][2]string{{"o_orderkey", "key8"}, {"o_custkey", "id"}, {"o_orderstatus", "varchar(1)"}, {"o_totalprice", "money"},
		{"o_orderdate", "date"}, {"o_orderpriority", "varchar(15)"}, {"o_clerk", "varchar(15)"}, {"o_shippriority", "int"},
		{"o_comment", "varchar(79)"}}, "o_orderkey"},
	{"lineitem", [][2]string{{"l_orderkey", "key8"}, {"l_partkey", "id"}, {"l_suppkey", "id"}, {"l_linenumber", "int"},
		{"l_quantity", "money"}, {"l_extendedprice", "money"}, {"l_discount", "money"}, {"l_tax", "money"},
		{"l_returnflag", "varchar(1)"}, {"l_linestatus", "varchar(1)"}, {"l_shipdate", "date"}, {"l_commitdate", "date"},
		{"l_receiptdate", "date"}, {"l_shipinstruct", "varchar(25)"}, {"l_shipmode", "varchar(10)"}, {"l_comment", "varchar(44)"}}, "l_orderkey, l_linenumber"},
}

func tableByName(name string) *tableDef {
	for i := range schema {
		if schema[i].name == name {
			return &schema[i]
		}
	}
	return nil
}

func (t *tableDef) columns() []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c[0]
	}
	return out
}

// bigIDs says whether identifiers need 8 bytes: PART's keys pass 2^31 at
// SF 10,738.
func bigIDs(sf float64) bool { return sf > 10000 }

// createStatement is the table's DDL in the engine's types; the primary key
// is inline where the engine clusters on it (caps.KeysAfterLoad false).
func (t *tableDef) createStatement(caps db.Caps, sf float64) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.name + " (")
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := c[1]
		switch typ {
		case "id":
			typ = "integer"
			if bigIDs(sf) {
				typ = "bigint"
			}
		case "key8":
			typ = "bigint"
		case "money":
			typ = "decimal(15,2)"
		}
		b.WriteString(c[0] + " " + typ + " not null")
	}
	if !caps.KeysAfterLoad {
		b.WriteString(", PRIMARY KEY (" + t.pk + ")")
	}
	return b.String() + ")" + caps.TableOptions
}

func (t *tableDef) addKeyStatement() string {
	return "ALTER TABLE " + t.name + " ADD PRIMARY KEY (" + t.pk + ")"
}
