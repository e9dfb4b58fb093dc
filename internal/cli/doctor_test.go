package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/cli"
	"github.com/dbharness/dbharness/internal/testdb"
)

// doctorDoc is `doctor --json`'s document as a CI job would read it.
type doctorDoc struct {
	Status string `json:"status"`
	Target string `json:"target"`
	Checks []struct {
		Section, Name, Status, Value, Advice string
	} `json:"checks"`
}

// readDoctor parses `doctor --json` and holds it to its documented shape:
// the exit code follows the status (1 on any warning, else 0), and a
// warning, and only a warning, says what to change. The host may be busy,
// so its checks' statuses are not asserted.
func readDoctor(t *testing.T, r result) (doctorDoc, map[string]string) {
	t.Helper()
	var doc doctorDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.all())
	}
	status := map[string]string{}
	warned := false
	for _, c := range doc.Checks {
		status[c.Section+"/"+c.Name] = c.Status
		switch {
		case c.Section != "host" && c.Section != "server", c.Name == "", c.Value == "":
			t.Errorf("check %+v", c)
		case c.Status != "ok" && c.Status != "warn" && c.Status != "info":
			t.Errorf("status %q: %+v", c.Status, c)
		case (c.Status == "warn") != (c.Advice != ""):
			t.Errorf("a warning, and only a warning, says what to change: %+v", c)
		}
		warned = warned || c.Status == "warn"
	}
	for _, h := range []string{"load", "cpu", "cpu governor", "transparent huge pages", "swap", "clock source"} {
		if status["host/"+h] == "" {
			t.Errorf("no host check %q: %s", h, r.stdout)
		}
	}
	want, code := "ok", cli.ExitOK
	if warned {
		want, code = "warn", cli.ExitFail
	}
	if doc.Status != want || r.code != code {
		t.Errorf("status %q and exit %d with warnings %v, want %q and %d\n%s", doc.Status, r.code, warned, want, code, r.all())
	}
	return doc, status
}

// TestDoctorOnPostgreSQL checks a database of the real server, then the
// same with synchronous_commit set off for it (as its sessions see it) and
// more clients than max_connections allows: those two warn, exit 1.
func TestDoctorOnPostgreSQL(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_cli_doctor")
	doc, st := readDoctor(t, dbh(t, home, "doctor", "--db", url, "--json"))
	for _, name := range []string{"version", "fsync", "synchronous_commit", "full_page_writes", "max_connections", "data in memory"} {
		if st["server/"+name] != "ok" {
			t.Errorf("%s on the shared server: %q\n%+v", name, st["server/"+name], doc)
		}
	}
	for _, name := range []string{"shared_buffers", "autovacuum"} {
		if st["server/"+name] == "" {
			t.Errorf("no check %s: %+v", name, doc)
		}
	}
	if doc.Target != url {
		t.Errorf("target %q, want %q", doc.Target, url)
	}

	_, c := testdb.Connect(t, url)
	if err := c.Exec(context.Background(), "ALTER DATABASE "+url[strings.LastIndex(url, "/")+1:]+" SET synchronous_commit = off"); err != nil {
		t.Fatal(err)
	}
	r := dbh(t, home, "doctor", "--db", url, "--json", "--clients", "100000")
	doc, st = readDoctor(t, r)
	if st["server/synchronous_commit"] != "warn" || st["server/max_connections"] != "warn" || doc.Status != "warn" || r.code != cli.ExitFail {
		t.Errorf("synchronous_commit off and 100000 clients: exit %d %+v", r.code, doc)
	}
	// The text: a line each, the warning's advice under it.
	r = dbh(t, home, "doctor", "--db", url)
	if r.code != cli.ExitFail || !strings.Contains(r.stdout, "server "+url+"\n") ||
		!strings.Contains(r.stdout, "  WARN  synchronous_commit              off\n        commits return before") ||
		!strings.Contains(r.stdout, "  OK    fsync ") || !strings.Contains(r.stdout, "warning") {
		t.Errorf("doctor's text: exit %d\n%s", r.code, r.all())
	}
}

func TestDoctorOnMariaDB(t *testing.T) {
	t.Parallel()
	url := testdb.MySQL(t, "dbh_cli_doctor")
	doc, st := readDoctor(t, dbh(t, t.TempDir(), "doctor", "--db", url, "--json"))
	for _, name := range []string{"version", "innodb_flush_log_at_trx_commit", "sync_binlog", "innodb_buffer_pool_size", "max_connections", "data in memory"} {
		if st["server/"+name] == "" {
			t.Errorf("no check %s: %+v", name, doc)
		}
	}
	if st["server/max_connections"] != "ok" || st["server/data in memory"] != "ok" {
		t.Errorf("a new database and one client: %+v", doc)
	}
}

// TestDoctorExitCodes: a mistake on the command line is exit 2 in one
// sentence; a server that cannot be reached is a warning (exit 1) that
// says so; without --db only the host is checked.
func TestDoctorExitCodes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, args := range [][]string{
		{"doctor", "--bogus"},
		{"doctor", "--db", "nosuch://x"},
		{"doctor", "extra"},
		{"doctor", "--clients", "0"},
	} {
		r := dbh(t, home, args...)
		if r.code != cli.ExitUsage || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.HasPrefix(r.stderr, "dbharness: ") {
			t.Errorf("%v: exit %d, want 2 and one line\n%s", args, r.code, r.all())
		}
	}
	r := dbh(t, home, "doctor", "--db", "postgres://postgres@127.0.0.1:1/postgres", "--json")
	doc, st := readDoctor(t, r)
	if st["server/connection"] != "warn" || r.code != cli.ExitFail || !strings.Contains(doc.Checks[len(doc.Checks)-1].Value, "connection refused") {
		t.Errorf("an unreachable server: exit %d\n%s", r.code, r.all())
	}
	r = dbhEnv(t, bin, []string{"DBHARNESS_DB="}, home, "doctor", "--json")
	doc, _ = readDoctor(t, r)
	for _, c := range doc.Checks {
		if c.Section != "host" {
			t.Errorf("doctor without --db checked %+v", c)
		}
	}
	r = dbh(t, home, "doctor", "--help")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "--clients") {
		t.Errorf("doctor --help: exit %d\n%s", r.code, r.all())
	}
}

// TestRunRecordsTheHostPreflight: a run records the host's checks as its
// doctor and prints each warning among them; --no-doctor records none.
func TestRunRecordsTheHostPreflight(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.SQLite(t)
	for _, noDoctor := range []bool{false, true} {
		out := filepath.Join(home, "run.json")
		args := []string{"run", "null", "--db", url, "-t", "50", "-P", "0", "--no-save", "--json", out}
		if noDoctor {
			args = append(args, "--no-doctor")
		}
		r := dbh(t, home, args...)
		if r.code != cli.ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.all())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var run struct {
			Doctor []struct{ Section, Name, Status, Value, Advice string } `json:"doctor"`
		}
		if err := json.Unmarshal(b, &run); err != nil {
			t.Fatal(err)
		}
		if noDoctor {
			if run.Doctor != nil || strings.Contains(string(b), `"doctor"`) {
				t.Errorf("--no-doctor recorded %s", b)
			}
			continue
		}
		if len(run.Doctor) != 6 {
			t.Fatalf("the run's doctor: %+v", run.Doctor)
		}
		for _, c := range run.Doctor {
			line := "dbharness: warning: " + c.Name + ": " + c.Value + ": " + c.Advice + "\n"
			if c.Section != "host" {
				t.Errorf("the run recorded a server check %+v", c)
			}
			if (c.Status == "warn") != strings.Contains(r.stderr, line) {
				t.Errorf("%+v: printed %v\n%s", c, strings.Contains(r.stderr, line), r.stderr)
			}
		}
	}
}
