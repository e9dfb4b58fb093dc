// Package sqlserver is the Microsoft SQL Server engine, over its wire
// protocol (TDS) with github.com/microsoft/go-mssqldb: connections, the
// T-SQL dialect, bulk copy, and error classes from SQL Server's error
// numbers. It also drives what speaks TDS and T-SQL, such as Babelfish for
// PostgreSQL, against which it is tested. URLs are go-mssqldb's own
// (sqlserver://user:pass@host:port?database=db&encrypt=...). It registers
// itself with db.Register in init.
package sqlserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mssql "github.com/microsoft/go-mssqldb"
	"github.com/microsoft/go-mssqldb/msdsn"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlconn"
	"github.com/dbharness/dbharness/internal/redact"
)

func init() {
	db.Register(db.Engine{
		Kind:    db.SQLServer,
		Schemes: []string{"sqlserver"},
		Example: "sqlserver://user:pass@host:port?database=db",
		Order:   4,
		// The whole URL is checked when it is parsed, so that a bad
		// parameter (encrypt=maybe) is the user's to fix before anything
		// runs.
		Check: func(t *db.Target) error { _, err := config(t); return err },
		Open:  openSQLServer,
	})
}

// defaultDialTimeout bounds the connect when the URL says nothing: an
// unreachable host fails in seconds, not go-mssqldb's 15.
const defaultDialTimeout = 8 * time.Second

// config is the driver's configuration from the URL; its error is one
// sentence.
func config(t *db.Target) (msdsn.Config, error) {
	cfg, err := msdsn.Parse(t.RawURL())
	if err != nil {
		msg := redact.String(err.Error())
		if u := t.URL(); u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" {
				msg = strings.ReplaceAll(msg, p, redact.Mask)
			}
		}
		return cfg, fmt.Errorf("--db %s has an invalid parameter: %s", t, msg)
	}
	if !t.URL().Query().Has("dial timeout") {
		cfg.DialTimeout = defaultDialTimeout
	}
	return cfg, nil
}

type msDB struct {
	t *db.Target
	// cfg is the driver's configuration from the URL; the pool opens
	// connections with it (its AppName set by Tag).
	cfg msdsn.Config
	// poolMu guards pool, which Tag replaces, and retired, the pools it
	// replaced (closed with the DB).
	poolMu  sync.Mutex
	pool    *sql.DB
	retired []*sql.DB
	// collectors is the DB the evidence collectors connect through, its
	// sessions named CollectorAppName (collectorDB).
	collectors *msDB
	// bf says whether the server is Babelfish, once read (babelfish).
	bfOnce sync.Mutex
	bf     *bool
	// session are the --set settings and sessionSQL their SET statements,
	// run on every connection as it connects (SetSession).
	session    []db.Assignment
	sessionSQL []string
	// maxdop, when above 0, is --dop as the hint on each SELECT of the
	// connections (SetDOP, withMaxDOP); bfDOP says --dop is the session's
	// max_parallel_workers_per_gather instead (Babelfish).
	maxdop int
	bfDOP  bool
	// stageIdle are staging connections a load has finished with, kept
	// for the next (stageFill): a Babelfish login takes 0.2 s, and a
	// loader loads a table in many parts.
	stageMu   sync.Mutex
	stageIdle []*msConn
}

func openSQLServer(t *db.Target) (db.DB, error) {
	cfg, err := config(t)
	if err != nil {
		return nil, err
	}
	return &msDB{t: t, cfg: cfg, pool: openPool(cfg)}, nil
}

func openPool(cfg msdsn.Config) *sql.DB {
	conn := mssql.NewConnectorConfig(cfg)
	conn.Dialer = dialer{timeout: cfg.DialTimeout}
	p := sql.OpenDB(conn)
	// Every Connect dials, so that it knows its socket (see dialer).
	p.SetMaxIdleConns(0)
	return p
}

// db is the pool connections are opened from.
func (d *msDB) db() *sql.DB {
	d.poolMu.Lock()
	defer d.poolMu.Unlock()
	return d.pool
}

// CollectorAppName is the application name of the evidence collectors'
// own sessions, so that they are not counted among the harness's.
const CollectorAppName = "dbharness-collector"

// collectorDB is the DB the collectors connect through: the same server
// and login, its sessions named CollectorAppName, without the run's
// --set options.
func (d *msDB) collectorDB() *msDB {
	d.poolMu.Lock()
	defer d.poolMu.Unlock()
	if d.collectors == nil {
		cfg := d.cfg
		cfg.AppName = CollectorAppName
		d.collectors = &msDB{t: d.t, cfg: cfg, pool: openPool(cfg)}
	}
	return d.collectors
}

// Tag implements db.Tagger with the login's application name (TDS's
// app name, which sys.dm_exec_sessions shows as program_name and
// Babelfish's PostgreSQL side as application_name): the sessions opened
// from now on carry it. A URL that names its application (app name=...)
// keeps its own.
func (d *msDB) Tag(name string) string {
	q := d.t.URL().Query()
	for _, k := range []string{"app name", "app", "application name"} {
		if q.Has(k) {
			return d.cfg.AppName
		}
	}
	d.poolMu.Lock()
	defer d.poolMu.Unlock()
	d.cfg.AppName = name
	d.retired = append(d.retired, d.pool)
	d.pool = openPool(d.cfg)
	return name
}

// dialer dials as go-mssqldb does by default, and hands the socket to the
// dialSlot in ctx, if any: Cancel and Abort close it when the server does
// not end a statement.
//
// go-mssqldb bounds only the dial: its login (prelogin, TLS, login) waits
// on the socket with no deadline and does not watch the context, so a
// server that accepts the connection and never answers would hold the
// connect forever. The dialer gives the socket a deadline for the login
// (the dial timeout, at least defaultDialTimeout), and conn ends the login
// at once when its context ends; both are lifted once the connection works.
// Only conn's connections are dialed (the pool keeps none idle).
type dialer struct{ timeout time.Duration }

type dialSlot struct {
	mu sync.Mutex
	nc net.Conn
	// ended: the connect's context ended before the socket came.
	ended bool
}

type dialSlotKey struct{}

func (d dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := net.Dialer{Timeout: d.timeout, KeepAlive: 30 * time.Second}
	nc, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if err := nc.SetDeadline(time.Now().Add(max(d.timeout, defaultDialTimeout))); err != nil {
		nc.Close()
		return nil, err
	}
	if slot, ok := ctx.Value(dialSlotKey{}).(*dialSlot); ok {
		slot.mu.Lock()
		slot.nc = nc
		if slot.ended {
			_ = nc.SetDeadline(time.Unix(1, 0))
		}
		slot.mu.Unlock()
	}
	return nc, nil
}

// end ends the login: the socket's waits fail at once.
func (s *dialSlot) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.nc != nil {
		_ = s.nc.SetDeadline(time.Unix(1, 0))
	}
}

// conn opens a connection of the pool's and returns it with its socket,
// once it works: it has run check (a query) within the login's deadline.
func (d *msDB) conn(ctx context.Context, check func(*sql.Conn) error) (*sql.Conn, net.Conn, error) {
	slot := &dialSlot{}
	stop := context.AfterFunc(ctx, slot.end)
	c, err := d.db().Conn(context.WithValue(ctx, dialSlotKey{}, slot))
	if err == nil {
		err = check(c)
	}
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err == nil && slot.nc == nil {
		err = fmt.Errorf("the driver connected without dialing through dbharness's dialer")
	}
	if err == nil {
		err = slot.nc.SetDeadline(time.Time{})
	}
	if err != nil {
		if c != nil {
			c.Close()
		}
		return nil, nil, err
	}
	return c, slot.nc, nil
}

func (d *msDB) Target() *db.Target { return d.t }

// Caps is T-SQL's dialect. SQL Server clusters a table on its primary key
// (so keys come with CREATE TABLE), numbers parameters @p1..@pn (the
// connection rewrites $n), has no LIMIT (OFFSET ... FETCH after ORDER BY)
// and no SELECT ... FOR UPDATE (UPDLOCK hints, which go after the table).
func (d *msDB) Caps() db.Caps {
	// Babelfish has no UPDATE STATISTICS (and refuses it when it parses
	// the batch, hence EXEC of a string in the statement for a server not
	// yet known): there, sp_updatestats analyzes the whole instance, once
	// after a load. The first connection tells which server this is.
	analyze, analyzeAll := "IF CHARINDEX('Babelfish', @@VERSION) > 0 EXEC sp_updatestats ELSE EXEC('UPDATE STATISTICS %s')", ""
	if bf, known := d.knownBabelfish(); known && bf {
		analyze, analyzeAll = "", "EXEC sp_updatestats"
	} else if known {
		analyze = "UPDATE STATISTICS %s"
	}
	return db.Caps{
		NumberedParams:        true,
		ParallelWriters:       4,
		Analyze:               analyze,
		AnalyzeAll:            analyzeAll,
		AnalyzeName:           "update statistics",
		Truncate:              "TRUNCATE TABLE %s",
		BeginWrite:            "BEGIN TRANSACTION",
		BeginRead:             "BEGIN TRANSACTION",
		IntraQueryParallelism: true,
		TimestampType:         "datetime2(6)",
		IdentityKey:           "bigint IDENTITY(1,1) PRIMARY KEY",
		UUIDType:              "uniqueidentifier",
		UUIDDefaultRandom:     "NEWID()",
		UUIDDefaultSequential: "NEWSEQUENTIALID()",
		CurrentTimestamp:      "SYSDATETIME()",
		MaxCharLength:         8000,
		FloatType:             "float",
		YearOf:                "year(%s)",
		Limit:                 " OFFSET 0 ROWS FETCH NEXT %d ROWS ONLY",
		DateLiteral:           "CAST('%s' AS date)",
		// Babelfish accepts and ignores table hints
		// (escape_hatch_table_hints); its reads do not lock.
		LockHint: " WITH (UPDLOCK, ROWLOCK)",
		Routines: db.RoutinesTSQL,
		// KILL from another connection, then the socket (see msConn.Cancel):
		// the statements run under a context that is never cancelled, so
		// the driver never sends an attention (which Babelfish does not
		// confirm).
		CancelByRequest: true,
		// HammerDB's TPM on SQL Server is the change of the server-wide
		// Batch Requests/sec counter (cumulative, whatever its name says);
		// Babelfish has no sys.dm_os_performance_counters, and tpcc says
		// hammerdb_tpm is not measured there.
		ServerXacts: "SELECT RTRIM(counter_name), cntr_value FROM sys.dm_os_performance_counters " +
			"WHERE counter_name = 'Batch Requests/sec' AND object_name LIKE '%:SQL Statistics%'",
	}
}

func (d *msDB) Close() error {
	d.stageMu.Lock()
	for _, c := range d.stageIdle {
		c.Close()
	}
	d.stageIdle = nil
	d.stageMu.Unlock()
	d.poolMu.Lock()
	defer d.poolMu.Unlock()
	for _, p := range d.retired {
		p.Close()
	}
	d.retired = nil
	if d.collectors != nil {
		d.collectors.Close()
		d.collectors = nil
	}
	return d.pool.Close()
}

// connectTimeout bounds a connect and its first query.
const connectTimeout = 30 * time.Second

func (d *msDB) Connect(ctx context.Context) (db.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	// The session id (@@SPID) is the target of KILL; reading it also
	// checks that the connection works.
	var id int64
	c, nc, err := d.conn(ctx, func(c *sql.Conn) error {
		// The first connection reads the version too (babelfish).
		if _, known := d.knownBabelfish(); known {
			if err := c.QueryRowContext(ctx, "SELECT @@SPID").Scan(&id); err != nil {
				return err
			}
		} else {
			var v string
			if err := c.QueryRowContext(ctx, "SELECT @@SPID, @@VERSION").Scan(&id, &v); err != nil {
				return err
			}
			d.setBabelfish(isBabelfish(v))
		}
		if len(d.sessionSQL) > 0 {
			_, err := c.ExecContext(ctx, strings.Join(d.sessionSQL, "; "))
			return err
		}
		return nil
	})
	if err != nil {
		return nil, d.connectError(err)
	}
	return newConn(d, c, id, nc), nil
}

// SQL Server's error numbers that dbharness treats apart.
const (
	errDeadlock        = 1205 // chosen as the deadlock victim
	errLockTimeout     = 1222 // lock request time out period exceeded (SET LOCK_TIMEOUT)
	errSnapshotUpdate  = 3960 // snapshot isolation: update conflict
	errDuplicateKey    = 2627 // violation of a PRIMARY KEY or UNIQUE constraint
	errDuplicateIndex  = 2601 // duplicate key in a unique index
	errLoginFailed     = 18456
	errCannotOpenDB    = 4060 // cannot open database requested by the login
	errKilled          = 596  // cannot continue: the session is being killed
	errSevereError     = 233  // no process is on the other end of the pipe
	errShutdownInState = 6005 // SHUTDOWN is in progress
)

// connectError turns a connect error into one sentence. SQL Server says
// 18456 and 4060; Babelfish says the same in other numbers (PostgreSQL's
// "database ... does not exist"), which the text tells.
func (d *msDB) connectError(err error) error {
	var me mssql.Error
	isMS := errors.As(err, &me)
	if isMS {
		switch me.Number {
		case errLoginFailed:
			return db.AuthFailed(d.t)
		case errCannotOpenDB:
			return db.NoDatabase(d.t)
		}
	}
	low := strings.ToLower(err.Error())
	switch {
	case strings.Contains(low, "login failed"), strings.Contains(low, "password authentication failed"):
		return db.AuthFailed(d.t)
	case strings.Contains(low, "cannot open database"), strings.Contains(low, "database") && strings.Contains(low, "does not exist"):
		return db.NoDatabase(d.t)
	case isMS:
		return fmt.Errorf("cannot connect to %s: %s", d.t, oneLine(redact.String(me.Message)))
	}
	return db.ConnectError(d.t, err, "SQL Server (TDS)", "unexpected packet type", "invalid packet", "bad packet", "unexpected eof")
}

// isBabelfish reports whether @@VERSION names Babelfish for PostgreSQL.
func isBabelfish(version string) bool { return strings.Contains(strings.ToLower(version), "babelfish") }

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// kill ends the session id's request from a connection of its own.
// KILL ends the whole session on SQL Server (there is no KILL QUERY).
func (d *msDB) kill(ctx context.Context, id int64) error {
	if id <= 0 {
		return nil
	}
	c, _, err := d.conn(ctx, func(*sql.Conn) error { return nil })
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.ExecContext(ctx, "KILL "+strconv.FormatInt(id, 10))
	return err
}

func (d *msDB) Info(ctx context.Context) (db.Info, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return db.Info{}, err
	}
	defer c.Close()
	info := db.Info{Engine: "sqlserver", Settings: map[string]string{}}
	full, err := db.QueryString(ctx, c, "SELECT @@VERSION")
	if err != nil {
		return info, err
	}
	if isBabelfish(full) {
		info.Engine = "babelfish"
	}
	info.Settings["version"] = oneLine(full)
	if info.Version, err = db.QueryString(ctx, c, "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128))"); err != nil {
		return info, err
	}
	// Server options from sys.configurations, by the names SQL Server's
	// documentation gives them; a server that lacks one leaves it out.
	err = db.ScanSettings(ctx, c, info.Settings, `SELECT CAST(name AS nvarchar(128)), CAST(value_in_use AS nvarchar(64)) FROM sys.configurations
		WHERE name IN ('max degree of parallelism', 'cost threshold for parallelism', 'max server memory (MB)', 'max worker threads')`)
	if err != nil {
		return info, err
	}
	if err := d.sessionValues(ctx, c, info.Settings); err != nil {
		return info, err
	}
	if err := d.dopValues(ctx, c, info.Settings); err != nil {
		return info, err
	}
	info.Normalized = map[string]db.Setting{}
	for k, v := range info.Settings {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		if k == "max server memory (MB)" {
			info.Normalized[k] = db.Setting{Value: n * (1 << 20), Unit: "bytes"}
			continue
		}
		info.Normalized[k] = db.Setting{Value: n}
	}
	return info, nil
}

func (d *msDB) TableExists(ctx context.Context, c db.Conn, table string) (bool, error) {
	n, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = $1 AND TABLE_SCHEMA = SCHEMA_NAME()", table)
	return n > 0, err
}

func (d *msDB) Classify(err error) db.ErrorClass {
	var me mssql.Error
	if errors.As(err, &me) {
		class := db.ErrorClass{Code: "mssql:" + strconv.Itoa(int(me.Number))}
		switch me.Number {
		case errDeadlock, errSnapshotUpdate:
			class.Retryable = true
		case errLockTimeout:
			class.Code = db.ClassTimeout
		case errKilled, errSevereError, errShutdownInState:
			class.ConnLost = true
		}
		return class
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return db.ErrorClass{Code: db.ClassTimeout}
	}
	var netErr net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &netErr) ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "use of closed network connection") {
		return db.ErrorClass{Code: "conn", ConnLost: true}
	}
	return db.ErrorClass{Code: "other"}
}

// IsDuplicateKey reports whether err is SQL Server's duplicate key error
// (2627 for a PRIMARY KEY or UNIQUE constraint, 2601 for a unique index).
func IsDuplicateKey(err error) bool {
	var me mssql.Error
	return errors.As(err, &me) && (me.Number == errDuplicateKey || me.Number == errDuplicateIndex)
}

// CopyIn loads rows with go-mssqldb's bulk copy (the TDS bulk load that
// bcp and SqlBulkCopy use), in one transaction. On Babelfish it goes
// through a staging table (stageFill), around three faults of Babelfish's
// bulk load (4.2):
//   - it misreads a decimal sent in fewer than 17 bytes (the driver sends
//     5 to 13 by the column's precision, as TDS says), storing another
//     number; the staging table's decimals are widened to 38 digits;
//   - it leaves NULL in the columns the load does not name instead of
//     their defaults, even in a NOT NULL key; the copy out of the staging
//     table names the loaded columns alone;
//   - a load whose closing DONE token the driver splits across two packets
//     (about one stream in 300, by where its last byte falls) is refused as
//     "protocol stream is incorrect" and the session is closed (fixed
//     upstream, BABEL-6317); the staging table is filled on connections of
//     its own, batch by batch, and a batch so refused is sent again, split
//     where its stream ends elsewhere.
//
// Multi-row INSERT statements, which Babelfish parses row by row, took 3.7
// times the host's CPU for the same 100,000 rows. A load that names the
// table's identity column goes through a staging table on every server:
// a bulk load into the table itself would number the rows anew (go-mssqldb
// has no KEEP_IDENTITY), and its values are copied under IDENTITY_INSERT.
// On every server the table's decimal columns are read first (planLoad):
// the driver would send an integer to one unscaled (bulkValues).
func (d *msDB) CopyIn(ctx context.Context, c db.Conn, table string, columns []string, src db.RowSource) (n int64, err error) {
	mc := c.(*msConn)
	bf, err := d.babelfish(ctx, mc)
	if err != nil {
		return 0, err
	}
	plan, err := planLoad(ctx, mc, table, columns)
	if err != nil {
		return 0, err
	}
	tx, err := mc.C.BeginTx(ctx, nil)
	if err != nil {
		return 0, mc.Note(err)
	}
	var f *stageFill
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
		// The staging table goes once the load has committed or rolled
		// back: before, its drop would wait for tx's lock on it.
		if f != nil {
			f.close(ctx)
		}
	}()
	switch {
	case bf || plan.identity >= 0:
		f = &stageFill{d: d, columns: columns, exact: plan.exact}
		n, err = f.copy(ctx, tx, table, plan, src)
	default:
		n, err = bulkCopy(ctx, tx, table, columns, plan.exact, src)
	}
	if err != nil {
		return 0, mc.Note(err)
	}
	if err = tx.Commit(); err != nil {
		return 0, mc.Note(err)
	}
	return n, nil
}

// loadPlan is what a load needs to know of the table's columns (CopyIn).
type loadPlan struct {
	// identity is the index in the load's columns of the table's identity
	// column, or -1 when the load does not name it.
	identity int
	// scale is the scale of each loaded column that is a decimal narrower
	// than 29 digits, by its index in the load's columns; exact marks the
	// decimal columns, whose decimals and integers go as text (bulkValues).
	scale map[int]int
	exact []bool
}

// planLoad reads table's columns and decides how a load of columns goes.
func planLoad(ctx context.Context, mc *msConn, table string, columns []string) (*loadPlan, error) {
	rows, err := mc.Query(ctx, `SELECT COLUMN_NAME, DATA_TYPE, coalesce(NUMERIC_PRECISION, 0), coalesce(NUMERIC_SCALE, 0),
		coalesce(COLUMNPROPERTY(OBJECT_ID(TABLE_SCHEMA + '.' + TABLE_NAME), COLUMN_NAME, 'IsIdentity'), 0)
		FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = $1 AND TABLE_SCHEMA = SCHEMA_NAME()`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	at := map[string]int{}
	for i, c := range columns {
		at[strings.ToLower(c)] = i
	}
	p := &loadPlan{identity: -1, scale: map[int]int{}, exact: make([]bool, len(columns))}
	for rows.Next() {
		var name, typ string
		var prec, scale, ident int64
		if err := rows.Scan(&name, &typ, &prec, &scale, &ident); err != nil {
			return nil, err
		}
		i, loaded := at[strings.ToLower(name)]
		if !loaded {
			continue
		}
		decimal := typ == "decimal" || typ == "numeric"
		if decimal && prec < 29 {
			p.scale[i] = int(scale)
		}
		p.exact[i] = decimal
		if ident == 1 {
			p.identity = i
		}
	}
	return p, rows.Err()
}

// stageSeq numbers the staging tables of this process.
var stageSeq atomic.Int64

// stageBatch is the number of rows a staging connection sends in one bulk
// load, and holds to send again.
const stageBatch = 20000

// copy loads src into table through a staging table of the loaded
// columns, its narrow decimals widened to 38 digits, filled batch by batch
// on a connection of its own (send), and copied into table in tx by one
// INSERT ... SELECT that names the loaded columns (the others take their
// defaults). close drops the staging table; only a process killed mid-load
// leaves one behind (stageName), which the next init of table drops
// (SweepLoads).
func (f *stageFill) copy(ctx context.Context, tx *sql.Tx, table string, p *loadPlan, src db.RowSource) (n int64, err error) {
	f.stage = stageName(table, os.Getpid(), stageSeq.Add(1))
	sel := make([]string, len(f.columns))
	for i, c := range f.columns {
		sel[i] = c
		if scale, ok := p.scale[i]; ok {
			sel[i] = fmt.Sprintf("CAST(%s AS decimal(38, %d)) AS %s", c, scale, c)
		} else if i == p.identity {
			// An expression: SELECT INTO would copy a bare identity
			// column's IDENTITY property into the staging table.
			sel[i] = fmt.Sprintf("%s * 1 AS %s", c, c)
		}
	}
	if err := f.exec(ctx, "SELECT TOP 0 "+strings.Join(sel, ", ")+" INTO "+f.stage+" FROM "+table); err != nil {
		return 0, stageError(err)
	}
	f.made = true
	batch := make([][]any, 0, stageBatch)
	for src.Next() {
		batch = append(batch, bulkValues(make([]any, 0, len(f.columns)), src.Values(), f.exact))
		if len(batch) == stageBatch {
			if err := f.send(ctx, batch); err != nil {
				return 0, err
			}
			n += int64(len(batch))
			batch = batch[:0]
		}
	}
	if err := src.Err(); err != nil {
		return 0, err
	}
	if err := f.send(ctx, batch); err != nil {
		return 0, err
	}
	n += int64(len(batch))
	cols := strings.Join(f.columns, ", ")
	if p.identity >= 0 {
		if _, err := tx.ExecContext(ctx, "SET IDENTITY_INSERT "+table+" ON"); err != nil {
			return 0, err
		}
		// A session may have one table so at a time: the next load's
		// would be refused.
		defer func() {
			if _, offErr := tx.ExecContext(context.WithoutCancel(ctx), "SET IDENTITY_INSERT "+table+" OFF"); offErr != nil && err == nil {
				err = offErr
			}
		}()
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO "+table+" ("+cols+") SELECT "+cols+" FROM "+f.stage)
	if err != nil {
		return 0, err
	}
	if copied, err := res.RowsAffected(); err == nil && copied != n {
		return 0, fmt.Errorf("loading %s: %d rows staged, %d copied", table, n, copied)
	}
	return n, nil
}

// stagePrefix starts the name of every staging table.
const stagePrefix = "dbh_load_"

// stageName is the name of a staging table of a load into table: the
// table's name as stageTable carries it, the process's id and the load's
// number in the process.
func stageName(table string, pid int, seq int64) string {
	return fmt.Sprintf("%s%s_%d_%d", stagePrefix, stageTable(table), pid, seq)
}

// stageTable is table's name as a staging table's name carries it: its
// first stageTableMax characters (letters, digits and underscores kept,
// anything else an underscore), then a hash of the whole name, which
// tells apart two tables whose names begin alike or differ only where
// characters became underscores ("dbo.acct" and "dbo_acct"). SQL Server
// compares names without regard to case, and so does the hash.
func stageTable(table string) string {
	s := strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, table)
	if len(s) > stageTableMax {
		s = s[:stageTableMax]
	}
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(table)))
	return fmt.Sprintf("%s_%08x", s, h.Sum32())
}

// stageTableMax is the most of a table's name a staging table's carries,
// so that the staging table's name, with the hash, the process's id and
// the load's number, stays within 63 characters: Babelfish keeps a longer
// name shortened with a hash of it (PostgreSQL's limit), under which
// SweepLoads would not know it.
const stageTableMax = 21

// isStageOf reports whether name is a staging table of a load into table
// (stageName), and not of another table whose name table's begins.
func isStageOf(name, table string) bool {
	rest, ok := strings.CutPrefix(strings.ToLower(name), strings.ToLower(stagePrefix+stageTable(table)+"_"))
	if !ok {
		return false
	}
	pid, seq, ok := strings.Cut(rest, "_")
	_, pidErr := strconv.ParseUint(pid, 10, 64)
	_, seqErr := strconv.ParseUint(seq, 10, 64)
	return ok && pidErr == nil && seqErr == nil
}

// SweepLoads drops the staging tables that loads into table left in the
// connection's schema: a load drops its own when it ends, so these are of
// processes killed mid-load (db.LoadSweeper).
func (c *msConn) SweepLoads(ctx context.Context, table string) error {
	like := strings.NewReplacer("[", "[[]", "_", "[_]", "%", "[%]").Replace(stagePrefix + stageTable(table) + "_")
	names, err := db.QueryStrings(ctx, c, "SELECT name FROM sys.tables WHERE schema_id = SCHEMA_ID() AND name LIKE $1", like+"%")
	if err != nil {
		return err
	}
	for _, name := range names {
		if !isStageOf(name, table) {
			continue
		}
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
			return err
		}
	}
	return nil
}

// stageFill is a load through a staging table, filled on a connection of
// its own (CopyIn).
type stageFill struct {
	d       *msDB
	stage   string
	columns []string
	exact   []bool
	c       *msConn
	made    bool
}

// conn is the staging connection: an idle one of the DB's, or a new one.
func (f *stageFill) conn(ctx context.Context) (*msConn, error) {
	if f.c != nil {
		return f.c, nil
	}
	d := f.d
	d.stageMu.Lock()
	if n := len(d.stageIdle); n > 0 {
		f.c = d.stageIdle[n-1]
		d.stageIdle = d.stageIdle[:n-1]
	}
	d.stageMu.Unlock()
	if f.c == nil {
		c, err := d.Connect(ctx)
		if err != nil {
			return nil, err
		}
		f.c = c.(*msConn)
	}
	return f.c, nil
}

// stageIdleMax is the number of idle staging connections a DB keeps.
const stageIdleMax = 4

func (f *stageFill) exec(ctx context.Context, sql string) error {
	c, err := f.conn(ctx)
	if err != nil {
		return err
	}
	return c.Exec(ctx, sql)
}

// send bulk loads rows into the staging table in a transaction of the
// staging connection. A refused load closes the connection: the rows go
// again on a new one, in two loads split one row earlier each time, so that
// the first ends elsewhere and the second, of the last rows, fits in a
// packet; a load refused three times is an error.
func (f *stageFill) send(ctx context.Context, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = f.sendOnce(ctx, rows, max(0, len(rows)-attempt)); err == nil || ctx.Err() != nil {
			break
		}
		if f.c != nil {
			f.c.Close()
			f.c = nil
		}
	}
	return stageError(err)
}

// stageError is an error of a staging connection, told apart from one of
// the load's own connection: its text is kept, but not its cause, which
// would have the load's connection taken for lost (msConn.Note).
func stageError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("staging connection: %v", err)
}

// sendOnce loads rows[:split] and rows[split:] in two bulk loads of one
// transaction; the commit brings back what the server made of them.
func (f *stageFill) sendOnce(ctx context.Context, rows [][]any, split int) error {
	c, err := f.conn(ctx)
	if err != nil {
		return err
	}
	tx, err := c.C.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, part := range [][][]any{rows[:split], rows[split:]} {
		if _, err := bulkCopy(ctx, tx, f.stage, f.columns, nil, &db.SliceSource{Rows: part}); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// close drops the staging table, on a new connection if the staging one
// was lost, and keeps the staging connection for the next load.
func (f *stageFill) close(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if f.made {
		if err := f.exec(ctx, "DROP TABLE IF EXISTS "+f.stage); err != nil && f.c != nil {
			f.c.Close()
			f.c = nil
			if f.exec(ctx, "DROP TABLE IF EXISTS "+f.stage) != nil && f.c != nil {
				f.c.Close()
				f.c = nil
			}
		}
	}
	if f.c == nil {
		return
	}
	d := f.d
	d.stageMu.Lock()
	defer d.stageMu.Unlock()
	if len(d.stageIdle) < stageIdleMax {
		d.stageIdle = append(d.stageIdle, f.c)
	} else {
		f.c.Close()
	}
	f.c = nil
}

// bulkCopy loads src into table's columns with a bulk copy in tx; a decimal
// of a column exact marks goes as its text. A source without rows sends
// nothing: Babelfish refuses a bulk load of none ("protocol stream is
// incorrect").
func bulkCopy(ctx context.Context, tx *sql.Tx, table string, columns []string, exact []bool, src db.RowSource) (int64, error) {
	if !src.Next() {
		return 0, src.Err()
	}
	st, err := tx.PrepareContext(ctx, mssql.CopyIn(table, mssql.BulkOptions{KeepNulls: true}, columns...))
	if err != nil {
		return 0, err
	}
	defer st.Close()
	var row []any
	for more := true; more; more = src.Next() {
		row = bulkValues(row[:0], src.Values(), exact)
		if _, err = st.ExecContext(ctx, row...); err != nil {
			return 0, err
		}
	}
	if err = src.Err(); err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// bulkValues appends vals to dst with the integer types go-mssqldb's bulk
// copy does not take for an integer column (int8, int16, the unsigned
// ones) widened to int64, and decimals (db.Decimal) as floats, as it takes
// them. In the decimal columns exact marks, decimals and integers go as
// their text: the driver sends an integer to a decimal column unscaled, a
// 5 read back as 0.05 from a decimal(6,2) (a float column takes no text).
func bulkValues(dst, vals []any, exact []bool) []any {
	for i, v := range vals {
		if i < len(exact) && exact[i] {
			if s, ok := integerText(v); ok {
				dst = append(dst, s)
				continue
			}
		}
		switch x := v.(type) {
		case int8:
			v = int64(x)
		case int16:
			v = int64(x)
		case uint8:
			v = int64(x)
		case uint16:
			v = int64(x)
		case uint32:
			v = int64(x)
		case db.Decimal:
			if i < len(exact) && exact[i] {
				v = x.String()
			} else {
				v = x.Float()
			}
		}
		dst = append(dst, v)
	}
	return dst
}

// integerText is v in decimal notation when it is an integer.
func integerText(v any) (string, bool) {
	switch x := v.(type) {
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

// babelfish reports whether the server is Babelfish, read once (on the
// first connection, which reads @@VERSION).
func (d *msDB) babelfish(ctx context.Context, c db.Conn) (bool, error) {
	if bf, known := d.knownBabelfish(); known {
		return bf, nil
	}
	v, err := db.QueryString(ctx, c, "SELECT @@VERSION")
	if err != nil {
		return false, err
	}
	d.setBabelfish(isBabelfish(v))
	return isBabelfish(v), nil
}

// knownBabelfish is whether the server is Babelfish, and whether that is
// known yet.
func (d *msDB) knownBabelfish() (bf, known bool) {
	d.bfOnce.Lock()
	defer d.bfOnce.Unlock()
	if d.bf == nil {
		return false, false
	}
	return *d.bf, true
}

func (d *msDB) setBabelfish(bf bool) {
	d.bfOnce.Lock()
	defer d.bfOnce.Unlock()
	d.bf = &bf
}

// newConn wraps a database/sql connection to the server: statements are
// rewritten from $n to @pn.
func newConn(d *msDB, c *sql.Conn, id int64, nc net.Conn) *msConn {
	return &msConn{Conn: &sqlconn.Conn{C: c, Rebind: rebind, Classify: d.Classify}, d: d, id: id, nc: nc}
}

func rebind(s string) string { return db.RebindNamed(s, "@p") }
