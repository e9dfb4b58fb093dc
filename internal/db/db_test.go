package db_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in      string
		kind    db.Kind
		shown   string
		wantErr string
	}{
		{"postgres://u:pw@h:5432/d", db.Postgres, "postgres://u:xxxxx@h:5432/d", ""},
		{"postgresql://u@/d?host=/var/run/postgresql", db.Postgres, "postgresql://u@/d?host=/var/run/postgresql", ""},
		{"mysql://root:pw@127.0.0.1:3306/test", db.MySQL, "mysql://root:xxxxx@127.0.0.1:3306/test", ""},
		{"sqlite:///tmp/x.db", db.SQLite, "sqlite:///tmp/x.db", ""},
		{"sqlite://rel.db", db.SQLite, "sqlite://rel.db", ""},
		{"mysql://root@h:3306/", "", "", "names no database"},
		{"oracle://x", "", "", "not supported"},
		{"just-a-word", "", "", "no scheme"},
		{"postgres://u:p%zz@h/d", "", "", "not a valid URL"},
	} {
		t.Run(tc.in+" parses as expected", func(t *testing.T) {
			tg, err := db.ParseURL(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "pw") {
					t.Errorf("password in error %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tg.Kind != tc.kind || tg.String() != tc.shown {
				t.Fatalf("got %s %q, want %s %q", tg.Kind, tg.String(), tc.kind, tc.shown)
			}
		})
	}
	t.Run("no URL selects the embedded default", func(t *testing.T) {
		tg, err := db.ParseURL("")
		if err != nil || !tg.Default || tg.Kind != db.SQLite || !strings.HasSuffix(tg.Path, "default.db") {
			t.Fatalf("%+v %v", tg, err)
		}
	})
}

// fakeServer listens on a free local port, serves each connection with
// serve, and returns the address; it stops when the test ends.
func fakeServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return l.Addr().String()
}

func TestAConnectTimeoutIsSaidPlainly(t *testing.T) {
	// A server that accepts and never greets.
	addr := fakeServer(t, func(c net.Conn) {
		buf := make([]byte, 512)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
	for _, scheme := range []string{"postgres", "mysql"} {
		tg, err := db.ParseURL(scheme + "://u:hunter2@" + addr + "/d?connect_timeout=1&timeout=1s")
		if err != nil {
			t.Fatal(err)
		}
		d, err := db.Open(tg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Connect(context.Background())
		d.Close()
		if err == nil || !strings.Contains(err.Error(), "no answer within the connect timeout") || strings.Contains(err.Error(), "hunter2") ||
			strings.Contains(err.Error(), "%20") {
			t.Errorf("%s: %v", scheme, err)
		}
	}
}

func TestAServerOfAnotherKindIsNamedAsSuch(t *testing.T) {
	// A web server on the port: it answers anything with HTTP.
	addr := fakeServer(t, func(c net.Conn) {
		_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
		buf := make([]byte, 512)
		_, _ = c.Read(buf)
	})
	// (The MySQL driver reads the HTTP text as the length of a 5 MB packet
	// and waits for it: that one ends as a connect timeout.)
	for _, scheme := range []string{"postgres"} {
		tg, err := db.ParseURL(scheme + "://u@" + addr + "/d")
		if err != nil {
			t.Fatal(err)
		}
		d, err := db.Open(tg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Connect(context.Background())
		d.Close()
		if err == nil || !strings.Contains(err.Error(), "does not speak the") {
			t.Errorf("%s: %v", scheme, err)
		}
	}
}

func TestRebindLeavesQuotedDollarsAlone(t *testing.T) {
	got := db.Rebind("SELECT '$1', a FROM t WHERE b = $1 AND c = $12")
	if got != "SELECT '$1', a FROM t WHERE b = ? AND c = ?" {
		t.Fatal(got)
	}
}

func TestRebindNamedNumbersTheParametersAfterThePrefix(t *testing.T) {
	got := db.RebindNamed("SELECT '$1', a FROM t WHERE b = $1 AND c = $12", "@p")
	if got != "SELECT '$1', a FROM t WHERE b = @p1 AND c = @p12" {
		t.Fatal(got)
	}
}

func openAll(t *testing.T) []struct {
	name string
	d    db.DB
} {
	var out []struct {
		name string
		d    db.DB
	}
	for _, e := range testdb.EnginesAndSQLServer(t, "dbh_db") {
		out = append(out, struct {
			name string
			d    db.DB
		}{e.Name, testdb.Open(t, e.URL)})
	}
	return out
}

func TestConnectionsStatementsAndBulkLoadOnEveryEngine(t *testing.T) {
	ctx := context.Background()
	for _, e := range openAll(t) {
		t.Run(e.name, func(t *testing.T) {
			c, err := e.d.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Exec(ctx, "DROP TABLE IF EXISTS kv"); err != nil {
				t.Fatal(err)
			}
			if err := c.Exec(ctx, "CREATE TABLE kv (k int primary key, v varchar(20), f float, ts "+e.d.Caps().TimestampType+")"); err != nil {
				t.Fatal(err)
			}
			ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			n, err := e.d.CopyIn(ctx, c, "kv", []string{"k", "v", "f", "ts"}, &db.SliceSource{Rows: [][]any{
				{int32(1), "one", 1.5, ts}, {int32(2), "it's", 2.5, ts}, {int32(3), nil, 0.0, ts},
			}})
			if err != nil || n != 3 {
				t.Fatalf("copy: %d rows, %v", n, err)
			}
			ok, err := e.d.TableExists(ctx, c, "kv")
			if err != nil || !ok {
				t.Fatalf("TableExists(kv) = %v, %v", ok, err)
			}
			if ok, _ := e.d.TableExists(ctx, c, "nope"); ok {
				t.Fatal("TableExists(nope) is true")
			}
			sel, err := c.Prepare(ctx, "SELECT k, v, f FROM kv WHERE k = $1")
			if err != nil {
				t.Fatal(err)
			}
			var k int64
			var v string
			var f float64
			if err := sel.QueryRow(ctx, []any{&k, &v, &f}, int64(2)); err != nil || k != 2 || v != "it's" || f != 2.5 {
				t.Fatalf("QueryRow = %d %q %g, %v", k, v, f, err)
			}
			if err := sel.QueryRow(ctx, []any{&k, &v, &f}, int64(99)); !errors.Is(err, db.ErrNoRows) {
				t.Fatalf("missing row: %v, want ErrNoRows", err)
			}
			var got time.Time
			tsSel, err := c.Prepare(ctx, "SELECT ts FROM kv WHERE k = $1")
			if err != nil {
				t.Fatal(err)
			}
			if err := tsSel.QueryRow(ctx, []any{&got}, int64(1)); err != nil || !got.Equal(ts) {
				t.Fatalf("timestamp %v, %v; want %v", got, err, ts)
			}
			upd, err := c.Prepare(ctx, "UPDATE kv SET f = f + $1 WHERE k <= $2")
			if err != nil {
				t.Fatal(err)
			}
			if n, err := upd.Exec(ctx, 1.0, int64(2)); err != nil || n != 2 {
				t.Fatalf("update affected %d, %v; want 2", n, err)
			}
			if n, err := upd.Exec(ctx, int64(1), "3"); err != nil || n != 3 {
				t.Fatalf("update with a string argument affected %d, %v; want 3", n, err)
			}
			sum, err := db.QueryInt64(ctx, c, "SELECT CAST(sum(f) AS INTEGER) FROM kv")
			if err != nil || sum != 9 {
				t.Fatalf("sum = %d, %v; want 9 (3.5 + 4.5 + 1)", sum, err)
			}
			t.Run("a duplicate key is classified by the engine's code, not retried", func(t *testing.T) {
				ins, err := c.Prepare(ctx, "INSERT INTO kv (k) VALUES ($1)")
				if err != nil {
					t.Fatal(err)
				}
				_, err = ins.Exec(ctx, int64(1))
				if err == nil {
					t.Fatal("duplicate key accepted")
				}
				cl := e.d.Classify(err)
				want := map[string]string{"postgres": "sqlstate:23", "mysql": "mysql:1062", "sqlite": "sqlite:19", "sqlserver": "mssql:2627"}[e.name]
				if cl.Code != want || cl.Retryable || cl.ConnLost {
					t.Fatalf("classified %+v, want code %s", cl, want)
				}
				if !c.Alive() {
					t.Fatal("the connection is marked dead after a constraint error")
				}
			})
			info, err := e.d.Info(ctx)
			if err != nil || info.Version == "" || len(info.Settings) == 0 {
				t.Fatalf("info %+v, %v", info, err)
			}
		})
	}
}

func TestADeadlockIsRetryable(t *testing.T) {
	ctx := context.Background()
	for _, e := range openAll(t) {
		if e.name == "sqlite" {
			continue // SQLite has one writer: no deadlocks, only busy waits
		}
		t.Run(e.name, func(t *testing.T) {
			a, _ := e.d.Connect(ctx)
			b, _ := e.d.Connect(ctx)
			defer a.Close()
			defer b.Close()
			for _, s := range []string{"DROP TABLE IF EXISTS dl", "CREATE TABLE dl (k int primary key, v int)", "INSERT INTO dl VALUES (1, 0), (2, 0)"} {
				if err := a.Exec(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			begin := e.d.Caps().BeginWrite
			_ = a.Exec(ctx, begin)
			_ = b.Exec(ctx, begin)
			if err := a.Exec(ctx, "UPDATE dl SET v = 1 WHERE k = 1"); err != nil {
				t.Fatal(err)
			}
			if err := b.Exec(ctx, "UPDATE dl SET v = 1 WHERE k = 2"); err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, 2)
			// Each side rolls back after its update: the victim first, which
			// lets the other finish.
			cross := func(c db.Conn, sql string) {
				err := c.Exec(ctx, sql)
				_ = c.Exec(ctx, "ROLLBACK")
				errs <- err
			}
			go cross(a, "UPDATE dl SET v = 2 WHERE k = 2")
			go cross(b, "UPDATE dl SET v = 2 WHERE k = 1")
			var dead error
			for i := 0; i < 2; i++ {
				if err := <-errs; err != nil {
					dead = err
				}
			}
			if dead == nil {
				t.Fatal("no deadlock was detected")
			}
			if cl := e.d.Classify(dead); !cl.Retryable {
				t.Fatalf("deadlock %v classified %+v, want retryable", dead, cl)
			}
		})
	}
}

func TestTargetsOnThisHostAreLocal(t *testing.T) {
	for url, want := range map[string]bool{
		"postgres://postgres@127.0.0.1:5432/x":            true,
		"postgres://postgres@localhost/x":                 true,
		"postgres://postgres@/x?host=/var/run/postgresql": true,
		"postgres://postgres@db.example.com/x":            false,
		"mysql://root@10.0.0.5:3306/x":                    false,
		"mysql://root@/x?socket=/run/mysqld/mysqld.sock":  true,
		"sqlite:///tmp/x.db":                              true,
	} {
		tg, err := db.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		if tg.Local() != want {
			t.Errorf("%s: local %v, want %v", url, tg.Local(), want)
		}
	}
}

// The engines come from the registry (internal/db/all, through testdb):
// the messages name them in their order, as the user knows them.
func TestURLMessagesNameTheRegisteredEngines(t *testing.T) {
	for in, want := range map[string]string{
		"oracle://x":            `--db scheme "oracle" is not supported; use postgres://, mysql://, sqlite:// or sqlserver://`,
		"just-a-word":           `--db "just-a-word" has no scheme; start it with postgres://, mysql://, sqlite:// or sqlserver://`,
		"postgres://u:p%zz@h/d": "; expected postgres://user@host:port/db, mysql://user:pass@host:port/db, sqlite://PATH or sqlserver://user:pass@host:port?database=db",
		"sqlite://":             "--db sqlite:// names no file; use sqlite://PATH, e.g. sqlite:///tmp/bench.db or sqlite://bench.db",
	} {
		_, err := db.ParseURL(in)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v, want ...%s", in, err, want)
		}
	}
}

// A URL is checked whole when it is parsed, ports and the engine's own
// parameters, so that a mistake in it is refused before anything runs.
func TestBadURLsAreRefusedWhenParsed(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://postgres@127.0.0.1:99999/x":          "--db postgres://postgres@127.0.0.1:99999/x: port 99999 is out of range; give a port from 1 to 65535",
		"postgres://postgres@127.0.0.1:0/x":              "port 0 is out of range",
		"postgres://h1:5432,h2:70000/x":                  "port 70000 is out of range",
		"mysql://root:pw@127.0.0.1:65536/test":           "--db mysql://root:xxxxx@127.0.0.1:65536/test: port 65536 is out of range",
		"postgres://postgres@127.0.0.1/x?sslmode=bogus":  "is not a valid PostgreSQL URL",
		"mysql://root@127.0.0.1/test?timeout=abc":        `has an invalid parameter: time: invalid duration "abc"`,
		"mysql://root:pw@127.0.0.1/test?readTimeout=abc": "--db mysql://root:xxxxx@127.0.0.1/test?readTimeout=abc has an invalid parameter",
		"sqlserver://sa:pw@127.0.0.1:70000?database=x":   "--db sqlserver://sa:xxxxx@127.0.0.1:70000?database=x: port 70000 is out of range",
		"sqlserver://sa:pw@127.0.0.1?encrypt=maybe":      "--db sqlserver://sa:xxxxx@127.0.0.1?encrypt=maybe has an invalid parameter: invalid encrypt 'maybe'",
	} {
		_, err := db.ParseURL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
	}
	for _, ok := range []string{"postgres://h:1/x", "postgres://h:65535/x", "postgres://[::1]:5432/x", "postgres://[::1]/x", "postgres://h1,h2:5433/x", "sqlite:///tmp/a:99999"} {
		if _, err := db.ParseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestDecimalTextIsExact(t *testing.T) {
	for _, c := range []struct {
		d    db.Decimal
		want string
	}{
		{db.Decimal{71156, 2}, "711.56"}, {db.Decimal{-99999, 2}, "-999.99"}, {db.Decimal{5, 2}, "0.05"},
		{db.Decimal{-5, 2}, "-0.05"}, {db.Decimal{0, 2}, "0.00"}, {db.Decimal{17, 0}, "17"}, {db.Decimal{1234567, 3}, "1234.567"},
	} {
		if got := c.d.String(); got != c.want {
			t.Errorf("%+v is %q, want %q", c.d, got, c.want)
		}
		if v, _ := c.d.Value(); v != c.want {
			t.Errorf("%+v's driver value is %v, want %q", c.d, v, c.want)
		}
	}
}
