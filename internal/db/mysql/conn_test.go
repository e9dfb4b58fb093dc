package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// mysqlDSN turns a test database's mysql:// URL into the DSN
// go-sql-driver takes, with the settings dbharness uses.
func mysqlDSN(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	auth := u.User.Username()
	if pass != "" {
		auth += ":" + pass
	}
	return fmt.Sprintf("%s@tcp(%s)%s?parseTime=true", auth, u.Host, u.Path)
}

// TestPreparedQueryRowScansAsDatabaseSQLDoes compares, for every column type
// of one table and every destination type, what Stmt.QueryRow stores (or
// the error it returns) with what database/sql's Row.Scan gives for the
// same prepared statement: dbharness reads MySQL rows from the driver
// itself and must not change a single value.
func TestPreparedQueryRowScansAsDatabaseSQLDoes(t *testing.T) {
	ctx := context.Background()
	u := testdb.MySQL(t, "dbh_mysql_scan")
	_, c := testdb.Connect(t, u)
	for _, s := range []string{
		`CREATE TABLE v (id int PRIMARY KEY, i int, bi bigint, ubi bigint unsigned, ti tinyint, f float, d double,
			dec2 decimal(12,2), vc varchar(20), bl blob, dt datetime(6), dd date, n int NULL)`,
		`INSERT INTO v VALUES
			(1, 42, -9000000000, 18446744073709551615, 1, 0.1, 2.5, 12.50, '17', x'00ff', '2026-01-02 03:04:05.123456', '2026-01-02', NULL),
			(2, -7, 3000000000, 5, 0, -1.25, 1e300, -3.00, 'true', 'abc', '1999-12-31 23:59:59', '1999-12-31', 3),
			(3, 0, 0, 0, -1, 0, -0.5, 0.01, '', '', '2000-01-01 00:00:00', '2000-01-01', NULL)`,
	} {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	std, err := sql.Open("mysql", mysqlDSN(t, u))
	if err != nil {
		t.Fatal(err)
	}
	defer std.Close()

	dests := []func() any{
		func() any { return new(int64) }, func() any { return new(int) }, func() any { return new(int32) },
		func() any { return new(float64) }, func() any { return new(string) }, func() any { return new([]byte) },
		func() any { return new(any) }, func() any { return new(bool) }, func() any { return new(time.Time) },
		// Types database/sql converts and dbharness hands back to it.
		func() any { return new(*int64) }, func() any { return new(sql.NullString) }, func() any { return new(uint16) },
	}
	for _, col := range []string{"i", "bi", "ubi", "ti", "f", "d", "dec2", "vc", "bl", "dt", "dd", "n"} {
		q := "SELECT " + col + " FROM v WHERE id = ?"
		ours, err := c.Prepare(ctx, strings.ReplaceAll(q, "?", "$1"))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := std.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		for id := int64(1); id <= 3; id++ {
			for _, mk := range dests {
				a, b := mk(), mk()
				errA := ours.QueryRow(ctx, []any{a}, id)
				errB := theirs.QueryRow(id).Scan(b)
				name := fmt.Sprintf("%s of row %d into %T", col, id, a)
				switch {
				case (errA == nil) != (errB == nil):
					t.Errorf("%s: error %v, database/sql's %v", name, errA, errB)
				case errA != nil && errA.Error() != errB.Error():
					t.Errorf("%s: error %q, database/sql's %q", name, errA, errB)
				case errA == nil && !reflect.DeepEqual(a, b):
					t.Errorf("%s: %#v, database/sql stores %#v", name, reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
				}
			}
		}
		theirs.Close()
	}

	t.Run("several columns, and a count that does not match", func(t *testing.T) {
		st, err := c.Prepare(ctx, "SELECT i, vc, d FROM v WHERE id = $1")
		if err != nil {
			t.Fatal(err)
		}
		var i int64
		var vc string
		var d float64
		if err := st.QueryRow(ctx, []any{&i, &vc, &d}, int64(2)); err != nil || i != -7 || vc != "true" || d != 1e300 {
			t.Fatalf("got %d %q %g, %v", i, vc, d, err)
		}
		err = st.QueryRow(ctx, []any{&i, &vc}, int64(2))
		if err == nil || err.Error() != "sql: expected 3 destination arguments in Scan, not 2" {
			t.Fatalf("two destinations for three columns: %v", err)
		}
		if !c.Alive() {
			t.Fatal("a Scan error marked the connection dead")
		}
		if err := st.QueryRow(ctx, []any{&i, &vc, &d}, int64(9)); !errors.Is(err, db.ErrNoRows) {
			t.Fatalf("no row: %v, want ErrNoRows", err)
		}
	})

	t.Run("a query that returns several rows stores the first and leaves the connection in order", func(t *testing.T) {
		st, err := c.Prepare(ctx, "SELECT id FROM v WHERE id >= $1 ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := st.QueryRow(ctx, []any{&id}, int64(1)); err != nil || id != 1 {
			t.Fatalf("got %d, %v", id, err)
		}
		if n, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM v"); err != nil || n != 3 {
			t.Fatalf("the next query returned %d, %v", n, err)
		}
	})

	t.Run("Query and Exec of a prepared statement", func(t *testing.T) {
		st, err := c.Prepare(ctx, "SELECT id, vc FROM v WHERE id <= $1 ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := st.Query(ctx, int64(2))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id int64
			var vc string
			if err := rows.Scan(&id, &vc); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(id, "=", vc))
		}
		rows.Close()
		if err := rows.Err(); err != nil || strings.Join(got, " ") != "1=17 2=true" {
			t.Fatalf("rows %v, %v", got, err)
		}
		upd, err := c.Prepare(ctx, "UPDATE v SET i = i + $1 WHERE id <= $2")
		if err != nil {
			t.Fatal(err)
		}
		if n, err := upd.Exec(ctx, int64(1), int64(2)); err != nil || n != 2 {
			t.Fatalf("update affected %d, %v", n, err)
		}
		if _, err := upd.Exec(ctx, int64(1)); err == nil {
			t.Fatal("an Exec with a missing argument succeeded")
		}
		if !c.Alive() {
			t.Fatal("an argument error marked the connection dead")
		}
	})
}

func TestMySQLBackendIDIsTheServersConnectionID(t *testing.T) {
	ctx := context.Background()
	_, c := testdb.Connect(t, testdb.MySQL(t, "dbh_mysql_id"))
	id, err := db.QueryInt64(ctx, c, "SELECT CONNECTION_ID()")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.BackendID(ctx); got != id || id == 0 {
		t.Fatalf("BackendID %d, CONNECTION_ID() %d", got, id)
	}
}

func TestCancelEndsAMySQLStatementAndKeepsTheConnection(t *testing.T) {
	ctx := context.Background()
	d, c := testdb.Connect(t, testdb.MySQL(t, "dbh_mysql_cancel"))
	if !d.Caps().CancelByRequest {
		t.Fatal("MySQL does not cancel by request; the engine would watch every statement's context")
	}
	st, err := c.Prepare(ctx, "SELECT SLEEP($1)")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var v int64
		done <- st.QueryRow(context.Background(), []any{&v}, int64(60))
	}()
	waitForQuery(t, c, d, "SELECT SLEEP")
	// The cancel is a KILL QUERY on a connection of its own: generous
	// bounds, for a busy machine, well short of the 60 s sleep.
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Cancel(cctx); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	err = <-done
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the statement ended %s after the cancel", took)
	}
	if cl := d.Classify(err); cl.Code != "mysql:1317" || cl.ConnLost {
		t.Fatalf("the cancelled statement returned %v (%+v), want error 1317 (query interrupted)", err, cl)
	}
	if n, err := db.QueryInt64(ctx, c, "SELECT 7"); err != nil || n != 7 || !c.Alive() {
		t.Fatalf("the connection after a cancel: %d, %v, alive %v", n, err, c.Alive())
	}
	if err := c.Cancel(cctx); err != nil {
		t.Fatalf("cancel with nothing running: %v", err)
	}
}

// waitForQuery waits until the server shows a statement starting with
// prefix running on c.
func waitForQuery(t *testing.T, c db.Conn, d db.DB, prefix string) {
	t.Helper()
	if err := queryRunning(d, c.BackendID(context.Background()), prefix); err != nil {
		t.Fatal(err)
	}
}

// queryRunning waits until the server shows a statement starting with
// prefix running on connection id; it may be called from any goroutine.
func queryRunning(d db.DB, id int64, prefix string) error {
	ctx := context.Background()
	other, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer other.Close()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n, err := db.QueryInt64(ctx, other, "SELECT count(*) FROM information_schema.processlist WHERE id = $1 AND info LIKE $2",
			id, prefix+"%")
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return fmt.Errorf("the statement %q did not show up on the server within a minute", prefix)
}

// freezer is a TCP proxy to the MySQL server that, once frozen, passes
// nothing on in either direction, and accepts new connections without
// answering them: a server that stops answering. held is closed when it
// first holds back bytes sent while it was frozen.
type freezer struct {
	ln       net.Listener
	target   string
	mu       sync.Mutex
	frozen   bool
	conns    []net.Conn
	held     chan struct{}
	heldOnce sync.Once
}

func newFreezer(t *testing.T, target string) *freezer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, target: target, held: make(chan struct{})}
	t.Cleanup(f.close)
	go f.accept()
	return f
}

func (f *freezer) accept() {
	for {
		in, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, in)
		frozen := f.frozen
		f.mu.Unlock()
		if frozen {
			continue
		}
		out, err := net.Dial("tcp", f.target)
		if err != nil {
			in.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, out)
		f.mu.Unlock()
		go f.pipe(in, out)
		go f.pipe(out, in)
	}
}

func (f *freezer) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		f.mu.Lock()
		frozen := f.frozen
		f.mu.Unlock()
		if frozen {
			if n > 0 {
				f.heldOnce.Do(func() { close(f.held) })
			}
			return // hold both connections open, pass nothing on
		}
		if err != nil {
			dst.Close()
			return
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (f *freezer) freeze() {
	f.mu.Lock()
	f.frozen = true
	f.mu.Unlock()
}

func (f *freezer) close() {
	f.ln.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

func TestCancelEndsAStatementOnAServerThatStopsAnswering(t *testing.T) {
	ctx := context.Background()
	raw := testdb.MySQL(t, "dbh_mysql_frozen")
	u, _ := url.Parse(raw)
	f := newFreezer(t, u.Host)
	u.Host = f.ln.Addr().String()
	d, c := testdb.Connect(t, u.String())
	st, err := c.Prepare(ctx, "SELECT $1 + 1")
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := st.QueryRow(ctx, []any{&v}, int64(1)); err != nil || v != 2 {
		t.Fatalf("before the freeze: %d, %v", v, err)
	}
	f.freeze()
	done := make(chan error, 1)
	go func() { done <- st.QueryRow(context.Background(), []any{&v}, int64(2)) }()
	// The statement is sent and waits.
	select {
	case <-f.held:
	case err := <-done:
		t.Fatalf("the statement returned %v from a frozen server", err)
	case <-time.After(time.Minute):
		t.Fatal("the statement did not reach the frozen server within a minute")
	}
	select {
	case err := <-done:
		t.Fatalf("the statement returned %v from a frozen server", err)
	default:
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_ = c.Cancel(cctx) // KILL QUERY cannot reach the server: it fails
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		f.close() // ends the statement, so that the test's cleanup can close the connection
		t.Fatal("the statement still waits 30 s after Cancel")
	}
	// Cancel gives up when its context ends (2 s), and then cuts the
	// connection; the bound leaves room for a busy machine.
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("Cancel took %s", took)
	}
	if cl := d.Classify(err); !cl.ConnLost {
		t.Fatalf("the statement returned %v (%+v), want a lost connection", err, cl)
	}
	if c.Alive() {
		t.Fatal("the connection is still alive after its socket was closed")
	}
}
