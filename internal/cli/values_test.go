package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// Every number and duration a flag takes goes through one check: a value
// that is not finite, that overflows or that is absurd is a usage error
// (exit 2) in one sentence, before anything connects or is saved.
func TestNonFiniteOverflowingAndAbsurdValuesAreUsageErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a rate that is not a number", []string{"-R", "NaN"}, `--rate: "NaN" is not a finite number`},
		{"an infinite rate", []string{"--rate", "Inf"}, `--rate: "Inf" is not a finite number`},
		{"an absurd rate", []string{"--rate", "1e308"}, `--rate: "1e308" is out of range; give a number from 0 to 10000000`},
		{"a rate beyond float64", []string{"--rate", "1e400"}, `--rate: "1e400" is out of range`},
		{"a negative rate", []string{"--rate=-5"}, `--rate: "-5" is negative`},
		{"a percentile that is not a number", []string{"--percentiles", "50,NaN"}, `--percentiles "50,NaN" is invalid`},
		{"an infinite percentile", []string{"--percentiles", "Inf"}, `--percentiles "Inf" is invalid`},
		{"a duration in seconds that overflows", []string{"-T", "9999999999999"}, `--duration: "9999999999999" is longer than 720h0m0s (30 days)`},
		{"a duration that overflows time.Duration", []string{"-T", "9999999999h"}, `--duration: "9999999999h" is longer than 720h0m0s (30 days)`},
		{"a duration that is not a number", []string{"-T", "NaN"}, `--duration: "NaN" is not a duration`},
		{"an infinite duration", []string{"-T", "Inf"}, `--duration: "Inf" is not a duration`},
		{"an absurd warm-up", []string{"--warmup", "800h"}, `--warmup: "800h" is longer than 720h0m0s (30 days)`},
		{"an absurd latency limit", []string{"-L", "1e10"}, `--latency-limit: "1e10" is longer than 720h0m0s (30 days)`},
		{"an absurd progress interval", []string{"-P", "99999999999s"}, `--progress: "99999999999s" is longer than 720h0m0s (30 days)`},
		{"a statement timeout that overflows", []string{"--statement-timeout", "1e300"}, `--statement-timeout: "1e300" is longer than 720h0m0s (30 days)`},
		{"a reconnect timeout that is not a number", []string{"--reconnect-timeout", "NaN"}, `--reconnect-timeout: "NaN" is not a duration`},
		{"a negative stall timeout", []string{"--stall-timeout=-1s"}, `--stall-timeout: "-1s" is negative`},
		{"a swept rate that is not finite", []string{"sweep", "-c", "1", "--vary", "rate=10,Inf"}, `--rate: "Inf" is not a finite number`},
	} {
		t.Run(tc.name+" is refused before anything runs", func(t *testing.T) {
			args := append([]string{"run", "null"}, tc.args...)
			if tc.args[0] == "sweep" {
				args = append([]string{"sweep", "null"}, tc.args[1:]...)
			}
			refusedBeforeAnything(t, dbh(t, home, append(args, "--db", closedPG)...), tc.want)
			if _, err := os.Stat(filepath.Join(home, "results.db")); err == nil {
				t.Error("a results store was created for a refused command")
			}
		})
	}
}

// A database URL that cannot be right (a port out of range, a parameter
// its driver refuses) is a usage error, found before anything connects.
func TestABadDatabaseURLIsAUsageError(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct{ name, url, want string }{
		{"a PostgreSQL port out of range", "postgres://postgres@127.0.0.1:99999/x", "--db postgres://postgres@127.0.0.1:99999/x: port 99999 is out of range; give a port from 1 to 65535"},
		{"a MySQL port out of range", "mysql://root@127.0.0.1:99999/test", "--db mysql://root@127.0.0.1:99999/test: port 99999 is out of range"},
		{"a PostgreSQL sslmode that does not exist", "postgres://postgres@127.0.0.1/x?sslmode=bogus", "--db postgres://postgres@127.0.0.1/x?sslmode=bogus is not a valid PostgreSQL URL"},
		{"a MySQL timeout that is not a duration", "mysql://root@127.0.0.1/test?timeout=abc", `--db mysql://root@127.0.0.1/test?timeout=abc has an invalid parameter: time: invalid duration "abc"`},
	} {
		t.Run(tc.name+" is refused before connecting", func(t *testing.T) {
			for _, cmd := range [][]string{{"run", "null"}, {"init", "tpcb"}, {"check", "tpcb"}} {
				refusedBeforeAnything(t, dbh(t, home, append(cmd, "--db", tc.url)...), tc.want)
			}
		})
	}
}

// A run that measured no transaction is saved, but it is not a success:
// it exits 1 with one sentence that says so, as the README promises.
func TestARunThatMeasuredNoTransactionExitsOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, url string
		args      []string
	}{
		{"a nanosecond on SQLite", testdb.SQLite(t), []string{"-T", "1ns"}},
		{"a rate of one in a billion seconds on PostgreSQL", testdb.Postgres(t, "dbh_cli_zero"), []string{"-T", "1s", "--rate", "1e-9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			r := dbh(t, home, append([]string{"run", "null", "--db", tc.url, "-P", "0"}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if last := lines[len(lines)-1]; r.code != 1 || !regexp.MustCompile(`^dbharness: run \S+ measured no transaction: `).MatchString(last) {
				t.Fatalf("exit %d, want 1 with the sentence\n%s", r.code, r.all())
			}
			var rows []map[string]any
			if err := json.Unmarshal([]byte(dbh(t, home, "runs", "--json").stdout), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("the run is not saved: %v %v", rows, err)
			}
		})
	}
}

// A mistyped sqlite:// path is an error, not a new empty database: only
// init creates one. Nothing is created on disk, no results store either.
func TestOnlyInitCreatesASQLiteDatabase(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "typo", "bench.db")
	url := "sqlite://" + path
	want := "dbharness: --db " + url + ": the database file " + path + " does not exist; check the path, or create it with `dbharness init WORKLOAD --db " + url + "`"
	for _, args := range [][]string{
		{"run", "null", "-T", "0.2"},
		{"check", "tpcb"},
		{"sweep", "null", "-c", "1", "-T", "0.2"},
		{"sweep", "tpcb", "-c", "1", "-T", "0.2", "--vary", "mix=tpcb-like,select-only"},
	} {
		t.Run(strings.Join(args[:2], " ")+" refuses it", func(t *testing.T) {
			home := t.TempDir()
			r := dbh(t, home, append(args, "--db", url)...)
			if r.code != 1 || strings.TrimSpace(r.stderr) != want {
				t.Errorf("exit %d, want 1 and the sentence\n%s", r.code, r.all())
			}
			if _, err := os.Stat(filepath.Join(dir, "typo")); err == nil {
				t.Error("the directory was created")
			}
			if _, err := os.Stat(filepath.Join(home, "results.db")); err == nil {
				t.Error("a results store was created")
			}
		})
	}
	t.Run("init creates it, and a sweep that runs init does too", func(t *testing.T) {
		if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
			t.Fatal(r.all())
		}
		// Fixed work: beside a load of 20 a 200 ms run on SQLite measured
		// no transaction (exit 1).
		if r := dbh(t, home, "run", "tpcb", "-t", "20", "-P", "0", "--db", url); r.code != 0 {
			t.Fatal(r.all())
		}
		other := "sqlite://" + filepath.Join(dir, "swept", "bench.db")
		if r := dbh(t, home, "sweep", "tpcb", "-c", "1", "-t", "20", "--vary", "scale=1", "--db", other); r.code != 0 {
			t.Fatal(r.all())
		}
	})
}
