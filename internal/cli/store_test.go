package cli_test

import (
	"crypto/rand"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// sqliteSchema lists the schema objects of the SQLite file at path.
func sqliteSchema(t *testing.T, path string) string {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var s string
	if err := d.QueryRow(`SELECT coalesce(group_concat(type || ' ' || name, ', '), '') FROM sqlite_master`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAStoreThatCannotBeUsedStopsRunAndSweepBeforeTheyConnect(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "a-directory")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	random := filepath.Join(home, "random.db")
	junk := make([]byte, 8192)
	_, _ = rand.Read(junk)
	if err := os.WriteFile(random, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(home, "app.db")
	if err := testdb.SQLiteExec(foreign, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	schema := sqliteSchema(t, foreign)
	// Nothing listens on port 1: a command that connected before checking
	// the store would fail on the connection.
	unreachable := "postgres://postgres@127.0.0.1:1/none"
	for _, c := range []struct{ name, path, want string }{
		{"a directory", dir, "results store " + dir + " is a directory"},
		{"a path under a file", filepath.Join(random, "results.db"), "cannot be opened: not a directory"},
		{"random bytes", random, random + " is not a dbharness results store: it is not an SQLite database"},
		{"another program's SQLite file", foreign, foreign + " is not a dbharness results store: it is an SQLite database with other tables (customers)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{
				{"run", "null", "--db", unreachable, "-t", "1", "--results", c.path},
				{"sweep", "null", "--clients", "1", "-t", "1", "--db", unreachable, "--results", c.path},
			} {
				r := dbh(t, home, args...)
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if r.code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "dbharness: ") || !strings.Contains(lines[0], c.want) {
					t.Errorf("%s: exit %d, want 1 and one sentence saying %q:\n%s", args[0], r.code, c.want, r.all())
				}
				if strings.Contains(r.all(), "refused") {
					t.Errorf("%s connected before checking the store:\n%s", args[0], r.all())
				}
			}
			r := dbh(t, home, "run", "null", "--db", testdb.SQLite(t), "-t", "1", "-P", "0", "--results", c.path, "--no-save")
			if r.code != 0 || strings.Contains(r.all(), "results store") || strings.Contains(r.all(), "saved as") {
				t.Errorf("--no-save: exit %d\n%s", r.code, r.all())
			}
		})
	}
	if got := sqliteSchema(t, foreign); got != schema {
		t.Errorf("another program's SQLite file changed from %q to %q", schema, got)
	}
}
