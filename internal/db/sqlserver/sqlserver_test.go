package sqlserver_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlserver"
	"github.com/dbharness/dbharness/internal/testdb"
)

// connectErr opens rawURL and returns the error of its first connection.
func connectErr(t *testing.T, rawURL string) error {
	t.Helper()
	tg, err := db.ParseURL(rawURL)
	if err != nil {
		return err
	}
	d, err := db.Open(tg)
	if err != nil {
		return err
	}
	defer d.Close()
	c, err := d.Connect(context.Background())
	if err == nil {
		c.Close()
	}
	return err
}

// oneSentence fails the test unless err is one line that contains want and
// no password.
func oneSentence(t *testing.T, err error, want, password string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %q", want)
	}
	msg := err.Error()
	if !strings.Contains(msg, want) || strings.Contains(msg, "\n") || (password != "" && strings.Contains(msg, password)) {
		t.Fatalf("error %q; want one line with %q and no password", msg, want)
	}
}

func TestConnectErrorsAreOneSentence(t *testing.T) {
	base := testdb.SQLServer(t, "dbh_mssql_connect")
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	user := u.User.Username()
	t.Run("a wrong password", func(t *testing.T) {
		w := *u
		w.User = url.UserPassword(user, "wrong-sekret")
		oneSentence(t, connectErr(t, w.String()), "authentication failed; check the user and password in --db", "wrong-sekret")
	})
	t.Run("a missing database", func(t *testing.T) {
		w := *u
		q := w.Query()
		q.Set("database", "dbh_no_such_database")
		w.RawQuery = q.Encode()
		oneSentence(t, connectErr(t, w.String()), "the database does not exist; create it or fix the name in --db", "")
	})
	t.Run("nothing listening", func(t *testing.T) {
		oneSentence(t, connectErr(t, "sqlserver://sa:sekret@127.0.0.1:1?database=x"), "connection refused", "sekret")
	})
	t.Run("a host that does not answer", func(t *testing.T) {
		// TEST-NET-1 (RFC 5737): routed nowhere, or not at all.
		err := connectErr(t, "sqlserver://sa:sekret@192.0.2.1:1433?database=x&dial+timeout=1")
		oneSentence(t, err, "cannot connect to sqlserver://sa:xxxxx@192.0.2.1:1433", "sekret")
	})
}

// (A deadlock between two sessions: TestADeadlockIsRetryable in
// internal/db.)
func TestErrorNumbersGiveTheClasses(t *testing.T) {
	d, a := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_classes"))
	ctx := context.Background()
	testdb.Exec(t, a, "CREATE TABLE dl (k int PRIMARY KEY, v int)", "INSERT INTO dl VALUES (1, 0), (2, 0)")
	t.Run("a duplicate key", func(t *testing.T) {
		err := a.Exec(ctx, "INSERT INTO dl VALUES (1, 0)")
		if cl := d.Classify(err); cl.Code != "mssql:2627" || cl.Retryable || cl.ConnLost {
			t.Fatalf("%v classified %+v; want mssql:2627, not retryable", err, cl)
		}
	})
}

// A statement that waits on a lock held by another session is ended by
// Cancel (KILL from a connection of its own, then the socket) in time.
func TestCancelEndsAStatementWaitingOnALock(t *testing.T) {
	d, holder := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_cancel"))
	ctx := context.Background()
	testdb.Exec(t, holder, "CREATE TABLE held (id int PRIMARY KEY, v int)", "INSERT INTO held VALUES (1, 0)",
		"BEGIN TRANSACTION", "UPDATE held SET v = v + 1 WHERE id = 1")
	waiter, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	done := make(chan error, 1)
	go func() { done <- waiter.Exec(context.Background(), "UPDATE held SET v = v + 1 WHERE id = 1") }()
	// Wait until the server shows the waiter's session blocked.
	spid := waiter.BackendID(ctx)
	watch, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	for deadline := time.Now().Add(time.Minute); ; {
		n, err := db.QueryInt64(ctx, watch, "SELECT count(*) FROM sys.sysprocesses WHERE spid = $1 AND blocked <> 0", spid)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the waiter's session never showed as blocked")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = waiter.Cancel(cctx)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the waiting statement succeeded; want it ended")
		}
		if waiter.Alive() {
			t.Errorf("the connection of the killed session is still taken for alive after %v", err)
		}
	case <-time.After(30 * time.Second):
		waiter.(db.Aborter).Abort() // so that the test ends
		t.Fatal("the waiting statement still runs 30 s after Cancel")
	}
}

func TestInfoNamesTheServer(t *testing.T) {
	d := testdb.Open(t, testdb.SQLServer(t, "dbh_mssql_info"))
	info, err := d.Info(context.Background())
	if err != nil || info.Version == "" || info.Settings["version"] == "" {
		t.Fatalf("info %+v, %v", info, err)
	}
}

// TestALoadKeepsEveryValue loads awkward values through CopyIn into a table
// with a narrow decimal, which Babelfish loads through a staging table
// (SQL Server, with bulk copy): a quote, non-ASCII text, NULL, negative and
// exact decimals, floats in exponent form, a boolean and a time all read
// back as they were.
func TestALoadKeepsEveryValue(t *testing.T) {
	t.Parallel()
	d, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_load"))
	ctx := context.Background()
	testdb.Exec(t, c, "DROP TABLE IF EXISTS lit",
		"CREATE TABLE lit (k int PRIMARY KEY, s nvarchar(40), m decimal(15,2), f float, b bit, ts "+d.Caps().TimestampType+")")
	ts := time.Date(2026, 11, 28, 4, 5, 6, 123456000, time.UTC)
	rows := [][]any{
		{int64(1), "it's a 'quote'", db.Decimal{Unscaled: -71156, Scale: 2}, 1e-7, true, ts},
		{int32(2), "Zürich, 東京", db.Decimal{Unscaled: 99, Scale: 2}, 2.5e+21, false, ts},
		{int16(3), nil, nil, nil, nil, nil},
	}
	n, err := d.CopyIn(ctx, c, "lit", []string{"k", "s", "m", "f", "b", "ts"}, &db.SliceSource{Rows: rows})
	if err != nil || n != 3 {
		t.Fatalf("load: %d rows, %v", n, err)
	}
	var s, m *string
	var f *float64
	var b *bool
	var got *time.Time
	for _, want := range []struct {
		k    int64
		s, m string
		f    float64
		b    bool
	}{{1, "it's a 'quote'", "-711.56", 1e-7, true}, {2, "Zürich, 東京", "0.99", 2.5e+21, false}} {
		if _, err := db.QueryRow(ctx, c, "SELECT s, CAST(m AS varchar(20)), f, b, ts FROM lit WHERE k = $1", []any{want.k}, &s, &m, &f, &b, &got); err != nil {
			t.Fatal(err)
		}
		if s == nil || *s != want.s || m == nil || *m != want.m || f == nil || *f != want.f || b == nil || *b != want.b || got == nil || !got.Equal(ts) {
			t.Errorf("row %d read back as %v %v %v %v %v; want %q %s %g %v %v", want.k, deref(s), deref(m), deref(f), deref(b), deref(got), want.s, want.m, want.f, want.b, ts)
		}
	}
	if _, err := db.QueryRow(ctx, c, "SELECT s, CAST(m AS varchar(20)), f, b, ts FROM lit WHERE k = 3", nil, &s, &m, &f, &b, &got); err != nil {
		t.Fatal(err)
	}
	if s != nil || m != nil || f != nil || b != nil || got != nil {
		t.Errorf("row 3's NULLs read back as %v %v %v %v %v", deref(s), deref(m), deref(f), deref(b), deref(got))
	}
}

// TestALoadLeavesTheUnnamedColumnsTheirDefaultsAndKeepsWideDecimals loads
// a table without two of its columns, one a NOT NULL key part: they take
// their defaults (Babelfish's own bulk load would leave them NULL). A
// decimal of 19 digits, more than a float holds, reads back exact, integers
// loaded into decimal columns keep their value (the driver sends them
// unscaled: 5 read back as 0.05), a load of no rows loads none, and nothing
// of the load's staging is left behind.
func TestALoadLeavesTheUnnamedColumnsTheirDefaultsAndKeepsWideDecimals(t *testing.T) {
	t.Parallel()
	d, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_load_defaults"))
	ctx := context.Background()
	testdb.Exec(t, c, "DROP TABLE IF EXISTS part",
		"CREATE TABLE part (k int NOT NULL, g int NOT NULL DEFAULT 7, w decimal(25,2), m decimal(6,2), note varchar(10) DEFAULT 'none', PRIMARY KEY (g, k))")
	rows := [][]any{
		{int64(1), db.Decimal{Unscaled: 1234567890123456789, Scale: 2}, db.Decimal{Unscaled: -9999, Scale: 2}},
		{int64(2), db.Decimal{Unscaled: -5, Scale: 2}, nil},
		{int64(3), int64(-12), int32(5)},
	}
	n, err := d.CopyIn(ctx, c, "part", []string{"k", "w", "m"}, &db.SliceSource{Rows: rows})
	if err != nil || n != 3 {
		t.Fatalf("load: %d rows, %v", n, err)
	}
	// A loader's share may hold no rows.
	if n, err := d.CopyIn(ctx, c, "part", []string{"k", "w", "m"}, &db.SliceSource{}); err != nil || n != 0 {
		t.Fatalf("a load of no rows: %d rows, %v", n, err)
	}
	got := map[int64]string{}
	r, err := c.Query(ctx, "SELECT k, g, CAST(w AS varchar(40)), coalesce(CAST(m AS varchar(20)), 'NULL'), note FROM part ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		var k, g int64
		var w, m, note string
		if err := r.Scan(&k, &g, &w, &m, &note); err != nil {
			t.Fatal(err)
		}
		got[k] = fmt.Sprintf("%d %s %s %s", g, w, m, note)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{1: "7 12345678901234567.89 -99.99 none", 2: "7 -0.05 NULL none", 3: "7 -12.00 5.00 none"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if left, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME LIKE 'dbh_load%'"); err != nil || left != 0 {
		t.Errorf("%d staging tables left, %v", left, err)
	}
}

// TestLoadsOfEveryLengthAcrossAPacketBoundaryAllLand loads 1 to 90 rows
// of 6 bytes each (a ROW token and an int) after 660 of them: among the
// loads, some end with the closing DONE token split across two of the
// driver's 4,096-byte packets, which Babelfish 4.2 refuses, closing the
// session (BABEL-6317). Every load must land whole all the same.
func TestLoadsOfEveryLengthAcrossAPacketBoundaryAllLand(t *testing.T) {
	t.Parallel()
	d, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_load_boundary"))
	ctx := context.Background()
	testdb.Exec(t, c, "DROP TABLE IF EXISTS seq", "CREATE TABLE seq (load_no int NOT NULL, k int NOT NULL)")
	var want int64
	for n := 661; n <= 750; n++ {
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{int64(n), int64(i)}
		}
		got, err := d.CopyIn(ctx, c, "seq", []string{"load_no", "k"}, &db.SliceSource{Rows: rows})
		if err != nil || got != int64(n) {
			t.Fatalf("a load of %d rows: %d loaded, %v", n, got, err)
		}
		want += int64(n)
	}
	if total, err := db.QueryInt64(ctx, c, "SELECT count(*) FROM seq"); err != nil || total != want {
		t.Fatalf("%d rows in the table, %v; want %d", total, err, want)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return "NULL"
	}
	return *p
}

// TestALoadKeepsTheValuesOfAnIdentityColumn loads rows that name a table's
// identity column, then another such table on the same connection (one
// table of a session may take identity values at a time): every row keeps
// the value loaded, and a row inserted later without one is numbered after
// them.
func TestALoadKeepsTheValuesOfAnIdentityColumn(t *testing.T) {
	t.Parallel()
	d, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_load_identity"))
	ctx := context.Background()
	for _, table := range []string{"ida", "idb"} {
		testdb.Exec(t, c, "DROP TABLE IF EXISTS "+table, "CREATE TABLE "+table+" (id bigint IDENTITY(1,1) PRIMARY KEY, v int NOT NULL)")
		n, err := d.CopyIn(ctx, c, table, []string{"id", "v"}, &db.SliceSource{Rows: [][]any{{int64(10), int64(1)}, {int64(20), int64(2)}}})
		if err != nil || n != 2 {
			t.Fatalf("load into %s: %d rows, %v", table, n, err)
		}
		testdb.Exec(t, c, "INSERT INTO "+table+" (v) VALUES (3)")
		id := map[int64]int64{} // by v
		r, err := c.Query(ctx, "SELECT id, v FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var i, v int64
			if err := r.Scan(&i, &v); err != nil {
				t.Fatal(err)
			}
			id[v] = i
		}
		r.Close()
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if len(id) != 3 || id[1] != 10 || id[2] != 20 || id[3] <= 20 {
			t.Errorf("%s read back ids (by v) %v; want 1:10, 2:20, and 3 numbered after 20", table, id)
		}
	}
}

// TestTheSweepFindsTheStagingTablesOfALongNamedTable: a load's staging
// table left behind for a table of a 60-character name is found and
// dropped by the sweep of that table (Babelfish would keep a name of more
// than 63 characters only shortened, under a hash), and another table's
// is left alone.
func TestTheSweepFindsTheStagingTablesOfALongNamedTable(t *testing.T) {
	t.Parallel()
	_, c := testdb.Connect(t, testdb.SQLServer(t, "dbh_mssql_sweep_long"))
	ctx := context.Background()
	long := "orders_" + strings.Repeat("x", 53)
	testdb.Exec(t, c, "CREATE TABLE "+sqlserver.StageName(long, 4194304, 1)+" (k int)", "CREATE TABLE "+sqlserver.StageName("other", 4194304, 2)+" (k int)")
	if err := c.(db.LoadSweeper).SweepLoads(ctx, long); err != nil {
		t.Fatal(err)
	}
	left, err := db.QueryStrings(ctx, c, "SELECT name FROM sys.tables WHERE name LIKE 'dbh[_]load[_]%'")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{sqlserver.StageName("other", 4194304, 2)}; fmt.Sprint(left) != fmt.Sprint(want) {
		t.Errorf("after the sweep of %s: %v, want %v", long, left, want)
	}
}
