package store

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// sampleRun is the run of results' golden file (a synthetic engine
// result, filled as `run` fills it), read afresh for each call.
func sampleRun() *results.Run {
	b, err := os.ReadFile(filepath.Join("..", "results", "testdata", "run.golden.json"))
	if err != nil {
		panic(err)
	}
	var r results.Run
	if err := json.Unmarshal(b, &r); err != nil {
		panic(err)
	}
	return &r
}

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
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return testdb.Postgres(t, fmt.Sprintf("results_%08x", h.Sum32()))
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
