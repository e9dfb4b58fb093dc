package wlfile

import (
	"math"
	"strings"
	"testing"
)

// errCase is a file that must be refused with a message containing want.
type errCase struct{ src, want string }

func checkErrors(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		_, err := Parse("test.yaml", []byte(c.src), 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q)\n got: %v\nwant: %s", c.src, err, c.want)
		}
	}
}

// table is a file whose one table has the given column lines.
func table(columns string) string {
	return "tables:\n  - name: t\n    rows: 10\n    columns:\n" + columns
}

// oneColumn is a file whose one table t has one column, on line 5.
func oneColumn(c string) string { return table("      - " + c + "\n") }

func TestYAMLSyntaxErrorsNameTheLineColumnAndWhatIsExpected(t *testing.T) {
	checkErrors(t, []errCase{
		// The library says "line 4: did not find expected ',' or '}'".
		{oneColumn("{name: a, type: int, gen: sequence\n      - {name: b, type: int, gen: sequence}"),
			"test.yaml:5:9: the `{` opened here is not closed; expected `}`"},
		{"tables: [\n", "test.yaml:1:9: the `[` opened here is not closed; expected `]`"},
		{"tables: [a]]\n", "test.yaml:1:12: this `]` closes nothing"},
		{"tables: [{a: 1]\n", "test.yaml:1:15: expected `}` to close the `{` opened at line 1 column 10, not `]`"},
		{"tables:\n\t- name: t\n", "test.yaml:2:1: tabs cannot indent YAML; indent with spaces"},
		{"tables:\n  - name: t\n  \trows: 10\n", "test.yaml:3:3: tabs cannot indent YAML"},
		{"tables:\n  - name: t\n    rows: 10\n   columns:\n", "test.yaml:4:4: this line is not lined up with the list above it; expected a `- ` item"},
		{"name: x\n  description: y\n", "test.yaml:2:3: this line is indented more than the key above it"},
		{"name: x\n- description: y\n", "test.yaml:2:1: a list item cannot stand among `key: value` lines; expected a key"},
		{"name: 'x\ntables: []\n", "test.yaml:1:7: the `'` opened here is not closed; expected a closing `'`"},
		{"name: a: b\n", "test.yaml:1:8: a value that contains `: ` must be put in quotes"},
		{"name: \"a\" b\n", "test.yaml:1:11: nothing may follow the closing `\"` of a quoted value"},
		{"name: 'a\n  b' ]\n", "test.yaml:2:6: nothing may follow the closing `'` of a quoted value"},
		{"name: x\ntables\n", "test.yaml:2:1: expected `key: value` here; the line has no `:`"},
		{"name: - x\n", "test.yaml:1:7: a list cannot start on the line of its key"},
		{"name: *x\n", "test.yaml:1:7: the alias *x refers to no anchor; expected &x"},
		{"name: \"a\\qb\"\n", "test.yaml:1:9: `\\q` is not an escape in a double-quoted string"},
		{"name: @x\n", "test.yaml:1:7: a value cannot start with `@`; put the value in quotes"},
		{"name: \xff\n", "test.yaml:1:7: the file must be UTF-8 text"},
		// Brackets and quotes inside plain text and block scalars are text.
		{"description: |\n  {[\nname: x a[1] '{'\ntables: ]\n", "test.yaml:4:9: this `]` closes nothing"},
	})
}

func TestKeysGivenTwiceAreRefused(t *testing.T) {
	seq := "      - {name: a, type: int, gen: sequence}\n"
	checkErrors(t, []errCase{
		{table(seq) + "params:\n  p: {gen: uniform, min: 1, max: 5}\n  p: {gen: uniform, min: 6, max: 9}\n",
			`test.yaml:8:3: key "p" is given twice in this mapping (first at line 7 column 3); expected each key once`},
		{oneColumn("{name: a, type: int, gen: uniform, min: 1, max: 5, max: 7}"),
			`test.yaml:5:60: key "max" is given twice in this mapping (first at line 5 column 52)`},
		{table("      - name: a\n        type: int\n        type: bigint\n        gen: sequence\n"),
			`test.yaml:7:9: key "type" is given twice`},
		// The first in the file is reported, though a later key of an
		// enclosing mapping repeats too.
		{table(seq) + "transactions:\n  - name: x\n    params: {q: {gen: uniform, min: 1, max: 2}, q: {gen: uniform, min: 1, max: 2}}\n    statements: [SELECT :q]\n    name: y\n",
			`test.yaml:8:49: key "q" is given twice`},
	})
}

func TestNumbersOutsideInt64AreRefused(t *testing.T) {
	checkErrors(t, []errCase{
		// Converted blindly, 1e30 became -9223372036854775808.
		{oneColumn("{name: a, type: bigint, gen: uniform, min: 1, max: 1e30}"),
			"test.yaml:5:60: t.a: max: 1e30 does not fit a 64-bit integer; expected a whole number from -9223372036854775808 to 9223372036854775807"},
		{oneColumn("{name: a, type: bigint, gen: zipf, min: -1e19, max: 1}"), "test.yaml:5:49: t.a: min: -1e19 does not fit a 64-bit integer"},
		{oneColumn("{name: a, type: bigint, gen: uniform, min: 1, max: 9223372036854775808}"), "test.yaml:5:60: t.a: max: 9223372036854775808 does not fit"},
		{oneColumn("{name: a, type: bigint, gen: sequence, start: 2e19}"), "test.yaml:5:55: t.a: start: 2e19 does not fit"},
		{oneColumn("{name: a, type: text, gen: string, length: 1e30}"), "test.yaml:5:52: t.a: length: 1e30 does not fit"},
		{oneColumn("{name: a, type: bigint, gen: choice, values: [1, 1e30]}"), "test.yaml:5:58: t.a: value: 1e30 does not fit"},
		{oneColumn("{name: a, type: bigint, gen: zipf, min: 10, n: 9223372036854775807}"), "test.yaml:5:56: t.a: min + n - 1 does not fit a 64-bit integer"},
		{oneColumn("{name: a, type: float, gen: uniform, min: 0, max: 1e400}"), "test.yaml:5:59: t.a: max: 1e400 is not a finite number"},
		{oneColumn("{name: a, type: int, gen: uniform, min: 1, max: 5, null: nan}"), "test.yaml:5:66: t.a: null: nan is not a finite number"},
		{oneColumn("{name: a, type: int, gen: uniform, min: 1, max: 5.5}"), "test.yaml:5:57: t.a: max must be a whole number, not 5.5"},
		// A number written over several lines is quoted: errors stay one line.
		{table("      - name: a\n        type: bigint\n        gen: uniform\n        min: 1\n        max: |\n          1e30\n"),
			`test.yaml:9:14: t.a: max: "1e30\n" does not fit a 64-bit integer`},
	})
	// The whole int64 range is accepted, exactly.
	spec, err := Parse("test.yaml", []byte(oneColumn("{name: a, type: bigint, gen: uniform, min: -9223372036854775808, max: 9223372036854775807}")), 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := spec.Tables[0].Columns[0].Gen.intd; d.Min() != math.MinInt64 || d.Max() != math.MaxInt64 {
		t.Fatalf("range [%d, %d]", d.Min(), d.Max())
	}
}

func TestImpossibleGeneratorParametersAreRefused(t *testing.T) {
	checkErrors(t, []errCase{
		// stddev: -1 used to become 1 silently.
		{oneColumn("{name: a, type: int, gen: gaussian, min: 1, max: 10, stddev: -1}"), "test.yaml:5:70: t.a: stddev must be above 0, not -1"},
		{oneColumn("{name: a, type: float, gen: gaussian, min: 1, max: 10, stddev: 0}"), "test.yaml:5:72: t.a: stddev must be above 0, not 0"},
		{oneColumn("{name: a, type: text, gen: string, length: 5, distinct: 10, shape: {gen: gaussian, stddev: 0}}"), "test.yaml:5:100: t.a: shape: stddev must be above 0"},
		{oneColumn("{name: a, type: int, gen: zipf, min: 1, max: 10, exponent: 0}"), "test.yaml:5:68: t.a: exponent must be above 0, not 0"},
		{oneColumn("{name: a, type: int, gen: zipf, n: 10, exponent: -1}"), "test.yaml:5:58: t.a: exponent must be above 0, not -1"},
		{oneColumn("{name: a, type: int, gen: exponential, min: 1, max: 10, param: -2}"), "test.yaml:5:72: t.a: param must be above 0, not -2"},
		{oneColumn("{name: a, type: int, gen: hotspot, min: 1, max: 10, hot_fraction: 1}"), "test.yaml:5:75: t.a: hot_fraction must be a fraction strictly between 0 and 1, not 1"},
		{oneColumn("{name: a, type: int, gen: hotspot, min: 1, max: 10, hot_share: 0}"), "test.yaml:5:72: t.a: hot_share must be a fraction strictly between 0 and 1, not 0"},
		{oneColumn("{name: a, type: int, gen: hotspot, distinct: 10, hot_share: 1.5}"), "test.yaml:5:69: t.a: hot_share must be a fraction strictly between 0 and 1, not 1.5"},
		{oneColumn("{name: a, type: int, gen: uniform, min: 1, max: 10, null: -0.1}"), "test.yaml:5:67: t.a: null must be a fraction from 0 to 1, not -0.1"},
		{oneColumn("{name: a, type: text, gen: string, length: -3}"), "test.yaml:5:52: t.a: length must be a number or a distribution of non-negative integers"},
		{oneColumn("{name: a, type: text, gen: string, length: {gen: uniform, min: -5, max: 10}}"), "test.yaml:5:52: t.a: length must be a number or a distribution of non-negative integers"},
		{oneColumn("{name: a, type: text, gen: choice, values: [x, y], weights: [1, -1]}"), "test.yaml:5:73: t.a: weight -1 is negative; expected 0 or more"},
		{oneColumn("{name: a, type: text, gen: choice, values: [x, y], weights: [0, 0]}"), "test.yaml:5:70: t.a: every weight is 0; expected at least one above 0"},
		{oneColumn("{name: a, type: int, gen: uniform, min: 10, max: 1}"), "test.yaml:5:58: t.a: max 1 is below min 10; expected max >= min"},
		{oneColumn("{name: a, type: float, gen: uniform, min: 10, max: 1.5}"), "test.yaml:5:60: t.a: max 1.5 is below min 10"},
		{oneColumn("{name: a, type: timestamp, gen: timestamp, from: 2024-01-01, to: 2024-02-01, resolution: 0s}"), "test.yaml:5:98: t.a: resolution must be a positive duration"},
		{oneColumn("{name: a, type: int, gen: sequence}") + "transactions:\n  - {name: x, weight: 0, statements: [SELECT 1]}\n  - {name: y, weight: 0, statements: [SELECT 2]}\n",
			"test.yaml:7:3: every transaction has weight 0; expected at least one above 0"},
	})
}

func TestValuesThatDoNotFitTheColumnTypeAreRefused(t *testing.T) {
	checkErrors(t, []errCase{
		{oneColumn("{name: a, type: varchar(5), gen: string, length: 50}"), "test.yaml:5:58: t.a: length may reach 50 characters, but varchar(5) holds at most 5"},
		{oneColumn("{name: a, type: char(10), gen: string, length: {gen: uniform, min: 1, max: 11}}"), "test.yaml:5:56: t.a: length may reach 11 characters, but char(10) holds at most 10"},
		{oneColumn("{name: a, type: varchar(20), gen: pattern, prefix: user, suffix: '@example.com', number: {gen: uniform, min: 1, max: 99999}}"), "test.yaml:5:43: t.a: the pattern makes values up to 21 characters, but varchar(20) holds at most 20"},
		{oneColumn("{name: a, type: varchar(4), gen: pattern, width: 5, number: 7}"), "test.yaml:5:42: t.a: the pattern makes values up to 5 characters, but varchar(4)"},
		{oneColumn("{name: a, type: varchar(3), gen: pattern, number: {gen: uniform, min: -100, max: 1}}"), "test.yaml:5:42: t.a: the pattern makes values up to 4 characters, but varchar(3)"},
		{oneColumn("{name: a, type: char(32), gen: uuid}"), "test.yaml:5:40: t.a: UUIDs are 36 characters, but char(32) holds at most 32"},
		{oneColumn("{name: a, type: varchar(3), gen: choice, values: [ok, toolong]}"), "test.yaml:5:63: t.a: value \"toolong\" is 7 characters long, but varchar(3) holds at most 3"},
		{oneColumn("{name: a, type: smallint, gen: uniform, min: 1, max: 100000}"), "test.yaml:5:62: t.a: max 100000 is outside smallint's range -32768 to 32767"},
		{oneColumn("{name: a, type: int, gen: gaussian, min: -3000000000, max: 0}"), "test.yaml:5:50: t.a: min -3000000000 is outside int's range -2147483648 to 2147483647"},
		{oneColumn("{name: a, type: integer, gen: constant, value: 3000000000}"), "test.yaml:5:56: t.a: value 3000000000 is outside integer's range"},
		{oneColumn("{name: a, type: smallint, gen: zipf, distinct: 40000}"), "test.yaml:5:56: t.a: distinct 40000 is outside smallint's range"},
		{oneColumn("{name: a, type: smallint, gen: zipf, min: 1, n: 40000}"), "test.yaml:5:57: t.a: the largest value (min + n - 1) 40000 is outside smallint's range"},
		{oneColumn("{name: a, type: smallint, gen: geometric, mean: 20000}"), "test.yaml:5:57: t.a: the geometric's likely maximum 552635 is outside smallint's range"},
		{oneColumn("{name: a, type: smallint, gen: sequence, start: 40000}"), "test.yaml:5:57: t.a: start 40000 is outside smallint's range"},
		{oneColumn("{name: a, type: smallint, gen: sequence, start: 32760}"), "test.yaml:5:57: t.a: the sequence's last value (row 9) 32769 is outside smallint's range"},
		{oneColumn("{name: a, type: bigint, gen: sequence, start: 9223372036854775000, step: 1000}"), "test.yaml:5:82: t.a: the sequence reaches 9223372036854784000 at row 9, which does not fit a 64-bit integer"},
		{oneColumn("{name: a, type: \"numeric(5,2)\", gen: uniform, min: 0, max: 1000}"), "test.yaml:5:68: t.a: max 1000 does not fit numeric(5,2), whose largest value is 999.99"},
		{oneColumn("{name: a, type: \"numeric(5,2)\", gen: gaussian, min: -999.996, max: 0}"), "test.yaml:5:61: t.a: min -999.996 does not fit numeric(5,2)"},
		{oneColumn("{name: a, type: decimal(3), gen: choice, values: [1.5, 1000]}"), "test.yaml:5:64: t.a: value 1000 does not fit decimal(3), whose largest value is 999"},
		{oneColumn("{name: a, type: varchar(0), gen: string, length: 0}"), "test.yaml:5:25: t.a: varchar(0): the size must be a whole number of at least 1"},
		{oneColumn("{name: a, type: \"numeric(3,5)\", gen: uniform, min: 0, max: 1}"), "test.yaml:5:25: t.a: numeric(3,5): the scale (digits after the point) must not exceed the precision"},
		// A foreign key column must hold the parent's values.
		{"tables:\n  - name: p\n    rows: 70000\n    primary_key: [id]\n    columns:\n      - {name: id, type: bigint, gen: sequence}\n" +
			"  - name: c\n    parent: {table: p, column: pid, children: 1}\n    columns:\n      - {name: pid, type: smallint}\n",
			"test.yaml:10:27: c.pid: the values of p.id do not fit: the sequence's last value (row 69999) 70000 is outside smallint's range"},
		{"tables:\n  - name: p\n    rows: 1\n    primary_key: [id]\n    columns:\n      - {name: id, type: uuid, gen: uuid}\n" +
			"  - name: c\n    parent: {table: p, column: pid, children: 1}\n    columns:\n      - {name: pid, type: char(32)}\n",
			"test.yaml:10:27: c.pid: the values of p.id do not fit: UUIDs are 36 characters, but char(32) holds at most 32"},
		// Unquoted, the comma splits the type in two.
		{oneColumn("{name: a, type: numeric(5,2), gen: uniform, min: 0, max: 1}"), `test.yaml:5:35: table t: column 1 has no field "2)"; inside { } a value with a comma must be quoted`},
	})
	// What fits is accepted: the edges of each type.
	for _, col := range []string{
		"{name: a, type: smallint, gen: uniform, min: -32768, max: 32767}",
		"{name: a, type: \"numeric(5,2)\", gen: uniform, min: -999.99, max: 999.99}",
		"{name: a, type: varchar(5), gen: choice, values: [abcde, ééééé]}",
		"{name: a, type: char(36), gen: uuid}",
		"{name: a, type: smallint, gen: sequence, start: 32758}",
		"{name: a, type: smallint, gen: geometric, mean: 100}",
	} {
		if _, err := Parse("test.yaml", []byte(oneColumn(col)), 1); err != nil {
			t.Errorf("%s: %v", col, err)
		}
	}
	// The check is made at the scale the file is loaded with.
	src := oneColumn("{name: a, type: smallint, gen: uniform, min: 1, max: 1000 * scale}")
	if _, err := Parse("test.yaml", []byte(src), 32); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("test.yaml", []byte(src), 33); err == nil || !strings.Contains(err.Error(), "test.yaml:5:62: t.a: max 33000 is outside smallint's range") {
		t.Fatalf("at scale 33: %v", err)
	}
}

func TestReservedWordsAreRefusedAsNames(t *testing.T) {
	checkErrors(t, []errCase{
		// A table named select gave a raw syntax error at init.
		{"tables:\n  - name: select\n    rows: 1\n", `test.yaml:2:11: table name "select" is a reserved word in SQL; expected another name, such as select_table`},
		{oneColumn("{name: Order, type: int, gen: sequence}"), `test.yaml:5:16: table t: column 1: column name "Order" is a reserved word in SQL`},
		{oneColumn("{name: key, type: int, gen: sequence}"), `test.yaml:5:16: table t: column 1: column name "key" is a reserved word in SQL`},
		{table("      - {name: a, type: int, gen: sequence}\n") + "    indexes:\n      - {columns: [a], name: index}\n",
			`test.yaml:7:30: table t: index name "index" is a reserved word in SQL`},
		{"tables:\n  - name: a-b\n    rows: 1\n", `test.yaml:2:11: table name "a-b" must be a plain identifier`},
	})
	// Names that merely contain a reserved word are fine.
	src := "tables:\n  - name: orders\n    rows: 1\n    columns:\n      - {name: selected, type: int, gen: sequence}\n      - {name: user_id, type: int, gen: sequence}\n"
	if _, err := Parse("test.yaml", []byte(src), 1); err != nil {
		t.Fatal(err)
	}
}
