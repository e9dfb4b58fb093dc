package wlfile

import (
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

func TestYAMLSyntaxErrorsNameTheLineColumnAndWhatIsExpected(t *testing.T) {
	checkErrors(t, []errCase{
		// The library says "line 4: did not find expected ',' or '}'".
		{table("      - {name: a, type: int, gen: sequence\n      - {name: b, type: int, gen: sequence}\n"),
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
		{table("      - {name: a, type: int, gen: uniform, min: 1, max: 5, max: 7}\n"),
			`test.yaml:5:60: key "max" is given twice in this mapping (first at line 5 column 52)`},
		{table("      - name: a\n        type: int\n        type: bigint\n        gen: sequence\n"),
			`test.yaml:7:9: key "type" is given twice`},
		// The first in the file is reported, though a later key of an
		// enclosing mapping repeats too.
		{table(seq) + "transactions:\n  - name: x\n    params: {q: {gen: uniform, min: 1, max: 2}, q: {gen: uniform, min: 1, max: 2}}\n    statements: [SELECT :q]\n    name: y\n",
			`test.yaml:8:49: key "q" is given twice`},
	})
}
