package mysql_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/mysql"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

// mysqlStatus opens url with a table t and starts a GlobalStatus sampler
// on it, stopped when the test ends.
func mysqlStatus(t *testing.T, url string) (db.DB, db.Conn, *mysql.GlobalStatus) {
	t.Helper()
	d, c := testdb.Connect(t, url)
	testdb.Exec(t, c, "CREATE TABLE t (id int PRIMARY KEY, pad varchar(200)) ENGINE=InnoDB")
	g := &mysql.GlobalStatus{DB: d}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Stop() })
	return d, c, g
}

func TestTheMySQLCollectorsReadGlobalStatus(t *testing.T) {
	d, c, g := mysqlStatus(t, testdb.MySQL(t, "dbh_ev_mystat"))
	ctx := context.Background()
	a, err := g.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		testdb.Exec(t, c, "INSERT INTO t VALUES ("+strconv.Itoa(i)+", repeat('x', 150))")
	}
	b, err := g.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pt := evidence.NewPoint(g, a, b)
	for _, k := range []string{"Com_insert", "Innodb_log_writes", "Innodb_buffer_pool_write_requests"} {
		if pt.Rates[k] <= 0 {
			t.Errorf("%s did not move: %+v", k, pt.Rates)
		}
	}
	// MySQL counts rows in Innodb_rows_*, MariaDB in Handler_*.
	if pt.Rates["Innodb_rows_inserted"] <= 0 && pt.Rates["Handler_write"] <= 0 {
		t.Errorf("no row counter moved: %+v", pt.Rates)
	}
	if pt.Values["Threads_running"] < 1 {
		t.Errorf("Threads_running is not a gauge: %+v", pt.Values)
	}
	checkMySQLWaits(t, d, c, g, -1)
}

// The machine's MariaDB has performance_schema OFF: a private server
// started with it ON gives wait times per event.
func TestTheMySQLWaitProfileReadsPerformanceSchemaWhereItIsOn(t *testing.T) {
	d, c, g := mysqlStatus(t, testdb.MariaDBWithPerformanceSchema(t))
	checkMySQLWaits(t, d, c, g, 1)
}

// checkMySQLWaits measures the wait profile over a SLEEP and some writes on
// c. want is the server's performance_schema (1 ON, 0 OFF), or -1 for
// whichever it is.
func checkMySQLWaits(t *testing.T, d db.DB, c db.Conn, g *mysql.GlobalStatus, want int64) {
	t.Helper()
	ctx := context.Background()
	on, err := db.QueryInt64(ctx, c, "SELECT @@performance_schema")
	if err != nil {
		t.Fatal(err)
	}
	if want >= 0 && on != want {
		t.Fatalf("performance_schema is %d, want %d", on, want)
	}
	w := &mysql.Waits{DB: d, Period: 20 * time.Millisecond, Exclude: func(ctx context.Context) []int64 { return []int64{g.BackendID(ctx)} }}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := w.Cut(ctx); err != nil {
		t.Fatal(err)
	}
	testdb.Exec(t, c, "SELECT SLEEP(0.3)")
	if on == 1 {
		// Table I/O waits for performance_schema (between these
		// statements c is idle, which the session list would count).
		for i := 100; i < 130; i++ {
			testdb.Exec(t, c, "INSERT INTO t VALUES ("+strconv.Itoa(i)+", repeat('x', 150))")
		}
	}
	cut, err := w.Cut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The session list is sampled every 20 ms on its own goroutine, which a
	// busy machine can hold back: sleep again until the profile has a few
	// samples of the SLEEP.
	for deadline := time.Now().Add(time.Minute); on == 0 && cut["Query:User sleep"] < 3 && time.Now().Before(deadline); {
		testdb.Exec(t, c, "SELECT SLEEP(0.3)")
		more, err := w.Cut(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for e, n := range more {
			cut[e] += n
		}
	}
	if on == 0 {
		// The session list: c slept in a query; the status sampler's own
		// session is not counted.
		if !strings.Contains(w.Method(), "processlist") || !strings.Contains(w.Method(), "performance_schema is OFF") {
			t.Errorf("method: %s", w.Method())
		}
		if cut["Query:User sleep"] < 3 {
			t.Errorf("the session's SLEEP was not sampled: %+v", cut)
		}
		// The status sampler's session idles all along: counted, it would
		// be sampled as often as the SLEEP. The test's own session idles
		// only around its statements, a sample or two on a busy machine.
		if cut["Client:Sleep"] >= cut["Query:User sleep"]/2 {
			t.Errorf("the collector's own idle session is counted: %+v", cut)
		}
		return
	}
	if !strings.Contains(w.Method(), "performance_schema.events_waits_summary_global_by_event_name") || w.Unit() != "seconds" {
		t.Errorf("method %q, unit %q", w.Method(), w.Unit())
	}
	// The inserts wait on table I/O (instrumented by default); the
	// idle wait of the sleeping session is left out.
	var total float64
	for e, v := range cut {
		if v < 0 || e == "idle" {
			t.Errorf("wait %q: %g", e, v)
		}
		total += v
	}
	if total <= 0 || cut["wait/io/table/sql/handler"] <= 0 {
		t.Errorf("performance_schema waits: %+v", cut)
	}
}
