package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
)

// serverSQL runs statements in the database at loc, as another program
// would.
func serverSQL(t *testing.T, loc string, stmts ...string) {
	t.Helper()
	execOn(t, "pgx", loc, stmts...)
}

// serverTables lists the tables of the database at loc, by schema.
func serverTables(t *testing.T, loc string) string {
	t.Helper()
	d, err := sql.Open("pgx", loc)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var s string
	if err := d.QueryRow(`SELECT COALESCE(string_agg(schemaname || '.' || tablename, ', ' ORDER BY schemaname, tablename), '')
		FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAServerStoreKeepsItsTablesInASchemaOfItsOwn(t *testing.T) {
	loc := postgresStore(t)
	serverSQL(t, loc, "CREATE TABLE runs (customer INTEGER)")
	s := openStoreT(t, loc)
	if err := s.Save(sampleRun()); err != nil {
		t.Fatal(err)
	}
	want := "dbharness.evidence, dbharness.intervals, dbharness.run_group_shards, dbharness.run_groups, dbharness.runs, dbharness.sweep_runs, dbharness.sweeps, public.runs"
	if got := serverTables(t, loc); got != want {
		t.Errorf("tables %s, want %s", got, want)
	}
	// Opened again (by the next harness), the store is as it was.
	s2 := openStoreT(t, loc)
	if rows, err := s2.List(context.Background(), 0); err != nil || len(rows) != 1 {
		t.Errorf("reopened: %+v, %v", rows, err)
	}
}

func TestOpenRefusesWhatIsNotAServerStore(t *testing.T) {
	loc := postgresStore(t)
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	missing := *u
	missing.Path = "/" + strings.TrimPrefix(u.Path, "/") + "_missing"
	for _, c := range []struct{ name, loc, setUp, want string }{
		{"a server that refuses connections", "postgres://dbh:sekret@127.0.0.1:1/none",
			"", "results store postgres://dbh:xxxxx@127.0.0.1:1/none cannot be reached: connection refused"},
		{"a database that does not exist", missing.String(), "", "cannot be opened: database \"" + strings.TrimPrefix(missing.Path, "/") + "\" does not exist"},
		{"a schema dbharness of another program", loc, "CREATE SCHEMA dbharness; CREATE TABLE dbharness.customers (id INTEGER)",
			"the schema dbharness of its database is not a dbharness results store (it holds customers)"},
		{"a store of a newer dbharness", loc, "DROP SCHEMA IF EXISTS dbharness CASCADE; CREATE SCHEMA dbharness; COMMENT ON SCHEMA dbharness IS 'dbharness results store, version 99'",
			"was made by a newer dbharness (store version 99; this one knows up to 1)"},
		{"a URL that does not parse", "postgres://dbh:sekret@127.0.0.1:notaport/x", "", "is not a valid URL"},
		{"a URL of another database", "mysql://root:sekret@127.0.0.1:3306/test", "", "a store is an SQLite file (a path, or sqlite://PATH) or a postgres:// URL, not a mysql:// URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.setUp != "" {
				serverSQL(t, c.loc, c.setUp)
			}
			var before string
			if c.setUp != "" {
				before = serverTables(t, c.loc)
			}
			s, err := Open(c.loc)
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "sekret") {
				t.Errorf("error %q, want one line saying %q, without the password", msg, c.want)
			}
			if c.setUp != "" {
				if after := serverTables(t, c.loc); after != before {
					t.Errorf("the database's tables changed from %q to %q", before, after)
				}
			}
		})
	}
}

func TestAServerStoreOpenedReadOnlyCreatesNothing(t *testing.T) {
	loc := postgresStore(t)
	if s, err := OpenReadOnly(loc); !errors.Is(err, ErrNoStore) {
		t.Errorf("opened a store that does not exist: %v, %v", s, err)
	}
	if got := serverTables(t, loc); got != "" {
		t.Errorf("tables %s in a database opened read-only", got)
	}
}

func TestAUserWhoMayOnlyWriteRowsUsesAStoreSetUpByAnother(t *testing.T) {
	loc := postgresStore(t)
	s := openStoreT(t, loc)
	if err := s.Save(sampleRun()); err != nil {
		t.Fatal(err)
	}
	// Roles belong to the whole server: this one carries the checkout's
	// prefix, as the test's database does.
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	role := os.Getenv("DBHARNESS_TEST_DB_PREFIX") + "results_writer"
	serverSQL(t, loc, "DROP ROLE IF EXISTS "+role, "CREATE ROLE "+role+" LOGIN",
		"REVOKE CREATE ON DATABASE "+dbName+" FROM PUBLIC", "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		"GRANT USAGE ON SCHEMA dbharness TO "+role,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA dbharness TO "+role)
	t.Cleanup(func() {
		serverSQL(t, loc, "DROP OWNED BY "+role)
		serverSQL(t, strings.Replace(loc, "/"+dbName, "/postgres", 1), "DROP ROLE IF EXISTS "+role)
	})
	w := *u
	w.User = url.User(role)
	ws := openStoreT(t, w.String())
	r := sampleRun()
	if err := ws.Create(r); err != nil {
		t.Fatal(err)
	}
	if err := ws.AddInterval(r.RunID, &r.Intervals[0], nil); err != nil {
		t.Fatal(err)
	}
	rows, err := ws.List(context.Background(), 0)
	if err != nil || len(rows) != 2 {
		t.Fatalf("runs %+v, %v", rows, err)
	}
	// On a database without a store, the same user is told it may not
	// make one.
	serverSQL(t, loc, "DROP SCHEMA dbharness CASCADE")
	if _, err := Open(w.String()); err == nil || !strings.Contains(err.Error(), "is not writable: permission denied") {
		t.Errorf("opening a store the user cannot create: %v", err)
	}
}
