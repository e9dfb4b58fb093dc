package results

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"
)

// TestPostgres creates a fresh database on the real PostgreSQL server and
// returns its URL. The external test package sets it to testdb.Postgres,
// which this package cannot import (testdb reaches results through the
// engines).
var TestPostgres func(t testing.TB, name string) string

// eachStore runs f on each kind of store, given its location: a fresh
// SQLite file, and a fresh database of the real PostgreSQL server.
func eachStore(t *testing.T, f func(t *testing.T, loc string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, filepath.Join(t.TempDir(), "r.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresStore(t)) })
}

// postgresStore is the URL of a fresh database for the test, named after
// it.
func postgresStore(t testing.TB) string {
	t.Helper()
	if TestPostgres == nil {
		t.Fatal("TestPostgres is not set (store_postgres_test.go sets it)")
	}
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return TestPostgres(t, fmt.Sprintf("results_%08x", h.Sum32()))
}

// openStoreT opens the store at loc for the test and closes it at its end.
func openStoreT(t testing.TB, loc string) *Store {
	t.Helper()
	s, err := Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMain(m *testing.M) {
	// The concurrency test starts this test binary again as writer
	// processes.
	if loc := os.Getenv(writerEnv); loc != "" {
		os.Exit(writerProcess(loc))
	}
	os.Exit(m.Run())
}
