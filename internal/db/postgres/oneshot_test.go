package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// rowsOf reads every row of rows as []any.
func rowsOf(t *testing.T, rows db.Rows) ([]string, [][]any) {
	t.Helper()
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(rows.Columns()))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return rows.Columns(), out
}

func TestQueryOnceSpeaksPgbenchsSimpleAndExtendedModes(t *testing.T) {
	ctx := context.Background()
	_, c := testdb.Connect(t, testdb.Postgres(t, "dbh_sc_oneshot"))

	t.Run("a simple query returns the server's text, NULL as nil", func(t *testing.T) {
		rows, err := db.QueryOnce(ctx, c, db.Simple, "SELECT 1.50::numeric AS n, NULL::int AS z, 3 + 0 AS s FROM generate_series(1, 2)")
		if err != nil {
			t.Fatal(err)
		}
		cols, got := rowsOf(t, rows)
		if !reflect.DeepEqual(cols, []string{"n", "z", "s"}) || !reflect.DeepEqual(got, [][]any{{"1.50", nil, "3"}, {"1.50", nil, "3"}}) {
			t.Fatalf("got %v %v", cols, got)
		}
	})
	t.Run("a simple query's error is returned", func(t *testing.T) {
		_, err := db.QueryOnce(ctx, c, db.Simple, "SELECT 1/0")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22012" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("an unnamed statement's parameters are text of unspecified type", func(t *testing.T) {
		// As with pgbench -M extended: unknown + unknown is ambiguous...
		_, err := db.QueryOnce(ctx, c, db.Unnamed, "SELECT $1 + $2", int64(3), int64(0))
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42725" {
			t.Fatalf("err = %v, want operator is not unique (42725)", err)
		}
		// ... but the server infers a type from the statement.
		rows, err := db.QueryOnce(ctx, c, db.Unnamed, "SELECT $1::int + $2 AS s, $3::text AS t, $4::float8 AS f", int64(3), "4", nil, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := rowsOf(t, rows); !reflect.DeepEqual(got, [][]any{{"7", nil, "0.5"}}) {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("the connection stays usable", func(t *testing.T) {
		if n, err := db.QueryInt64(ctx, c, "SELECT 42"); err != nil || n != 42 {
			t.Fatalf("QueryInt64 = %d, %v", n, err)
		}
	})
}

// Both connection kinds return every statement of a simple query of
// several (pgbench's \; compound commands), and know whether a transaction
// is open, failed or not.
func TestQueryEachAndInTxOnBothConnectionKinds(t *testing.T) {
	ctx := context.Background()
	pgxConn, lc := bothConns(t, "dbh_sc_each")
	for name, c := range map[string]db.Conn{"goroutine": pgxConn, "loop": lc} {
		t.Run(name, func(t *testing.T) {
			m, ok := c.(db.Multi)
			if !ok {
				t.Fatal("not a db.Multi")
			}
			all, err := m.QueryEach(ctx, "SELECT 1 AS a FROM generate_series(1, 2); SET application_name = 'each'; SELECT 2 AS b, 3 AS c")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rows := range all {
				cols, vals := rowsOf(t, rows)
				got = append(got, fmt.Sprint(cols, vals))
			}
			if want := "[a] [[1] [1]]|[] []|[b c] [[2 3]]"; strings.Join(got, "|") != want {
				t.Fatalf("results %s, want %s", strings.Join(got, "|"), want)
			}
			if _, err := m.QueryEach(ctx, "SELECT 1; SELECT 1/0; SELECT 3"); err == nil {
				t.Fatal("a failing statement's error is lost")
			}
			tx := c.(db.TxStatuser)
			for _, step := range []struct {
				sql  string
				want bool
			}{{"BEGIN", true}, {"SELECT 1", true}, {"COMMIT", false}, {"BEGIN", true}, {"SELECT 1/0", true}, {"ROLLBACK", false}} {
				_ = c.Exec(ctx, step.sql)
				if tx.InTx() != step.want {
					t.Fatalf("after %s: InTx() = %v", step.sql, !step.want)
				}
			}
		})
	}
}
