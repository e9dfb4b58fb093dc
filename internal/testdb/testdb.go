// Package testdb gives integration tests their own database on the real
// servers of the machine, and workloads with their flags set. A server
// that cannot be reached fails the test: integration tests never skip,
// except under go test -short, where every helper that reaches a server
// skips the test (SkipShort) so that the unit subset needs none.
package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/dbharness/dbharness/internal/db"
	_ "github.com/dbharness/dbharness/internal/db/all" // every engine
)

// PostgresBase is the server used by tests: $DBHARNESS_TEST_PG or the local
// server with trust authentication.
func PostgresBase() string {
	if v := os.Getenv("DBHARNESS_TEST_PG"); v != "" {
		return strings.TrimSuffix(v, "/")
	}
	return "postgres://postgres@127.0.0.1:5432"
}

// MySQLBase is the MySQL/MariaDB server used by tests: $DBHARNESS_TEST_MYSQL
// or the local one as root with an empty password.
func MySQLBase() string {
	if v := os.Getenv("DBHARNESS_TEST_MYSQL"); v != "" {
		return strings.TrimSuffix(v, "/")
	}
	return "mysql://root@127.0.0.1:3306"
}

// setupTimeout bounds a test database's set-up and teardown. They assert
// nothing about time, and on a busy machine DROP DATABASE ... WITH (FORCE)
// waits for a checkpoint behind other packages' writes: a fixed 30 s once
// failed a suite run beside two CPU hogs. The bound is only there so that a
// server that never answers ends the test.
const setupTimeout = 5 * time.Minute

// dbName is a test database's name: name, after $DBHARNESS_TEST_DB_PREFIX
// when it is set, so that test runs of two checkouts on one server keep out
// of each other's databases.
func dbName(name string) string { return os.Getenv("DBHARNESS_TEST_DB_PREFIX") + name }

// SkipShort skips the test under go test -short, saying that it needs
// what (a server, a browser, ...): the short run is the unit subset, which
// needs no server. Without -short it does nothing.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s; go test -short runs only the tests that need no server", what)
	}
}

// Postgres creates (or recreates) database name and returns its URL.
func Postgres(t testing.TB, name string) string {
	t.Helper()
	SkipShort(t, "the PostgreSQL server at "+PostgresBase())
	name = dbName(name)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	c, err := pgx.Connect(ctx, PostgresBase()+"/postgres")
	if err != nil {
		t.Fatalf("PostgreSQL at %s is not reachable (start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`): %v", PostgresBase(), err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Fatalf("drop database %s: %v", name, err)
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	return PostgresBase() + "/" + name
}

// MySQL creates (or recreates) database name and returns its URL.
func MySQL(t testing.TB, name string) string {
	t.Helper()
	SkipShort(t, "the MariaDB/MySQL server at "+MySQLBase())
	name = dbName(name)
	base := strings.TrimPrefix(MySQLBase(), "mysql://")
	user, host, _ := strings.Cut(base, "@")
	d, err := sql.Open("mysql", fmt.Sprintf("%s@tcp(%s)/", user, host))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := d.PingContext(ctx); err != nil {
		t.Fatalf("MariaDB/MySQL at %s is not reachable (start it with `start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd`): %v", MySQLBase(), err)
	}
	for _, s := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name} {
		if _, err := d.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return MySQLBase() + "/" + name
}

// SQLite returns the URL of a new, empty database file in the test's temp
// dir (an empty file is an empty SQLite database): only init creates a
// database that does not exist.
func SQLite(t testing.TB) string {
	p := filepath.Join(t.TempDir(), "test.db")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return "sqlite://" + p
}

// Engine is one engine's test database.
type Engine struct {
	Name string
	URL  string
}

// Engines returns a fresh database on every engine, named after name.
func Engines(t testing.TB, name string) []Engine {
	SkipShort(t, "the PostgreSQL and MariaDB/MySQL servers")
	return []Engine{
		{"postgres", Postgres(t, name)},
		{"mysql", MySQL(t, name)},
		{"sqlite", SQLite(t)},
	}
}

// EnginesAndSQLServer is Engines with a fresh database on the test SQL
// Server too (SQLServer), for the tests of what SQL Server runs so far.
func EnginesAndSQLServer(t testing.TB, name string) []Engine {
	return append(Engines(t, name), Engine{"sqlserver", SQLServer(t, name)})
}

// Open opens url with dbharness's own engine layer; it is closed when the
// test ends.
func Open(t testing.TB, url string) db.DB {
	t.Helper()
	tg, err := db.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Connect opens url with dbharness's own engine layer and one connection;
// both are closed when the test ends.
func Connect(t testing.TB, url string) (db.DB, db.Conn) {
	t.Helper()
	d := Open(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return d, c
}

// QueryInt64 runs a query of one integer on a connection of its own to d,
// failing the test on an error.
func QueryInt64(t testing.TB, d db.DB, sql string) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := db.QueryInt64(ctx, c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Exec runs statements on c, failing the test on the first error.
func Exec(t testing.TB, c db.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// AwaitInt64 runs a query of one integer on c until it returns want,
// failing the test on an error or when it has not after a minute: the wait
// for what the server does in its own time (a session to end, clients to
// queue on a lock), which a busy machine can make long.
func AwaitInt64(t testing.TB, c db.Conn, want int64, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	for {
		n, err := db.QueryInt64(ctx, c, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if n == want {
			return
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("%s gave %d a minute long, want %d", sql, n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
