// Package sqlite is the embedded SQLite engine (modernc.org/sqlite): the
// database file, the dialect, bulk loads, error classes, the write-lock
// waits its connections measure, and the engine's evidence: file sizes and
// lock waits, EXPLAIN QUERY PLAN, and the dbstat and sqlite_stat1 catalog.
// It registers itself with db.Register in init.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlconn"
)

func init() {
	db.Register(db.Engine{
		Kind:    db.SQLite,
		Schemes: []string{"sqlite", "sqlite3", "file"},
		Example: "sqlite://PATH",
		Order:   3,
		Check: func(t *db.Target) error {
			u := t.URL()
			p := u.Opaque
			if p == "" {
				p = u.Host + u.Path
			}
			if p == "" {
				return fmt.Errorf("--db sqlite:// names no file; use sqlite://PATH, e.g. sqlite:///tmp/bench.db or sqlite://bench.db")
			}
			t.Path = p
			return nil
		},
		Open: openSQLite,
	})
}

type liteDB struct {
	t     *db.Target
	db    *sql.DB
	locks db.LockWaits
	// opening serialises new connections: each runs the DSN's pragmas,
	// and two switching a new file to WAL at once get SQLITE_BUSY without
	// the busy handler being asked.
	opening sync.Mutex
	// stmtTimeout bounds each statement (SetStatementTimeout); 0: none.
	stmtTimeout time.Duration
}

// LockWaits implements LockWaiter: the time connections spent in BEGIN
// IMMEDIATE, which waits (sleeping in SQLite's busy handler) while another
// connection holds the write lock.
func (d *liteDB) LockWaits() *db.LockWaits { return &d.locks }

func openSQLite(t *db.Target) (db.DB, error) {
	if err := t.CheckExists(); err != nil {
		return nil, err
	}
	if dir := filepath.Dir(t.Path); dir != "" && t.MayCreate() {
		// The embedded default lives in dbharness's data directory, beside
		// the results store: private, as the store is.
		perm := os.FileMode(0o755)
		if t.Default {
			perm = 0o700
		}
		if err := os.MkdirAll(dir, perm); err != nil {
			return nil, fmt.Errorf("cannot create the directory for %s: %v", t, err)
		}
	}
	// WAL lets readers run beside the writer; busy_timeout makes writers
	// queue instead of failing; synchronous=NORMAL is the usual WAL choice.
	// Times are written in SQLite's own format (2024-01-31 12:00:00.5+00:00),
	// which its date and time functions read, rather than the driver's
	// default Go time.String() ("... +0000 UTC"), for which datetime()
	// returns NULL. Pragmas given in the URL come later and so win, as
	// does a _time_format given there.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	for k, vs := range t.URL().Query() {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	if !q.Has("_time_format") {
		q.Set("_time_format", "sqlite")
	}
	if !t.MayCreate() && !q.Has("mode") {
		q.Set("mode", "rw") // SQLite creates no file either, should it go
	}
	db, err := sql.Open("sqlite", "file:"+t.Path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %v", t, err)
	}
	db.SetMaxIdleConns(4)
	return &liteDB{t: t, db: db}, nil
}

func (d *liteDB) Target() *db.Target { return d.t }

func (d *liteDB) Caps() db.Caps {
	return db.Caps{
		NumberedParams:   true,
		ParallelWriters:  1,
		Analyze:          "ANALYZE %s",
		Vacuum:           "",
		Truncate:         "DELETE FROM %s",
		AnalyzeName:      "analyze",
		BeginWrite:       "BEGIN IMMEDIATE",
		BeginRead:        "BEGIN",
		TimestampType:    "timestamp",
		DateText:         true,
		IdentityKey:      "integer PRIMARY KEY",
		UUIDType:         "blob",
		ClusterOnKey:     " WITHOUT ROWID",
		CurrentTimestamp: "CURRENT_TIMESTAMP",
		FloatType:        "real",
		DateLiteral:      "'%s'",
		YearOf:           "CAST(strftime('%%Y', %s) AS integer)",
		CharCode:         "unicode",
	}
}

func (d *liteDB) Close() error { return d.db.Close() }

func (d *liteDB) Connect(ctx context.Context) (db.Conn, error) {
	d.opening.Lock()
	c, err := d.db.Conn(ctx)
	if err == nil {
		if err = c.PingContext(ctx); err != nil {
			c.Close()
		}
	}
	d.opening.Unlock()
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %v", d.t, err)
	}
	return &sqlconn.Conn{C: c, Classify: d.Classify, LockStmt: d.Caps().BeginWrite, Locks: &d.locks, Timeout: d.stmtTimeout, Reset: endTx}, nil
}

// endTx rolls back a transaction still open on a connection going back to
// the pool. One is left when a run's stop cancels a COMMIT (SQLite
// interrupts it, and the transaction stays open), and it would hold the
// write lock for as long as the connection sat idle, so that the next
// run's writers time out on SQLITE_BUSY.
func endTx(ctx context.Context, c *sql.Conn) error {
	_, err := c.ExecContext(ctx, "ROLLBACK")
	if err != nil && strings.Contains(err.Error(), "no transaction is active") {
		return nil
	}
	return err
}

// SetStatementTimeout implements db.StatementTimeouter on the client's
// side: a statement that runs longer is interrupted.
func (d *liteDB) SetStatementTimeout(t time.Duration) { d.stmtTimeout = t }

func (d *liteDB) Info(ctx context.Context) (db.Info, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return db.Info{}, err
	}
	defer c.Close()
	info := db.Info{Engine: "sqlite", Settings: map[string]string{"path": d.t.Path}, DataDir: d.t.Path}
	if info.Version, err = db.QueryString(ctx, c, "SELECT sqlite_version()"); err != nil {
		return info, err
	}
	for _, p := range []string{"journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout"} {
		v, err := db.QueryString(ctx, c, "PRAGMA "+p)
		if err != nil {
			return info, err
		}
		info.Settings[p] = v
	}
	info.Normalized = liteNormalized(info.Settings)
	return info, nil
}

// liteNormalized turns SQLite's numeric pragmas into bytes and
// milliseconds: cache_size is pages when positive and KiB when negative.
func liteNormalized(set map[string]string) map[string]db.Setting {
	m := map[string]db.Setting{}
	num := func(k string) (float64, bool) {
		v, err := strconv.ParseFloat(set[k], 64)
		return v, err == nil
	}
	page, okPage := num("page_size")
	if okPage {
		m["page_size"] = db.Setting{Value: page, Unit: "bytes"}
	}
	if c, ok := num("cache_size"); ok {
		switch {
		case c < 0:
			m["cache_size"] = db.Setting{Value: -c * 1024, Unit: "bytes"}
		case okPage:
			m["cache_size"] = db.Setting{Value: c * page, Unit: "bytes"}
		}
	}
	if t, ok := num("busy_timeout"); ok {
		m["busy_timeout"] = db.Setting{Value: t, Unit: "ms"}
	}
	if s, ok := num("synchronous"); ok {
		m["synchronous"] = db.Setting{Value: s}
	}
	return m
}

func (d *liteDB) TableExists(ctx context.Context, c db.Conn, table string) (bool, error) {
	n, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1", table)
	return n > 0, err
}

// SQLite primary result codes the driver cares about.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

func (d *liteDB) Classify(err error) db.ErrorClass {
	if errors.Is(err, db.ErrStatementTimeout) {
		return db.ErrorClass{Code: db.ClassTimeout}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		code := se.Code() & 0xff
		class := db.ErrorClass{Code: "sqlite:" + strconv.Itoa(code)}
		// BUSY and LOCKED are SQLite's serialization failures: the
		// transaction lost a race for the write lock and may be retried.
		if code == sqliteBusy || code == sqliteLocked {
			class.Retryable = true
		}
		return class
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return db.ErrorClass{Code: "timeout"}
	}
	if errors.Is(err, sql.ErrConnDone) {
		return db.ErrorClass{Code: "conn", ConnLost: true}
	}
	return db.ErrorClass{Code: "other"}
}

// CopyIn loads rows in one transaction through a prepared multi-row INSERT.
func (d *liteDB) CopyIn(ctx context.Context, c db.Conn, table string, columns []string, src db.RowSource) (n int64, err error) {
	sc := c.(*sqlconn.Conn)
	const perStmt = 200
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", len(columns)), ",") + ")"
	head := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES "
	many, err := sc.C.PrepareContext(ctx, head+strings.TrimSuffix(strings.Repeat(row+",", perStmt), ","))
	if err != nil {
		return 0, err
	}
	defer many.Close()
	one, err := sc.C.PrepareContext(ctx, head+row)
	if err != nil {
		return 0, err
	}
	defer one.Close()
	if _, err := sc.C.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_, _ = sc.C.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	args := make([]any, 0, perStmt*len(columns))
	k := 0
	for src.Next() {
		args = append(args, src.Values()...)
		k++
		if k == perStmt {
			if _, err = many.ExecContext(ctx, args...); err != nil {
				return n, err
			}
			n += int64(k)
			args, k = args[:0], 0
		}
	}
	if err = src.Err(); err != nil {
		return n, err
	}
	for i := 0; i < k; i++ {
		if _, err = one.ExecContext(ctx, args[i*len(columns):(i+1)*len(columns)]...); err != nil {
			return n, err
		}
		n++
	}
	_, err = sc.C.ExecContext(ctx, "COMMIT")
	return n, err
}
