package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/redact"
)

// GlobalStatus samples MySQL's and MariaDB's SHOW GLOBAL STATUS: the Com_*
// statement counters, Innodb_rows_*, Innodb_data_*, Innodb_log_*,
// Innodb_buffer_pool_* and Threads_running.
type GlobalStatus struct {
	DB   db.DB
	conn db.Conn
}

// globalStatusQuery picks the families of counters the collector reports.
const globalStatusQuery = `SHOW GLOBAL STATUS WHERE Variable_name LIKE 'Com\_%' OR Variable_name LIKE 'Innodb\_rows\_%'
	OR Variable_name LIKE 'Innodb\_data\_%' OR Variable_name LIKE 'Innodb\_log\_%' OR Variable_name LIKE 'Innodb\_os\_log\_%'
	OR Variable_name LIKE 'Innodb\_buffer\_pool\_%' OR Variable_name LIKE 'Innodb\_row\_lock\_%'
	OR Variable_name LIKE 'Handler\_%'
	OR Variable_name IN ('Threads_running', 'Threads_connected', 'Questions', 'Bytes_sent', 'Bytes_received',
	'Rows_read', 'Rows_sent', 'Created_tmp_disk_tables', 'Created_tmp_tables', 'Select_scan',
	'Sort_merge_passes', 'Innodb_lsn_current', 'Innodb_checkpoint_age')`

// myGauge tells levels from counters among the status variables.
func myGauge(name string) bool {
	switch name {
	case "Threads_running", "Threads_connected", "Innodb_row_lock_current_waits", "Innodb_row_lock_time_avg",
		"Innodb_row_lock_time_max", "Innodb_checkpoint_age", "Innodb_buffer_pool_load_status",
		"Innodb_buffer_pool_dump_status", "Innodb_buffer_pool_resize_status":
		return true
	}
	return strings.HasPrefix(name, "Innodb_buffer_pool_pages_") && name != "Innodb_buffer_pool_pages_flushed" ||
		strings.HasPrefix(name, "Innodb_buffer_pool_bytes_") || strings.Contains(name, "_pending_")
}

// Name implements Sampler.
func (g *GlobalStatus) Name() string { return evidence.KindServer }

// Start implements Sampler.
func (g *GlobalStatus) Start(ctx context.Context) error {
	c, err := g.DB.Connect(ctx)
	if err != nil {
		return err
	}
	g.conn = c
	return nil
}

// Stop implements Sampler.
func (g *GlobalStatus) Stop() error {
	if g.conn != nil {
		g.conn.Close()
		g.conn = nil
	}
	return nil
}

// Describe implements Sampler.
func (g *GlobalStatus) Describe(s *evidence.Series) {
	s.Source = "SHOW GLOBAL STATUS"
	s.Describes = "database server " + g.DB.Target().String()
	s.Headlines = myHeadlines
	s.Priority = myPriority
}

// myHeadlines are the figures the report's summary singles out.
var myHeadlines = []evidence.Headline{
	{Label: "redo log {}/transaction (server-wide)", Key: "Innodb_os_log_written", Show: evidence.ShowBytesPerTx},
	{Label: "buffer pool hits {}", Key: "Innodb_buffer_pool_hit_pct", Show: evidence.ShowMeanPct},
	{Label: "threads running {}", Key: "Threads_running", Show: evidence.ShowMean},
}

// myPriority are the counters the report ranks first.
var myPriority = []string{
	"Com_commit", "Com_rollback", "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_data_fsyncs",
	"Innodb_os_log_written", "Innodb_row_lock_waits", "Innodb_rows_updated", "Innodb_rows_read",
}

// ServerSampler implements evidence.ServerEvidence: SHOW GLOBAL STATUS.
func (d *myDB) ServerSampler() evidence.Sampler { return &GlobalStatus{DB: d} }

// WaitProfiler implements evidence.ServerEvidence: performance_schema or
// the processlist (Waits), leaving out the session of server, the status
// sampler, if it runs.
func (d *myDB) WaitProfiler(_ string, server evidence.Sampler) evidence.WaitProfiler {
	w := &Waits{DB: d, Period: evidence.WaitPeriod}
	if status, ok := server.(*GlobalStatus); ok {
		w.Exclude = func(ctx context.Context) []int64 { return []int64{status.BackendID(ctx)} }
	}
	return w
}

// Sample implements Sampler.
func (g *GlobalStatus) Sample(ctx context.Context) (*evidence.Snapshot, error) {
	snap := &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	rows, err := g.conn.Query(ctx, globalStatusQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue // ON/OFF and other text
		}
		if myGauge(k) {
			snap.Gauges[k] = f
		} else {
			snap.Counters[k] = f
		}
	}
	return snap, rows.Err()
}

// Derive implements Deriver: the buffer pool hit ratio.
func (g *GlobalStatus) Derive(prev, cur *evidence.Snapshot, values map[string]float64) {
	d := func(k string) float64 { return cur.Counters[k] - prev.Counters[k] }
	req, rd := d("Innodb_buffer_pool_read_requests"), d("Innodb_buffer_pool_reads")
	if req > 0 {
		values["Innodb_buffer_pool_hit_pct"] = evidence.Round3(100 * (req - rd) / req)
	}
}

// PerfSchemaWaits reads the wait time per event from performance_schema's
// events_waits_summary_global_by_event_name and reports each interval's
// increase, in seconds. It is server-wide (all sessions), and only
// available where performance_schema is ON.
type PerfSchemaWaits struct {
	DB   db.DB
	conn db.Conn
	prev map[string]float64
}

// Method implements WaitProfiler.
func (w *PerfSchemaWaits) Method() string {
	return "performance_schema.events_waits_summary_global_by_event_name, wait time of all sessions (idle excluded)"
}

// Unit implements WaitProfiler.
func (w *PerfSchemaWaits) Unit() string { return "seconds" }

// Start implements WaitProfiler.
func (w *PerfSchemaWaits) Start(ctx context.Context) error {
	c, err := w.DB.Connect(ctx)
	if err != nil {
		return err
	}
	on, err := db.QueryInt64(ctx, c, "SELECT @@performance_schema")
	if err != nil || on == 0 {
		c.Close()
		if err != nil {
			return fmt.Errorf("performance_schema: %v", err)
		}
		return fmt.Errorf("performance_schema is OFF on this server (set performance_schema=ON in the server's configuration and restart it to get wait events)")
	}
	w.conn = c
	w.prev, err = w.read(ctx)
	if err != nil {
		c.Close()
		w.conn = nil
	}
	return err
}

func (w *PerfSchemaWaits) read(ctx context.Context) (map[string]float64, error) {
	rows, err := w.conn.Query(ctx, `SELECT EVENT_NAME, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name
		WHERE SUM_TIMER_WAIT > 0 AND EVENT_NAME <> 'idle'`)
	if err != nil {
		return nil, fmt.Errorf("performance_schema: %w", err)
	}
	defer rows.Close()
	m := map[string]float64{}
	for rows.Next() {
		var name string
		var ps float64
		if err := rows.Scan(&name, &ps); err != nil {
			return nil, err
		}
		m[name] = ps / 1e12 // picoseconds
	}
	return m, rows.Err()
}

// Cut implements WaitProfiler.
func (w *PerfSchemaWaits) Cut(ctx context.Context) (map[string]float64, error) {
	cur, err := w.read(ctx)
	if err != nil {
		return nil, err
	}
	out := evidence.WaitDeltas(w.prev, cur)
	w.prev = cur
	return out, nil
}

// Stop implements WaitProfiler.
func (w *PerfSchemaWaits) Stop() error {
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
	return nil
}

// Waits is the MySQL/MariaDB wait profile: performance_schema's wait
// time where it is ON; otherwise the session list
// (information_schema.processlist) sampled every period for the sessions on
// the target database, other than the collectors' own. Each session seen
// counts one sample: "Client:Sleep" (waiting for the harness) or
// "Command:State" (e.g. "Query:Updating", "Query:Waiting for table
// metadata lock"; "running" when the state is empty).
type Waits struct {
	DB     db.DB
	Period time.Duration
	// Exclude returns connection ids not to count (the collectors').
	Exclude func(ctx context.Context) []int64

	evidence.WaitProfiler
	// list: the first start picked the processlist, because of why (a
	// restart keeps to the first choice, so the unit never changes within
	// a run).
	list bool
	why  string
}

// Start implements WaitProfiler: it picks performance_schema or the
// processlist. Started again (after a lost connection), it keeps to its
// first choice.
func (w *Waits) Start(ctx context.Context) error {
	switch {
	case w.WaitProfiler == nil:
		ps := &PerfSchemaWaits{DB: w.DB}
		err := ps.Start(ctx)
		if err == nil {
			w.WaitProfiler = ps
			return nil
		}
		w.why, _, _ = strings.Cut(err.Error(), " (")
	case !w.list:
		return w.WaitProfiler.Start(ctx)
	}
	// The processlist; its query is made again on a restart, as the ids to
	// leave out may have changed. A session in an InnoDB lock wait counts
	// under LockWaitEvent (the processlist shows only "Updating" and the
	// like), and the sessions blocking it are read then; without the
	// PROCESS privilege, which information_schema.INNODB_TRX needs, the
	// processlist alone.
	var not string
	if w.Exclude != nil {
		for _, id := range w.Exclude(ctx) {
			not += " AND p.ID <> " + strconv.FormatInt(id, 10)
		}
	}
	// InnoDB refreshes what INNODB_TRX and INNODB_LOCK_WAITS show only
	// when nobody has read them for 100 ms: sampled every 100 ms they would
	// show the first sample's transactions all along.
	period := max(w.Period, innodbTrxIdle)
	how := fmt.Sprintf("information_schema.processlist sampled every %s for the sessions on the target database (%s)", period, w.why)
	sw := &evidence.SampledWaits{DB: w.DB, Period: period, Query: fmt.Sprintf(myWaitQuery, myLockCase, myTrxJoin, not),
		How: how + ", InnoDB lock waits from information_schema.INNODB_TRX", Blockers: myBlockers(not)}
	if err := sw.Start(ctx); err != nil {
		how := fmt.Sprintf("information_schema.processlist sampled every %s for the sessions on the target database (%s)", w.Period, w.why)
		sw = &evidence.SampledWaits{DB: w.DB, Period: w.Period, Query: fmt.Sprintf(myWaitQuery, "", "", not),
			How: fmt.Sprintf("%s; lock waits not told apart (information_schema.INNODB_TRX: %s)", how, strings.SplitN(err.Error(), "\n", 2)[0])}
		if err := sw.Start(ctx); err != nil {
			return err
		}
	}
	w.WaitProfiler, w.list = sw, true
	return nil
}

// myWaitQuery is the processlist sample: %s the join to the sessions'
// transactions, %s the event of one in a lock wait (both empty without
// them), %s the ids left out.
const myWaitQuery = `SELECT CASE %s WHEN p.COMMAND = 'Sleep' THEN 'Client:Sleep'
	ELSE CONCAT(p.COMMAND, ':', COALESCE(NULLIF(p.STATE, ''), 'running')) END
	FROM information_schema.PROCESSLIST p %s WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID()%s`

// innodbTrxIdle is the least period of a profile that reads
// INNODB_TRX: InnoDB refills that table's cache only when it has not been
// read for 100 ms (trx0i_s.cc, CACHE_MIN_IDLE_TIME_US), and the sampler's
// reads take a few milliseconds.
const innodbTrxIdle = 150 * time.Millisecond

// LockWaitEvent is the wait event of a MySQL/MariaDB session waiting for
// an InnoDB lock (INNODB_TRX's trx_state LOCK WAIT).
const LockWaitEvent = "Lock:InnoDB lock wait"

const (
	myTrxJoin  = "LEFT JOIN information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID"
	myLockCase = "WHEN t.trx_state = 'LOCK WAIT' THEN '" + LockWaitEvent + "'"
)

// myBlockerQuery lists, for the sessions on the target database waiting
// for an InnoDB lock (%s: the ids left out), the transactions that block
// them and wait on no lock themselves (InnoDB lists a waiter queued behind
// another among its blockers, beside the lock's holder), with their
// sessions, whoever's they are. Times are epochs by the
// server's clock; TIME_MS is how long the session has been in its state.
const myBlockerQuery = `SELECT b.trx_mysql_thread_id, COALESCE(bp.USER, ''), COALESCE(bp.HOST, ''), COALESCE(bp.DB, ''),
	COALESCE(bp.COMMAND, ''), COALESCE(bp.STATE, ''), COALESCE(bp.TIME_MS, 0), UNIX_TIMESTAMP(b.trx_started),
	UNIX_TIMESTAMP(NOW(6)), COALESCE(b.trx_query, bp.INFO, ''), GROUP_CONCAT(DISTINCT p.ID ORDER BY p.ID)
	FROM information_schema.INNODB_LOCK_WAITS lw
	JOIN information_schema.INNODB_TRX r ON r.trx_id = lw.requesting_trx_id
	JOIN information_schema.PROCESSLIST p ON p.ID = r.trx_mysql_thread_id
	JOIN information_schema.INNODB_TRX b ON b.trx_id = lw.blocking_trx_id
	LEFT JOIN information_schema.PROCESSLIST bp ON bp.ID = b.trx_mysql_thread_id
	WHERE p.DB = DATABASE() AND p.ID <> CONNECTION_ID() AND b.trx_state <> 'LOCK WAIT'%s
	GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`

// myBlockers reads the sessions blocking those on the target database
// (not: the ids left out, as a condition on p.ID).
func myBlockers(not string) evidence.BlockerQuery {
	q := fmt.Sprintf(myBlockerQuery, not)
	return func(ctx context.Context, c db.Conn) ([]evidence.Blocker, error) {
		rows, err := c.Query(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("information_schema.INNODB_LOCK_WAITS: %w", err)
		}
		defer rows.Close()
		var out []evidence.Blocker
		for rows.Next() {
			var b evidence.Blocker
			var user, host, command, state, query, waiting string
			var stateMs, started, now float64
			if err := rows.Scan(&b.ID, &user, &host, &b.Database, &command, &state, &stateMs, &started, &now, &query, &waiting); err != nil {
				return nil, err
			}
			b.Application = user
			if i := strings.LastIndexByte(host, ':'); i > 0 {
				if _, err := strconv.Atoi(host[i+1:]); err == nil {
					host = host[:i] // the client's port
				}
			}
			if host != "" {
				b.Application += "@" + host
			}
			b.State = myState(command, state)
			if started > 0 {
				b.XactStart = time.UnixMicro(int64(started * 1e6))
				if now > started {
					b.Held = time.Duration((now - started) * float64(time.Second))
				}
			}
			if command != "" && now > 0 {
				b.StateSince = time.UnixMicro(int64((now - stateMs/1000) * 1e6))
			}
			b.Query = evidence.ClipQuery(redact.SQL(query))
			b.Waiting = evidence.ParseIDs(waiting)
			out = append(out, b)
		}
		return out, rows.Err()
	}
}

// myState says what a blocking session does, in PostgreSQL's words where
// they fit: a session that sleeps holding its transaction's locks is
// "idle in transaction".
func myState(command, state string) string {
	switch {
	case command == "Sleep":
		return "idle in transaction"
	case command == "":
		return "unknown"
	case state == "":
		return command
	}
	return command + ": " + state
}

// Method implements WaitProfiler.
func (w *Waits) Method() string {
	if w.WaitProfiler == nil {
		return "performance_schema or information_schema.processlist"
	}
	return w.WaitProfiler.Method()
}

// Unit implements WaitProfiler.
func (w *Waits) Unit() string {
	if w.WaitProfiler == nil {
		return "samples"
	}
	return w.WaitProfiler.Unit()
}

// CutBlockers implements evidence.BlockerWatcher, where the session list
// is sampled (performance_schema's wait times name no session).
func (w *Waits) CutBlockers() ([]evidence.BlockerSeen, string) {
	if bw, ok := w.WaitProfiler.(evidence.BlockerWatcher); ok {
		return bw.CutBlockers()
	}
	return nil, ""
}

// SamplePeriod implements evidence.BlockerWatcher.
func (w *Waits) SamplePeriod() time.Duration {
	if bw, ok := w.WaitProfiler.(evidence.BlockerWatcher); ok {
		return bw.SamplePeriod()
	}
	return w.Period
}

// Stop implements WaitProfiler.
func (w *Waits) Stop() error {
	if w.WaitProfiler == nil {
		return nil
	}
	return w.WaitProfiler.Stop()
}

// BackendID is the server session id of the sampler's connection (0 before
// Start).
func (g *GlobalStatus) BackendID(ctx context.Context) int64 {
	if g.conn == nil {
		return 0
	}
	return g.conn.BackendID(ctx)
}

// The engine's optional capabilities, checked at compile time.
var (
	_ evidence.ServerEvidence       = (*myDB)(nil)
	_ evidence.Explainer            = (*myDB)(nil)
	_ db.Cataloger                  = (*myDB)(nil)
	_ db.TableSizer                 = (*myDB)(nil)
	_ evidence.PhysicalReader       = (*myDB)(nil)
	_ evidence.PhysicalStatsChanger = (*myDB)(nil)
	_ db.LoopDB                     = (*myDB)(nil)
)
