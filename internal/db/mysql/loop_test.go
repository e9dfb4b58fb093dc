package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/testdb"
)

// loopConns opens n MySQL loop connections to url.
func loopConns(t *testing.T, d db.DB, n int) []db.LoopConn {
	t.Helper()
	ld, ok := d.(db.LoopDB)
	if !ok {
		t.Fatal("MySQL has no event-loop connections")
	}
	var cs []db.LoopConn
	for range n {
		c, err := ld.ConnectLoop(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs = append(cs, c)
	}
	return cs
}

// runOnLoop runs fn for every connection as a task of one loop, each
// connection attached to its task first, and returns the tasks' errors.
func runOnLoop(t *testing.T, cs []db.LoopConn, fn func(ctx context.Context, i int, c db.LoopConn) error) []error {
	t.Helper()
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(cs))
	for i, c := range cs {
		l.Go(func(task *evloop.Task) {
			if err := c.Attach(task); err != nil {
				errs[i] = err
				return
			}
			errs[i] = fn(evloop.WithTask(context.Background(), task), i, c)
		})
	}
	done := make(chan struct{})
	go func() {
		l.Run()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		l.Abort()
		<-done
		t.Fatal("the loop's tasks did not finish in 60 s")
	}
	l.Close()
	return errs
}

func TestMySQLLoopConnectionsRunStatementsOfEveryShapeOnOneThread(t *testing.T) {
	ctx := context.Background()
	d, setup := testdb.Connect(t, testdb.MySQL(t, "dbh_mysql_loop"))
	for _, s := range []string{"CREATE TABLE kv (k int PRIMARY KEY, v longtext)", "INSERT INTO kv VALUES (1, 'one'), (2, 'two'), (3, NULL)"} {
		if err := setup.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	cs := loopConns(t, d, 4)
	// Prepared before Attach, on this goroutine (the socket waits in
	// poll(2) then), as the engine's workers prepare theirs.
	echo := make([]db.Stmt, len(cs))
	for i, c := range cs {
		var err error
		if echo[i], err = c.Prepare(ctx, "SELECT $1 + 1, REPEAT('x', $2)"); err != nil {
			t.Fatal(err)
		}
	}
	errs := runOnLoop(t, cs, func(ctx context.Context, i int, c db.LoopConn) error {
		// Replies from a few bytes to several reads' worth, several in
		// flight on the loop at once.
		for k := i; k < 200000; k = k*3 + 7 {
			var n int64
			var s string
			if err := echo[i].QueryRow(ctx, []any{&n, &s}, int64(k), int64(k)); err != nil {
				return fmt.Errorf("echo %d: %w", k, err)
			}
			if n != int64(k)+1 || len(s) != k || strings.Trim(s, "x") != "" {
				return fmt.Errorf("echo %d: got %d and %d bytes", k, n, len(s))
			}
		}
		ins, err := c.Prepare(ctx, "INSERT INTO kv (k, v) VALUES ($1, $2)")
		if err != nil {
			return err
		}
		// A transaction whose second statement fails, rolled back.
		if err := c.Exec(ctx, "START TRANSACTION"); err != nil {
			return err
		}
		if _, err := ins.Exec(ctx, int64(100+i), "new"); err != nil {
			return err
		}
		_, err = ins.Exec(ctx, int64(1), "dup")
		if cl := d.Classify(err); cl.Code != "mysql:1062" {
			return fmt.Errorf("duplicate key gave %v (%+v)", err, cl)
		}
		if err := c.Exec(ctx, "ROLLBACK"); err != nil {
			return err
		}
		rows, err := c.Query(ctx, "SELECT k, v FROM kv ORDER BY k")
		if err != nil {
			return err
		}
		var got []string
		for rows.Next() {
			var k int64
			var v *string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			if v == nil {
				got = append(got, fmt.Sprint(k, "=NULL"))
			} else {
				got = append(got, fmt.Sprint(k, "=", *v))
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if s := strings.Join(got, " "); s != "1=one 2=two 3=NULL" {
			return fmt.Errorf("rows after the rollback: %s", s)
		}
		if !c.Alive() {
			return errors.New("the connection is marked dead")
		}
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("task %d: %v", i, err)
		}
	}
}

func TestAMySQLLoopConnectionKilledByTheServerFailsAsLost(t *testing.T) {
	ctx := context.Background()
	d, admin := testdb.Connect(t, testdb.MySQL(t, "dbh_mysql_loop_kill"))
	cs := loopConns(t, d, 1)
	st, err := cs[0].Prepare(ctx, "SELECT SLEEP($1)")
	if err != nil {
		t.Fatal(err)
	}
	id := cs[0].BackendID(ctx)
	go func() {
		if err := queryRunning(d, id, "SELECT SLEEP"); err != nil {
			t.Error(err)
		}
		_ = admin.Exec(ctx, fmt.Sprintf("KILL %d", id))
	}()
	errs := runOnLoop(t, cs, func(ctx context.Context, _ int, c db.LoopConn) error {
		var v int64
		return st.QueryRow(ctx, []any{&v}, int64(30))
	})
	if cl := d.Classify(errs[0]); !cl.ConnLost {
		t.Fatalf("the killed connection's statement returned %v (%+v), want a lost connection", errs[0], cl)
	}
	t.Logf("the killed connection's statement returned %v", errs[0])
}

func TestAMySQLLoopStatementIsCancelledOrAbortedWhenTheServerStopsAnswering(t *testing.T) {
	ctx := context.Background()
	raw := testdb.MySQL(t, "dbh_mysql_loop_cancel")
	d := testdb.Open(t, raw)
	cs := loopConns(t, d, 1)
	st, err := cs[0].Prepare(ctx, "SELECT SLEEP($1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a cancel ends the statement with error 1317 and the connection lives", func(t *testing.T) {
		go func() {
			if err := queryRunning(d, cs[0].BackendID(ctx), "SELECT SLEEP"); err != nil {
				t.Error(err)
			}
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := cs[0].Cancel(cctx); err != nil {
				t.Errorf("cancel: %v", err)
			}
		}()
		errs := runOnLoop(t, cs, func(ctx context.Context, _ int, c db.LoopConn) error {
			var v int64
			err := st.QueryRow(ctx, []any{&v}, int64(30))
			if cl := d.Classify(err); cl.Code != "mysql:1317" {
				return fmt.Errorf("the cancelled statement returned %v (%+v), want 1317", err, cl)
			}
			if n, err := db.QueryInt64(ctx, c, "SELECT 5"); err != nil || n != 5 {
				return fmt.Errorf("after the cancel: %d, %v", n, err)
			}
			return nil
		})
		if errs[0] != nil {
			t.Fatal(errs[0])
		}
	})

	t.Run("an abort ends a statement the server does not answer", func(t *testing.T) {
		u, _ := url.Parse(raw)
		f := newFreezer(t, u.Host)
		u.Host = f.ln.Addr().String()
		fd := testdb.Open(t, u.String())
		fcs := loopConns(t, fd, 1)
		fst, err := fcs[0].Prepare(ctx, "SELECT $1 + 1")
		if err != nil {
			t.Fatal(err)
		}
		f.freeze()
		l, err := evloop.New()
		if err != nil {
			t.Fatal(err)
		}
		var qerr error
		l.Go(func(task *evloop.Task) {
			if qerr = fcs[0].Attach(task); qerr != nil {
				return
			}
			var v int64
			qerr = fst.QueryRow(evloop.WithTask(ctx, task), []any{&v}, int64(1))
		})
		done := make(chan struct{})
		go func() {
			l.Run()
			close(done)
		}()
		// Abort once the statement is sent and waits.
		select {
		case <-f.held:
		case <-done:
			t.Fatalf("the statement returned %v from a frozen server", qerr)
		case <-time.After(time.Minute):
			l.Abort()
			<-done
			t.Fatalf("the statement did not reach the frozen server within a minute: %v", qerr)
		}
		select {
		case <-done:
			t.Fatalf("the statement returned %v from a frozen server", qerr)
		default:
		}
		l.Abort()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			f.close()
			<-done
			t.Fatal("the loop still runs 10 s after Abort")
		}
		l.Close()
		if cl := fd.Classify(qerr); !cl.ConnLost {
			t.Fatalf("the aborted statement returned %v (%+v), want a lost connection", qerr, cl)
		}
	})
}

// A MySQL loop connection names the CPU that took in the server's last
// reply over TCP (on loopback, the server thread's), and none over the Unix
// socket, where the protocol names no thread of the server.
func TestAMySQLLoopConnectionNamesItsServersCPUOverTCPOnly(t *testing.T) {
	u := testdb.MySQL(t, "dbh_my_servercpu")
	name := u[strings.LastIndex(u, "/")+1:]
	for _, tc := range []struct {
		name, url string
		want      bool
	}{
		{"over TCP", u, true},
		{"over the Unix socket", "mysql://root@/" + name + "?socket=/run/mysqld/mysqld.sock", false},
	} {
		c := loopConns(t, testdb.Open(t, tc.url), 1)[0]
		if err := c.Exec(context.Background(), "SELECT 1"); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := c.ServerCPU()
		if known := got >= 0 && got < runtime.NumCPU(); known != tc.want || !known && got != -1 {
			t.Errorf("%s: ServerCPU = %d on a %d-CPU host", tc.name, got, runtime.NumCPU())
		}
	}
}
