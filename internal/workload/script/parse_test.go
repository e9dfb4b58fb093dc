package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pgbench's built-in tpcb-like script, as `pgbench --show-script=tpcb-like`
// prints it (PostgreSQL 15).
const tpcbLike = `-- tpcb-like: <builtin: TPC-B (sort of)>
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`

func TestParsesPgbenchsBuiltinScript(t *testing.T) {
	s, err := Parse("tpcb-like", tpcbLike)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []cmdKind
	for _, c := range s.Commands {
		kinds = append(kinds, c.kind)
	}
	if len(s.Commands) != 11 {
		t.Fatalf("%d commands, want 11 (4 \\set, 7 SQL)", len(s.Commands))
	}
	upd := s.Commands[5]
	if upd.sql != "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2" || strings.Join(upd.vars, ",") != "delta,aid" {
		t.Fatalf("update parsed as %q %v", upd.sql, upd.vars)
	}
	if !s.Commands[4].noParams || s.Commands[4].sql != "BEGIN" {
		t.Fatalf("BEGIN parsed as %+v", s.Commands[4])
	}
}

func TestParsesMetaCommands(t *testing.T) {
	src := `\set n 3 + \
   4
SELECT 1 AS one,
       2 AS two \gset p_
\sleep :n ms
\if :p_one = 1
  SELECT 'a';
\elif :p_two = 2
  SELECT 'b';
\else
  SELECT 'c';
\endif
SELECT x::int FROM t WHERE y = ':z' AND z = :n; SELECT 2;
SELECT 3 AS three \aset
`
	s, err := Parse("m.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Commands
	if c[0].kind != cSet || c[0].expr.String() != "3 +     4" && !strings.Contains(c[0].expr.String(), "4") {
		t.Fatalf("continued \\set: %+v", c[0])
	}
	if c[1].kind != cSQL || !c[1].gset || c[1].prefix != "p_" || !strings.Contains(c[1].sql, "2 AS two") {
		t.Fatalf("\\gset: %+v", c[1])
	}
	if c[2].kind != cSleep || c[2].sleepVar != "n" {
		t.Fatalf("\\sleep: %+v", c[2])
	}
	// \if at 3 jumps to \elif at 5 when false; \elif jumps to \else at 7;
	// \elif and \else end at 10 (past \endif at 9).
	if c[3].kind != cIf || c[3].jump != 5 || c[5].jump != 7 || c[5].end != 10 || c[7].end != 10 {
		t.Fatalf("jumps: if %d, elif %d/%d, else %d", c[3].jump, c[5].jump, c[5].end, c[7].end)
	}
	if c[10].sql != "SELECT x::int FROM t WHERE y = ':z' AND z = $1" || c[11].sql != "SELECT 2" {
		t.Fatalf("casts, quotes, two statements on a line: %q %q", c[10].sql, c[11].sql)
	}
	if !c[12].aset {
		t.Fatalf("\\aset: %+v", c[12])
	}
}

func TestScriptMistakesNameLineAndColumn(t *testing.T) {
	cases := []struct{ src, want string }{
		{"\\set aid random(1, \n", "s.sql:1:19: \\set aid: unexpected end of expression"},
		{"\\set aid 1 +* 2\n", "s.sql:1:13: \\set aid: unexpected \"*\""},
		{"  \\set aid 1 + \\\n     2 +* 3\n", "s.sql:2:9: \\set aid: "},
		{"\\set 9x 1\n", "s.sql:1:6: \\set: \"9x\" is not a valid variable name"},
		{"\\set x\n", "s.sql:1:1: \\set needs a variable name and an expression"},
		{"SELECT 1;\n\\shell ls\n", "s.sql:2:1: \\shell is not supported"},
		{"\\frobnicate\n", "s.sql:1:1: unknown meta command"},
		{"SELECT 1;\n   \\if 1\nSELECT 1;\n", "s.sql:2:4: \\if without a matching \\endif"},
		{"\\if 1 +\n\\endif\n", "s.sql:1:8: \\if: unexpected end of expression"},
		{"\\else\n", "s.sql:1:1: \\else without a matching \\if"},
		{"\\if 1\n\\else\n \\else\n\\endif\n", "s.sql:3:2: \\else after \\else"},
		{"\\if 1\n\\endif x\n", "s.sql:2:8: \\endif takes no arguments"},
		{"\\sleep 10 weeks\n", "s.sql:1:11: \\sleep: unknown unit"},
		{"\\sleep 1x\n", "s.sql:1:9: \\sleep: unknown unit \"x\""},
		{"\\sleep :\n", "s.sql:1:8: \\sleep: \":\" is not a variable"},
		{"SELECT 1 \\gset a b\n", "s.sql:1:18: \\gset takes at most one argument"},
		{"SELECT 1 \\gset\n", "s.sql:1:10: \\gset: the column \"?column?\" would set the variable \"?column?\", which is not a valid name"},
		{"SELECT 1 AS \"bad name!\" \\gset\n", "s.sql:1:25: \\gset: the column \"bad name!\""},
		{"SELECT 1 AS a; \\aset x!\n", "s.sql:1:22: \\aset: \"x!\" is not a valid variable name prefix"},
		{"\\set i 100000000000000000000\n", "s.sql:1:8: \\set i: bigint constant overflow"},
		{"\\set i 1 + (TRUE + 2)\n", "s.sql:1:18: \\set i: cannot coerce boolean to int"},
		{"\\if NOT 0.0\n\\endif\n", "s.sql:1:5: \\if: cannot coerce double to boolean"},
		{"\\set x ln(TRUE)\n", "s.sql:1:8: \\set x: ln(): cannot coerce boolean to double"},
		{"\\set x random(FALSE, TRUE)\n", "s.sql:1:8: \\set x: random(): cannot coerce boolean to int"},
		{"SELECT 1\n\\gset a b\n", "s.sql:2:9: \\gset takes at most one argument"},
		{"\\aset\n", "s.sql:1:1: \\aset must follow an SQL command"},
		{"\\\n", "s.sql:1:1: a backslash without a meta command"},
		{"-- nothing\n", "s.sql:1:1: the script has no commands"},
		{"\\set x foo(1)\n", "s.sql:1:8: \\set x: unknown function \"foo\""},
	}
	for _, c := range cases {
		_, err := Parse("s.sql", c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.src, err, c.want)
		}
	}
}

// What fails every time it runs is refused, but only where it runs every
// time: inside \if it may never run, and pgbench runs such a script.
func TestErrorsInsideIfAreLeftToTheRun(t *testing.T) {
	if _, err := Parse("g.sql", "\\if :x > 1\n\\set y 1 / 0\nSELECT 1 \\gset\n\\elif NOT 0.0\n\\endif\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("g.sql", "\\if NOT 0.0\n\\endif\n"); err == nil {
		t.Fatal("an \\if's condition always runs")
	}
}

func TestCommandsKnowWhereTheyStart(t *testing.T) {
	src := "\\set a 1\n  SELECT :a;  UPDATE t\n   SET x = :a;\n\tSELECT 1 AS one \\gset\n"
	s, err := Parse("w.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Commands {
		got = append(got, c.where(s))
	}
	want := "w.sql:1:1 w.sql:2:3 w.sql:2:15 w.sql:4:2"
	if strings.Join(got, " ") != want {
		t.Fatalf("commands start at %v, want %s", got, want)
	}
}

func TestScriptSpecsTakeAWeight(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "v@2.sql") // a file whose name has an '@'
	if err := os.WriteFile(odd, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		path string
		w    float64
	}{{"a.sql", "a.sql", 1}, {"a.sql@5", "a.sql", 5}, {"we@ird/a.sql", "we@ird/a.sql", 1}, {"a.sql@0.5", "a.sql", 0.5},
		{odd, odd, 1}, {odd + "@3", odd, 3}, {filepath.Join(dir, "v@x.sql@2"), filepath.Join(dir, "v@x.sql"), 2}} {
		p, w, err := ParseSpec(c.in)
		if err != nil || p != c.path || w != c.w {
			t.Errorf("ParseSpec(%q) = %q, %v, %v", c.in, p, w, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"a.sql@-1", "--script a.sql@-1: the weight must not be negative"},
		{"tpcb.sql@abc", `--script tpcb.sql@abc: the weight "abc" is not a number; write FILE@WEIGHT, e.g. tpcb.sql@5`},
		{"tpcb.sql@", `the weight "" is not a number`},
		{"tpcb.sql@NaN", `the weight "NaN" is not a number`},
		{"tpcb.sql@inf", `the weight "inf" is not a number`},
	} {
		if _, _, err := ParseSpec(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSpec(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add(tpcbLike)
	f.Add("SELECT E'a\\\\'' AS \"x\"\"\", $t$;$t$ b, f(1) /* c */ FROM t RETURNING $$ \\gset p\n")
	f.Add("\\set a random_zipfian(1, 10, 1.5)\n\\if :a > 3\nSELECT :a \\gset\n\\elif :a = 2\n\\sleep 1 ms\n\\else\nSELECT 1;\n\\endif\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("fuzz.sql", src)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, c := range s.Commands {
			if (c.kind == cIf || c.kind == cElif) && (c.jump <= 0 || c.jump >= len(s.Commands)) {
				t.Fatalf("jump %d out of range", c.jump)
			}
			if c.kind == cSQL {
				outputNames(c.orig) // must not panic on any text
			}
		}
	})
}

func TestSetTakesEveryVariableName(t *testing.T) {
	// Every one-letter name, and names that occur inside "\set" itself.
	var names []string
	for c := 'a'; c <= 'z'; c++ {
		names = append(names, string(c), strings.ToUpper(string(c)))
	}
	names = append(names, "_", "se", "et", "set", "SET", "sets")
	for _, n := range names {
		src := "\\set " + n + " 5 + :" + n + "x\n"
		s, err := Parse("one.sql", src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		c := s.Commands[0]
		if c.name != n || c.expr.String() != "5 + :"+n+"x" {
			t.Errorf("Parse(%q) = \\set %s %q", src, c.name, c.expr.String())
		}
	}
}

// What pgbench reads that a line-by-line reading would get wrong: ';' in
// dollar quotes, quotes and comments, compound commands joined by \;, SQL
// ended by a meta command rather than a ';', \gset on a line of its own,
// \sleep with its unit stuck to the number.
func TestParsesSQLAsPgbenchDoes(t *testing.T) {
	src := "DO $$ BEGIN PERFORM 1; END $$;\n" +
		"select $$a;b$$ as long \\gset\n" +
		"SELECT $f$ ; \\ $f$ AS t, ';' AS u, /* ; */ 1 AS v; -- ;\n" +
		"CREATE FUNCTION f() RETURNS int AS $body$\nBEGIN\n  RETURN 1;\nEND;\n$body$ LANGUAGE plpgsql;\n" +
		"SELECT 1 AS a \\; SELECT 2 AS b \\aset\n" +
		"SELECT 1 AS c \\; SELECT 2 AS d \\gset\n" +
		"SELECT 1; SELECT 2\n" +
		"\\sleep 2ms\n" +
		"SELECT 3 AS e;\n\\gset p_\n"
	s, err := Parse("d.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Commands {
		switch c.kind {
		case cSQL:
			x := c.orig
			if c.gset || c.aset {
				x += fmt.Sprintf(" [gset=%v aset=%v prefix=%q parts=%d]", c.gset, c.aset, c.prefix, len(c.parts))
			}
			got = append(got, x)
		case cSleep:
			got = append(got, fmt.Sprintf("sleep %d %v", c.sleepN, c.unit))
		}
	}
	want := []string{
		"DO $$ BEGIN PERFORM 1; END $$",
		`select $$a;b$$ as long [gset=true aset=false prefix="" parts=0]`,
		"SELECT $f$ ; \\ $f$ AS t, ';' AS u, /* ; */ 1 AS v",
		"CREATE FUNCTION f() RETURNS int AS $body$\nBEGIN\n  RETURN 1;\nEND;\n$body$ LANGUAGE plpgsql",
		`SELECT 1 AS a ; SELECT 2 AS b [gset=false aset=true prefix="" parts=2]`,
		`SELECT 1 AS c ; SELECT 2 AS d [gset=true aset=false prefix="" parts=2]`,
		"SELECT 1",
		"SELECT 2",
		"sleep 2 1ms",
		`SELECT 3 AS e [gset=true aset=false prefix="p_" parts=0]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	a := assigned([]*Script{s})
	for _, v := range []string{"long", "a", "b", "d", "p_e", "t", "u"} {
		if v == "t" || v == "u" {
			continue
		}
		if !a.mayFetch(v) {
			t.Errorf("%s: not known as fetched", v)
		}
	}
	if a.mayFetch("c") {
		t.Error("\\gset of a compound command sets the last statement's columns only")
	}
}
