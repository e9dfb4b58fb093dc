// Package db is the engine-neutral core of the engine (database) layer:
// --db URLs, the interfaces through which the driver and the workloads talk
// to a database, the dialect (Caps) and helpers. Each engine is a package
// under internal/db (postgres, mysql, sqlite) that registers itself with
// Register; internal/db/all imports them all. No code outside an engine's
// package branches on the engine's name: it asks for a capability instead.
package db

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/datadir"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/redact"
)

// Kind names a database engine family.
type Kind string

// The engine families dbharness drives.
const (
	Postgres Kind = "postgres"
	MySQL    Kind = "mysql"
	SQLite   Kind = "sqlite"
	// SQLServer is Microsoft SQL Server and what speaks its protocol
	// (TDS) and T-SQL, such as Babelfish for PostgreSQL.
	SQLServer Kind = "sqlserver"
)

// Target is a parsed --db URL. Its String method never shows a password.
type Target struct {
	Kind Kind
	// raw is the URL as given, password included; never printed.
	raw string
	u   *url.URL
	// Path is the database file of an engine that keeps the database in
	// a file (SQLite); empty for a server.
	Path string
	// Default is true when the embedded default SQLite database is used
	// because no --db was given.
	Default bool
	// create lets Open create the database file where it does not exist
	// (Creating); a mistyped path must not become a new, empty database.
	create bool
	// From names the environment variables the target was built from
	// (PGHOST/PGDATABASE) when no --db named it (FromEnv); else "".
	From string
}

// DefaultSQLitePath is the embedded database used when --db is not given.
func DefaultSQLitePath() string { return filepath.Join(datadir.Default(), "default.db") }

// ParseURL parses a --db value. An empty value selects the embedded SQLite
// default database. The scheme picks the registered engine (Register).
func ParseURL(raw string) (*Target, error) {
	if raw == "" {
		p := DefaultSQLitePath()
		return &Target{Kind: SQLite, raw: "sqlite://" + p, Path: p, Default: true, create: true, u: &url.URL{Scheme: "sqlite", Path: p}}, nil
	}
	if !strings.Contains(raw, "://") {
		for _, e := range engines() {
			if e.ParseOther == nil {
				continue
			}
			u, ok, err := e.ParseOther(raw)
			switch {
			case !ok:
				continue
			case err != nil:
				return nil, err
			}
			t := &Target{Kind: e.Kind, raw: raw, u: u}
			if err := checkPorts(t); err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse errors quote the whole URL, password included.
		return nil, fmt.Errorf("--db %q is not a valid URL; expected %s", redact.String(raw), examples())
	}
	t := &Target{raw: raw, u: u}
	if u.Scheme == "" {
		return nil, fmt.Errorf("--db %q has no scheme; start it with %s", redact.String(raw), schemes())
	}
	e := bySchemeName(u.Scheme)
	if e == nil {
		return nil, fmt.Errorf("--db scheme %q is not supported; use %s", u.Scheme, schemes())
	}
	t.Kind = e.Kind
	// A server's port outside 1..65535 has its own sentence, before the
	// engine's; a file engine's "host" is part of its path (its Check sets
	// Path).
	ports := checkPorts(t)
	if e.Check != nil {
		if err := e.Check(t); err != nil && (ports == nil || t.Path != "") {
			return nil, err
		}
	}
	if ports != nil && t.Path == "" {
		return nil, ports
	}
	return t, nil
}

// FromEnv is the target when no --db is given: the first engine's whose
// environment variables name one (FromEnv; its From says which), else the
// embedded SQLite default database (ParseURL("")).
func FromEnv() (*Target, error) {
	for _, e := range engines() {
		if e.FromEnv == nil {
			continue
		}
		raw, vars, err := e.FromEnv()
		if err != nil {
			return nil, err
		}
		if raw == "" {
			continue
		}
		t, err := ParseURL(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", vars, err)
		}
		t.From = vars
		return t, nil
	}
	return ParseURL("")
}

// checkPorts refuses a port outside 1..65535 in any of the URL's hosts
// (PostgreSQL takes several, comma-separated).
func checkPorts(t *Target) error {
	for _, h := range strings.Split(t.u.Host, ",") {
		i := strings.LastIndexByte(h, ':')
		if i < 0 || strings.Contains(h[i:], "]") || i == len(h)-1 {
			continue // no port, or an IPv6 address without one
		}
		p := h[i+1:]
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--db %s: port %s is out of range; give a port from 1 to 65535", t, p)
		}
	}
	return nil
}

// Creating returns t for a command that makes the database (init): Open
// may then create a database file that does not exist, and its directory.
// The embedded default database is always created when missing.
func (t *Target) Creating() *Target {
	c := *t
	c.create = true
	return &c
}

// MayCreate reports whether Open may create the database file (Creating).
func (t *Target) MayCreate() bool { return t.create }

// CheckExists returns an error, one sentence, when t names a database file
// that does not exist and may not be created: only init makes one.
func (t *Target) CheckExists() error {
	if t.Path == "" || t.create {
		return nil
	}
	if _, err := os.Stat(t.Path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--db %s: the database file %s does not exist; check the path, or create it with `dbharness init WORKLOAD --db %s`", t, t.Path, t)
	}
	return nil
}

// String returns the URL with any password replaced by "xxxxx"; a
// database file's as KIND://PATH.
func (t *Target) String() string {
	if t == nil {
		return ""
	}
	if t.Path != "" {
		return string(t.Kind) + "://" + t.Path
	}
	return redact.String(t.raw)
}

// URL returns the parsed URL, password included: for the engine's Open,
// never to print (String is for that).
func (t *Target) URL() *url.URL {
	if t.u == nil {
		return &url.URL{}
	}
	u := *t.u
	return &u
}

// RawURL returns the URL as given, password included: for the engine's
// Open, never to print (String is for that).
func (t *Target) RawURL() string { return t.raw }

// Caps describes what an engine can do; workloads and the loader branch on
// these, never on the engine's name.
type Caps struct {
	// Placeholder style: "$1" (numbered) or "?".
	NumberedParams bool
	// ParallelWriters is how many connections may usefully write at once
	// while bulk loading (1 for SQLite, whose writers serialise).
	ParallelWriters int
	// KeysAfterLoad: build primary keys after loading (faster on heap
	// tables); false where the table is clustered on its key and must be
	// created with it.
	KeysAfterLoad bool
	// Analyze is the statement run after loading to refresh statistics, with
	// %s for the table name; empty if none.
	Analyze string
	// AnalyzeAll, where Analyze is empty, refreshes the statistics of every
	// table at once (Babelfish's sp_updatestats, which analyzes the whole
	// instance): a load runs it once rather than once per table.
	AnalyzeAll string
	// Vacuum, with %s for a table, reclaims its dead rows (PostgreSQL's
	// VACUUM); empty where the engine has nothing of the kind to run.
	Vacuum string
	// Truncate, with %s for a table, empties it.
	Truncate string
	// AnalyzeName is what Analyze does, as the loading's steps name it
	// ("vacuum, analyze" on PostgreSQL, "analyze" elsewhere).
	AnalyzeName string
	// BeginWrite starts a transaction that will write.
	BeginWrite string
	// BeginRead starts a read-only transaction where the engine has one
	// (a write in it fails); SQLite has none, and its BeginRead is a plain
	// BEGIN that lets writes through.
	BeginRead string
	// IntraQueryParallelism is true where a query can use several workers;
	// its DB then implements DOPSetter (--dop).
	IntraQueryParallelism bool
	// TimestampType is the column type for a timestamp with microseconds.
	TimestampType string
	// DateText: a date column holds 'YYYY-MM-DD' text, and a date is
	// passed as such a string rather than a time.Time, where the engine
	// has no date type and compares dates as text (SQLite, whose driver
	// would store a time.Time with its time of day and zone).
	DateText bool
	// TableOptions is appended to CREATE TABLE (e.g. the storage engine).
	TableOptions string
	// FillFactor is true where tables take WITH (fillfactor=N).
	FillFactor bool
	// CancelByRequest: statements are cancelled with Conn.Cancel, so the
	// driver may run them under a context that is never cancelled, which
	// saves a context watch per statement.
	CancelByRequest bool
	// IdentityKey is the column definition (after the name) of an integer
	// primary key the engine numbers itself: identity, auto-increment or
	// SQLite's rowid.
	IdentityKey string
	// UUIDType is the column type that holds a UUID; NativeUUID is true
	// where it is a real uuid type (values are passed as [16]byte) rather
	// than 16 bytes of binary (passed as []byte). See UUIDArg.
	UUIDType   string
	NativeUUID bool
	// UUIDDefaultRandom and UUIDDefaultSequential are the default
	// expressions with which the server itself makes a UUIDType key, a
	// random one and one greater than any it made before on the machine
	// (SQL Server's NEWID() and NEWSEQUENTIALID()); empty where the engine
	// has none.
	UUIDDefaultRandom, UUIDDefaultSequential string
	// ClusterOnKey is appended to CREATE TABLE to store a table in the
	// order of its primary key where that is not the default (SQLite's
	// WITHOUT ROWID); InnoDB always clusters, PostgreSQL never does.
	ClusterOnKey string
	// CurrentTimestamp is the default expression giving the current time
	// for a TimestampType column.
	CurrentTimestamp string
	// MaxCharLength is the longest char(N) column; 0 means no limit worth
	// knowing.
	MaxCharLength int
	// PlainStorage, with %[1]s the table and %[2]s the column, stores a
	// column uncompressed and in line; empty where that is the default.
	PlainStorage string
	// ResetStats resets the server's statistics counters for this
	// database; empty where there are none.
	ResetStats string
	// WALBytes is a query returning the total bytes of write-ahead log the
	// server has written so far (a cluster-wide counter); empty if unknown.
	WALBytes string
	// FloatType is the column type for a double-precision float.
	FloatType string
	// YearOf, with %s a date or timestamp expression, is its year as an
	// integer; empty means "extract(year from %s)" (see Year). SQLite has
	// strftime (over ISO text), SQL Server year().
	YearOf string
	// CharCode is the function that returns the numeric code of the first
	// character of a string; empty means ascii (see FirstCharCode). SQLite
	// has unicode.
	CharCode string
	// Limit, with %d the number of rows, is the clause that follows an
	// ORDER BY to keep only the first rows; empty means " LIMIT %d" (see
	// LimitClause). SQL Server has OFFSET ... FETCH instead.
	Limit string
	// DateLiteral, with %s a date as YYYY-MM-DD, is a date constant
	// (SQL's DATE 'YYYY-MM-DD'; see DateConst); empty means the standard
	// form. SQLite, which keeps dates as ISO text, compares with the text.
	DateLiteral string
	// ForUpdate is the clause appended to a SELECT to lock the rows it
	// reads (" FOR UPDATE"); empty where the engine has no row locks and
	// BeginWrite already takes the write lock (SQLite's BEGIN IMMEDIATE),
	// or where it locks with a table hint instead (LockHint). Write such a
	// SELECT with SelectForUpdate, which places either.
	ForUpdate string
	// LockHint is the table hint written after the table's name in a
	// SELECT that locks the rows it reads (SQL Server's
	// " WITH (UPDLOCK, ROWLOCK)"), where the engine has no ForUpdate
	// clause.
	LockHint string
	// Routines names the language of the server-side routines (functions,
	// stored procedures) a workload may create and call instead of sending
	// its statements one by one: RoutinesPLpgSQL, RoutinesMySQL, or empty
	// where the engine has none (SQLite).
	Routines string
	// ServerXacts is a query whose rows are (key, count): the transactions
	// committed and rolled back on the whole server, every database and
	// session included, since its counters were last reset (the counters
	// of HammerDB's TPM), keyed so that a database dropped between two
	// readings leaves the difference (Counts.Since) instead of making it
	// go down; empty where the engine keeps none. Read it with
	// QueryCounts.
	ServerXacts string
	// DatabaseXacts is ServerXacts for the current database alone; empty
	// where the engine counts transactions only server-wide (MySQL).
	DatabaseXacts string
	// XactsDelay is how late those counters may show a session's
	// transactions: PostgreSQL publishes a session's counts at most once a
	// second, and when the session ends (shortly after its client has
	// gone); 0 where they are counted as they happen.
	XactsDelay time.Duration
}

// Languages of server-side routines (Caps.Routines).
const (
	RoutinesPLpgSQL = "plpgsql"
	RoutinesMySQL   = "mysql"
	// RoutinesTSQL is T-SQL's stored procedures (SQL Server, Babelfish).
	RoutinesTSQL = "tsql"
)

// SelectForUpdate is a SELECT that locks the rows it reads: from is the
// statement up to and including the name of the one table it reads
// ("SELECT a FROM t"), rest what follows the table (" WHERE ... ORDER
// BY ..." and any LimitClause). The engine's table hint goes between them
// (LockHint), its locking clause at the end (ForUpdate).
func (c Caps) SelectForUpdate(from, rest string) string {
	return from + c.LockHint + rest + c.ForUpdate
}

// LimitClause is the clause that keeps the first n rows of an ordered
// query: " LIMIT n", or the engine's own (Caps.Limit).
func (c Caps) LimitClause(n int) string {
	if c.Limit == "" {
		return " LIMIT " + strconv.Itoa(n)
	}
	return fmt.Sprintf(c.Limit, n)
}

// DateConst is the date constant of ymd (YYYY-MM-DD) in the engine's
// dialect (Caps.DateLiteral).
func (c Caps) DateConst(ymd string) string {
	if c.DateLiteral == "" {
		return "DATE '" + ymd + "'"
	}
	return fmt.Sprintf(c.DateLiteral, ymd)
}

// Year is the year of the date expression expr as an integer, in the
// engine's dialect (Caps.YearOf).
func (c Caps) Year(expr string) string {
	if c.YearOf == "" {
		return "extract(year from " + expr + ")"
	}
	return fmt.Sprintf(c.YearOf, expr)
}

// FirstCharCode is the numeric code of the first character of the string
// expression expr: ascii(expr), or the engine's own function
// (Caps.CharCode).
func (c Caps) FirstCharCode(expr string) string {
	f := c.CharCode
	if f == "" {
		f = "ascii"
	}
	return f + "(" + expr + ")"
}

// UUIDArg turns a UUID into the value the engine's UUIDType column takes.
func (c Caps) UUIDArg(u [16]byte) any {
	if c.NativeUUID {
		return u
	}
	return u[:]
}

// Tagger is a DB whose sessions can carry a name the server shows to
// monitoring (PostgreSQL's application_name), so that collectors can find
// the harness's own sessions.
type Tagger interface {
	// Tag names the sessions opened from now on and returns the name they
	// carry (the URL's own application_name, if it gave one, wins).
	Tag(name string) string
}

// LockWaiter is a DB whose client measures how long its connections wait
// for the database's write lock (SQLite, where writers queue on one lock).
type LockWaiter interface {
	LockWaits() *LockWaits
}

// LockWaits counts write-lock acquisitions and the time they took. An
// acquisition that took LockWaitThreshold or more had to wait for another
// writer (SQLite's busy handler sleeps 1 ms at least before retrying).
type LockWaits struct {
	Acquired atomic.Int64
	Waited   atomic.Int64
	Nanos    atomic.Int64
}

// LockWaitThreshold is the acquisition time from which an acquisition
// counts as having waited.
const LockWaitThreshold = time.Millisecond

// Observe records one acquisition that took d.
func (l *LockWaits) Observe(d time.Duration) {
	l.Acquired.Add(1)
	l.Nanos.Add(int64(d))
	if d >= LockWaitThreshold {
		l.Waited.Add(1)
	}
}

// LoadSweeper is a Conn whose engine's loads (DB.CopyIn) keep rows in
// tables of their own until they commit, which a process killed mid-load
// leaves behind. SweepLoads drops those of table's loads; init calls it as
// it replaces table (Recreate), when no load into table can be running.
type LoadSweeper interface {
	SweepLoads(ctx context.Context, table string) error
}

// TextBorrower is a Conn whose Exec is done with the statement's text when
// it returns: it encodes the text at once and keeps no reference to it, in
// its messages, its errors or anywhere else. A caller may then pass Exec a
// string that shares the memory of a buffer it reuses (a script in simple
// query mode writes each statement into one), instead of a copy made for
// each statement.
type TextBorrower interface {
	Conn
	BorrowsText()
}

// Conn is one connection to the target database. It is used by one
// goroutine at a time.
type Conn interface {
	// Exec runs a statement without parameters (DDL, BEGIN, COMMIT).
	Exec(ctx context.Context, sql string) error
	// Prepare returns a reusable statement for sql written with $1..$n
	// placeholders; the engine rebinds them as it needs.
	Prepare(ctx context.Context, sql string) (Stmt, error)
	// Query runs a one-off query with parameters.
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	// Close releases the connection.
	Close() error
	// Alive is false once the connection is known to be broken.
	Alive() bool
	// BackendID identifies the server session (PostgreSQL pid, MySQL
	// connection id), or 0 where there is none.
	BackendID(ctx context.Context) int64
	// Cancel asks the server to cancel what runs on this connection. It
	// may be called from another goroutine. Engines without
	// Caps.CancelByRequest cancel through the statement's context instead,
	// and do nothing here.
	Cancel(ctx context.Context) error
}

// StatementTimeouter is a DB that bounds how long each statement of the
// connections it opens from then on may run (--statement-timeout): a
// statement that runs longer is ended (by the server where there is one)
// and fails with an error that Classify puts in class ClassTimeout.
type StatementTimeouter interface {
	SetStatementTimeout(d time.Duration)
}

// ClassTimeout is the error class of statements ended by the statement
// timeout (and of other timeouts the engines report).
const ClassTimeout = "timeout"

// ErrStatementTimeout marks a statement ended on the client's side by the
// statement timeout, where the engine has no server to end it.
var ErrStatementTimeout = errors.New("statement timeout")

// Aborter is a Conn whose socket can be closed from another goroutine, so
// that a statement waiting on a server that does not answer (not even a
// cancel request) fails at once with a lost connection.
type Aborter interface {
	Abort()
}

// Stmt is a prepared statement bound to one connection.
type Stmt interface {
	// Exec runs the statement and returns the number of rows affected.
	Exec(ctx context.Context, args ...any) (int64, error)
	// QueryRow runs the statement and scans the first row into dest; it
	// returns ErrNoRows when there is none.
	QueryRow(ctx context.Context, dest []any, args ...any) error
	// Query runs the statement and returns its rows.
	Query(ctx context.Context, args ...any) (Rows, error)
}

// Rows iterates over a result set.
type Rows interface {
	// Columns names the result's columns.
	Columns() []string
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// ErrNoRows is returned by Stmt.QueryRow when the query returned no row.
var ErrNoRows = errors.New("no rows in result set")

// DB opens connections to one target and knows its engine.
type DB interface {
	Target() *Target
	Caps() Caps
	// Connect opens a new connection.
	Connect(ctx context.Context) (Conn, error)
	// Info returns the engine's name, version and key settings.
	Info(ctx context.Context) (Info, error)
	// Classify tells how the driver should treat an error.
	Classify(err error) ErrorClass
	// TableExists reports whether a table exists.
	TableExists(ctx context.Context, conn Conn, table string) (bool, error)
	// CopyIn bulk-loads rows into a table on conn with the engine's fastest
	// path and returns the number of rows written.
	CopyIn(ctx context.Context, conn Conn, table string, columns []string, src RowSource) (int64, error)
	// Close releases shared resources.
	Close() error
}

// Info describes the server.
type Info struct {
	Engine  string `json:"name"`
	Version string `json:"version"`
	// Settings are the key settings as the server shows them (SHOW's
	// "128MB", not pg_settings' 16384 of 8kB pages).
	Settings map[string]string `json:"settings,omitempty"`
	// DataDir is where the server keeps its data, as the server names it
	// (empty when it does not say, e.g. to a user without the privilege).
	DataDir string `json:"data_dir,omitempty"`
	// Normalized holds the numeric settings as a number in a base unit,
	// for comparison; settings that are not numbers are left out.
	Normalized map[string]Setting `json:"settings_normalized,omitempty"`
	// TLS is the transport of the harness's sessions as the server saw
	// the one that read this (TLSText): "off", the protocol and cipher,
	// or "" where the engine has no network (SQLite).
	TLS string `json:"tls,omitempty"`
}

// TLSText describes a session's TLS from the server's own account of it:
// "TLSv1.3 TLS_AES_256_GCM_SHA384", or "off" when both are empty.
func TLSText(version, cipher string) string {
	if s := strings.TrimSpace(version + " " + cipher); s != "" {
		return s
	}
	return "off"
}

// Setting is a numeric server setting normalised for comparison: Value in
// Unit, which is "bytes", "ms" or "" for a plain number.
type Setting struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// NormalizeUnit turns a number in a unit as PostgreSQL's pg_settings.unit
// names it ("8kB", "kB", "MB", "B", "ms", "s", "min", ...) into bytes or
// milliseconds. ok is false for a unit it does not know.
func NormalizeUnit(v float64, unit string) (s Setting, ok bool) {
	i := 0
	for i < len(unit) && unit[i] >= '0' && unit[i] <= '9' {
		i++
	}
	mult := 1.0
	if i > 0 {
		n, err := strconv.Atoi(unit[:i])
		if err != nil {
			return Setting{}, false
		}
		mult = float64(n)
	}
	base := map[string]Setting{
		"B": {1, "bytes"}, "kB": {1 << 10, "bytes"}, "MB": {1 << 20, "bytes"}, "GB": {1 << 30, "bytes"}, "TB": {1 << 40, "bytes"},
		"us": {0.001, "ms"}, "ms": {1, "ms"}, "s": {1000, "ms"}, "min": {60000, "ms"}, "h": {3600000, "ms"}, "d": {86400000, "ms"},
	}[unit[i:]]
	if base.Unit == "" {
		return Setting{}, false
	}
	return Setting{Value: v * mult * base.Value, Unit: base.Unit}, true
}

// RowSource yields rows for CopyIn; Values is valid until the next call
// to Next.
type RowSource interface {
	Next() bool
	Values() []any
	Err() error
}

// ErrorClass tells the driver how to handle an error.
type ErrorClass struct {
	// Code is a short label for counting: "sqlstate:40", "mysql:1213",
	// "sqlite:5", "conn", "timeout", "other".
	Code string
	// Retryable: a serialization failure or deadlock; the transaction may
	// be retried.
	Retryable bool
	// ConnLost: the connection is gone and must be re-established.
	ConnLost bool
}

// Open returns a DB for the target, from its registered engine. It does
// not connect yet.
func Open(t *Target) (DB, error) {
	e := byKind(t.Kind)
	if e == nil {
		return nil, fmt.Errorf("engine %q is not supported", t.Kind)
	}
	return e.Open(t)
}

// SliceSource is a RowSource over rows held in memory.
type SliceSource struct {
	Rows [][]any
	i    int
}

// Next advances to the next row.
func (s *SliceSource) Next() bool { s.i++; return s.i <= len(s.Rows) }

// Values returns the current row.
func (s *SliceSource) Values() []any { return s.Rows[s.i-1] }

// Err is always nil.
func (s *SliceSource) Err() error { return nil }

// Decimal is an exact value for a decimal column, Unscaled x 10^-Scale
// (Decimal{71156, 2} is 711.56), which a loader passes without going
// through a float: PostgreSQL's COPY encodes it as a numeric directly,
// MySQL's INSERTs write its text, database/sql drivers take its text
// (driver.Valuer).
type Decimal struct {
	Unscaled int64
	Scale    int32
}

// String is the value in decimal notation with Scale digits after the
// point.
func (d Decimal) String() string {
	if d.Scale <= 0 {
		return strconv.FormatInt(d.Unscaled, 10)
	}
	u := d.Unscaled
	neg := u < 0
	if neg {
		u = -u
	}
	s := strconv.FormatInt(u, 10)
	if len(s) <= int(d.Scale) {
		s = strings.Repeat("0", int(d.Scale)-len(s)+1) + s
	}
	s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	if neg {
		return "-" + s
	}
	return s
}

// Float is the value as a float64 (for drivers that take decimals so).
func (d Decimal) Float() float64 {
	f := float64(d.Unscaled)
	for i := int32(0); i < d.Scale; i++ {
		f /= 10
	}
	return f
}

// Value implements driver.Valuer: the value's text.
func (d Decimal) Value() (driver.Value, error) { return d.String(), nil }

// Rebind turns $1..$n placeholders into ? for engines that number nothing.
// It leaves $ inside quoted strings alone.
func Rebind(sql string) string { return rebind(sql, "?", false) }

// RebindNamed turns $1..$n placeholders into prefix1..prefixn (SQL Server's
// @p1..@pn). It leaves $ inside quoted strings alone.
func RebindNamed(sql, prefix string) string { return rebind(sql, prefix, true) }

// rebind replaces each $n outside quotes by to, followed by n when number.
func rebind(sql, to string, number bool) string {
	if strings.IndexByte(sql, '$') < 0 {
		return sql
	}
	var b strings.Builder
	inQuote := false
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c == '\'' {
			inQuote = !inQuote
		}
		if c == '$' && !inQuote && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' {
			b.WriteString(to)
			for i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' {
				i++
				if number {
					b.WriteByte(sql[i])
				}
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// QueryInt64 runs a one-row, one-column query and returns its value as an
// int64 (NULL gives 0).
func QueryInt64(ctx context.Context, c Conn, sql string, args ...any) (int64, error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var v *int64
	if rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}

// Counts are cumulative counters by key: a database's transactions, a
// status variable.
type Counts map[string]int64

// QueryCounts runs a query whose rows are (key, ..., count) and returns the
// counts by key: the first column read as text, the last as an integer.
func QueryCounts(ctx context.Context, c Conn, sql string) (Counts, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := Counts{}
	for rows.Next() {
		n := len(rows.Columns())
		if n < 2 {
			return nil, fmt.Errorf("counts query returned %d column; want a key and a count", n)
		}
		vals := make([]any, n)
		for i := range vals {
			vals[i] = new(any)
		}
		var k string
		var v int64
		vals[0], vals[n-1] = &k, &v
		if err := rows.Scan(vals...); err != nil {
			return nil, err
		}
		out[k] += v
	}
	return out, rows.Err()
}

// Total is the sum of the counts.
func (c Counts) Total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// Growth returns how much the counters grew from before to c: the
// increase of each key read both times, plus the whole count of a key that
// is new (a database created meanwhile). A key that is gone (a database
// dropped meanwhile) takes its counts with it and is left out, so that the
// sum never goes down for that. A key whose counter went down was reset
// meanwhile: it adds its count since the reset (less than it grew, by what
// it counted before the reset) and is named in reset.
func (c Counts) Growth(before Counts) (n int64, reset []string) {
	for k, v := range c {
		d := v - before[k]
		if d < 0 {
			d = v
			reset = append(reset, k)
		}
		n += d
	}
	slices.Sort(reset)
	return n, reset
}

// QueryString runs a one-row, one-column query and returns its text.
func QueryString(ctx context.Context, c Conn, sql string, args ...any) (string, error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var v *string
	if rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return "", err
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if v == nil {
		return "", nil
	}
	return *v, nil
}

// Local reports whether the target runs on this host: a database file, a
// Unix socket, or a loopback host (127.0.0.1, ::1, localhost).
func (t *Target) Local() bool {
	if t.Path != "" {
		return true
	}
	if t.u == nil {
		return false
	}
	q := t.u.Query()
	if q.Get("socket") != "" || strings.HasPrefix(q.Get("host"), "/") {
		return true
	}
	switch h := strings.ToLower(t.u.Hostname()); h {
	case "", "localhost", "::1":
		return true
	default:
		return strings.HasPrefix(h, "127.")
	}
}

// ScanSettings reads the (name, value) rows of a query into m (for Info).
func ScanSettings(ctx context.Context, c Conn, m map[string]string, sql string, args ...any) error {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		m[k] = v
	}
	return rows.Err()
}

// LoopDB is a DB whose connections an event loop can drive (package
// evloop): the driver's loop mode, many connections on one OS thread.
type LoopDB interface {
	// ConnectLoop opens a connection whose socket is off Go's network
	// poller. It can be used on any goroutine (its waits block in poll(2))
	// until Attach hands it to a loop task.
	ConnectLoop(ctx context.Context) (LoopConn, error)
}

// LoopConn is a Conn that a loop task can own. Once attached, it is used
// only from its task, and never blocks the loop: it yields while it waits.
type LoopConn interface {
	Conn
	// Attach hands the connection's socket to task t; it must be called
	// from t.
	Attach(t *evloop.Task) error
	// Detach takes the socket back from its task, so that another task
	// (on another loop) may Attach it; it must be called from the task.
	Detach()
	// ServerCPU is the CPU the connection's server process or thread
	// runs on, as far as the client can tell cheaply, or -1: it is read
	// now and then (not on every transaction) to deal connections to the
	// loop on the same CPU.
	ServerCPU() int
}

// FreezeLoader is a DB that can load a table so that its rows are written
// already frozen (PostgreSQL's COPY ... FREEZE): the following VACUUM then
// has nothing to do. It requires the table to be emptied in the same
// transaction, so such a load is a single stream.
type FreezeLoader interface {
	// CopyInFrozen empties table and loads every row of the batches in one
	// transaction on conn; next returns the source of each batch in turn
	// and nil at the end. It returns the rows written.
	CopyInFrozen(ctx context.Context, conn Conn, table string, columns []string, next func() RowSource, progress func(int64)) (int64, error)
}

// Cataloger is a DB whose catalog tells how a table is stored and what the
// optimizer believes about its columns (the data profile of workload
// files).
type Cataloger interface {
	// TableStorage reads the engine's size figures for table.
	TableStorage(ctx context.Context, conn Conn, table string) (TableStorage, error)
	// ColumnStats reads the optimizer's statistics of a column of table,
	// which has rows rows; nil where it keeps none.
	ColumnStats(ctx context.Context, conn Conn, table, column string, rows int64) (*ColumnStats, error)
}

// TableSizer is a DB that can say how big a table is, for the dataset a
// run records.
type TableSizer interface {
	TableSize(ctx context.Context, conn Conn, table string) (TableSize, error)
}

// TableSize is a table's rows and bytes. Rows are counted when the
// engine's estimate is below ExactRowsBelow (or it has none) and estimated
// above, where counting would take long; Bytes and IndexBytes are -1 where
// the engine cannot say.
type TableSize struct {
	Rows              int64
	RowsExact         bool
	Bytes, IndexBytes int64
}

// ExactRowsBelow is the estimated row count under which TableSize counts.
const ExactRowsBelow = 1_000_000

// QueryRow scans the first row of a query into dest; found is false when
// there is none.
func QueryRow(ctx context.Context, c Conn, sql string, args []any, dest ...any) (found bool, err error) {
	rs, err := c.Query(ctx, sql, args...)
	if err != nil {
		return false, err
	}
	defer rs.Close()
	if rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return false, err
		}
		found = true
	}
	return found, rs.Err()
}

// SizeRows completes a TableSize from the engine's row estimate: it counts
// the rows when the estimate is unknown (negative) or below ExactRowsBelow.
func SizeRows(ctx context.Context, conn Conn, table string, est float64, ts *TableSize) error {
	if est >= 0 && est >= ExactRowsBelow {
		ts.Rows, ts.RowsExact = int64(est), false
		return nil
	}
	n, err := QueryInt64(ctx, conn, "SELECT count(*) FROM "+table)
	if err != nil {
		return err
	}
	ts.Rows, ts.RowsExact = n, true
	return nil
}

// TableStorage is a table's size as the engine's catalog gives it.
type TableStorage struct {
	// Source names where the figures come from ("pg_class").
	Source      string
	Pages       int64
	PageBytes   int64
	EstRows     float64
	AvgRowBytes float64
	RowsPerPage float64
}

// ColumnStats is what the optimizer believes about a column; nil fields
// are unknown.
type ColumnStats struct {
	// Source names where the figures come from ("pg_stats").
	Source   string   `json:"source"`
	Distinct float64  `json:"distinct"`
	NullFrac *float64 `json:"null_frac,omitempty"`
	// TopShare is the share the engine believes the most common value
	// has; nil where it keeps no list of most common values.
	TopShare *float64 `json:"top_share,omitempty"`
	AvgWidth *float64 `json:"avg_width,omitempty"`
}

// Assignment is one session setting a run sets on every connection it
// opens (--set NAME=VALUE).
type Assignment struct {
	Name, Value string
}

// String is NAME=VALUE.
func (a Assignment) String() string { return a.Name + "=" + a.Value }

// ParseAssignment reads --set's NAME=VALUE. A name is letters, digits,
// underscores and dots (PostgreSQL's extension settings have a dot), so
// that an engine may put it into SQL as it is.
func ParseAssignment(s string) (Assignment, error) {
	name, val, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Assignment{}, fmt.Errorf("--set %q: give NAME=VALUE, e.g. --set synchronous_commit=off", s)
	}
	if !ValidSettingName(name) {
		return Assignment{}, fmt.Errorf("--set %q: %q is not a setting's name (letters, digits, _ and .)", s, name)
	}
	return Assignment{Name: name, Value: val}, nil
}

// ValidSettingName reports whether name can name a session setting:
// letters, digits, underscores and dots, starting with a letter or _.
func ValidSettingName(name string) bool {
	for i, c := range name {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c == '.' || c >= '0' && c <= '9'):
		default:
			return false
		}
	}
	return name != ""
}

// SessionSetter is a DB that sets session settings (--set) on every
// connection it opens from then on, the event-loop driver's too.
type SessionSetter interface {
	// SetSession checks the settings with the server, on a connection of
	// its own, before it keeps them: an unknown name, a setting that
	// cannot be set per session, or a value the server refuses is a
	// *SettingError. Info then reports each setting as the run's sessions
	// see it.
	SetSession(ctx context.Context, set []Assignment) error
}

// SettingError is a --set setting the server refuses: the user's to fix.
type SettingError struct {
	Setting Assignment
	// Why is the rest of the sentence, e.g. "needs a server restart".
	Why string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("--set %s: %s", e.Setting, e.Why)
}

// SetSession sets the settings on the connections d opens from now on
// (SessionSetter); an engine without session settings is refused with a
// *SettingError.
func SetSession(ctx context.Context, d DB, set []Assignment) error {
	if len(set) == 0 {
		return nil
	}
	s, ok := d.(SessionSetter)
	if !ok {
		return &SettingError{set[0], fmt.Sprintf("the %s engine has no session settings dbharness can set", d.Target().Kind)}
	}
	return s.SetSession(ctx, set)
}

// CheckSession checks the settings against target's server, on a DB of its
// own that it closes: what SetSession would refuse, before anything runs.
func CheckSession(ctx context.Context, t *Target, set []Assignment) error {
	if len(set) == 0 {
		return nil
	}
	d, err := Open(t)
	if err != nil {
		return err
	}
	defer d.Close()
	return SetSession(ctx, d, set)
}

// MaxDOP is the largest degree of parallelism --dop takes (PostgreSQL's
// max_parallel_workers_per_gather goes to 1024, SQL Server's MAXDOP to
// 32767).
const MaxDOP = 1024

// DOPSetter is a DB whose engine can bound the processes that one query may
// run on, its degree of parallelism (--dop). DOP n counts the processes of
// a query, the leader included, as SQL Server's MAXDOP n does: 1 is a
// serial plan, and on PostgreSQL DOP n is max_parallel_workers_per_gather
// = n-1 (workers beside the leader, which takes part in the plan too).
type DOPSetter interface {
	// SetDOP makes the connections d opens from now on, the event-loop
	// driver's and the collectors' too, run each query on at most n
	// processes (n >= 1). A value the server cannot take, or one that
	// contradicts a --set setting, is a *DOPError. Info then reports the
	// setting as the sessions see it.
	SetDOP(ctx context.Context, n int) error
}

// DOPError is a --dop the engine or the server cannot take: the user's to
// fix.
type DOPError struct {
	N int
	// Why is the rest of the sentence.
	Why string
}

func (e *DOPError) Error() string { return fmt.Sprintf("--dop %d: %s", e.N, e.Why) }

// SetDOP bounds the processes of each query on the connections d opens
// from now on (DOPSetter); 0 leaves the server's setting. An engine
// without intra-query parallelism is refused with a *DOPError.
func SetDOP(ctx context.Context, d DB, n int) error {
	if n == 0 {
		return nil
	}
	if n < 1 || n > MaxDOP {
		return &DOPError{n, fmt.Sprintf("give the processes a query may use, leader included, from 1 (serial) to %d", MaxDOP)}
	}
	s, ok := d.(DOPSetter)
	if !ok {
		return &DOPError{n, fmt.Sprintf("the %s engine runs every query on one thread (it has no intra-query parallelism), so there is no degree of parallelism to set; leave --dop out", d.Target().Kind)}
	}
	return s.SetDOP(ctx, n)
}

// CheckDOP checks --dop n against target's server, on a DB of its own that
// it closes, with the --set settings set: what SetDOP would refuse, before
// anything runs.
func CheckDOP(ctx context.Context, t *Target, set []Assignment, n int) error {
	if n == 0 {
		return nil
	}
	d, err := Open(t)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := SetSession(ctx, d, set); err != nil {
		return err
	}
	return SetDOP(ctx, d, n)
}

// DelayedCommitter is a DB whose engine can commit a transaction without
// waiting for its log records to reach the disk, the commit returning
// before the flush (SQL Server's delayed durability).
type DelayedCommitter interface {
	// DelayedCommit returns the statement that commits the transaction
	// open on conn so, or, as one sentence, why the database of conn would
	// not honour it.
	DelayedCommit(ctx context.Context, conn Conn) (string, error)
}
