package postgres

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/procfs"

	"github.com/dbharness/dbharness/internal/db"
)

// ConnectLoop implements LoopDB: pgconn connects and authenticates (TLS
// included, negotiated over an evloop.Sock), then the connection is
// hijacked and its socket taken off Go's network poller. From then on the
// wire protocol is spoken here, with pgproto3's messages and pgx's type
// map for values.
func (d *pgDB) ConnectLoop(ctx context.Context) (db.LoopConn, error) {
	cfg := d.cfg.Copy()
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return evloop.Wrap(c), nil
	}
	pc, err := pgconn.ConnectConfig(ctx, &cfg.Config)
	if err != nil {
		return nil, connectError(d.t, err)
	}
	// pgconn may still have a background reader on the socket (it starts
	// one when a write is slow, as on a busy machine), which would steal the
	// replies meant for the loop: SyncConn waits until it has stopped and
	// nothing is buffered.
	if err := pc.SyncConn(ctx); err != nil {
		pc.Close(ctx)
		return nil, fmt.Errorf("take over the connection to %s: %w", d.t, err)
	}
	hc, err := pc.Hijack()
	if err != nil {
		pc.Close(ctx)
		return nil, fmt.Errorf("take over the connection to %s: %w", d.t, err)
	}
	rw := hc.Conn
	var sock *evloop.Sock
	switch c := rw.(type) {
	case *evloop.Sock:
		sock = c
	case *tls.Conn:
		sock, _ = c.NetConn().(*evloop.Sock)
	}
	if sock == nil {
		rw.Close()
		return nil, fmt.Errorf("take over the connection to %s: its socket is a %T", d.t, rw)
	}
	if n := hc.Frontend.ReadBufferLen(); n > 0 {
		rw.Close()
		return nil, fmt.Errorf("take over the connection to %s: %d bytes arrived unasked after the login", d.t, n)
	}
	if err := sock.TakeOver(); err != nil {
		rw.Close()
		return nil, fmt.Errorf("take over the connection to %s: %w", d.t, err)
	}
	m := pgtype.NewMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryText}, m.TryWrapEncodePlanFuncs...)
	c := &pgLoopConn{sock: sock, rw: rw, fe: pgproto3.NewFrontend(rw, rw), m: m, pid: hc.PID,
		secret: hc.SecretKey, stmts: map[string]*pgLoopStmt{}, kept: map[string]*pgLoopStmt{}}
	if addr := sock.RemoteAddr(); addr.Network() != "unix" {
		c.cancelNet, c.cancelAddr = addr.Network(), addr.String()
	} else {
		c.cancelNet, c.cancelAddr = pgconn.NetworkAddress(hc.Config.Host, hc.Config.Port)
	}
	return c, nil
}

// pgStmtCacheSize bounds the statements a loop connection keeps prepared
// for Query's one-off SQL, as pgx's statement cache does.
const pgStmtCacheSize = 512

// pgLoopConn is a PostgreSQL connection that speaks the wire protocol
// itself over a socket an event loop can drive. Every result is read whole
// (to ReadyForQuery) before it is scanned, so the protocol never loses its
// place. Rows are few in the workloads it runs, and kept in memory.
type pgLoopConn struct {
	sock *evloop.Sock
	rw   net.Conn // the socket, or TLS over it
	fe   *pgproto3.Frontend
	m    *pgtype.Map
	dead bool

	pid                   uint32
	secret                []byte
	cancelNet, cancelAddr string

	// stmts are the statements Query prepared for one-off SQL, by text,
	// at most pgStmtCacheSize of them; kept are those Prepare returned,
	// which their callers hold: they are never closed to make room.
	stmts   map[string]*pgLoopStmt
	kept    map[string]*pgLoopStmt
	seq     int
	eqb     pgx.ExtendedQueryBuilder
	row     [][]byte // the first row of the last QueryRow
	rowBuf  []byte
	params  [][]byte
	textBuf []byte
	// txStatus is the last ReadyForQuery's status: 'I' idle, 'T' in a
	// transaction, 'E' in a failed one.
	txStatus byte
	msgs     struct {
		query   pgproto3.Query
		bind    pgproto3.Bind
		execute pgproto3.Execute
		sync    pgproto3.Sync
	}
	tag []byte // the last CommandComplete's tag
	// boundCtx is the context whose deadline the socket has (bound).
	boundCtx context.Context
}

// Attach implements LoopConn.
func (c *pgLoopConn) Attach(t *evloop.Task) error { return c.sock.Attach(t) }

// Detach implements LoopConn.
func (c *pgLoopConn) Detach() { c.sock.Detach() }

// ServerCPU implements LoopConn: over TCP the CPU that took in the
// backend's last reply (on loopback, the backend's); over the Unix socket,
// the CPU the backend process (its PID is in the login's BackendKeyData)
// last ran on, when this host's process of that PID is a postgres.
func (c *pgLoopConn) ServerCPU() int {
	if c.cancelNet == "unix" {
		return procfs.ProcessCPU(int(c.pid), "postgres")
	}
	return c.sock.IncomingCPU()
}

// fail marks the connection dead after an I/O error.
func (c *pgLoopConn) fail(err error) error {
	c.dead = true
	c.sock.Close()
	return err
}

// flush sends what was queued.
func (c *pgLoopConn) flush() error {
	if c.dead {
		return errors.New("conn closed")
	}
	if err := c.fe.Flush(); err != nil {
		return c.fail(err)
	}
	return nil
}

// result is what one round trip returned.
type pgResult struct {
	err    error
	tag    []byte
	fields []pgconn.FieldDescription
	rows   [][][]byte // only when collecting rows
	found  bool
	each   []db.Rows // rowsEach: every statement's rows (no columns for one that returns none)
}

// How reply reads treat rows.
const (
	rowsSkip  = iota // count nothing, keep nothing
	rowsFirst        // keep the first row in c.row
	rowsAll          // keep every row
	rowsEach         // keep every row of every statement, apart
)

// receive reads messages up to ReadyForQuery. The first ErrorResponse is
// the result's error; the statement's rows are kept as keep says.
func (c *pgLoopConn) receive(keep int, res *pgResult) error {
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			return c.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ReadyForQuery:
			c.txStatus = m.TxStatus
			return nil
		case *pgproto3.DataRow:
			switch {
			case keep == rowsFirst && !res.found:
				c.copyRow(m.Values)
			case keep == rowsAll || keep == rowsEach:
				res.rows = append(res.rows, copyValues(m.Values))
			}
			res.found = true
		case *pgproto3.RowDescription:
			if keep == rowsAll || keep == rowsEach {
				// Only kept rows are read by their columns' names.
				res.fields = fieldDescriptions(m.Fields)
			}
			// A statement of several results keeps the last one's rows.
			res.rows, res.found = res.rows[:0], false
		case *pgproto3.CommandComplete:
			c.tag = append(c.tag[:0], m.CommandTag...)
			res.tag = c.tag
			if keep == rowsEach {
				// One statement of several is done.
				res.each = append(res.each, res.textRows())
				res.fields, res.rows = nil, nil
			}
		case *pgproto3.ErrorResponse:
			if res.err == nil {
				res.err = pgconn.ErrorResponseToPgError(m)
			}
			if m.Severity == "FATAL" || m.Severity == "PANIC" {
				// The server ends the session after a fatal error.
				c.dead = true
			}
		}
	}
}

// copyRow keeps values as c.row, in buffers the connection reuses.
func (c *pgLoopConn) copyRow(vals [][]byte) {
	c.rowBuf = c.rowBuf[:0]
	for _, v := range vals {
		c.rowBuf = append(c.rowBuf, v...)
	}
	c.row = c.row[:0]
	off := 0
	for _, v := range vals {
		if v == nil {
			c.row = append(c.row, nil)
			continue
		}
		n := len(v)
		c.row = append(c.row, c.rowBuf[off:off+n:off+n])
		off += n
	}
}

func copyValues(vals [][]byte) [][]byte {
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	buf := make([]byte, 0, n)
	row := make([][]byte, len(vals))
	for i, v := range vals {
		if v != nil {
			start := len(buf)
			buf = append(buf, v...)
			row[i] = buf[start:len(buf):len(buf)]
		}
	}
	return row
}

func fieldDescriptions(fs []pgproto3.FieldDescription) []pgconn.FieldDescription {
	out := make([]pgconn.FieldDescription, len(fs))
	for i, f := range fs {
		out[i] = pgconn.FieldDescription{Name: string(f.Name), TableOID: f.TableOID, TableAttributeNumber: f.TableAttributeNumber,
			DataTypeOID: f.DataTypeOID, DataTypeSize: f.DataTypeSize, TypeModifier: f.TypeModifier, Format: f.Format}
	}
	return out
}

// Exec runs sql through the simple query protocol, as pgx does for a
// statement without arguments.
func (c *pgLoopConn) Exec(ctx context.Context, sql string) error {
	c.bound(ctx)
	c.sendQuery(sql)
	return c.roundTrip()
}

// BorrowsText implements db.TextBorrower: Exec encodes the text into the
// connection's write buffer before it sends anything (sendQuery), and the
// server's errors carry none of it.
func (c *pgLoopConn) BorrowsText() {}

// sendQuery queues sql as a simple query, in the connection's own message:
// Send encodes it at once, and a message made for each statement would be
// garbage (one allocation a statement under -M simple).
func (c *pgLoopConn) sendQuery(sql string) {
	q := &c.msgs.query
	q.String = sql
	c.fe.Send(q)
	q.String = ""
}

// roundTrip sends what was queued and reads the reply, whose rows it
// skips; it returns the first error the server reported.
func (c *pgLoopConn) roundTrip() error {
	if err := c.flush(); err != nil {
		return err
	}
	var res pgResult
	if err := c.receive(rowsSkip, &res); err != nil {
		return err
	}
	return res.err
}

// Prepare prepares sql once per connection (a second Prepare of the same
// text returns the same statement).
func (c *pgLoopConn) Prepare(ctx context.Context, sql string) (db.Stmt, error) {
	c.bound(ctx)
	if s, ok := c.kept[sql]; ok {
		return s, nil
	}
	s, ok := c.stmts[sql]
	if ok {
		delete(c.stmts, sql)
	} else {
		var err error
		if s, err = c.parse(sql); err != nil {
			return nil, err
		}
	}
	c.kept[sql] = s
	return s, nil
}

// bound makes the connection's waits end at ctx's deadline, if it has
// one. Statements on a loop run under a context without one, and are
// cancelled by request instead (Cancel).
func (c *pgLoopConn) bound(ctx context.Context) {
	// A context's deadline never changes: the one bound last is bound
	// still. Looking it up walks the context's chain, every statement.
	if ctx == c.boundCtx {
		return
	}
	c.boundCtx = ctx
	dl, _ := ctx.Deadline()
	c.sock.SetDeadline(dl)
}

// prepare returns the statement of sql for Query: one Prepare returned,
// or one of the cache, which it empties when it is full.
func (c *pgLoopConn) prepare(sql string) (*pgLoopStmt, error) {
	if s, ok := c.kept[sql]; ok {
		return s, nil
	}
	if s, ok := c.stmts[sql]; ok {
		return s, nil
	}
	if len(c.stmts) >= pgStmtCacheSize {
		if err := c.deallocateAll(); err != nil {
			return nil, err
		}
	}
	s, err := c.parse(sql)
	if err != nil {
		return nil, err
	}
	c.stmts[sql] = s
	return s, nil
}

// parse prepares sql on the server under a name of its own.
func (c *pgLoopConn) parse(sql string) (*pgLoopStmt, error) {
	c.seq++
	name := "dbh_" + strconv.Itoa(c.seq)
	c.fe.Send(&pgproto3.Parse{Name: name, Query: sql})
	c.fe.Send(&pgproto3.Describe{ObjectType: 'S', Name: name})
	c.fe.Send(&pgproto3.Sync{})
	if err := c.flush(); err != nil {
		return nil, err
	}
	sd := &pgconn.StatementDescription{Name: name, SQL: sql}
	var firstErr error
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			return nil, c.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ParameterDescription:
			sd.ParamOIDs = append([]uint32(nil), m.ParameterOIDs...)
		case *pgproto3.RowDescription:
			sd.Fields = fieldDescriptions(m.Fields)
		case *pgproto3.ErrorResponse:
			if firstErr == nil {
				firstErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			c.txStatus = m.TxStatus
			if firstErr != nil {
				return nil, firstErr
			}
			return &pgLoopStmt{c: c, sd: sd}, nil
		}
	}
}

// deallocateAll closes every statement of the cache (not those kept).
func (c *pgLoopConn) deallocateAll() error {
	for sql, s := range c.stmts {
		c.fe.Send(&pgproto3.Close{ObjectType: 'S', Name: s.sd.Name})
		delete(c.stmts, sql)
	}
	c.fe.Send(&pgproto3.Sync{})
	return c.roundTrip()
}

// Query runs sql with args as a statement prepared once and kept, as pgx's
// statement cache does.
func (c *pgLoopConn) Query(ctx context.Context, sql string, args ...any) (db.Rows, error) {
	c.bound(ctx)
	s, err := c.prepare(sql)
	if err != nil {
		return nil, err
	}
	return s.Query(ctx, args...)
}

// Close ends the session.
func (c *pgLoopConn) Close() error {
	if c.dead {
		return nil
	}
	c.dead = true
	c.fe.Send(&pgproto3.Terminate{})
	_ = c.fe.Flush()
	return c.sock.Close()
}

// Alive is false once the connection failed or was closed.
func (c *pgLoopConn) Alive() bool { return !c.dead }

// BackendID is the server process's pid.
func (c *pgLoopConn) BackendID(context.Context) int64 { return int64(c.pid) }

// Cancel sends a CancelRequest on a new connection; it may be called from
// any goroutine. Like libpq before version 17 and pgbench, the request goes
// unencrypted: it carries only the session's pid and key.
func (c *pgLoopConn) Cancel(ctx context.Context) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, c.cancelNet, c.cancelAddr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	buf, err := (&pgproto3.CancelRequest{ProcessID: c.pid, SecretKey: c.secret}).Encode(nil)
	if err != nil {
		return err
	}
	if _, err := conn.Write(buf); err != nil {
		return err
	}
	// The server closes the connection once it has read the request.
	_, _ = conn.Read(make([]byte, 1))
	return nil
}

// QueryOnce implements db.OneShotter for the loop connection: rows in
// text, every value an *any's string.
func (c *pgLoopConn) QueryOnce(ctx context.Context, how db.OneShot, sql string, args []any) (db.Rows, error) {
	c.bound(ctx)
	if how == db.Simple {
		if len(args) > 0 {
			return nil, errors.New("a simple query takes no parameters")
		}
		c.sendQuery(sql)
	} else {
		params := make([][]byte, len(args))
		for i, a := range args {
			params[i] = textParam(a)
		}
		c.fe.Send(&pgproto3.Parse{Query: sql})
		c.fe.Send(&pgproto3.Bind{Parameters: params})
		c.fe.Send(&pgproto3.Describe{ObjectType: 'P'})
		c.fe.Send(&pgproto3.Execute{})
		c.fe.Send(&pgproto3.Sync{})
	}
	if err := c.flush(); err != nil {
		return nil, err
	}
	var res pgResult
	if err := c.receive(rowsAll, &res); err != nil {
		return nil, err
	}
	return res.textRows(), res.err
}

// textRows are the result's last rows as db.Rows.
func (res *pgResult) textRows() *textRows {
	t := &textRows{rows: res.rows, err: res.err}
	for _, f := range res.fields {
		t.cols = append(t.cols, f.Name)
	}
	return t
}

// QueryEach implements db.Multi for the loop connection.
func (c *pgLoopConn) QueryEach(ctx context.Context, sql string) ([]db.Rows, error) {
	c.bound(ctx)
	c.sendQuery(sql)
	if err := c.flush(); err != nil {
		return nil, err
	}
	var res pgResult
	if err := c.receive(rowsEach, &res); err != nil {
		return nil, err
	}
	return res.each, res.err
}

// InTx implements db.TxStatuser.
func (c *pgLoopConn) InTx() bool { return c.txStatus != 0 && c.txStatus != 'I' }

// pgLoopStmt is a statement prepared on a loop connection.
type pgLoopStmt struct {
	c  *pgLoopConn
	sd *pgconn.StatementDescription
}

// bind queues Bind, Execute and Sync for args: plain values (integers and
// strings) as text, as the goroutine driver's fast path sends them, and
// anything else through pgx's encoders. text asks for text results.
func (s *pgLoopStmt) bind(args []any, text bool) error {
	c := s.c
	if len(args) != len(s.sd.ParamOIDs) {
		return fmt.Errorf("the statement takes %d parameters, %d given", len(s.sd.ParamOIDs), len(args))
	}
	// The messages are the connection's own: Send encodes them at once,
	// and a message made for each transaction would be garbage.
	b := &c.msgs.bind
	*b = pgproto3.Bind{PreparedStatement: s.sd.Name}
	if params, ok := c.plainParams(args); ok && text {
		b.Parameters = params
	} else {
		if err := c.eqb.Build(c.m, s.sd, args); err != nil {
			return err
		}
		b.ParameterFormatCodes, b.Parameters = c.eqb.ParamFormats, c.eqb.ParamValues
		if !text {
			b.ResultFormatCodes = c.eqb.ResultFormats
		}
	}
	c.fe.Send(b)
	c.fe.Send(&c.msgs.execute)
	c.fe.Send(&c.msgs.sync)
	return c.flush()
}

// plainParams writes integer and string arguments as text parameters into
// buffers the connection reuses; false if one is of another type.
func (c *pgLoopConn) plainParams(args []any) ([][]byte, bool) {
	if cap(c.params) < len(args) {
		c.params = make([][]byte, len(args))
	}
	c.params = c.params[:len(args)]
	var ok bool
	c.textBuf, ok = textParams(c.textBuf[:0], c.params, args)
	return c.params, ok
}

// Exec runs the statement and returns the rows it affected.
func (s *pgLoopStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	s.c.bound(ctx)
	if err := s.bind(args, true); err != nil {
		return 0, err
	}
	var res pgResult
	if err := s.c.receive(rowsSkip, &res); err != nil {
		return 0, err
	}
	if res.err != nil {
		return 0, res.err
	}
	// The tag is only read here: no copy of it is needed.
	return pgconn.NewCommandTag(unsafe.String(unsafe.SliceData(res.tag), len(res.tag))).RowsAffected(), nil
}

// QueryRow runs the statement and scans its first row into dest.
func (s *pgLoopStmt) QueryRow(ctx context.Context, dest []any, args ...any) error {
	s.c.bound(ctx)
	text := plainDest(dest)
	if err := s.bind(args, text); err != nil {
		return err
	}
	var res pgResult
	if err := s.c.receive(rowsFirst, &res); err != nil {
		return err
	}
	switch {
	case res.err != nil:
		return res.err
	case !res.found:
		return db.ErrNoRows
	case text:
		return scanText(s.c.row, dest)
	}
	return scanValues(s.c.m, s.sd.Fields, s.c.eqb.ResultFormats, s.c.row, dest)
}

// Query runs the statement and returns its rows, read whole.
func (s *pgLoopStmt) Query(ctx context.Context, args ...any) (db.Rows, error) {
	s.c.bound(ctx)
	if err := s.bind(args, false); err != nil {
		return nil, err
	}
	res := &pgResult{}
	if err := s.c.receive(rowsAll, res); err != nil {
		return nil, err
	}
	if res.err != nil {
		return nil, res.err
	}
	formats := append([]int16(nil), s.c.eqb.ResultFormats...)
	return &pgLoopRows{m: s.c.m, fields: s.sd.Fields, formats: formats, rows: res.rows}, nil
}

// scanValues decodes a row into dest with pgx's type map, as pgx.Rows.Scan
// does; a nil destination skips its column.
func scanValues(m *pgtype.Map, fields []pgconn.FieldDescription, formats []int16, row [][]byte, dest []any) error {
	if len(dest) != len(fields) || len(row) != len(fields) {
		return fmt.Errorf("the query returned %d columns, %d destinations given", len(row), len(dest))
	}
	for i, d := range dest {
		if d == nil {
			continue
		}
		f := int16(pgtype.TextFormatCode)
		if i < len(formats) {
			f = formats[i]
		} else if len(formats) == 1 {
			f = formats[0]
		}
		if err := m.Scan(fields[i].DataTypeOID, f, row[i], d); err != nil {
			return fmt.Errorf("can't scan into dest[%d] (col: %s): %w", i, fields[i].Name, err)
		}
	}
	return nil
}

// pgLoopRows are a statement's rows, read whole.
type pgLoopRows struct {
	m       *pgtype.Map
	fields  []pgconn.FieldDescription
	formats []int16
	rows    [][][]byte
	i       int
}

func (r *pgLoopRows) Columns() []string {
	names := make([]string, len(r.fields))
	for i, f := range r.fields {
		names[i] = f.Name
	}
	return names
}

func (r *pgLoopRows) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}

func (r *pgLoopRows) Scan(dest ...any) error {
	if r.i == 0 || r.i > len(r.rows) {
		return errors.New("Scan called without a row")
	}
	return scanValues(r.m, r.fields, r.formats, r.rows[r.i-1], dest)
}

func (r *pgLoopRows) Err() error { return nil }

func (r *pgLoopRows) Close() {}

var _ db.LoopConn = (*pgLoopConn)(nil)

var _ db.TextBorrower = (*pgLoopConn)(nil)
