package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// The test's own session holds a row lock that every client of the run
// needs, for a while, then releases it: the run names that session (its
// pid, application, state and statement) in its JSON and its summary,
// on both engines (issue 38: "[8 waiting]" and "Lock:tuple 40.5%" showed,
// but not who held the lock).
func TestTheSessionHoldingALockTheClientsWaitOnIsNamed(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			needBinary(t)
			ctx := context.Background()
			home := t.TempDir()
			var url string
			if engine == "postgres" {
				url = testdb.Postgres(t, "dbh_blocker")
			} else {
				url = testdb.MySQL(t, "dbh_blocker")
			}
			d, c := testdb.Connect(t, url)
			testdb.Exec(t, c, "CREATE TABLE blk (id int PRIMARY KEY, v int NOT NULL)", "INSERT INTO blk VALUES (1, 0)")
			// The holder: on PostgreSQL with application_name lock_holder.
			if tg, ok := d.(db.Tagger); ok {
				tg.Tag("lock_holder")
			}
			h, err := d.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			testdb.Exec(t, h, "BEGIN", "UPDATE blk SET v = v + 1 WHERE id = 1")
			pid := h.BackendID(ctx)
			script := filepath.Join(home, "bump.sql")
			if err := os.WriteFile(script, []byte("UPDATE blk SET v = v + 1 WHERE id = 1;\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(home, "run.json")
			done := make(chan result, 1)
			go func() {
				done <- dbh(t, home, "run", "--script", script, "--db", url, "-c", "3", "-t", "2", "--json", out)
			}()
			// Wait until the three clients wait on the row, then hold it
			// while the wait profile samples them (every 100 ms).
			waiting := "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
			if engine == "mysql" {
				// Not INNODB_TRX: polled, its cache would stay stale (it is
				// refilled only after 100 ms without a read).
				waiting = "SELECT count(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND STATE = 'Updating' AND INFO LIKE 'UPDATE blk%'"
			}
			testdb.AwaitInt64(t, c, 3, waiting)
			if engine == "mysql" {
				// MariaDB shows no statement of an idle session: the holder
				// runs one while it holds the row.
				testdb.Exec(t, h, "SELECT SLEEP(2)")
			} else {
				time.Sleep(2 * time.Second)
			}
			testdb.Exec(t, h, "COMMIT")
			r := <-done
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s", r.code, r.all())
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var run results.Run
			if err := json.Unmarshal(b, &run); err != nil {
				t.Fatal(err)
			}
			if run.Waits == nil || len(run.Waits.Blockers) == 0 {
				t.Fatalf("no blocker in the run's JSON: %+v\n%s", run.Waits, r.stderr)
			}
			bl := run.Waits.Blockers[0]
			app, state, query := "lock_holder", "idle in transaction", "UPDATE blk SET v = v + 1 WHERE id = 1"
			if engine == "mysql" {
				app, state, query = "root@", "Query: User sleep", "SELECT SLEEP(2)"
			}
			if bl.Query == "COMMIT" && (engine == "postgres" && bl.State == "active" || engine == "mysql" && bl.State == "Query: Commit") {
				// On a busy host the last sample that saw the clients wait
				// can find the holder already running its COMMIT: a true
				// state, and the statement it runs is that COMMIT (seen on
				// MariaDB in the suite beside two CPU hogs).
				state, query = bl.State, bl.Query
			}
			if bl.PID != pid || !strings.HasPrefix(bl.Application, app) || bl.Query != query || len(bl.Waiting) != 3 ||
				bl.XactStart == nil || bl.WaitedSeconds <= 0 || bl.BlockingSeconds <= 0 || bl.WaitedSeconds < bl.BlockingSeconds {
				t.Errorf("the blocker is not the holder (pid %d, %s, %q) blocking 3 clients: %+v", pid, app, query, bl)
			}
			// Its state, as the last sample that saw it block found it:
			// on MariaDB, the holder sleeps, then idles a moment, then
			// commits (on a busy host a sample can find it committing
			// while the clients still wait).
			if bl.State != state && (engine == "postgres" || (bl.State != "idle in transaction" && bl.State != "Query: Commit")) {
				t.Errorf("state %q, want %q", bl.State, state)
			}
			who := "on a lock held by pid " + strconv.FormatInt(pid, 10) + " (application " + bl.Application + ", " + bl.State + " since "
			if s := r.all(); !strings.Contains(s, "3 clients waited ") || !strings.Contains(s, who) || !strings.Contains(s, "): "+query+"\n") {
				t.Errorf("the summary does not name the holder (%q):\n%s", who, r.all())
			}
		})
	}
}
