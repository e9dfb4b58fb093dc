package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// connectPostgres opens a connection to a fresh PostgreSQL database name;
// both are closed after the test.
func connectPostgres(t *testing.T, name string) (db.DB, db.Conn) {
	t.Helper()
	d := testdb.Open(t, testdb.Postgres(t, name))
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

// HammerDB's TPM counts every database's transactions: a database dropped
// between the two readings (as other sessions' tests do) must not make the
// server's count go down, and one created meanwhile counts.
func TestServerTransactionsSurviveADroppedDatabase(t *testing.T) {
	ctx := context.Background()
	d, c := connectPostgres(t, "dbh_pg_xacts")
	q := d.Caps().ServerXacts
	// busy makes a database with 20 transactions of its own and returns
	// its name.
	busy := func(name string) string {
		t.Helper()
		url := testdb.Postgres(t, name)
		o := testdb.Open(t, url)
		oc, err := o.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := oc.Exec(ctx, "SELECT 1"); err != nil {
				t.Fatal(err)
			}
		}
		oc.Close()
		// Sessions publish their counts at most once a second, and as they
		// end, a moment after their client has gone: wait until the
		// server shows the 20.
		name = url[strings.LastIndex(url, "/")+1:]
		oid, err := db.QueryString(ctx, c, "SELECT oid::text FROM pg_database WHERE datname = $1", name)
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			n, err := db.QueryCounts(ctx, c, q)
			if err != nil {
				t.Fatal(err)
			}
			if n[oid] >= 20 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server shows %d transactions of %s a minute after its session ended, want 20", n[oid], name)
			}
		}
		return name
	}
	gone := busy("dbh_pg_xacts_gone")
	before, err := db.QueryCounts(ctx, c, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "DROP DATABASE "+gone+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	born := busy("dbh_pg_xacts_born")
	t.Cleanup(func() { _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+born+" WITH (FORCE)") })
	after, err := db.QueryCounts(ctx, c, q)
	if err != nil {
		t.Fatal(err)
	}
	// Other tests may reset other databases' statistics meanwhile: those
	// count from their reset (Growth), which still leaves the new
	// database's 20.
	n, _ := after.Growth(before)
	if n < 20 {
		t.Fatalf("the server's transactions since: %d; want at least the new database's 20 (before %v, after %v)", n, before, after)
	}
	if _, has := before[""]; has || len(before) < 2 {
		t.Errorf("counts are not keyed by database: %v", before)
	}
}
