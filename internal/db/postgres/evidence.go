package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/redact"
)

// PgStat samples PostgreSQL's cumulative statistics: pg_stat_database (the
// target database), pg_stat_wal, pg_stat_bgwriter and, from PostgreSQL 17,
// pg_stat_checkpointer. Each view is read whole (to_jsonb), so the columns
// of every version come through under "view.column" names.
type PgStat struct {
	DB    db.DB
	conn  db.Conn
	query string
	views []string
	unav  []string
}

// pgGauges are columns that are levels, not counters.
var pgGauges = map[string]bool{"pg_stat_database.numbackends": true}

// pgSkip are identifiers, not measurements.
var pgSkip = map[string]bool{"pg_stat_database.datid": true}

// Name implements Sampler.
func (p *PgStat) Name() string { return evidence.KindServer }

// Start implements Sampler: it opens the sampler's connection and finds
// which views this server has. The collector starts it again after its
// connection was lost.
func (p *PgStat) Start(ctx context.Context) error {
	c, err := p.DB.Connect(ctx)
	if err != nil {
		return err
	}
	p.conn, p.views, p.unav = c, nil, nil
	if err := nameCollector(ctx, c); err != nil {
		c.Close()
		return err
	}
	var cols []string
	for _, v := range []string{"pg_stat_database", "pg_stat_wal", "pg_stat_bgwriter", "pg_stat_checkpointer"} {
		ok, err := db.QueryString(ctx, c, "SELECT coalesce(to_regclass('pg_catalog."+v+"')::text, '')")
		if err != nil {
			c.Close()
			return err
		}
		if ok == "" {
			if v != "pg_stat_checkpointer" { // only from 17 on
				p.unav = append(p.unav, v+": not in this server version")
			}
			continue
		}
		p.views = append(p.views, v)
		where := ""
		if v == "pg_stat_database" {
			where = " WHERE datname = current_database()"
		}
		cols = append(cols, "(SELECT to_jsonb(s) FROM pg_catalog."+v+" s"+where+")")
	}
	p.query = "SELECT " + strings.Join(cols, ", ")
	if t, err := db.QueryString(ctx, c, "SELECT setting FROM pg_settings WHERE name = 'track_wal_io_timing'"); err == nil && t == "off" {
		p.unav = append(p.unav, "pg_stat_wal.wal_write_time, wal_sync_time: track_wal_io_timing is off")
	}
	return nil
}

// Stop implements Sampler.
func (p *PgStat) Stop() error {
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	return nil
}

// Describe implements Sampler.
func (p *PgStat) Describe(s *evidence.Series) {
	s.Source = strings.Join(p.views, ", ")
	s.Describes = "database server " + p.DB.Target().String()
	s.Unavailable = append(s.Unavailable, p.unav...)
	s.Headlines = pgHeadlines
	s.Priority = pgPriority
}

// pgHeadlines are the figures the report's summary singles out.
var pgHeadlines = []evidence.Headline{
	{Label: "WAL {}/transaction (server-wide)", Key: "pg_stat_wal.wal_bytes", Show: evidence.ShowBytesPerTx},
	{Label: "buffer hits {}", Key: "pg_stat_database.hit_pct", Show: evidence.ShowMeanPct},
	{Label: "temp {}/transaction", Key: "pg_stat_database.temp_bytes", Show: evidence.ShowBytesPerTx},
	{Label: "{} deadlocks", Key: "pg_stat_database.deadlocks", Show: evidence.ShowCount},
}

// pgPriority are the counters the report ranks first.
var pgPriority = []string{
	"xact_commit", "xact_rollback", "blks_read", "blks_hit", "wal_bytes", "wal_records", "wal_sync", "buffers_backend",
	"buffers_checkpoint", "deadlocks", "temp_bytes",
}

// Sample implements Sampler.
func (p *PgStat) Sample(ctx context.Context) (*evidence.Snapshot, error) {
	snap := &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	rows, err := p.conn.Query(ctx, p.query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	docs := make([]*string, len(p.views))
	dest := make([]any, len(p.views))
	for i := range docs {
		dest[i] = &docs[i]
	}
	if rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, v := range p.views {
		if docs[i] == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(*docs[i]), &m); err != nil {
			return nil, fmt.Errorf("%s: %v", v, err)
		}
		for k, x := range m {
			f, ok := x.(float64)
			name := v + "." + k
			if !ok || pgSkip[name] {
				continue
			}
			if pgGauges[name] {
				snap.Gauges[name] = f
			} else {
				snap.Counters[name] = f
			}
		}
	}
	return snap, nil
}

// Settle implements Settler: backends publish their statistics at most once
// a second while they work, and when they exit; the clients have
// disconnected when the run ends, so a short wait catches the rest.
func (p *PgStat) Settle() time.Duration { return 300 * time.Millisecond }

// Settled implements Settler: a backend flushes its statistics as it
// exits, before it leaves pg_stat_activity (PostgreSQL runs its
// before_shmem_exit callbacks, the statistics' among them, ahead of the
// on_shmem_exit ones that clear its activity slot), so once none of the
// harness's sessions is listed every count has arrived.
func (p *PgStat) Settled(ctx context.Context, appName string) (bool, error) {
	if appName == "" || p.conn == nil {
		return false, nil
	}
	rows, err := p.conn.Query(ctx, `SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`, appName)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return false, err
		}
	}
	return n == 0, rows.Err()
}

// Derive implements Deriver: the buffer cache hit ratio.
func (p *PgStat) Derive(prev, cur *evidence.Snapshot, values map[string]float64) {
	d := func(k string) float64 { return cur.Counters[k] - prev.Counters[k] }
	hit, read := d("pg_stat_database.blks_hit"), d("pg_stat_database.blks_read")
	if hit+read > 0 {
		values["pg_stat_database.hit_pct"] = evidence.Round3(100 * hit / (hit + read))
	}
}

// ServerSampler implements evidence.ServerEvidence: the pg_stat_* views.
func (d *pgDB) ServerSampler() evidence.Sampler { return &PgStat{DB: d} }

// WaitProfiler implements evidence.ServerEvidence: pg_stat_activity,
// sampled, where the harness's sessions carry a name to find them by.
func (d *pgDB) WaitProfiler(appName string, _ evidence.Sampler) evidence.WaitProfiler {
	if appName == "" {
		return nil
	}
	return NewWaits(d, appName, evidence.WaitPeriod)
}

// NewWaits samples pg_stat_activity for the sessions with application
// name appName and counts them as "CPU" (active, not waiting), "Type:Event"
// (waiting; an idle session shows Client:ClientRead: the server waits for
// the harness) or their state when no wait event is set.
func NewWaits(d db.DB, appName string, period time.Duration) *evidence.SampledWaits {
	return &evidence.SampledWaits{DB: d, Period: period, Query: pgWaitQuery, Args: []any{appName}, Setup: nameCollector,
		How:      fmt.Sprintf("pg_stat_activity sampled every %s for sessions with application_name %s", period, appName),
		Blockers: func(ctx context.Context, c db.Conn) ([]evidence.Blocker, error) { return pgBlockers(ctx, c, appName) }}
}

// pgBlockerQuery lists, for the harness's sessions waiting on a lock, the
// sessions at the head of their queues, whoever's they are: it follows
// pg_blocking_pids from each waiting session (a session queued behind
// another waiter, as on a row's tuple lock, is blocked by that waiter, in
// turn blocked by the row's holder) to the sessions that wait on no one,
// with the harness's sessions each blocks. Times are epochs by the
// server's clock (0: none).
const pgBlockerQuery = `WITH RECURSIVE chain(waiter, blocker, depth) AS (
	SELECT w.pid, bp.pid, 1 FROM pg_catalog.pg_stat_activity w
	CROSS JOIN LATERAL unnest(pg_catalog.pg_blocking_pids(w.pid)) AS bp(pid)
	WHERE w.application_name = $1 AND w.pid <> pg_backend_pid() AND w.wait_event_type = 'Lock'
	UNION
	SELECT c.waiter, bp.pid, c.depth + 1 FROM chain c
	CROSS JOIN LATERAL unnest(pg_catalog.pg_blocking_pids(c.blocker)) AS bp(pid) WHERE c.depth < 8
), heads AS (
	SELECT DISTINCT waiter, blocker FROM chain WHERE cardinality(pg_catalog.pg_blocking_pids(blocker)) = 0
)
SELECT b.pid, coalesce(b.application_name, ''), coalesce(b.usename::text, ''),
	coalesce(b.datname::text, ''), coalesce(b.state, b.backend_type, ''),
	coalesce(extract(epoch FROM b.xact_start), 0)::float8, coalesce(extract(epoch FROM b.state_change), 0)::float8,
	extract(epoch FROM statement_timestamp())::float8, coalesce(b.query, ''), string_agg(h.waiter::text, ',' ORDER BY h.waiter)
FROM heads h JOIN pg_catalog.pg_stat_activity b ON b.pid = h.blocker
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9`

// pgBlockers reads the sessions that block the sessions named appName.
func pgBlockers(ctx context.Context, c db.Conn, appName string) ([]evidence.Blocker, error) {
	rows, err := c.Query(ctx, pgBlockerQuery, appName)
	if err != nil {
		return nil, fmt.Errorf("pg_blocking_pids: %w", err)
	}
	defer rows.Close()
	var out []evidence.Blocker
	for rows.Next() {
		var b evidence.Blocker
		var user, query, waiting string
		var xact, since, now float64
		if err := rows.Scan(&b.ID, &b.Application, &user, &b.Database, &b.State, &xact, &since, &now, &query, &waiting); err != nil {
			return nil, err
		}
		if b.Application == "" {
			b.Application = user
		}
		b.XactStart, b.StateSince = epochTime(xact), epochTime(since)
		if xact > 0 && now > xact {
			b.Held = time.Duration((now - xact) * float64(time.Second))
		}
		b.Query = evidence.ClipQuery(redact.SQL(query))
		b.Waiting = evidence.ParseIDs(waiting)
		out = append(out, b)
	}
	return out, rows.Err()
}

// epochTime is a time from seconds since the epoch (zero for 0).
func epochTime(s float64) time.Time {
	if s <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(int64(s * 1e6))
}

const pgWaitQuery = `SELECT CASE WHEN state = 'active' AND wait_event IS NULL THEN 'CPU'
	WHEN wait_event IS NULL THEN coalesce(state, 'unknown')
	ELSE wait_event_type || ':' || wait_event END
FROM pg_catalog.pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`

// CollectorAppName is the application_name of the collectors' own
// sessions, so that they are not counted among the harness's.
const CollectorAppName = "dbharness-collector"

func nameCollector(ctx context.Context, c db.Conn) error {
	return c.Exec(ctx, "SET application_name = '"+CollectorAppName+"'")
}

// The engine's optional capabilities, checked at compile time.
var (
	_ evidence.ServerEvidence = (*pgDB)(nil)
	_ evidence.Explainer      = (*pgDB)(nil)
	_ db.Cataloger            = (*pgDB)(nil)
	_ db.TableSizer           = (*pgDB)(nil)
	_ evidence.PhysicalReader = (*pgDB)(nil)
	_ db.LoopDB               = (*pgDB)(nil)
	_ evidence.GenericPlanner = (*pgDB)(nil)
	_ db.FreezeLoader         = (*pgDB)(nil)
)
