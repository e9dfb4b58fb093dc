package tpcc_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpcc"
)

// serverEngines are the engines with server-side routines.
func serverEngines(t *testing.T, name string) []testdb.Engine {
	return append(lockEngines(t, name), testdb.Engine{Name: "sqlserver", URL: testdb.SQLServer(t, name)})
}

// lockEngines are the engines with server-side routines whose lock waits
// the deadlock test can see (Babelfish has no sys.dm_exec_requests).
func lockEngines(t *testing.T, name string) []testdb.Engine {
	return []testdb.Engine{{Name: "postgres", URL: testdb.Postgres(t, name)}, {Name: "mysql", URL: testdb.MySQL(t, name)}}
}

var modes = []string{tpcc.ModeServer, tpcc.ModeClient}

// namedPopulation has more customers per district than last names (1,000),
// so that a last name may belong to several customers and the by-name
// selection of the middle one (clauses 2.5.2.2, 2.6.2.2) matters.
var namedPopulation = tpcc.Population{Items: 1000, Customers: 1200, Undelivered: 360}

// mixPopulation is small, so that concurrent clients conflict often.
var mixPopulation = tpcc.Population{Items: 1000, Customers: 300, Undelivered: 90}

func initDB(t *testing.T, d db.DB, pop tpcc.Population) {
	t.Helper()
	if err := (&tpcc.TPCC{Warehouses: 1, Population: pop}).Init(context.Background(), env(d, 1)); err != nil {
		t.Fatal(err)
	}
}

func query(t *testing.T, c db.Conn, sql string) int64 {
	t.Helper()
	n, err := db.QueryInt64(context.Background(), c, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// dump returns the rows of a query as text lines.
func dump(t *testing.T, c db.Conn, sql string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals := make([]any, len(rows.Columns()))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cols := make([]string, len(vals))
		for i, v := range vals {
			if dv, ok := v.(driver.Valuer); ok {
				v, _ = dv.Value() // pgx's numeric as its text
			}
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			cols[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(cols, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// changes dumps every column the transactions write, except the times they
// write (entry, payment and delivery dates), of every row they may touch.
func changes(t *testing.T, d db.DB, pop tpcc.Population) map[string][]string {
	c := connect(t, d)
	firstUndelivered := pop.Customers - pop.Undelivered + 1
	out := map[string][]string{}
	for name, sql := range map[string]string{
		"warehouse": "SELECT w_id, w_ytd FROM warehouse ORDER BY w_id",
		"district":  "SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM district ORDER BY d_w_id, d_id",
		"customer": "SELECT c_w_id, c_d_id, c_id, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data FROM customer " +
			"WHERE c_payment_cnt > 1 OR c_delivery_cnt > 0 ORDER BY c_w_id, c_d_id, c_id",
		"history":   "SELECT h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data FROM history ORDER BY 1, 2, 3, 4, 5, 6, 7",
		"new_order": "SELECT no_w_id, no_d_id, no_o_id FROM new_order ORDER BY 1, 2, 3",
		"orders": fmt.Sprintf("SELECT o_w_id, o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local, CASE WHEN o_entry_d IS NULL THEN 1 ELSE 0 END FROM orders "+
			"WHERE o_id >= %d ORDER BY 1, 2, 3", firstUndelivered),
		"order_line": fmt.Sprintf("SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info, "+
			"CASE WHEN ol_delivery_d IS NULL THEN 1 ELSE 0 END FROM order_line WHERE ol_o_id >= %d ORDER BY 1, 2, 3, 4", firstUndelivered),
		"stock": "SELECT s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_order_cnt > 0 ORDER BY 1, 2",
	} {
		out[name] = dump(t, c, sql)
	}
	return out
}

func connect(t *testing.T, d db.DB) db.Conn {
	t.Helper()
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sequence runs a fixed sequence of transactions on one worker in mode and
// returns how many New-Orders were drawn to roll back, how many Payments
// selected their customer by name, and the number of orders delivered.
func sequence(t *testing.T, d db.DB, mode string) (rollbacks, byName, delivered int) {
	t.Helper()
	ctx := context.Background()
	w := &tpcc.TPCC{Affinity: true, Mode: mode}
	setup(t, d, w)
	wk, err := w.NewWorker(ctx, connect(t, d), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, d)
	tw := wk.(workload.TerminalWorker)
	run := func(op, n int, after func()) {
		for i := 0; i < n; i++ {
			tw.Prepare(i, op)
			if err := tw.Do(ctx, op); err != nil {
				t.Fatalf("%s %s: %v", mode, w.Ops()[op], err)
			}
			if after != nil {
				after()
			}
		}
	}
	next := query(t, c, "SELECT sum(d_next_o_id) FROM district")
	run(tpcc.NewOrder, 250, func() {
		_, rb := tpcc.Drawn(wk)
		n := query(t, c, "SELECT sum(d_next_o_id) FROM district")
		switch {
		case rb && n != next:
			t.Fatalf("%s: a New-Order drawn to roll back committed", mode)
		case !rb && n != next+1:
			t.Fatalf("%s: a New-Order committed %d orders", mode, n-next)
		case rb:
			rollbacks++
		}
		next = n
	})
	run(tpcc.Payment, 150, func() {
		if by, _ := tpcc.Drawn(wk); by {
			byName++
		}
	})
	undelivered := query(t, c, "SELECT count(*) FROM new_order")
	run(tpcc.Delivery, 3, nil)
	delivered = int(undelivered - query(t, c, "SELECT count(*) FROM new_order"))
	run(tpcc.OrderStatus, 40, nil)
	run(tpcc.StockLevel, 40, nil)
	run(tpcc.NewOrder, 20, nil)
	return rollbacks, byName, delivered
}

func TestServerModeMakesTheChangesOfClientMode(t *testing.T) {
	t.Parallel() // each on databases of its own; SQL Server's (Babelfish) loads slowly
	for _, e := range serverEngines(t, "dbh_tpcc_same_a") {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel() // the engines' databases are their own
			url := map[string]func(testing.TB, string) string{"postgres": testdb.Postgres, "mysql": testdb.MySQL,
				"sqlserver": testdb.SQLServer}[e.Name](t, "dbh_tpcc_same_b")
			dc, ds := testdb.Open(t, e.URL), testdb.Open(t, url)
			initDB(t, dc, namedPopulation)
			initDB(t, ds, namedPopulation)
			rbC, nameC, delC := sequence(t, dc, tpcc.ModeClient)
			rbS, nameS, delS := sequence(t, ds, tpcc.ModeServer)
			if rbC == 0 || nameC == 0 || nameC == 150 {
				t.Fatalf("the sequence drew %d rollbacks and %d of 150 Payments by name: it tests too little", rbC, nameC)
			}
			if rbS != rbC || nameS != nameC {
				t.Fatalf("server mode drew %d rollbacks and %d by name, client mode %d and %d", rbS, nameS, rbC, nameC)
			}
			// Items ordered twice in one order are added up on one stock
			// row by the routines: the sequence must have some.
			dup := fmt.Sprintf("SELECT count(*) FROM (SELECT ol_o_id FROM order_line WHERE ol_o_id > %d "+
				"GROUP BY ol_w_id, ol_d_id, ol_o_id, ol_supply_w_id, ol_i_id HAVING count(*) > 1) AS x", namedPopulation.Customers)
			if n := query(t, connect(t, ds), dup); n == 0 {
				t.Errorf("no New-Order of the sequence ordered an item twice: the stock update of repeated items is untested")
			}
			if delC != 30 || delS != 30 {
				t.Errorf("3 Deliveries delivered %d orders in client mode, %d in server mode; want 30 (all ten districts each)", delC, delS)
			}
			a, b := changes(t, dc, namedPopulation), changes(t, ds, namedPopulation)
			for table, rows := range a {
				other := b[table]
				if len(rows) != len(other) {
					t.Errorf("%s: %d rows changed in client mode, %d in server mode", table, len(rows), len(other))
					continue
				}
				for i := range rows {
					if rows[i] != other[i] {
						t.Errorf("%s differs:\n client %s\n server %s", table, rows[i], other[i])
						break
					}
				}
			}
			checkAll(t, dc, "after the client sequence")
			checkAll(t, ds, "after the server sequence")
		})
	}
}

// counting wraps a tpcc runner to count, from the drawn input data, the
// New-Orders meant to roll back and the Payments by last name.
type counting struct {
	*tpcc.TPCC
	newOrders, rollbacks, payments, byName atomic.Int64
}

func (c *counting) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk, err := c.TPCC.NewWorker(ctx, conn, id)
	return &countingWorker{Worker: wk, c: c}, err
}

type countingWorker struct {
	workload.Worker
	c *counting
}

func (w *countingWorker) Next() int {
	op := w.Worker.Next()
	by, rb := tpcc.Drawn(w.Worker)
	switch op {
	case tpcc.NewOrder:
		w.c.newOrders.Add(1)
		if rb {
			w.c.rollbacks.Add(1)
		}
	case tpcc.Payment:
		w.c.payments.Add(1)
		if by {
			w.c.byName.Add(1)
		}
	}
	return op
}

// withinSampling reports whether k of n is within 4.5 standard deviations
// of the share p (a binomial draw far out only with a broken draw).
func withinSampling(k, n int64, p float64) bool {
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	return math.Abs(float64(k)-mean) <= 4.5*sd+0.5
}

func TestTheMixRunsInBothModes(t *testing.T) {
	t.Parallel() // each on databases of its own; SQL Server's (Babelfish) loads slowly
	ctx := context.Background()
	for _, e := range serverEngines(t, "dbh_tpcc_mix") {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel() // the engines' databases are their own
			d := testdb.Open(t, e.URL)
			initDB(t, d, mixPopulation)
			c := connect(t, d)
			for _, mode := range modes {
				t.Run(mode+" mode: the mix keeps every condition, HammerDB's NOPM is ours", func(t *testing.T) {
					w := &counting{TPCC: &tpcc.TPCC{Affinity: true, Mode: mode}}
					setup(t, d, w.TPCC)
					orders := query(t, c, "SELECT count(*) FROM orders")
					pc := connect(t, d)
					if err := w.MeasureStart(ctx, pc); err != nil {
						t.Fatal(err)
					}
					res, err := loadgen.Run(ctx, d, w, resolved(t, d, loadgen.Config{Clients: 3, Transactions: 300, MaxTries: 10,
						Interval: 200 * time.Millisecond, Seed: 23}), nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					if e.Name == "postgres" {
						clientsGone(t, pc, c)
					}
					if err := w.MeasureEnd(ctx, pc); err != nil {
						t.Fatal(err)
					}
					commits := map[string]int64{}
					for _, op := range res.Ops {
						commits[op.Name] = op.Hist.TotalCount()
						if op.Errors > 0 {
							t.Errorf("%s: %d errors: %v %v", op.Name, op.Errors, res.ErrorClasses, res.ErrorSamples)
						}
					}
					m, err := w.AfterRun(ctx, env(d, 23), nil, workload.Totals{Commits: commits, Seconds: res.Seconds(),
						MeasureStart: res.MeasureStart, End: res.End})
					// Babelfish has no performance counters: hammerdb_tpm is
					// not measured, and the error says so.
					notMeasured := err != nil && strings.Contains(err.Error(), "hammerdb_tpm not measured: the server's transaction counter cannot be read: ")
					// Other tests drop and re-create their databases on the
					// shared server meanwhile: a name whose counter went down
					// is said so in the error, and the figure is still given.
					othersReset := err != nil && strings.Contains(err.Error(), "other database(s) only from when their statistics were reset")
					if err != nil && !strings.Contains(err.Error(), "went down") && !notMeasured && !othersReset {
						t.Fatal(err)
					}
					t.Logf("%s: %d transactions, %d retries, metrics %v", mode, 900, sumRetries(res), m)
					checkAll(t, d, "after the "+mode+" mix")

					// Every New-Order drawn to roll back rolled back in the
					// database, and no other; the harness counted them.
					no := commits["new_order"]
					committed := query(t, c, "SELECT count(*) FROM orders") - orders
					if rb := w.rollbacks.Load(); no-committed != rb || w.newOrders.Load() != no {
						t.Errorf("%d New-Orders completed, %d committed: %d rolled back, but %d were drawn to (of %d drawn)",
							no, committed, no-committed, rb, w.newOrders.Load())
					}
					mins := res.Seconds() / 60
					if got := math.Round((m["tpmc"] - m["nopm"]) * mins); int64(got) != no-committed {
						t.Errorf("tpmc - nopm is %.0f New-Orders rolled back, the database says %d", got, no-committed)
					}
					if m["hammerdb_nopm"] != m["nopm"] {
						t.Errorf("hammerdb_nopm %.1f, nopm %.1f: without warm-up the change of sum(d_next_o_id) is the count of committed New-Orders",
							m["hammerdb_nopm"], m["nopm"])
					}
					// HammerDB's TPM where the engine counts the server's
					// transactions and the server has the counter.
					if _, ok := m["hammerdb_tpm"]; ok != (d.Caps().ServerXacts != "" && !notMeasured) && (err == nil || notMeasured || othersReset) {
						t.Errorf("hammerdb_tpm given %v, the engine's server counters %q: %v (%v)", ok, d.Caps().ServerXacts, m, err)
					}
					if notMeasured != (e.Name == "sqlserver" && babelfish(t, d)) {
						t.Errorf("hammerdb_tpm not measured: %v, on %s", notMeasured, e.Name)
					}
					if e.Name == "postgres" && m["server_tpm"] < 0.9*m["tpm"] {
						t.Errorf("server_tpm %.1f is below the completed transactions, tpm %.1f", m["server_tpm"], m["tpm"])
					}
					// The shares of clauses 2.4.1.4 (1%) and 2.5.1.2 (60%).
					if rb, n := w.rollbacks.Load(), w.newOrders.Load(); !withinSampling(rb, n, 0.01) {
						t.Errorf("%d of %d New-Orders rolled back, far from 1%%", rb, n)
					}
					if by, n := w.byName.Load(), w.payments.Load(); !withinSampling(by, n, 0.6) {
						t.Errorf("%d of %d Payments by last name, far from 60%%", by, n)
					}
				})
			}
			for _, mode := range modes {
				t.Run(mode+" mode: tpcc-ro augmented runs both read-only transactions", func(t *testing.T) {
					w := &tpcc.TPCC{RO: true, Augmented: true, Affinity: true, Mode: mode}
					setup(t, d, w)
					res, err := loadgen.Run(ctx, d, w, resolved(t, d, loadgen.Config{Clients: 2, Transactions: 50, MaxTries: 1,
						Interval: 100 * time.Millisecond, Seed: 8}), nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, op := range res.Ops {
						if op.Hist.TotalCount() == 0 || op.Errors > 0 {
							t.Errorf("%s: %d done, %d errors %v", op.Name, op.Hist.TotalCount(), op.Errors, res.ErrorSamples)
						}
					}
				})
			}
		})
	}
}

// clientsGone waits until the run's sessions, every session of pc's
// database but pc's and c's, have ended on the PostgreSQL server: a session
// publishes the last of its transaction counts as it ends, a moment after
// its client has gone, and on a busy machine that moment can outlast the
// wait of MeasureEnd, which stops when the counts hold still for 50 ms.
func clientsGone(t *testing.T, pc, c db.Conn) {
	t.Helper()
	testdb.AwaitInt64(t, pc, 0, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND pid <> $1`, c.BackendID(context.Background()))
}

func sumRetries(res *loadgen.Result) int64 {
	var n int64
	for _, op := range res.Ops {
		n += op.Retries
	}
	return n
}

// only runs one transaction type, for terminal 0 (warehouse 1).
type only struct {
	*tpcc.TPCC
	op int
}

func (o *only) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk, err := o.TPCC.NewWorker(ctx, conn, id)
	if err != nil {
		return nil, err
	}
	return &onlyWorker{TerminalWorker: wk.(workload.TerminalWorker), op: o.op}, nil
}

type onlyWorker struct {
	workload.TerminalWorker
	op int
}

func (w *onlyWorker) Next() int {
	w.Prepare(0, w.op)
	return w.op
}

// lockWaiters counts the sessions of the test database, other than the
// session whose pid or connection id is $1, waiting for a row lock. On
// MariaDB that is a session executing an UPDATE of a district, which only a
// lock can make last; it must be executing it (Query or Execute), not
// preparing it: the Payment's connection prepares its statements, UPDATE
// district among them, before its first transaction, and a probe that took
// that for the wait let the other session take the warehouse first. The
// other session is left out because its own UPDATE of the districts can
// stay listed for a moment after it returned. (InnoDB's own view of lock
// waits, information_schema.innodb_trx, is a cache that is not refreshed
// while it is read more often than every 100 ms.)
var lockWaiters = map[string]string{
	"postgres": "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1",
	"mysql": "SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE() AND command IN ('Query', 'Execute')" +
		" AND info LIKE 'UPDATE district%' AND id <> $1",
}

// sessionID is the server's id of c's session (lockWaiters' $1).
var sessionID = map[string]string{"postgres": "SELECT pg_backend_pid()", "mysql": "SELECT CONNECTION_ID()"}

// TestDeadlocksAreRetriedInBothModes makes a Payment deadlock: another
// session holds the warehouse's districts while the Payment holds the
// warehouse and waits for its district, then asks for the warehouse. The
// Payment is the victim (PostgreSQL: its deadlock check comes first, after
// the server's deadlock_timeout, while the other session's comes after a
// minute; InnoDB: it changed fewer rows), its error reaches the driver as
// a deadlock, and the retry succeeds once the other session has rolled
// back.
func TestDeadlocksAreRetriedInBothModes(t *testing.T) {
	t.Parallel() // each on databases of its own; SQL Server's (Babelfish) loads slowly
	ctx := context.Background()
	for _, e := range lockEngines(t, "dbh_tpcc_deadlock") {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel() // the engines' databases are their own
			d := testdb.Open(t, e.URL)
			initDB(t, d, mixPopulation)
			for _, mode := range modes {
				t.Run(mode+" mode", func(t *testing.T) {
					w := &only{TPCC: &tpcc.TPCC{Affinity: true, Mode: mode}, op: tpcc.Payment}
					setup(t, d, w.TPCC)
					x, probe := connect(t, d), connect(t, d)
					if e.Name == "postgres" {
						// PostgreSQL's victim is the session whose deadlock
						// check runs first. That the Payment waited first is
						// not enough on a busy machine (its check ran late
						// and the other session lost): the other session
						// checks only after a minute.
						if err := x.Exec(ctx, "SET deadlock_timeout = '60s'"); err != nil {
							t.Fatal(err)
						}
					}
					for _, s := range []string{d.Caps().BeginWrite, "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1"} {
						if err := x.Exec(ctx, s); err != nil {
							t.Fatal(err)
						}
					}
					type out struct {
						res *loadgen.Result
						err error
					}
					done := make(chan out, 1)
					go func() {
						res, err := loadgen.Run(ctx, d, w, resolved(t, d, loadgen.Config{Clients: 1, Transactions: 1, MaxTries: 5,
							Interval: 100 * time.Millisecond, Seed: 3}), nil, nil)
						done <- out{res, err}
					}()
					xid := query(t, x, sessionID[e.Name])
					waiting := func() bool {
						n, err := db.QueryInt64(ctx, probe, lockWaiters[e.Name], xid)
						if err != nil {
							t.Fatal(err)
						}
						return n > 0
					}
					for deadline := time.Now().Add(60 * time.Second); !waiting(); {
						if time.Now().After(deadline) {
							t.Fatal("the Payment never waited for its district")
						}
						time.Sleep(10 * time.Millisecond)
					}
					if err := x.Exec(ctx, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1"); err != nil {
						t.Fatalf("the other session lost the deadlock instead of the Payment: %v", err)
					}
					if err := x.Exec(ctx, "ROLLBACK"); err != nil {
						t.Fatal(err)
					}
					o := <-done
					if o.err != nil {
						t.Fatal(o.err)
					}
					p := o.res.Ops[tpcc.Payment]
					if p.Hist.TotalCount() != 1 || p.Errors != 0 || p.Retries < 1 {
						t.Fatalf("Payment: %d done, %d errors, %d retries (%v); want 1 done after a retry",
							p.Hist.TotalCount(), p.Errors, p.Retries, o.res.ErrorSamples)
					}
					checkAll(t, d, "after the deadlock")
				})
			}
		})
	}
}

func TestInitCreatesTheRoutinesAndServerModeNeedsThem(t *testing.T) {
	t.Parallel() // each on databases of its own; SQL Server's (Babelfish) loads slowly
	ctx := context.Background()
	drop := map[string]string{"postgres": "DROP FUNCTION", "mysql": "DROP PROCEDURE", "sqlserver": "DROP PROCEDURE"}
	for _, e := range serverEngines(t, "dbh_tpcc_routines") {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel() // the engines' databases are their own
			d := testdb.Open(t, e.URL)
			initDB(t, d, mixPopulation)
			c := connect(t, d)
			exec := func(sql string) {
				t.Helper()
				if err := c.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			setupErr := func(mode string) error {
				pc := connect(t, d)
				return (&tpcc.TPCC{Mode: mode}).Setup(ctx, env(d, 1), pc)
			}
			t.Run("a database loaded without them names the init to run", func(t *testing.T) {
				exec(drop[e.Name] + " tpcc_payment")
				exec(drop[e.Name] + " tpcc_routines_version")
				err := setupErr(tpcc.ModeServer)
				if err == nil || !strings.Contains(err.Error(), "run `dbharness init tpcc --routines-only --db ") ||
					!strings.Contains(err.Error(), "--mode client") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("setup in server mode without the routines: %v", err)
				}
				if err := setupErr(tpcc.ModeClient); err != nil {
					t.Fatalf("client mode needs no routines: %v", err)
				}
			})
			t.Run("init --routines-only creates them on the loaded tables", func(t *testing.T) {
				if err := (&tpcc.TPCC{Warehouses: 1, RoutinesOnly: true}).Init(ctx, env(d, 1)); err != nil {
					t.Fatal(err)
				}
				if err := setupErr(tpcc.ModeServer); err != nil {
					t.Fatal(err)
				}
				oneOfEach(t, d)
			})
			t.Run("init replaces a routine that is there", func(t *testing.T) {
				exec(drop[e.Name] + " tpcc_payment")
				initDB(t, d, mixPopulation)
				oneOfEach(t, d)
				checkAll(t, d, "after the routines were recreated")
			})
		})
	}
}

// oneOfEach runs each transaction type once in server mode.
func oneOfEach(t *testing.T, d db.DB) {
	t.Helper()
	w := &tpcc.TPCC{Affinity: true, Mode: tpcc.ModeServer}
	setup(t, d, w)
	everyTransactionOf(t, d, w)
}

func TestSQLiteHasNoRoutinesAndRunsClientMode(t *testing.T) {
	t.Parallel() // each on databases of its own; SQL Server's (Babelfish) loads slowly
	ctx := context.Background()
	d := testdb.Open(t, testdb.SQLite(t))
	initDB(t, d, smallPopulation)
	var notes []string
	e := env(d, 1)
	e.Note = func(m string) { notes = append(notes, m) }
	w := &tpcc.TPCC{Affinity: true, Mode: tpcc.ModeServer}
	if err := w.Setup(ctx, e, connect(t, d)); err != nil {
		t.Fatal(err)
	}
	if w.Mode != tpcc.ModeClient || len(notes) != 1 || !strings.Contains(notes[0], "sqlite has no server-side functions or procedures; running --mode client") {
		t.Fatalf("mode %s, notes %q", w.Mode, notes)
	}
	everyTransactionOf(t, d, w)
	err := (&tpcc.TPCC{Warehouses: 1, RoutinesOnly: true}).Init(ctx, env(d, 1))
	if err == nil || !strings.Contains(err.Error(), "sqlite has no server-side functions or procedures to create") {
		t.Fatalf("init --routines-only on SQLite: %v", err)
	}
}

// everyTransactionOf runs each transaction type once on a worker of w.
func everyTransactionOf(t *testing.T, d db.DB, w *tpcc.TPCC) {
	t.Helper()
	wk, err := w.NewWorker(context.Background(), connect(t, d), 0)
	if err != nil {
		t.Fatal(err)
	}
	tw := wk.(workload.TerminalWorker)
	for op := range w.Ops() {
		tw.Prepare(0, op)
		if err := tw.Do(context.Background(), op); err != nil {
			t.Fatalf("%s: %v", w.Ops()[op], err)
		}
	}
}

// resolved is cfg with the driver `dbharness run` picks for d: the event
// loop on PostgreSQL.
func resolved(t *testing.T, d db.DB, cfg loadgen.Config) loadgen.Config {
	t.Helper()
	if err := loadgen.ResolveDriver(d, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// babelfish says whether d's server is Babelfish.
func babelfish(t *testing.T, d db.DB) bool {
	t.Helper()
	info, err := d.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return info.Engine == "babelfish"
}
