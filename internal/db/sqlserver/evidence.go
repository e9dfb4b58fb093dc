package sqlserver

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/redact"
)

// The server's evidence comes from SQL Server's dynamic management views,
// written from their documentation (Microsoft Learn, "System dynamic
// management views"). Each needs VIEW SERVER STATE. A server that speaks
// TDS without them (Babelfish has none of these) gives the run a "not
// measured" line per source, with the server's own error.

// dmvSource is one DMV the server sampler reads: read adds its counters
// and gauges to a snapshot.
type dmvSource struct {
	name string
	read func(ctx context.Context, c db.Conn, snap *evidence.Snapshot) error
}

// dmvSources are the server sampler's sources, in the order they are
// read.
var dmvSources = []dmvSource{
	{"sys.dm_os_performance_counters", readPerfCounters},
	{"sys.dm_os_spinlock_stats", readSpinlocks},
	{"sys.dm_io_virtual_file_stats", readFileStats},
}

// DMVs samples SQL Server's counters: the performance counters of
// sys.dm_os_performance_counters (Batch Requests/sec, Log Bytes
// Flushed/sec, Page Splits/sec, ...), the spinlocks of
// sys.dm_os_spinlock_stats and the target database's file I/O from
// sys.dm_io_virtual_file_stats. Start probes each source once; those the
// server lacks are left out and named in the series' unavailable parts.
type DMVs struct {
	DB      db.DB
	conn    db.Conn
	sources []dmvSource
	unav    []string
}

// Name implements Sampler.
func (s *DMVs) Name() string { return evidence.KindServer }

// Start implements Sampler: it opens the sampler's connection and reads
// each source once. A source that fails is not read again: its error is
// kept, on one line, as why it is not measured. The collector starts the
// sampler again after its connection was lost, which probes again.
func (s *DMVs) Start(ctx context.Context) error {
	c, err := s.DB.Connect(ctx)
	if err != nil {
		return err
	}
	s.conn, s.sources, s.unav = c, nil, nil
	for _, src := range dmvSources {
		snap := newSnapshot()
		if err := src.read(ctx, c, snap); err != nil {
			if lost(ctx, c) {
				c.Close()
				s.conn = nil
				return err
			}
			s.unav = append(s.unav, src.name+": "+shortError(err))
			continue
		}
		s.sources = append(s.sources, src)
	}
	return nil
}

// lost says that a probe's failure on c is not the server's answer: the
// time ran out or the connection was lost.
func lost(ctx context.Context, c db.Conn) bool { return ctx.Err() != nil || !c.Alive() }

// shortError is an error's first line without the driver's prefix.
func shortError(err error) string {
	return strings.TrimPrefix(oneLine(redact.String(err.Error())), "mssql: ")
}

func newSnapshot() *evidence.Snapshot {
	return &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
}

// Sample implements Sampler.
func (s *DMVs) Sample(ctx context.Context) (*evidence.Snapshot, error) {
	snap := newSnapshot()
	for _, src := range s.sources {
		if err := src.read(ctx, s.conn, snap); err != nil {
			return nil, fmt.Errorf("%s: %w", src.name, err)
		}
	}
	return snap, nil
}

// Stop implements Sampler.
func (s *DMVs) Stop() error {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	return nil
}

// Describe implements Sampler.
func (s *DMVs) Describe(sr *evidence.Series) {
	var names []string
	for _, src := range s.sources {
		names = append(names, src.name)
	}
	sr.Source = strings.Join(names, ", ")
	sr.Describes = "database server " + s.DB.Target().String()
	sr.Unavailable = append(sr.Unavailable, s.unav...)
	sr.Headlines = msHeadlines
	sr.Priority = msPriority
}

// msHeadlines are the figures the report's summary singles out.
var msHeadlines = []evidence.Headline{
	{Label: "log flushed {}/transaction (target database)", Key: counterLogBytes, Show: evidence.ShowBytesPerTx},
	{Label: "{} page splits", Key: "Access Methods:Page Splits/sec", Show: evidence.ShowCount},
	{Label: "log write {} ms average", Key: "file.LOG.write_ms", Show: evidence.ShowMean},
}

// msPriority are the counters the report ranks first.
var msPriority = []string{
	"Batch Requests/sec", "Transactions/sec", "Log Bytes Flushed/sec", "Log Flushes/sec", "Page Splits/sec",
	"Checkpoint pages/sec", "Lock Waits/sec", "file.LOG.writes", "file.ROWS.writes",
}

// The performance counters' keys that Derive reads.
const (
	counterLogBytes   = "Databases:Log Bytes Flushed/sec"
	counterLogFlushes = "Databases:Log Flushes/sec"
)

// perfCounterNames are the counters read from
// sys.dm_os_performance_counters. Those of the Databases object are read
// for the target database (instance_name is the database's name); the
// others server-wide (instance_name empty or _Total).
var perfCounterNames = []string{
	// SQL Statistics
	"Batch Requests/sec", "SQL Compilations/sec", "SQL Re-Compilations/sec",
	// Databases (per database)
	"Transactions/sec", "Log Bytes Flushed/sec", "Log Flushes/sec", "Log Flush Waits/sec", "Log Flush Wait Time",
	// Access Methods
	"Page Splits/sec", "Full Scans/sec", "Index Searches/sec",
	// Buffer Manager
	"Checkpoint pages/sec", "Page reads/sec", "Page writes/sec", "Lazy writes/sec", "Page life expectancy",
	// Locks (_Total), Latches, General Statistics
	"Lock Waits/sec", "Lock Timeouts/sec", "Number of Deadlocks/sec", "Latch Waits/sec", "User Connections", "Processes blocked",
}

// The counter types (cntr_type) read, as Windows' performance counter
// types define them: PERF_COUNTER_BULK_COUNT and PERF_COUNTER_COUNTER are
// the per-second counters, whose value is cumulative (the rate is the
// difference of two samples over their interval); PERF_COUNTER_LARGE_RAWCOUNT
// and PERF_COUNTER_RAWCOUNT are levels, the last value observed. The
// others (ratios with their base, averages) are not read.
const (
	perfCounterBulkCount = 272696576
	perfCounterCounter   = 272696320
	perfLargeRawCount    = 65792
	perfRawCount         = 65536
)

const perfCounterQuery = `SELECT RTRIM(object_name), RTRIM(counter_name), RTRIM(instance_name), cntr_value, cntr_type
	FROM sys.dm_os_performance_counters WHERE counter_name IN (%s)
	AND (RTRIM(instance_name) IN ('', '_Total') OR RTRIM(instance_name) = DB_NAME())`

// readPerfCounters reads the performance counters: per-second ones as
// counters (their rates are the counter's), levels as gauges, named
// "Object:Counter" with the object's "SQLServer:" or "MSSQL$INSTANCE:"
// prefix cut off ("SQL Statistics:Batch Requests/sec").
func readPerfCounters(ctx context.Context, c db.Conn, snap *evidence.Snapshot) error {
	quoted := make([]string, len(perfCounterNames))
	for i, n := range perfCounterNames {
		quoted[i] = "'" + n + "'"
	}
	rows, err := c.Query(ctx, fmt.Sprintf(perfCounterQuery, strings.Join(quoted, ", ")))
	if err != nil {
		return err
	}
	defer rows.Close()
	var dbName string
	dbRows := map[string]perfRow{}
	for rows.Next() {
		var r perfRow
		if err := rows.Scan(&r.object, &r.counter, &r.instance, &r.value, &r.typ); err != nil {
			return err
		}
		obj := r.object
		if i := strings.IndexByte(obj, ':'); i >= 0 {
			obj = obj[i+1:]
		}
		key := obj + ":" + r.counter
		// The Databases object has a row per database and _Total: the
		// target database's is kept (a database named _Total aside).
		if obj == "Databases" {
			if r.instance == "_Total" || r.instance == "" {
				continue
			}
			dbName = r.instance
			dbRows[key] = r
			continue
		}
		addPerfCounter(snap, key, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for k, r := range dbRows {
		if r.instance == dbName {
			addPerfCounter(snap, k, r)
		}
	}
	return nil
}

type perfRow struct {
	object, counter, instance string
	value                     int64
	typ                       int64
}

func addPerfCounter(snap *evidence.Snapshot, key string, r perfRow) {
	switch r.typ {
	case perfCounterBulkCount, perfCounterCounter:
		snap.Counters[key] = float64(r.value)
	case perfLargeRawCount, perfRawCount:
		snap.Gauges[key] = float64(r.value)
	}
}

const spinlockQuery = `SELECT name, collisions, spins, sleep_time, backoffs FROM sys.dm_os_spinlock_stats WHERE collisions > 0 OR spins > 0`

// readSpinlocks reads each spinlock's cumulative collisions, spins,
// backoffs and sleep time (ms) as counters "spinlock.NAME.collisions" etc.
// Spinlocks never contended are left out.
func readSpinlocks(ctx context.Context, c db.Conn, snap *evidence.Snapshot) error {
	rows, err := c.Query(ctx, spinlockQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var collisions, spins, sleepMs, backoffs int64
		if err := rows.Scan(&name, &collisions, &spins, &sleepMs, &backoffs); err != nil {
			return err
		}
		p := "spinlock." + strings.TrimSpace(name) + "."
		snap.Counters[p+"collisions"] += float64(collisions)
		snap.Counters[p+"spins"] += float64(spins)
		snap.Counters[p+"backoffs"] += float64(backoffs)
		snap.Counters[p+"sleep_ms"] += float64(sleepMs)
	}
	return rows.Err()
}

// fileStatsQuery reads the target database's files: their type (ROWS,
// LOG) from sys.database_files, their I/O from sys.dm_io_virtual_file_stats.
const fileStatsQuery = `SELECT f.type_desc, v.num_of_reads, v.num_of_bytes_read, v.io_stall_read_ms,
	v.num_of_writes, v.num_of_bytes_written, v.io_stall_write_ms
	FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) v JOIN sys.database_files f ON f.file_id = v.file_id`

// readFileStats sums the files of each type: counters "file.LOG.writes",
// "file.ROWS.bytes_read", ..., and the stall counters "_file.LOG.write_stall_ms"
// that Derive turns into the average per read and write.
func readFileStats(ctx context.Context, c db.Conn, snap *evidence.Snapshot) error {
	rows, err := c.Query(ctx, fileStatsQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var reads, bytesRead, readStall, writes, bytesWritten, writeStall int64
		if err := rows.Scan(&typ, &reads, &bytesRead, &readStall, &writes, &bytesWritten, &writeStall); err != nil {
			return err
		}
		p := "file." + strings.TrimSpace(typ) + "."
		snap.Counters[p+"reads"] += float64(reads)
		snap.Counters[p+"bytes_read"] += float64(bytesRead)
		snap.Counters[p+"writes"] += float64(writes)
		snap.Counters[p+"bytes_written"] += float64(bytesWritten)
		snap.Counters["_"+p+"read_stall_ms"] += float64(readStall)
		snap.Counters["_"+p+"write_stall_ms"] += float64(writeStall)
	}
	return rows.Err()
}

// Derive implements Deriver: the log's bytes per flush (KiB), and each
// file type's average time per read and per write (ms) over the interval.
func (s *DMVs) Derive(prev, cur *evidence.Snapshot, values map[string]float64) {
	d := func(k string) (float64, bool) {
		a, ok1 := prev.Counters[k]
		b, ok2 := cur.Counters[k]
		return b - a, ok1 && ok2 && b >= a
	}
	if b, ok := d(counterLogBytes); ok {
		if n, ok := d(counterLogFlushes); ok && n > 0 {
			values["Databases:log_flush_kb"] = evidence.Round3(b / n / 1024)
		}
	}
	for k := range cur.Counters {
		rest, ok := strings.CutPrefix(k, "_file.")
		if !ok {
			continue
		}
		typ, stall, _ := strings.Cut(rest, ".")
		op := strings.TrimSuffix(stall, "_stall_ms") // read, write
		ms, ok1 := d(k)
		n, ok2 := d("file." + typ + "." + op + "s")
		if ok1 && ok2 && n > 0 {
			values["file."+typ+"."+op+"_ms"] = evidence.Round3(ms / n)
		}
	}
}

// benignWaits are the wait types SQL Server's background tasks and idle
// sessions accumulate whatever the workload does (queues waiting for work,
// timers, sleeps): the wait profile leaves them out, as the documented
// practice of reading sys.dm_os_wait_stats does.
var benignWaits = setOf(
	"BROKER_EVENTHANDLER", "BROKER_RECEIVE_WAITFOR", "BROKER_TASK_STOP", "BROKER_TO_FLUSH", "BROKER_TRANSMITTER",
	"CHECKPOINT_QUEUE", "CHKPT", "CLR_AUTO_EVENT", "CLR_MANUAL_EVENT", "CLR_SEMAPHORE",
	"DBMIRROR_DBM_EVENT", "DBMIRROR_EVENTS_QUEUE", "DBMIRROR_WORKER_QUEUE", "DBMIRRORING_CMD", "DIRTY_PAGE_POLL",
	"DISPATCHER_QUEUE_SEMAPHORE", "EXECSYNC", "FSAGENT", "FT_IFTS_SCHEDULER_IDLE_WAIT", "FT_IFTSHC_MUTEX",
	"HADR_CLUSAPI_CALL", "HADR_FILESTREAM_IOMGR_IOCOMPLETION", "HADR_LOGCAPTURE_WAIT", "HADR_NOTIFICATION_DEQUEUE",
	"HADR_TIMER_TASK", "HADR_WORK_QUEUE", "KSOURCE_WAKEUP", "LAZYWRITER_SLEEP", "LOGMGR_QUEUE",
	"MEMORY_ALLOCATION_EXT", "ONDEMAND_TASK_QUEUE", "PARALLEL_REDO_DRAIN_WORKER", "PARALLEL_REDO_LOG_CACHE",
	"PARALLEL_REDO_TRAN_LIST", "PARALLEL_REDO_WORKER_SYNC", "PARALLEL_REDO_WORKER_WAIT_WORK",
	"PREEMPTIVE_OS_FLUSHFILEBUFFERS", "PREEMPTIVE_XE_GETTARGETSTATE", "PVS_PREALLOCATE", "PWAIT_ALL_COMPONENTS_INITIALIZED",
	"PWAIT_DIRECTLOGCONSUMER_GETNEXT", "PWAIT_EXTENSIBILITY_CLEANUP_TASK", "QDS_ASYNC_QUEUE",
	"QDS_CLEANUP_STALE_QUERIES_TASK_MAIN_LOOP_SLEEP", "QDS_PERSIST_TASK_MAIN_LOOP_SLEEP", "QDS_SHUTDOWN_QUEUE",
	"REDO_THREAD_PENDING_WORK", "REQUEST_FOR_DEADLOCK_SEARCH", "RESOURCE_QUEUE", "SERVER_IDLE_CHECK",
	"SLEEP_BPOOL_FLUSH", "SLEEP_DBSTARTUP", "SLEEP_DCOMSTARTUP", "SLEEP_MASTERDBREADY", "SLEEP_MASTERMDREADY",
	"SLEEP_MASTERUPGRADED", "SLEEP_MSDBSTARTUP", "SLEEP_SYSTEMTASK", "SLEEP_TASK", "SLEEP_TEMPDBSTARTUP",
	"SNI_HTTP_ACCEPT", "SOS_WORK_DISPATCHER", "SP_SERVER_DIAGNOSTICS_SLEEP", "SQLTRACE_BUFFER_FLUSH",
	"SQLTRACE_INCREMENTAL_FLUSH_SLEEP", "SQLTRACE_WAIT_ENTRIES", "UCS_SESSION_REGISTRATION", "VDI_CLIENT_OTHER",
	"WAIT_FOR_RESULTS", "WAITFOR", "WAITFOR_TASKSHUTDOWN", "WAIT_XTP_RECOVERY", "WAIT_XTP_HOST_WAIT",
	"WAIT_XTP_OFFLINE_CKPT_NEW_LOG", "WAIT_XTP_CKPT_CLOSE", "XE_DISPATCHER_JOIN", "XE_DISPATCHER_WAIT",
	"XE_LIVE_TARGET_TVF", "XE_TIMER_EVENT",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// waitEvent names a wait type as the wait profile counts it: a lock wait
// (LCK_M_*) as "Lock:LCK_M_X", so that it is told a lock wait
// (evidence.LockWait) and its blocker is read; the others by their name
// (WRITELOG, PAGELATCH_EX, ...).
func waitEvent(waitType string) string {
	if strings.HasPrefix(waitType, "LCK_") {
		return "Lock:" + waitType
	}
	return waitType
}

const waitStatsQuery = `SELECT wait_type, wait_time_ms FROM sys.dm_os_wait_stats WHERE wait_time_ms > 0`

// readWaitStats reads the cumulative wait time of each wait type, in
// seconds, without the benign ones.
func readWaitStats(ctx context.Context, c db.Conn) (map[string]float64, error) {
	rows, err := c.Query(ctx, waitStatsQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]float64{}
	for rows.Next() {
		var typ string
		var ms int64
		if err := rows.Scan(&typ, &ms); err != nil {
			return nil, err
		}
		typ = strings.TrimSpace(typ)
		if benignWaits[typ] || strings.HasPrefix(typ, "SLEEP_") {
			continue
		}
		m[waitEvent(typ)] += float64(ms) / 1000
	}
	return m, rows.Err()
}

// Waits is SQL Server's wait profile: the increase of each wait type's
// wait time in sys.dm_os_wait_stats (server-wide, in seconds, the benign
// idle waits left out). Beside it, where sys.dm_exec_requests is there,
// the harness's sessions are sampled for the sessions that block them on
// a lock (blocking_session_id). Where the server has no
// sys.dm_os_wait_stats but has sys.dm_exec_requests, the sampled sessions
// are the profile (counted by their wait type). With neither, Start fails
// naming both sources.
type Waits struct {
	DB      db.DB
	AppName string
	Period  time.Duration

	// server is the server sampler whose connection the first probe
	// borrows, nil for none.
	server *DMVs

	conn db.Conn
	prev map[string]float64
	// probed: the first Start found the sources, and later ones keep to
	// them. stats: the profile is sys.dm_os_wait_stats; sampleSessions:
	// the sessions are sampled (the profile without stats, the blockers
	// with them), by sampled. why and blkWhy say why either is missing.
	probed, stats, sampleSessions bool
	sampled                       *evidence.SampledWaits
	why, blkWhy                   string
}

// Method implements WaitProfiler.
func (w *Waits) Method() string {
	switch {
	case w.stats && w.sampleSessions:
		return "sys.dm_os_wait_stats, wait time of all sessions (benign idle waits excluded); blockers from sys.dm_exec_requests sampled every " + w.Period.String()
	case w.stats:
		return "sys.dm_os_wait_stats, wait time of all sessions (benign idle waits excluded)"
	case w.sampleSessions:
		return w.sessionsHow()
	}
	return "sys.dm_os_wait_stats or sys.dm_exec_requests"
}

func (w *Waits) sessionsHow() string {
	return fmt.Sprintf("sys.dm_exec_requests and sys.dm_exec_sessions sampled every %s for sessions with program_name %s", w.Period, w.AppName)
}

// Unit implements WaitProfiler.
func (w *Waits) Unit() string {
	if !w.stats && w.sampleSessions {
		return "samples"
	}
	return "seconds"
}

// sessionWaitQuery counts each of the harness's sessions (program_name
// @p1) under its request's wait: "CPU" running or runnable, the wait
// type (locks as "Lock:LCK_M_X"), or "Client:sleeping" without a request
// (the server waits for the harness).
const sessionWaitQuery = `SELECT CASE WHEN r.session_id IS NULL THEN 'Client:sleeping'
	WHEN r.wait_type IS NULL OR r.wait_type = '' THEN 'CPU'
	WHEN r.wait_type LIKE 'LCK[_]%' THEN 'Lock:' + r.wait_type
	ELSE r.wait_type END
	FROM sys.dm_exec_sessions s LEFT JOIN sys.dm_exec_requests r ON r.session_id = s.session_id
	WHERE s.program_name = $1`

// Start implements WaitProfiler. It probes its sources the first time and
// keeps to them when started again (after a lost connection), so that the
// unit never changes within a run.
func (w *Waits) Start(ctx context.Context) error {
	if w.Period <= 0 {
		w.Period = evidence.WaitPeriod
	}
	if !w.probed {
		// The probe borrows the server sampler's connection when there is
		// one (the collector starts its sources one after another): on a
		// server without the views (Babelfish) it costs no login.
		if w.server != nil && w.server.conn != nil {
			if err := w.probe(ctx, w.server.conn); err != nil {
				return err
			}
		} else {
			c, err := w.DB.Connect(ctx)
			if err != nil {
				return err
			}
			err = w.probe(ctx, c)
			c.Close()
			if err != nil {
				return err
			}
		}
	}
	if w.stats {
		c, err := w.DB.Connect(ctx)
		if err != nil {
			return err
		}
		if w.prev, err = readWaitStats(ctx, c); err != nil {
			c.Close()
			return err
		}
		w.conn = c
	}
	if w.sampleSessions {
		sw := &evidence.SampledWaits{DB: w.DB, Period: w.Period, Query: sessionWaitQuery, Args: []any{w.AppName},
			How:      w.sessionsHow(),
			Blockers: func(ctx context.Context, c db.Conn) ([]evidence.Blocker, error) { return msBlockers(ctx, c, w.AppName) }}
		if err := sw.Start(ctx); err != nil {
			w.Stop()
			return err
		}
		w.sampled = sw
	}
	return nil
}

// probe finds which sources the server has, on the borrowed connection c:
// those it lacks are not tried again (Start's error names them when it
// lacks both).
func (w *Waits) probe(ctx context.Context, c db.Conn) error {
	if _, err := readWaitStats(ctx, c); err != nil {
		if lost(ctx, c) {
			return err
		}
		w.why = "sys.dm_os_wait_stats: " + shortError(err)
	}
	if w.AppName != "" {
		if err := probeRequests(ctx, c); err != nil {
			if lost(ctx, c) {
				return err
			}
			w.blkWhy = "sys.dm_exec_requests: " + shortError(err)
		}
	} else {
		w.blkWhy = "sys.dm_exec_requests: the harness's sessions carry no name to find them by"
	}
	w.probed = true
	w.stats = w.why == ""
	w.sampleSessions = w.blkWhy == ""
	if !w.stats && !w.sampleSessions {
		return fmt.Errorf("%s; %s", w.why, w.blkWhy)
	}
	return nil
}

// probeRequests checks that the server has the views the session sampler
// reads.
func probeRequests(ctx context.Context, c db.Conn) error {
	rows, err := c.Query(ctx, "SELECT TOP 0 r.session_id FROM sys.dm_exec_requests r JOIN sys.dm_exec_sessions s ON s.session_id = r.session_id")
	if err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// Cut implements WaitProfiler.
func (w *Waits) Cut(ctx context.Context) (map[string]float64, error) {
	if !w.stats {
		return w.sampled.Cut(ctx)
	}
	if w.sampled != nil {
		_, _ = w.sampled.Cut(ctx) // its counts are not the profile
	}
	cur, err := readWaitStats(ctx, w.conn)
	if err != nil {
		return nil, err
	}
	out := evidence.WaitDeltas(w.prev, cur)
	w.prev = cur
	return out, nil
}

// CutBlockers implements evidence.BlockerWatcher.
func (w *Waits) CutBlockers() ([]evidence.BlockerSeen, string) {
	if w.sampled == nil {
		return nil, w.blkWhy
	}
	return w.sampled.CutBlockers()
}

// SamplePeriod implements evidence.BlockerWatcher.
func (w *Waits) SamplePeriod() time.Duration { return w.Period }

// Stop implements WaitProfiler.
func (w *Waits) Stop() error {
	if w.sampled != nil {
		w.sampled.Stop()
		w.sampled = nil
	}
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
	return nil
}

// blockerQuery lists the harness's sessions (program_name $1) waiting on
// a lock with the session at the head of each one's chain of blockers (a
// session queued behind another waiter is blocked by that waiter, in turn
// blocked by the lock's holder), one row per waiter and head, with what
// sys.dm_exec_sessions, sys.dm_exec_requests and the head's open
// transaction (sys.dm_tran_session_transactions,
// sys.dm_tran_active_transactions) say of the head, and its last
// statement (sys.dm_exec_connections' most_recent_sql_handle).
const blockerQuery = `WITH chain AS (
	SELECT w.session_id AS waiter, w.blocking_session_id AS blocker, 1 AS depth
	FROM sys.dm_exec_requests w JOIN sys.dm_exec_sessions ws ON ws.session_id = w.session_id
	WHERE ws.program_name = $1 AND w.session_id <> @@SPID AND w.blocking_session_id > 0 AND w.wait_type LIKE 'LCK[_]%'
	UNION ALL
	SELECT c.waiter, r.blocking_session_id, c.depth + 1 FROM chain c JOIN sys.dm_exec_requests r ON r.session_id = c.blocker
	WHERE r.blocking_session_id > 0 AND r.blocking_session_id <> r.session_id AND c.depth < 8
)
SELECT DISTINCT c.waiter, b.session_id, COALESCE(b.program_name, N''), COALESCE(b.login_name, N''), COALESCE(b.host_name, N''),
	COALESCE(DB_NAME(b.database_id), N''), COALESCE(br.status, b.status), COALESCE(br.command, N''),
	(SELECT MIN(at.transaction_begin_time) FROM sys.dm_tran_session_transactions st
		JOIN sys.dm_tran_active_transactions at ON at.transaction_id = st.transaction_id WHERE st.session_id = b.session_id),
	COALESCE(br.start_time, b.last_request_end_time), SYSDATETIME(), COALESCE(t.text, N'')
FROM chain c JOIN sys.dm_exec_sessions b ON b.session_id = c.blocker
LEFT JOIN sys.dm_exec_requests br ON br.session_id = b.session_id
LEFT JOIN sys.dm_exec_connections bc ON bc.session_id = b.session_id
OUTER APPLY sys.dm_exec_sql_text(bc.most_recent_sql_handle) t
WHERE COALESCE(br.blocking_session_id, 0) = 0`

// msBlockers reads the sessions that block the harness's sessions named
// appName, grouping the rows of blockerQuery by blocking session.
func msBlockers(ctx context.Context, c db.Conn, appName string) ([]evidence.Blocker, error) {
	rows, err := c.Query(ctx, blockerQuery, appName)
	if err != nil {
		return nil, fmt.Errorf("sys.dm_exec_requests: %w", err)
	}
	defer rows.Close()
	byID := map[int64]*evidence.Blocker{}
	var order []int64
	for rows.Next() {
		var waiter, id int64
		var program, login, host, dbName, status, command, query string
		var xact, since *time.Time
		var now time.Time
		if err := rows.Scan(&waiter, &id, &program, &login, &host, &dbName, &status, &command, &xact, &since, &now, &query); err != nil {
			return nil, err
		}
		b, ok := byID[id]
		if !ok {
			b = &evidence.Blocker{ID: id, Database: dbName, State: msState(status, command)}
			b.Application = strings.TrimSpace(program)
			if b.Application == "" {
				b.Application = strings.TrimSpace(login)
				if h := strings.TrimSpace(host); h != "" && b.Application != "" {
					b.Application += "@" + h
				}
			}
			if xact != nil {
				b.XactStart = *xact
				if now.After(*xact) {
					b.Held = now.Sub(*xact)
				}
			}
			if since != nil {
				b.StateSince = *since
			}
			b.Query = evidence.ClipQuery(redact.SQL(query))
			byID[id] = b
			order = append(order, id)
		}
		b.Waiting = append(b.Waiting, waiter)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]evidence.Blocker, 0, len(order))
	for _, id := range order {
		b := byID[id]
		sort.Slice(b.Waiting, func(i, j int) bool { return b.Waiting[i] < b.Waiting[j] })
		out = append(out, *b)
	}
	return out, nil
}

// msState says what a blocking session does, in PostgreSQL's words where
// they fit: a sleeping session that holds its transaction's locks is "idle
// in transaction".
func msState(status, command string) string {
	status = strings.TrimSpace(status)
	command = strings.TrimSpace(command)
	switch {
	case status == "sleeping":
		return "idle in transaction"
	case command == "":
		return status
	}
	return status + ": " + command
}

// ServerSampler implements evidence.ServerEvidence: the DMVs.
func (d *msDB) ServerSampler() evidence.Sampler { return &DMVs{DB: d.collectorDB()} }

// WaitProfiler implements evidence.ServerEvidence: sys.dm_os_wait_stats,
// with blockers from sys.dm_exec_requests.
func (d *msDB) WaitProfiler(appName string, server evidence.Sampler) evidence.WaitProfiler {
	w := &Waits{DB: d.collectorDB(), AppName: appName, Period: evidence.WaitPeriod}
	w.server, _ = server.(*DMVs)
	return w
}

// The engine's optional capabilities, checked at compile time.
var (
	_ evidence.ServerEvidence = (*msDB)(nil)
	_ evidence.ExplainProber  = (*msDB)(nil)
	_ db.DelayedCommitter     = (*msDB)(nil)
	_ db.Tagger               = (*msDB)(nil)
)
