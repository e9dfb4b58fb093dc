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

func openAll(t *testing.T) []struct {
	name string
	d    db.DB
} {
	var out []struct {
		name string
		d    db.DB
	}
	for _, e := range testdb.Engines(t, "dbh_db") {
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
				want := map[string]string{"postgres": "sqlstate:23", "mysql": "mysql:1062", "sqlite": "sqlite:19"}[e.name]
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

// connectPostgres opens a connection to a fresh PostgreSQL database name;
// both are closed after the test.
func connectPostgres(t *testing.T, name string) (db.DB, db.Conn) {
	t.Helper()
	tg, err := db.ParseURL(testdb.Postgres(t, name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.Open(tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	c, err := d.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return d, c
}

func TestFrozenCopyKeepsEveryValueIntact(t *testing.T) {
	ctx := context.Background()
	d, c := connectPostgres(t, "dbh_db_freeze")
	if err := c.Exec(ctx, "CREATE TABLE fz (k int, s text, f float8, n int)"); err != nil {
		t.Fatal(err)
	}
	tricky := "tab\there\nnew line\\back\rslash"
	batches := [][][]any{{{int32(1), tricky, 1.25, nil}}, {{int64(2), "", -3.5, int32(7)}, {3, "plain", 0.0, nil}}}
	i := 0
	next := func() db.RowSource {
		if i == len(batches) {
			return nil
		}
		i++
		return &db.SliceSource{Rows: batches[i-1]}
	}
	var reported int64
	n, err := d.(db.FreezeLoader).CopyInFrozen(ctx, c, "fz", []string{"k", "s", "f", "n"}, next, func(k int64) { reported += k })
	if err != nil || n != 3 || reported != 3 {
		t.Fatalf("copied %d (reported %d), %v; want 3", n, reported, err)
	}
	var s string
	st, err := c.Prepare(ctx, "SELECT s FROM fz WHERE k = $1")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.QueryRow(ctx, []any{&s}, int64(1)); err != nil || s != tricky {
		t.Fatalf("read back %q, %v; want %q", s, err, tricky)
	}
	nulls, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM fz WHERE n IS NULL")
	if err != nil || nulls != 2 {
		t.Fatalf("%d NULLs, %v; want 2", nulls, err)
	}
	// Rows written by COPY FREEZE are frozen: every page is marked all
	// frozen in the visibility map, with no VACUUM.
	if err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_visibility"); err != nil {
		t.Fatal(err)
	}
	notFrozen, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM pg_visibility_map('fz') WHERE NOT all_frozen")
	if err != nil || notFrozen != 0 {
		t.Fatalf("%d pages not frozen, %v", notFrozen, err)
	}
}

func TestManyClientsCanOpenAFreshSQLiteDatabaseAtOnce(t *testing.T) {
	// Each new connection switches the file to WAL; done at once on a new
	// file, that used to fail with SQLITE_BUSY.
	for round := 0; round < 100; round++ {
		tg, _ := db.ParseURL(testdb.SQLite(t))
		d, err := db.Open(tg)
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 16)
		conns := make(chan db.Conn, 16)
		for i := 0; i < 16; i++ {
			go func() {
				c, err := d.Connect(context.Background())
				errs <- err
				conns <- c
			}()
		}
		for i := 0; i < 16; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if c := <-conns; c != nil {
				c.Close()
			}
		}
		d.Close()
	}
}

// On PostgreSQL a parameter of a text type takes a number, boolean, time
// or UUID as its text (pgx alone refuses them), while a parameter of
// another type still gets the value in its own encoding.
func TestPostgresTextParametersTakeValuesOfOtherTypesAsText(t *testing.T) {
	ctx := context.Background()
	_, c := connectPostgres(t, "dbh_wf_pgtext")
	u := [16]byte{0xe3, 0x78, 0x55, 0x91, 0x3a, 0x92, 0x43, 0x8b, 0xba, 0x23, 0x1b, 0xe8, 0x57, 0xf5, 0xb1, 0xbc}
	ts := time.Date(2026, 1, 2, 3, 4, 5, 500000000, time.UTC)
	for _, tc := range []struct {
		sql  string
		arg  any
		want string
	}{
		{"SELECT $1::text", int64(73), "73"},
		{"SELECT $1::varchar(10)", int32(-7), "-7"},
		{"SELECT $1::char(3)", uint8(9), "9  "},
		{"SELECT $1::text", 2.5, "2.5"},
		{"SELECT $1::text", float32(0.1), "0.1"},
		{"SELECT $1::text", true, "true"},
		{"SELECT $1::text", u, "e3785591-3a92-438b-ba23-1be857f5b1bc"},
		{"SELECT $1::text", ts, "2026-01-02 03:04:05.5"},
		{"SELECT $1::text", ts.In(time.FixedZone("", 3600)), "2026-01-02 04:04:05.5+01:00"},
		// Parameters of other types: unchanged.
		{"SELECT ($1::int8 + 1)::text", int32(41), "42"},
		{"SELECT ($1::numeric * 2)::text", int64(21), "42"},
		{"SELECT $1::uuid::text", u, "e3785591-3a92-438b-ba23-1be857f5b1bc"},
		{"SELECT $1::timestamp::text", ts, "2026-01-02 03:04:05.5"},
		{"SELECT ($1::int + 1)::text", "41", "42"},
	} {
		st, err := c.Prepare(ctx, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := st.QueryRow(ctx, []any{&got}, tc.arg); err != nil || got != tc.want {
			t.Errorf("prepared %s with %T %v: %q, %v; want %q", tc.sql, tc.arg, tc.arg, got, err, tc.want)
		}
		rows, err := c.Query(ctx, tc.sql, tc.arg)
		if err != nil {
			t.Fatalf("%s with %T: %v", tc.sql, tc.arg, err)
		}
		got = ""
		for rows.Next() {
			if err := rows.Scan(&got); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil || got != tc.want {
			t.Errorf("%s with %T %v: %q, %v; want %q", tc.sql, tc.arg, tc.arg, got, err, tc.want)
		}
	}
	st, err := c.Prepare(ctx, "SELECT $1::int8")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := st.QueryRow(ctx, []any{&n}, ts); err == nil {
		t.Errorf("a time passed for an int8 parameter gave %d, want an error", n)
	}
}
