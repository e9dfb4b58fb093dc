package testdb

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/microsoft/go-mssqldb" // the sqlserver driver, for setting up test databases
)

// SQLServerEnv names the environment variable that gives the tests a SQL
// Server: the sqlserver:// URL of any SQL Server or Babelfish, as a
// server-level administrator (CREATE DATABASE). scripts/test.sh sets it to
// a private Babelfish it starts when it is not set.
const SQLServerEnv = "DBHARNESS_TEST_SQLSERVER"

// SQLServerBase is the SQL Server used by tests ($DBHARNESS_TEST_SQLSERVER),
// or "" when none is given.
func SQLServerBase() string { return strings.TrimSpace(os.Getenv(SQLServerEnv)) }

// SQLServer creates (or recreates) database name on the test SQL Server and
// returns its URL. Without a server it fails the test, saying what to
// provide: it never skips.
func SQLServer(t testing.TB, name string) string {
	t.Helper()
	SkipShort(t, "a SQL Server or Babelfish ($"+SQLServerEnv+")")
	base := SQLServerBase()
	if base == "" {
		t.Fatalf("no SQL Server to test on: set %s to the sqlserver:// URL of a SQL Server or Babelfish (administrator login), or run scripts/test.sh, which starts Babelfish from ../shared/babelfish or $DBHARNESS_BABELFISH_DIR", SQLServerEnv)
	}
	name = dbName(name)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	d, err := sql.Open("sqlserver", base)
	if err != nil {
		t.Fatalf("%s: %v", SQLServerEnv, err)
	}
	defer d.Close()
	if err := d.PingContext(ctx); err != nil {
		t.Fatalf("the SQL Server of $%s is not reachable (scripts/test.sh starts a Babelfish): %v", SQLServerEnv, err)
	}
	for _, s := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name} {
		// Babelfish refuses a CREATE or DROP DATABASE that meets another
		// session's ("tuple concurrently updated", or as a deadlock, 1205),
		// as tests of other packages make theirs: such a refusal is tried
		// again.
		for try := 1; ; try++ {
			_, err := d.ExecContext(ctx, s)
			if err == nil {
				break
			}
			if msg := err.Error(); try == 10 || !strings.Contains(msg, "concurrently updated") && !strings.Contains(msg, "deadlock detected") {
				t.Fatalf("%s: %v", s, err)
			}
			time.Sleep(time.Duration(try) * 200 * time.Millisecond)
		}
	}
	return SQLServerURL(t, name)
}

// SQLServerURL is the test server's URL with database name.
func SQLServerURL(t testing.TB, name string) string {
	t.Helper()
	u, err := url.Parse(SQLServerBase())
	if err != nil {
		t.Fatalf("%s is not a URL: %v", SQLServerEnv, err)
	}
	q := u.Query()
	q.Set("database", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// BabelfishPGEnv names the environment variable that gives the tests the
// PostgreSQL side of the test Babelfish (a postgres:// URL of its
// babelfish_db), for --server-evidence. scripts/test.sh sets it when it
// starts Babelfish.
const BabelfishPGEnv = "DBHARNESS_TEST_BABELFISH_PG"

// BabelfishPostgresSide is the postgres:// URL of the test Babelfish's
// PostgreSQL side: $DBHARNESS_TEST_BABELFISH_PG, or else, when the test
// SQL Server is scripts/test.sh's Babelfish (TDS port 14330), its
// PostgreSQL port 54990 with the same login. Without either it fails the
// test, saying what to provide.
func BabelfishPostgresSide(t testing.TB) string {
	t.Helper()
	if u := strings.TrimSpace(os.Getenv(BabelfishPGEnv)); u != "" {
		return u
	}
	u, err := url.Parse(SQLServerBase())
	if err != nil || u.Port() != "14330" || u.User == nil {
		t.Fatalf("no Babelfish PostgreSQL side to test --server-evidence on: set %s to the postgres:// URL of the test Babelfish's babelfish_db (scripts/test.sh does when it starts Babelfish)", BabelfishPGEnv)
	}
	return "postgres://" + u.User.String() + "@" + u.Hostname() + ":54990/babelfish_db"
}
