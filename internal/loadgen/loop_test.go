package loadgen_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// probe is a workload that checks what comes back: "echo" reads a row of
// a number and a string whose sizes vary, "fail" opens a transaction whose
// second statement fails (division by zero) and rolls it back, and "ssl"
// reads whether the session is encrypted.
type probe struct{ failEvery int }

func (p *probe) Setup(context.Context, *workload.Env, db.Conn) error { return nil }
func (p *probe) Ops() []string                                       { return []string{"echo", "fail"} }
func (p *probe) NewWorker(ctx context.Context, c db.Conn, id int) (workload.Worker, error) {
	echo, err := c.Prepare(ctx, "SELECT $1::int + 1, repeat('x', $1::int % 3000)")
	if err != nil {
		return nil, err
	}
	div, err := c.Prepare(ctx, "SELECT 1 / $1::int")
	if err != nil {
		return nil, err
	}
	return &probeWorker{p: p, c: c, echo: echo, div: div, k: id * 1000}, nil
}

type probeWorker struct {
	p         *probe
	c         db.Conn
	echo, div db.Stmt
	k, n      int
}

func (w *probeWorker) Next() int {
	w.n++
	w.k++
	if w.p.failEvery > 0 && w.n%w.p.failEvery == 0 {
		return 1
	}
	return 0
}

func (w *probeWorker) Do(ctx context.Context, op int) error {
	if op == 1 {
		if err := w.c.Exec(ctx, "BEGIN"); err != nil {
			return err
		}
		var one int64
		if err := w.echo.QueryRow(ctx, []any{&one, new(string)}, int64(0)); err != nil {
			return err
		}
		_, err := w.div.Exec(ctx, int64(0))
		if err == nil {
			return errors.New("division by zero succeeded")
		}
		if rerr := w.c.Exec(ctx, "ROLLBACK"); rerr != nil {
			return rerr
		}
		return err
	}
	var n int64
	var s string
	if err := w.echo.QueryRow(ctx, []any{&n, &s}, int64(w.k)); err != nil {
		return err
	}
	if n != int64(w.k)+1 || s != strings.Repeat("x", w.k%3000) {
		return fmt.Errorf("echo of %d came back as %d and %d bytes", w.k, n, len(s))
	}
	return nil
}

// proxy forwards connections to target; shape changes what the client
// receives. It returns the proxy's address and a function that makes it
// stop answering (every byte from then on is dropped, both ways).
func proxy(t *testing.T, target string, shape func(dst io.Writer, src io.Reader)) (string, func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var silent atomic.Bool
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	pipe := func(dst io.Writer, src io.Reader) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 && !silent.Load() {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			go pipe(s, c)
			go func() {
				if shape != nil {
					shape(gate{c, &silent}, s)
				} else {
					pipe(c, s)
				}
			}()
		}
	}()
	return l.Addr().String(), func() { silent.Store(true) }
}

// gate drops writes once silent.
type gate struct {
	w      io.Writer
	silent *atomic.Bool
}

func (g gate) Write(p []byte) (int, error) {
	if g.silent.Load() {
		return len(p), nil
	}
	return g.w.Write(p)
}

// splitBytes forwards what the server sends in three pieces with pauses
// between them: three bytes (part of a message header), then up to the
// middle, then the rest, so that messages arrive cut across reads.
func splitBytes(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		cuts := []int{0, min(n, 3), max(min(n, 3), n/2), n}
		for i := 1; i < len(cuts); i++ {
			if cuts[i] == cuts[i-1] {
				continue
			}
			if _, werr := dst.Write(buf[cuts[i-1]:cuts[i]]); werr != nil {
				return
			}
			time.Sleep(300 * time.Microsecond)
		}
		if err != nil {
			return
		}
	}
}

// coalesce holds the server's bytes for a moment and forwards them in one
// write, so that a read brings several messages and, from a multi-result
// query, several results.
func coalesce(dst io.Writer, src io.Reader) {
	ch := make(chan []byte, 64)
	go func() {
		defer close(ch)
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				ch <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return
			}
		}
	}()
	for b := range ch {
		time.Sleep(2 * time.Millisecond)
		for more := true; more; {
			select {
			case x, ok := <-ch:
				if !ok {
					more = false
					break
				}
				b = append(b, x...)
			default:
				more = false
			}
		}
		if _, err := dst.Write(b); err != nil {
			return
		}
	}
}

func loopConfig(clients int, tx int64) loadgen.Config {
	return loadgen.Config{Clients: clients, Transactions: tx, MaxTries: 1, Interval: 100 * time.Millisecond,
		Driver: loadgen.DriverLoop, Seed: 3}
}

func runProbe(t *testing.T, url string, cfg loadgen.Config, p *probe) *loadgen.Result {
	t.Helper()
	d := testdb.Open(t, url)
	res, err := loadgen.Run(context.Background(), d, p, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTheLoopDriverReadsEveryReplyWhateverItsShape(t *testing.T) {
	base := testdb.Postgres(t, "dbh_engine_loop")
	host := strings.TrimPrefix(testdb.PostgresBase(), "postgres://")
	user, hostPort, _ := strings.Cut(host, "@")
	name := base[strings.LastIndex(base, "/")+1:]
	split, _ := proxy(t, hostPort, splitBytes)
	merged, _ := proxy(t, hostPort, coalesce)
	for _, tc := range []struct{ name, url string }{
		{"over TCP", base + "?sslmode=disable"},
		{"over TLS", base + "?sslmode=require"},
		{"over the Unix socket", "postgres://" + user + "@/" + name + "?host=/var/run/postgresql"},
		{"when every reply is split across reads", "postgres://" + user + "@" + split + "/" + name + "?sslmode=disable"},
		{"when several replies arrive in one read", "postgres://" + user + "@" + merged + "/" + name + "?sslmode=disable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runProbe(t, tc.url, loopConfig(4, 60), &probe{failEvery: 4})
			if res.Driver != loadgen.DriverLoop || res.Loops != 1 {
				t.Fatalf("ran on %s with %d loops", res.Driver, res.Loops)
			}
			echo, fail := res.Ops[0], res.Ops[1]
			// 4 clients x 60: every fourth a failing transaction.
			if n := echo.Hist.TotalCount(); n != 4*45 || echo.Errors != 0 {
				t.Errorf("echo: %d succeeded, %d failed; want 180 and 0", n, echo.Errors)
			}
			if n := fail.Hist.TotalCount(); n != 0 || fail.Errors != 4*15 {
				t.Errorf("fail: %d succeeded, %d failed; want 0 and 60", n, fail.Errors)
			}
			if res.ErrorClasses["sqlstate:22"] != 4*15 || len(res.ErrorClasses) != 1 {
				t.Errorf("error classes %v; want 60 of sqlstate:22 (division by zero) alone", res.ErrorClasses)
			}
			if res.Reconnects != 0 {
				t.Errorf("%d reconnects: an error in a transaction must leave the connection usable", res.Reconnects)
			}
		})
	}
}

func TestTheLoopDriverRunsOverTLS(t *testing.T) {
	url := testdb.Postgres(t, "dbh_engine_loop_tls") + "?sslmode=require"
	d := testdb.Open(t, url)
	lc, err := d.(db.LoopDB).ConnectLoop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	rows, err := lc.Query(context.Background(), "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	var ssl bool
	if !rows.Next() || rows.Scan(&ssl) != nil || !ssl {
		t.Fatal("a loop connection asked for sslmode=require is not encrypted")
	}
}

func TestTheLoopDriverReconnectsWhenTheServerEndsASession(t *testing.T) {
	url := testdb.Postgres(t, "dbh_engine_loop_kill")
	d := testdb.Open(t, url)
	admin := testdb.Open(t, url)
	cfg := loopConfig(3, 0)
	// The run is stopped as soon as the clients have worked again after the
	// sessions were terminated; the duration is only a deadline.
	cfg.Duration = time.Minute
	var killed atomic.Int64
	kill := func() {
		ctx := context.Background()
		c, err := admin.Connect(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		n, err := db.QueryInt64(ctx, c, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'dbharness'`)
		if err != nil {
			t.Error(err)
		}
		killed.Store(n)
	}
	// The sessions are terminated once the clients have done some work.
	obs := testdb.NewReconnects(cfg.Clients, kill)
	res, err := loadgen.Run(context.Background(), d, &probe{}, cfg, obs, obs.Stop())
	after := obs.After()
	if err != nil {
		t.Fatal(err)
	}
	if killed.Load() == 0 {
		t.Fatal("no session was terminated")
	}
	if res.Reconnects < int64(cfg.Clients) {
		t.Errorf("%d reconnects after %d sessions were terminated", res.Reconnects, killed.Load())
	}
	if after == 0 {
		t.Error("no transaction completed after the clients reconnected")
	}
	if res.Ops[0].Errors > 0 && res.ErrorClasses["sqlstate:57"]+res.ErrorClasses["conn"] == 0 {
		t.Errorf("errors were counted as %v, not as lost connections", res.ErrorClasses)
	}
}

func TestTheLoopDriverEndsTheRunWhenTheServerStopsAnswering(t *testing.T) {
	base := testdb.Postgres(t, "dbh_engine_loop_stall")
	host := strings.TrimPrefix(testdb.PostgresBase(), "postgres://")
	user, hostPort, _ := strings.Cut(host, "@")
	addr, silence := proxy(t, hostPort, nil)
	url := "postgres://" + user + "@" + addr + base[strings.LastIndex(base, "/"):] + "?sslmode=disable"
	d := testdb.Open(t, url)
	cfg := loopConfig(4, 0)
	cfg.Duration, cfg.StopGrace = time.Second, 300*time.Millisecond
	type outcome struct {
		res *loadgen.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		// Silent from 300 ms after the clock starts: every client is
		// connected by then.
		res, err := loadgen.Run(context.Background(), d, &probe{}, cfg, startHook(func() { time.AfterFunc(300*time.Millisecond, silence) }), nil)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		// The transactions cut off at the end are cancelled, and counted
		// as such.
		if e := o.res.Ops[0].Errors; e == 0 || e != o.res.ErrorClasses[loadgen.ClassCancelled] {
			t.Errorf("%d errors, by class %v: want the transactions cut off at the end, all cancelled", e, o.res.ErrorClasses)
		}
	case <-time.After(2 * time.Minute):
		buf := make([]byte, 1<<20)
		t.Fatalf("a 1 s run against a server that stopped answering had not ended after 2 minutes\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// sleepy waits 2 ms on the server per transaction.
type sleepy struct{}

func (sleepy) Setup(context.Context, *workload.Env, db.Conn) error { return nil }
func (sleepy) Ops() []string                                       { return []string{"nap"} }
func (sleepy) NewWorker(ctx context.Context, c db.Conn, _ int) (workload.Worker, error) {
	st, err := c.Prepare(ctx, "SELECT pg_sleep(0.002)")
	return &sleepyWorker{st}, err
}

type sleepyWorker struct{ st db.Stmt }

func (sleepyWorker) Next() int { return 0 }
func (w sleepyWorker) Do(ctx context.Context, _ int) error {
	_, err := w.st.Exec(ctx)
	return err
}

func TestTheLoopDriverReportsTheLagOfAScheduleItCannotKeep(t *testing.T) {
	d := testdb.Open(t, testdb.Postgres(t, "dbh_engine_loop_lag"))
	cfg := loopConfig(1, 0)
	cfg.Duration, cfg.Rate = 600*time.Millisecond, 5000
	res, err := loadgen.Run(context.Background(), d, sleepy{}, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One client waiting 2 ms a transaction does at most 500 a second: the
	// schedule of 5000 a second runs away from it.
	if res.Lag == nil || res.Lag.TotalCount() == 0 {
		t.Fatal("no schedule lag was recorded")
	}
	if max := time.Duration(res.Lag.Max()) * time.Microsecond; max < 50*time.Millisecond {
		t.Errorf("the largest lag is %s; a client 10 times too slow must fall far behind", max)
	}
	if lat := time.Duration(res.Ops[0].Hist.Max()) * time.Microsecond; lat < 50*time.Millisecond {
		t.Errorf("the largest latency is %s: latency must count from the intended start", lat)
	}
}

// startHook is an observer that calls fn when the run's clock starts.
type startHook func()

func (f startHook) OnStart(time.Time)  { f() }
func (startHook) OnTick(*loadgen.Tick) {}

// The clients of one loop share its histograms: every transaction of every
// client is still counted once, in the latency and in the lag histograms,
// with several loops and many clients each.
func TestClientsSharingALoopsHistogramsCountEveryTransaction(t *testing.T) {
	url := testdb.Postgres(t, "dbh_engine_loop_shared") + "?sslmode=disable"
	cfg := loopConfig(24, 40)
	cfg.Loops, cfg.Rate = 2, 4000
	res := runProbe(t, url, cfg, &probe{failEvery: 4})
	if res.Driver != loadgen.DriverLoop || res.Loops != 2 {
		t.Fatalf("ran on %s with %d loops", res.Driver, res.Loops)
	}
	echo, fail := res.Ops[0], res.Ops[1]
	if n := echo.Hist.TotalCount(); n != 24*30 || fail.Errors != 24*10 {
		t.Errorf("echo %d succeeded, fail %d failed; want 720 and 240", n, fail.Errors)
	}
	if res.Lag == nil || res.Lag.TotalCount() != 24*40 {
		t.Errorf("the lag histogram counts %v transactions; want 960", res.Lag)
	}
}
