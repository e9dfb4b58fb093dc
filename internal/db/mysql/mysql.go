// Package mysql is the MySQL and MariaDB engine: connections (the
// go-sql-driver with a raw path for prepared statements, and event-loop
// connections), the dialect, multi-row INSERT bulk loads, error classes,
// and the engine's evidence: the SHOW GLOBAL STATUS sampler, the
// performance_schema or processlist wait profile, EXPLAIN FORMAT=JSON, and
// the information_schema and column_stats catalog. It registers itself with
// db.Register in init.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/evloop"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/redact"
)

type myDB struct {
	t  *db.Target
	db *sql.DB
	// stmtTimeout bounds each statement (SetStatementTimeout); 0: none.
	stmtTimeout time.Duration
	// session are the settings SET SESSION sets on every connection
	// (SetSession).
	session []db.Assignment
}

func init() {
	// The driver logs protocol warnings to standard error; the harness
	// reports errors itself, in one sentence.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	db.Register(db.Engine{
		Kind:    db.MySQL,
		Schemes: []string{"mysql", "mariadb"},
		Example: "mysql://user:pass@host:port/db",
		Order:   2,
		// The whole URL is checked when it is parsed, so that a bad
		// parameter is the user's to fix before anything runs.
		Check: func(t *db.Target) error { _, err := config(t); return err },
		Open:  openMySQL,
	})
}

// config is the driver's configuration from the URL; its error is one
// sentence.
func config(t *db.Target) (*mysql.Config, error) {
	u := t.URL()
	if strings.TrimPrefix(u.Path, "/") == "" {
		return nil, fmt.Errorf("--db %s names no database; add one, as in mysql://root@127.0.0.1:3306/test", t)
	}
	cfg := mysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	q := u.Query()
	if s := q.Get("socket"); s != "" {
		cfg.Net, cfg.Addr = "unix", s
		q.Del("socket")
	} else {
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "127.0.0.1"
		}
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if len(q) > 0 {
		dsn := cfg.FormatDSN()
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		var err error
		pass := cfg.Passwd
		cfg, err = mysql.ParseDSN(dsn + sep + q.Encode())
		if err != nil {
			msg := err.Error()
			if pass != "" {
				msg = strings.ReplaceAll(msg, pass, "xxxxx")
			}
			return nil, fmt.Errorf("--db %s has an invalid parameter: %s", t, msg)
		}
	}
	return cfg, nil
}

func openMySQL(t *db.Target) (db.DB, error) {
	cfg, err := config(t)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 8 * time.Second
	}
	cfg.ParseTime = true
	cfg.DialFunc = dialMySQL
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %s", t, redact.String(err.Error()))
	}
	db := sql.OpenDB(connector)
	// Every Connect dials, so that it knows its socket (see dialMySQL).
	db.SetMaxIdleConns(0)
	return &myDB{t: t, db: db}, nil
}

// dialSlot receives the socket dialMySQL dials for the context it carries.
type dialSlot struct {
	nc atomic.Value
	// loop: hand the driver an evloop.Sock over the socket (ConnectLoop).
	loop bool
}

type dialSlotKey struct{}

// dialMySQL dials as the driver does by default, and hands the socket to
// the dialSlot in ctx, if any: Cancel closes it when the server does not
// answer, and ConnectLoop takes it off Go's network poller.
func dialMySQL(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err == nil {
		if slot, ok := ctx.Value(dialSlotKey{}).(*dialSlot); ok {
			if slot.loop {
				nc = evloop.Wrap(nc)
			}
			slot.nc.Store(nc)
		}
	}
	return nc, err
}

func (d *myDB) Target() *db.Target { return d.t }

func (d *myDB) Caps() db.Caps {
	return db.Caps{
		ParallelWriters:  4,
		Analyze:          "ANALYZE TABLE %s",
		Vacuum:           "",
		Truncate:         "TRUNCATE TABLE %s",
		AnalyzeName:      "analyze",
		BeginWrite:       "START TRANSACTION",
		BeginRead:        "START TRANSACTION READ ONLY",
		TimestampType:    "datetime(6)",
		TableOptions:     " ENGINE=InnoDB",
		IdentityKey:      "bigint NOT NULL AUTO_INCREMENT PRIMARY KEY",
		UUIDType:         "binary(16)",
		CurrentTimestamp: "CURRENT_TIMESTAMP(6)",
		MaxCharLength:    255,
		ResetStats:       "FLUSH STATUS",
		FloatType:        "double",
		ForUpdate:        " FOR UPDATE",
		Routines:         db.RoutinesMySQL,
		ServerXacts:      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')",
		// KILL QUERY, from another connection (see myConn.Cancel).
		CancelByRequest: true,
	}
}

func (d *myDB) Close() error { return d.db.Close() }

func (d *myDB) Connect(ctx context.Context) (db.Conn, error) {
	c, err := d.connect(ctx, false)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// connect opens a connection; loop: over an evloop.Sock (see ConnectLoop).
func (d *myDB) connect(ctx context.Context, loop bool) (*myConn, error) {
	ctx, cancel := context.WithTimeout(ctx, 9*time.Second)
	defer cancel()
	slot := &dialSlot{loop: loop}
	c, err := d.db.Conn(context.WithValue(ctx, dialSlotKey{}, slot))
	// The connection id is the target of KILL QUERY; reading it also
	// checks that the connection works.
	var id int64
	if err == nil {
		err = c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
		if err != nil {
			c.Close()
		}
	}
	if err != nil {
		return nil, db.ConnectError(d.t, err, "MySQL")
	}
	if err == nil && d.stmtTimeout > 0 {
		if err = d.setTimeout(ctx, c); err != nil {
			c.Close()
			return nil, fmt.Errorf("--statement-timeout: %w", err)
		}
	}
	for _, a := range d.session {
		if err = setVar(ctx, c, a); err != nil {
			c.Close()
			return nil, fmt.Errorf("--set %s: %w", a, err)
		}
	}
	nc, _ := slot.nc.Load().(net.Conn)
	return newMyConn(d, c, id, nc), nil
}

// SetStatementTimeout implements db.StatementTimeouter with the session's
// max_statement_time (MariaDB; every statement) or max_execution_time
// (MySQL; read-only SELECTs only, the only ones it can end).
func (d *myDB) SetStatementTimeout(t time.Duration) { d.stmtTimeout = t }

func (d *myDB) setTimeout(ctx context.Context, c *sql.Conn) error {
	_, err := c.ExecContext(ctx, fmt.Sprintf("SET SESSION max_statement_time = %g", d.stmtTimeout.Seconds()))
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1193 { // unknown system variable: MySQL
		_, err = c.ExecContext(ctx, fmt.Sprintf("SET SESSION max_execution_time = %d", max(1, d.stmtTimeout.Milliseconds())))
	}
	return err
}

// kill ends the statement running on connection id, from a connection of
// its own.
func (d *myDB) kill(ctx context.Context, id int64) error {
	if id <= 0 {
		return nil
	}
	_, err := d.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
	return err
}

func (d *myDB) Info(ctx context.Context) (db.Info, error) {
	c, err := d.Connect(ctx)
	if err != nil {
		return db.Info{}, err
	}
	defer c.Close()
	info := db.Info{Engine: "mysql", Settings: map[string]string{}}
	if info.Version, err = db.QueryString(ctx, c, "SELECT VERSION()"); err != nil {
		return info, err
	}
	if strings.Contains(strings.ToLower(info.Version), "mariadb") {
		info.Engine = "mariadb"
	}
	err = db.ScanSettings(ctx, c, info.Settings, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_buffer_pool_size',
		'innodb_flush_log_at_trx_commit', 'sync_binlog', 'log_bin', 'max_connections', 'innodb_log_file_size',
		'innodb_flush_method', 'innodb_io_capacity', 'transaction_isolation', 'tx_isolation', 'innodb_doublewrite',
		'thread_handling', 'performance_schema', 'version_comment')`)
	if err != nil {
		return info, err
	}
	if err := d.sessionValues(ctx, c, info.Settings); err != nil {
		return info, err
	}
	info.Normalized = map[string]db.Setting{}
	for k, v := range info.Settings {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		if mysqlByteSettings[k] {
			info.Normalized[k] = db.Setting{Value: n, Unit: "bytes"}
			info.Settings[k] = evidence.FormatBytes(int64(n))
			continue
		}
		info.Normalized[k] = db.Setting{Value: n}
	}
	if info.DataDir, err = db.QueryString(ctx, c, "SELECT coalesce(@@datadir, '')"); err != nil {
		return info, err
	}
	ssl := map[string]string{}
	err = db.ScanSettings(ctx, c, ssl, "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version', 'Ssl_cipher')")
	info.TLS = db.TLSText(ssl["Ssl_version"], ssl["Ssl_cipher"])
	return info, err
}

// mysqlByteSettings are the settings of Info that are sizes in bytes; they
// are shown as "128MB" rather than the server's 134217728.
var mysqlByteSettings = map[string]bool{"innodb_buffer_pool_size": true, "innodb_log_file_size": true}

func (d *myDB) TableExists(ctx context.Context, c db.Conn, table string) (bool, error) {
	n, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1", table)
	return n > 0, err
}

func (d *myDB) Classify(err error) db.ErrorClass {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		class := db.ErrorClass{Code: "mysql:" + strconv.Itoa(int(me.Number))}
		switch me.Number {
		case 1213, 1020: // ER_LOCK_DEADLOCK, ER_CHECKREAD (snapshot changed)
			class.Retryable = true
		case 1927, 2006, 2013, 1053: // connection killed, server gone, lost, shutdown
			class.ConnLost = true
		case 1969, 3024: // max_statement_time (MariaDB), max_execution_time (MySQL) exceeded
			class.Code = db.ClassTimeout
		}
		return class
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return db.ErrorClass{Code: "timeout"}
	}
	var netErr net.Error
	if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &netErr) {
		return db.ErrorClass{Code: "conn", ConnLost: true}
	}
	return db.ErrorClass{Code: "other"}
}

// CopyIn loads rows with large multi-row INSERT statements sent as text,
// with unique and foreign key checks off for the session.
func (d *myDB) CopyIn(ctx context.Context, c db.Conn, table string, columns []string, src db.RowSource) (int64, error) {
	sc := c.(*myConn).Conn
	for _, s := range []string{"SET unique_checks = 0", "SET foreign_key_checks = 0"} {
		if _, err := sc.C.ExecContext(ctx, s); err != nil {
			return 0, err
		}
	}
	defer func() {
		_, _ = sc.C.ExecContext(context.Background(), "SET unique_checks = 1")
		_, _ = sc.C.ExecContext(context.Background(), "SET foreign_key_checks = 1")
	}()
	head := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES "
	const maxStmt = 1 << 20
	buf := make([]byte, 0, maxStmt+64<<10)
	var n, pending int64
	flush := func() error {
		if pending == 0 {
			return nil
		}
		if _, err := sc.C.ExecContext(ctx, string(buf)); err != nil {
			return sc.Note(err)
		}
		n += pending
		pending = 0
		return nil
	}
	for src.Next() {
		if pending == 0 {
			buf = append(buf[:0], head...)
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, '(')
		for i, v := range src.Values() {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendLiteral(buf, v)
		}
		buf = append(buf, ')')
		pending++
		if len(buf) >= maxStmt {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// appendLiteral appends v as a MySQL SQL literal.
func appendLiteral(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int16:
		return strconv.AppendInt(b, int64(x), 10)
	case db.Decimal:
		return append(b, x.String()...)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case float32:
		return strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	case bool:
		if x {
			return append(b, '1')
		}
		return append(b, '0')
	case time.Time:
		b = append(b, '\'')
		b = x.AppendFormat(b, "2006-01-02 15:04:05.999999")
		return append(b, '\'')
	case string:
		return appendQuoted(b, x)
	case []byte:
		// A hex literal: binary data must not pass through the
		// connection's character set.
		b = append(b, "X'"...)
		b = hex.AppendEncode(b, x)
		return append(b, '\'')
	}
	return appendQuoted(b, fmt.Sprint(v))
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b = append(b, '\'', '\'')
		case '\\':
			b = append(b, '\\', '\\')
		case 0:
			b = append(b, '\\', '0')
		default:
			b = append(b, c)
		}
	}
	return append(b, '\'')
}
