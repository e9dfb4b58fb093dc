package cli_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbharness/dbharness/internal/testdb"
)

// compatCase is a script run through pgbench -f and dbharness run --script
// with the same options.
type compatCase struct {
	name, src string
	args      []string // for both: -D, -M
	// ok: pgbench runs every transaction; otherwise it refuses the script
	// (exit 1) or aborts the client (exit 2), and dbharness must not
	// succeed either. Transaction counts are compared for ok scripts only:
	// pgbench counts the run that left a transaction open before it aborts
	// the client (1/3), dbharness counts it as failed.
	ok bool
	// parse: dbharness refuses the script before connecting (exit 2),
	// where pgbench may find the mistake only while running.
	parse bool
	// stderr: what dbharness must also say.
	stderr string
}

// compatCases are the cases of issue 20: what pgbench runs and what it
// refuses.
var compatCases = []compatCase{
	// pgbench runs these.
	{name: "dollar_do", ok: true, src: "DO $$ BEGIN PERFORM 1; END $$;\n" +
		"CREATE OR REPLACE FUNCTION compat_f(x int) RETURNS int AS $body$\nBEGIN\n  RETURN x * 2; -- ; in a body\nEND;\n$body$ LANGUAGE plpgsql;\n" +
		"SELECT compat_f(21) AS v \\gset\n\\set v debug(:v)\n"},
	{name: "dollar_gset", ok: true, src: "select $$a;b$$ as long \\gset\nSELECT length(':long') AS n, ';' AS semi /* ; */ \\gset\n\\set n debug(:n)\n"},
	{name: "compound", ok: true, src: "SELECT 1 AS a \\; SELECT 2 AS b \\gset\n\\set x debug(:b)\n" +
		"SELECT 3 AS c \\; SELECT 4 AS d \\aset\n\\set y debug(:c * 10 + :d)\n" +
		"SELECT 5 AS e \\; SELECT 6 AS f;\n" +
		"UPDATE compat_t SET a = a WHERE false \\; SELECT 7 AS g \\; SET application_name = 'compat' \\aset\n\\set z debug(:g)\n"},
	{name: "expressions", ok: true, src: strings.Join([]string{
		`\set a debug(least(-5.18, .0E0, 1.0/0))`, `\set a debug(1.0 / 0)`, `\set a debug(-1.0 / 0)`, `\set a debug(exp(NULL))`,
		`\set a debug(NULL AND FALSE)`, `\set a debug(FALSE AND NULL)`, `\set a debug(TRUE OR NULL)`, `\set a debug(NOT NULL)`,
		`\set a debug(int(2.5))`, `\set a debug(int(-3.9))`, `\set a debug(5.5 % 2)`, `\set a debug(~2.5)`, `\set a debug(1 IS TRUE)`,
		`\set a debug(CASE WHEN 0.0 THEN 1 WHEN 3 THEN 2 END)`, `\set a debug(least(1, NULL))`, `\set a debug(pow(2, 0.5))`,
		`\set a debug(hash(1, 2))`, `\set a debug(hash_fnv1a(7, 3))`, `\set a debug(permute(3, 100, 7))`, `\set a debug(9223372036854775807)`,
		`\set a debug(-9223372036854775808)`, `\set a debug(abs(-3.5) + sqrt(2))`, `\set a debug(greatest(1, 2.5))`, `\set a debug(0.1 + 0.2)`,
		`\set a debug(1e300 * 1e300)`, `\set a debug(7 / 2 * 2 = 6 AND 2 > 1.5)`, `\set a debug(1 << 62 >> 60 | 8 # 3 & 5)`, `\set a debug(pi())`,
		`\set a debug(:a IS NULL)`, `\set a debug(NULL ISNULL)`, `\set a debug(2 NOTNULL)`, `\set a debug(ln(10) * 1000)`,
	}, "\n") + "\n"},
	{name: "defines", ok: true, args: []string{"-D", "t=t", "-D", "f=of", "-D", "n=null", "-D", "y=ye", "-D", "o=ON", "-D", "i=42", "-D", "d=1e3", "-D", "s=-7.25"},
		src: "\\set a debug(:t)\n\\set a debug(:f)\n\\set a debug(:n)\n\\set a debug(:y)\n\\set a debug(:o)\n\\set a debug(:i)\n\\set a debug(:d)\n\\set a debug(:s)\n" +
			"\\if :t AND NOT :f\n\\set a debug(1)\n\\else\n\\set a debug(2)\n\\endif\n\\set a debug(:n IS NULL)\n"},
	{name: "sleep_units", ok: true, src: "\\sleep 2ms\n\\sleep 1 us\n\\set s 1\n\\sleep :s ms\n\\sleep 0\nSELECT 1;\n"},
	{name: "gset_forms", ok: true, src: "SELECT 5 AS five;\n\\gset\nSELECT 6 AS six\n\\gset p_\nSELECT 7 AS seven\n\\set x debug(:five + :p_six)\n" +
		"SELECT 'yes' AS b, 'null' AS z, '2.5' AS d \\gset\n\\set x debug(:b)\n\\set x debug(:z)\n\\set x debug(int(:d))\n"},
	{name: "if_truth", ok: true, src: "\\if 0.0\n\\set a debug(1)\n\\elif 2\n\\set a debug(2)\n\\else\n\\set a debug(3)\n\\endif\n\\if NULL\n\\set a debug(4)\n\\endif\n"},
	{name: "guarded_by_if", ok: true, src: "\\set x 0\n\\if :x > 1\n\\set y 1 / 0\n\\set z TRUE + 2\nSELECT 1 \\gset\n\\elif :x = 0\n\\set w debug(:x)\n\\endif\nSELECT 1;\n"},
	{name: "transaction", ok: true, src: "BEGIN;\nINSERT INTO compat_t VALUES (1);\nSELECT count(*) AS n FROM compat_t WHERE a = 1 \\gset\nEND;\n\\set n debug(:n > 0)\n"},

	// pgbench refuses these, when it reads them (exit 1) or while running
	// (the client aborted, exit 2).
	{name: "open_transaction", src: "BEGIN;\nINSERT INTO compat_t VALUES (2);\n", stderr: "end of script reached without completing the last transaction"},
	{name: "bigint_constant", parse: true, src: "\\set i 100000000000000000000\nSELECT :i;\n", stderr: "bigint_constant.sql:1:8: \\set i: bigint constant overflow"},
	{name: "not_double", parse: true, src: "\\set b NOT 0.0\n", stderr: "not_double.sql:1:8: \\set b: cannot coerce double to boolean"},
	{name: "bool_plus_int", parse: true, src: "\\set b TRUE + 2\n", stderr: "bool_plus_int.sql:1:13: \\set b: cannot coerce boolean to int"},
	{name: "ln_bool", parse: true, src: "\\set b 1 + ln(TRUE)\n", stderr: "cannot coerce boolean to double"},
	{name: "random_bool", parse: true, src: "\\set b random(FALSE, TRUE)\n", stderr: "cannot coerce boolean to int"},
	{name: "and_int", parse: true, src: "\\if 1 AND TRUE\n\\endif\n", stderr: "and_int.sql:1:7: \\if: cannot coerce int to boolean"},
	{name: "gset_unnamed", parse: true, src: "SELECT 1 \\gset\n", stderr: `gset_unnamed.sql:1:10: \gset: the column "?column?"`},
	{name: "gset_bad_name", parse: true, src: "SELECT 1 AS \"bad name!\" \\gset\n", stderr: `\gset: the column "bad name!"`},
	{name: "gset_unnamed_expr", src: "SELECT 1 + 1 \\gset\n", stderr: `the column "?column?" cannot set a variable`},
	{name: "gset_two_words", parse: true, src: "SELECT 1 AS a \\gset a b\n", stderr: "gset_two_words.sql:1:23: \\gset takes at most one argument"},
	{name: "least_17", parse: true, src: "\\set m least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)\n", stderr: "at most 16 arguments"},
	{name: "params_256", parse: true, args: []string{"-M", "prepared", "-D", "v=1"},
		src: "SELECT " + strings.TrimSuffix(strings.Repeat(":v, ", 256), ", ") + ";\n", stderr: "params_256.sql:1:1028: the command has 256 variables"},
	{name: "bool_define_as_int", args: []string{"-D", "t=t"}, src: "\\set x :t + 1\n", stderr: "cannot coerce boolean to int"},
	{name: "compound_gset_last_no_row", src: "SELECT 1 AS a \\; SET application_name = 'compat' \\gset\n", stderr: "\\gset: the query returned no row"},
	{name: "sql_error", src: "SELECT 1;\nSELECT 1 / 0;\n", stderr: "sql_error:2:1: ERROR: division by zero"},
}

// Each script runs through pgbench -f and dbharness run --script (on both
// drivers) on the local PostgreSQL with the same options: the same outcome
// (every transaction done, or refused), the same number of transactions,
// and the same values shown by debug() (\gset values are shown through
// it).
func TestScriptsRunAsPgbenchRunsThem(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_pgbcompat")
	pc, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(context.Background())
	if _, err := pc.Exec(context.Background(), "CREATE TABLE compat_t (a int)"); err != nil {
		t.Fatal(err)
	}
	const txs = 3
	for _, c := range compatCases {
		t.Run(c.name, func(t *testing.T) {
			script := writeScript(t, home, c.name+".sql", c.src)
			code, out := pgbenchRun(t, url, append([]string{"-c", "1", "-t", strconv.Itoa(txs), "-f", script}, c.args...)...)
			pgDone := processed(out)
			pgOK := code == 0 && pgDone == txs && !strings.Contains(out, "aborted")
			if pgOK != c.ok {
				t.Fatalf("pgbench: exit %d, %d transactions; the case expects ok=%v\n%s", code, pgDone, c.ok, out)
			}
			pgDebug := debugLines(out)
			for _, driver := range []string{"loop", "goroutine"} {
				args := append([]string{"run", "-f", script, "-c", "1", "-t", strconv.Itoa(txs), "--driver", driver,
					"--db", url, "--no-save", "--collect", "none", "--json", "-"}, c.args...)
				r := dbh(t, home, args...)
				switch {
				case c.ok && r.code != 0:
					t.Fatalf("%s driver: exit %d; pgbench runs the script\n%s", driver, r.code, r.all())
				case !c.ok && r.code == 0:
					t.Fatalf("%s driver: exit 0; pgbench refuses the script (exit %d)\n%s\npgbench:\n%s", driver, code, r.all(), out)
				case c.parse && (r.code != 2 || strings.Contains(r.stdout, "run_id")):
					t.Fatalf("%s driver: exit %d; want the script refused before connecting (2)\n%s", driver, r.code, r.all())
				case !c.ok && !c.parse && r.code != 1:
					t.Fatalf("%s driver: exit %d; want the run to fail (1)\n%s", driver, r.code, r.all())
				}
				if c.stderr != "" && !strings.Contains(r.stderr, c.stderr) {
					t.Errorf("%s driver: stderr lacks %q:\n%s", driver, c.stderr, r.stderr)
				}
				if c.ok {
					var run struct {
						Summary struct {
							Transactions int64 `json:"transactions"`
							Errors       int64 `json:"errors"`
						} `json:"summary"`
					}
					if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
						t.Fatalf("%s driver: JSON: %v\n%s", driver, err, r.stdout)
					}
					if run.Summary.Transactions != int64(pgDone) || run.Summary.Errors != 0 {
						t.Errorf("%s driver: %d transactions, %d errors; pgbench %d", driver, run.Summary.Transactions, run.Summary.Errors, pgDone)
					}
				}
				// A failing run prints its values once per attempt, pgbench
				// once before aborting the client: the distinct lines match.
				if got := debugLines(r.stderr); !slices.Equal(got, pgDebug) {
					t.Errorf("%s driver: debug() printed\n%s\npgbench printed\n%s", driver, strings.Join(got, "\n"), strings.Join(pgDebug, "\n"))
				}
			}
		})
	}
	// The open transaction's inserts were rolled back by both.
	var n int
	if err := pc.QueryRow(context.Background(), "SELECT count(*) FROM compat_t WHERE a = 2").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows of the script that left its transaction open: %d, %v", n, err)
	}
}

var (
	processedRE = regexp.MustCompile(`number of transactions actually processed: (\d+)/`)
	debugRE     = regexp.MustCompile(`(?m)^debug\(script=\d+,command=\d+\): .*$`)
)

// processed is pgbench's count of transactions done, or -1.
func processed(out string) int {
	m := processedRE.FindStringSubmatch(out)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// debugLines are the distinct lines debug() printed, in order of first
// appearance.
func debugLines(out string) []string {
	var lines []string
	for _, l := range debugRE.FindAllString(out, -1) {
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return lines
}
