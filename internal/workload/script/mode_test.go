package script

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// runScript runs the first script of w once as client 0 on url.
func runScript(t *testing.T, url string, w *Workload) error {
	_, err := runClient(t, url, w)
	return err
}

// runClient is runScript that returns the client too.
func runClient(t *testing.T, url string, w *Workload) (*client, error) {
	t.Helper()
	ctx := context.Background()
	d, conn := testdb.Connect(t, url)
	if err := w.Setup(ctx, &workload.Env{DB: d, Seed: 1}, conn); err != nil {
		t.Fatal(err)
	}
	wk, err := w.NewWorker(ctx, conn, 0)
	if err != nil {
		return nil, err
	}
	return wk.(*client), wk.Do(ctx, 0)
}

// pgWith creates PostgreSQL database name, runs stmts in it and returns
// its URL and a connection to it.
func pgWith(t *testing.T, name string, stmts ...string) (string, *pgx.Conn) {
	t.Helper()
	url := testdb.Postgres(t, name)
	ctx := context.Background()
	pc, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close(ctx) })
	for _, q := range stmts {
		if _, err := pc.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return url, pc
}

// pgbench runs script once with pgbench -n and the given flags; it
// returns pgbench's exit status.
func pgbench(t *testing.T, url, script string, flags ...string) (int, string) {
	t.Helper()
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench is not installed; install postgresql-client to run this test")
	}
	p := filepath.Join(t.TempDir(), "s.sql")
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append(append([]string{"-n", "-t", "1", "-f", p}, flags...), url)...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestQueryModesBehaveAsPgbenchs(t *testing.T) {
	url := testdb.Postgres(t, "dbh_sc_modes")
	// pgbench's default (simple) writes 3 and 0 into the text; extended and
	// prepared send two parameters of unknown type, which the server
	// cannot add.
	const src = "\\set a 3\nSELECT :a + :client_id;\n"
	for _, c := range []struct {
		mode     string
		flags    []string
		ambiguos bool
	}{
		{"", nil, false}, // the default is pgbench's: simple
		{ModeSimple, []string{"-M", "simple"}, false},
		{ModeExtended, []string{"-M", "extended"}, true},
		{ModePrepared, []string{"-M", "prepared"}, true},
	} {
		t.Run("mode "+c.mode, func(t *testing.T) {
			w := &Workload{QueryMode: c.mode}
			if err := loadInto(t, w, src); err != nil {
				t.Fatal(err)
			}
			err := runScript(t, url, w)
			var pe *pgconn.PgError
			if c.ambiguos {
				if !errors.As(err, &pe) || pe.Code != "42725" {
					t.Errorf("dbharness: %v, want operator is not unique (42725)", err)
				}
			} else if err != nil {
				t.Errorf("dbharness: %v", err)
			}
			code, out := pgbench(t, url, src, c.flags...)
			if want := map[bool]int{false: 0, true: 2}[c.ambiguos]; code != want {
				t.Errorf("pgbench %v exits %d, want %d:\n%s", c.flags, code, want, out)
			}
		})
	}
	t.Run("an unknown mode is a mistake", func(t *testing.T) {
		w := &Workload{QueryMode: "fast"}
		if err := loadInto(t, w, src); err == nil || !strings.Contains(err.Error(), `--query-mode "fast"`) {
			t.Fatalf("Load: %v", err)
		}
	})
}

// The simple mode writes the same SQL as pgbench -M simple: each value in
// pgbench's format, -D and \gset text as given, inside quotes too, and a
// :name no variable has left alone.
func TestSimpleModeWritesValuesAsPgbenchDoes(t *testing.T) {
	ctx := context.Background()
	url, pc := pgWith(t, "dbh_sc_simple", "CREATE TABLE log (who text, a text, b text, c text, d text, e text, f text, g numeric)")
	const src = `\set x 0.1 + 0.2
\set big 1e20 * 10.0
\set yes 1 = 1
SELECT 1.50::numeric AS price, 'it''s' AS q \gset
INSERT INTO log VALUES (:who, ':x', '[:name]', ':big/:yes', 'a:nope', :q, ':price', :price::numeric);
`
	defines := []string{"name=007", "who='dbharness'"}
	w := &Workload{QueryMode: ModeSimple, Defines: defines}
	if err := loadInto(t, w, src); err != nil {
		t.Fatal(err)
	}
	if err := runScript(t, url, w); err == nil || !strings.Contains(err.Error(), "syntax error") {
		// :q is it's: written as it is, it breaks the statement, as in pgbench.
		t.Fatalf("dbharness: %v, want the syntax error pgbench gets too", err)
	}
	if code, out := pgbench(t, url, src, "-D", defines[0], "-D", defines[1]); code != 2 || !strings.Contains(out, "syntax error") {
		t.Fatalf("pgbench exits %d:\n%s", code, out)
	}
	fixed := strings.Replace(src, ":q,", "'x',", 1)
	w = &Workload{QueryMode: ModeSimple, Defines: defines}
	if err := loadInto(t, w, fixed); err != nil {
		t.Fatal(err)
	}
	if err := runScript(t, url, w); err != nil {
		t.Fatal(err)
	}
	if code, out := pgbench(t, url, strings.Replace(fixed, ":who", "'pgbench'", 1), "-D", defines[0]); code != 0 {
		t.Fatalf("pgbench exits %d:\n%s", code, out)
	}
	rows, err := pc.Query(ctx, "SELECT who, a, b, c, d, e, f, g::text FROM log ORDER BY who")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowToAddrOfStructByPos[struct{ Who, A, B, C, D, E, F, G string }])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d rows", len(got))
	}
	ours, theirs := *got[0], *got[1]
	theirs.Who = ours.Who
	if !reflect.DeepEqual(ours, theirs) {
		t.Fatalf("dbharness wrote %+v, pgbench %+v", ours, theirs)
	}
	if ours.A != "0.3" || ours.B != "[007]" || ours.C != "1e+21/true" || ours.D != "a:nope" || ours.F != "1.50" || ours.G != "1.50" {
		t.Fatalf("dbharness wrote %+v", ours)
	}
}

// modeWorkload loads src in query mode, with :m defined as the mode's
// name (quoted in simple mode, where it is written into the SQL).
func modeWorkload(t *testing.T, mode, src string) *Workload {
	t.Helper()
	w := &Workload{QueryMode: mode, Defines: []string{"m=" + mode}}
	if mode == ModeSimple {
		w.Defines = []string{"m='" + mode + "'"}
	}
	if err := loadInto(t, w, src); err != nil {
		t.Fatal(err)
	}
	return w
}

// A client keeps the variables the scripts name in numbered slots, and a
// column of \gset that no script names (SELECT *) by its name: both are
// set and read in every query mode.
func TestVariablesInSlotsAndByNameAreSetAndRead(t *testing.T) {
	url, pc := pgWith(t, "dbh_sc_slots", "DROP TABLE IF EXISTS slot_out", "CREATE TABLE slot_out (mode text, a int, c int)")
	const src = "SELECT * FROM (VALUES (3, 4)) AS t(a, b) \\gset p_\n" +
		"\\set c :p_a * 10 + :client_id\n" +
		"INSERT INTO slot_out VALUES (:m, :p_a, :c);\n"
	for _, mode := range []string{ModeSimple, ModeExtended, ModePrepared} {
		t.Run(mode, func(t *testing.T) {
			w := modeWorkload(t, mode, src)
			k, err := runClient(t, url, w)
			if err != nil {
				t.Fatal(err)
			}
			var a, c int
			if err := pc.QueryRow(context.Background(), "SELECT a, c FROM slot_out WHERE mode = $1", mode).Scan(&a, &c); err != nil {
				t.Fatal(err)
			}
			if a != 3 || c != 30 {
				t.Errorf("the row is (%d, %d), want (3, 30)", a, c)
			}
			if _, named := w.slots["p_b"]; named {
				t.Fatal("p_b has a slot, though no script names it")
			}
			if v, ok := k.get("p_b"); !ok || v.sqlText() != "4" {
				t.Errorf("p_b, set by name: %+v %v, want 4", v, ok)
			}
			if v, ok := k.get("p_a"); !ok || v.sqlText() != "3" || w.slots["p_a"] < 0 {
				t.Errorf("p_a, in slot %d: %+v %v, want 3", w.slots["p_a"], v, ok)
			}
		})
	}
}

// A variable bound to a parameter is boxed once per value and the box
// reused (variable.arg): one set again, by \set or \gset, sends its new
// value to the next statement, in every mode.
func TestAReassignedVariableSendsItsNewValue(t *testing.T) {
	url, pc := pgWith(t, "dbh_sc_reassign", "DROP TABLE IF EXISTS reassign_out", "CREATE TABLE reassign_out (mode text, step int, x bigint)")
	const src = "\\set x 1000\n" +
		"INSERT INTO reassign_out VALUES (:m, 1, :x);\n" +
		"SELECT :x::bigint + 1 AS x \\gset\n" +
		"INSERT INTO reassign_out VALUES (:m, 2, :x);\n" +
		"\\set x :x * 2\n" +
		"INSERT INTO reassign_out VALUES (:m, 3, :x);\n"
	for _, mode := range []string{ModeSimple, ModeExtended, ModePrepared} {
		t.Run(mode, func(t *testing.T) {
			w := modeWorkload(t, mode, src)
			if _, err := runClient(t, url, w); err != nil {
				t.Fatal(err)
			}
			var got string
			if err := pc.QueryRow(context.Background(), "SELECT string_agg(x::text, ' ' ORDER BY step) FROM reassign_out WHERE mode = $1", mode).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != "1000 1001 2002" {
				t.Errorf("the values sent are %q, want \"1000 1001 2002\"", got)
			}
		})
	}
}

// Under -M prepared every SQL command is prepared, BEGIN and END too, as
// pgbench prepares them; a compound command without variables, which the
// server will not prepare, is sent as text.
func TestPreparedModePreparesEveryCommand(t *testing.T) {
	url, _ := pgWith(t, "dbh_sc_prepall")
	w := &Workload{QueryMode: ModePrepared}
	if err := loadInto(t, w, "BEGIN;\nSELECT 1 \\; SELECT 2;\n\\set a 5\nSELECT :a::int;\nEND;\n"); err != nil {
		t.Fatal(err)
	}
	k, err := runClient(t, url, w)
	if err != nil {
		t.Fatal(err)
	}
	// Set-up's queries and this one are prepared too (the connection's
	// statement cache): they read the catalog, and are left out.
	rows, err := k.conn.Query(context.Background(), "SELECT coalesce(string_agg(statement, ' | ' ORDER BY statement), '') FROM pg_prepared_statements WHERE statement NOT LIKE '%pg\\_%'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got string
	for rows.Next() {
		if err := rows.Scan(&got); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != "BEGIN | END | SELECT $1::int" {
		t.Errorf("prepared on the connection: %q; want BEGIN, END and SELECT $1::int, and not the compound command", got)
	}
}
