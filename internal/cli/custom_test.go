package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/testdb"
)

// pgbench's built-in tpcb-like script text (pgbench --show-script=tpcb-like).
const pgbenchTPCB = `-- tpcb-like: <builtin: TPC-B (sort of)>
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`

// pgConn connects to the PostgreSQL database url for the test.
func pgConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

func pgCount(t *testing.T, url, q string) int64 {
	t.Helper()
	var n int64
	if err := pgConn(t, url).QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// psql runs statements on the PostgreSQL database url.
func psql(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	c := pgConn(t, url)
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestPgbenchsTPCBScriptRunsUnchangedAndKeepsTheInvariant(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	script := filepath.Join(home, "tpcb-like.sql")
	if err := os.WriteFile(script, []byte(pgbenchTPCB), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, loader := range []string{"dbharness init tpcb", "pgbench -i"} {
		t.Run("on a database loaded by "+loader, func(t *testing.T) {
			name := "dbh_cus_tpcb"
			if loader == "pgbench -i" {
				name = "dbh_cus_pgbi"
			}
			url := testdb.Postgres(t, name)
			if loader == "pgbench -i" {
				pgbench, err := exec.LookPath("pgbench")
				if err != nil {
					t.Fatal("pgbench is not installed; install postgresql-client to run this test")
				}
				out, err := exec.Command(pgbench, "-i", "-s", "1", "-q", url).CombinedOutput()
				if err != nil {
					t.Fatalf("pgbench -i: %v\n%s", err, out)
				}
			} else if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
				t.Fatalf("init: exit %d\n%s", r.code, r.all())
			}
			// No workload name: --script selects the script workload.
			r := dbh(t, home, "run", "--script", script+"@2", "-c", "2", "-t", "40", "--db", url, "--no-save")
			if r.code != 0 {
				t.Fatalf("run --script: exit %d\n%s", r.code, r.all())
			}
			if !strings.Contains(r.stdout, "tpcb-like") || !strings.Contains(r.stdout, "80 transactions") {
				t.Errorf("run output lacks the script's transactions:\n%s", r.stdout)
			}
			if n := pgCount(t, url, "SELECT count(*) FROM pgbench_history"); n != 80 {
				t.Errorf("pgbench_history has %d rows after 2 clients x 40 transactions", n)
			}
			if r := dbh(t, home, "check", "tpcb", "--db", url); r.code != 0 || strings.Count(r.stdout, "PASS") != 3 {
				t.Fatalf("check tpcb after the script: exit %d\n%s", r.code, r.all())
			}
		})
	}
}

func TestScriptMetaCommandsWork(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_cus_meta")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE log (client int, y bigint, h bigint, branch text)"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	script := filepath.Join(home, "meta.sql")
	src := `\set x 5 * 2 + :offset
SELECT :x + 1 AS y \gset
\set h hash_fnv1a(:y, 7)
\if :y = 11
INSERT INTO log VALUES (:client_id, :y, :h, 'if');
\elif :y = 12
INSERT INTO log VALUES (:client_id, :y, :h, 'elif');
\else
INSERT INTO log VALUES (:client_id, :y, :h, 'else');
\endif
\sleep 1 ms
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dbh(t, home, "run", "-f", script, "-D", "offset=1", "-c", "2", "-t", "5", "--db", url, "--no-save")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	// y = 5*2+1+1 = 12: the \elif branch, with hash_fnv1a(12, 7) as pgbench computes it.
	if n := pgCount(t, url, fmt.Sprintf("SELECT count(*) FROM log WHERE y = 12 AND branch = 'elif' AND h = %d", datagen.HashFNV1a(12, 7))); n != 10 {
		t.Errorf("%d rows took the \\elif branch, want 10", n)
	}
	if n := pgCount(t, url, "SELECT count(DISTINCT client) FROM log"); n != 2 {
		t.Errorf(":client_id took %d values, want 2", n)
	}
}

func TestWorkloadFileInitProfileRunCheck(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	example, err := filepath.Abs("../../examples/orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	url := testdb.Postgres(t, "dbh_cus_orders")
	r := dbh(t, home, "init", example, "--db", url, "--loaders", "2")
	if r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.all())
	}
	for _, want := range []string{"table customers: 2000 rows", "table orders:", "children per customers", "rows per 8192-byte page"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("init does not print the profile (%q):\n%s", want, r.stdout)
		}
	}
	t.Run("the loaded example matches its spec in the profile", func(t *testing.T) {
		r := dbh(t, home, "profile", example, "--db", url, "--json", "-")
		if r.code != 0 {
			t.Fatalf("profile: exit %d\n%s", r.code, r.all())
		}
		var p struct {
			Tables []struct {
				Name        string  `json:"name"`
				Rows        int64   `json:"rows"`
				RowsPerPage float64 `json:"rows_per_page"`
				Columns     []struct {
					Name       string  `json:"name"`
					Distinct   int64   `json:"distinct"`
					NullFrac   float64 `json:"null_frac"`
					TopShare   float64 `json:"top_share"`
					Top10Share float64 `json:"top10_share"`
					AvgWidth   float64 `json:"avg_width"`
					Engine     *struct {
						Distinct float64 `json:"distinct"`
					} `json:"engine"`
				} `json:"columns"`
				Children *struct {
					Mean  float64 `json:"mean"`
					Max   int64   `json:"max"`
					Zero  float64 `json:"zero_share"`
					Top1  float64 `json:"top1pct_share"`
					Parts int64   `json:"parents"`
				} `json:"children"`
			} `json:"tables"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
			t.Fatalf("profile JSON: %v\n%s", err, r.stdout)
		}
		near := func(what string, got, want, tol float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
			}
		}
		cols := map[string]map[string]float64{}
		for _, tb := range p.Tables {
			for _, c := range tb.Columns {
				cols[tb.Name+"."+c.Name] = map[string]float64{"distinct": float64(c.Distinct), "null": c.NullFrac, "top": c.TopShare, "top10": c.Top10Share, "width": c.AvgWidth}
				if c.Engine == nil {
					t.Errorf("%s.%s: no engine statistics after ANALYZE", tb.Name, c.Name)
				}
			}
		}
		cust, orders := p.Tables[0], p.Tables[1]
		if cust.Rows != 2000 || cust.RowsPerPage <= 0 {
			t.Fatalf("customers: %d rows, %.1f rows per page", cust.Rows, cust.RowsPerPage)
		}
		near("customers.country distinct", cols["customers.country"]["distinct"], 7, 0)
		near("customers.country top share (US weight 40%)", cols["customers.country"]["top"], 0.40, 0.03)
		near("customers.segment top-10 share (hot 10% of 50 values get 90%)", cols["customers.segment"]["top10"], 0.90+0.10*5/45, 0.03)
		near("customers.referrer null fraction", cols["customers.referrer"]["null"], 0.70, 0.03)
		near("orders.coupon distinct", cols["orders.coupon"]["distinct"], 50, 0)
		near("orders.coupon null fraction", cols["orders.coupon"]["null"], 0.80, 0.02)
		near("orders.note average width", cols["orders.note"]["width"], 400, 8)
		near("orders.status top share", cols["orders.status"]["top"], 0.85, 0.02)
		near("orders.order_id distinct = rows", cols["orders.order_id"]["distinct"], float64(orders.Rows), 0)
		// zipf(1..300, 1.3) children per customer.
		h, m := 0.0, 0.0
		for k := 1.0; k <= 300; k++ {
			h += math.Pow(k, -1.3)
			m += k * math.Pow(k, -1.3)
		}
		ch := orders.Children
		if ch == nil || ch.Parts != 2000 || ch.Zero != 0 || ch.Max > 300 {
			t.Fatalf("children: %+v", ch)
		}
		near("children per customer, mean", ch.Mean, m/h, 0.12*m/h)
		near("orders rows = customers x mean children", float64(orders.Rows), 2000*ch.Mean, 0.5)
	})
	t.Run("run and check", func(t *testing.T) {
		r := dbh(t, home, "run", example, "--db", url, "-c", "2", "-t", "30", "--no-save")
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s", r.code, r.all())
		}
		for _, want := range []string{"customer_orders", "place_order", "ship_pending"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("run output lacks %s:\n%s", want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "errors") && !strings.Contains(r.stdout, " 0 errors") {
			t.Errorf("the run had errors:\n%s", r.stdout)
		}
		if r := dbh(t, home, "check", example, "--db", url); r.code != 0 || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("check: exit %d\n%s", r.code, r.all())
		}
	})
}

func TestWorkloadFilesRunOnMySQLAndSQLite(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	f := filepath.Join(home, "small.yaml")
	src := `name: small
tables:
  - name: acct
    rows: 500 * scale
    primary_key: [id]
    indexes: [[region]]
    columns:
      - {name: id, type: bigint, gen: sequence}
      - {name: region, type: varchar(8), gen: choice, values: [n, s, e, w], weights: [4, 3, 2, 1]}
      - {name: opened, type: timestamp, gen: timestamp, from: "2024-01-01", to: "2024-12-31"}
      - {name: tag, type: uuid, gen: uuid, version: 4, null: 0.1}
      - {name: score, type: float, gen: uniform, min: 0, max: 1}
  - name: txn
    parent: {table: acct, column: acct_id, children: {gen: uniform, min: 0, max: 4}}
    columns:
      - {name: acct_id, type: bigint}
      - {name: amount, type: int, gen: exponential, min: 1, max: 1000, param: 4}
      - {name: memo, type: text, gen: string, length: {gen: uniform, min: 0, max: 50}}
params:
  a: {gen: uniform, min: 1, max: 500 * scale}
transactions:
  - name: read
    weight: 3
    read_only: true
    statements:
      - SELECT region, count(*) AS n FROM acct JOIN txn ON txn.acct_id = acct.id WHERE acct.id = :a GROUP BY region
  - name: write
    params:
      amt: {gen: zipf, min: 1, max: 100, exponent: 1.2}
    statements:
      - SELECT id AS target FROM acct WHERE id = :a
      - INSERT INTO txn (acct_id, amount, memo) VALUES (:target, :amt, 'x')
`
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range []testdb.Engine{{Name: "mysql", URL: testdb.MySQL(t, "dbh_cus_small")}, {Name: "sqlite", URL: testdb.SQLite(t)}} {
		t.Run(e.Name, func(t *testing.T) {
			r := dbh(t, home, "init", f, "--db", e.URL, "--scale", "2")
			if r.code != 0 || !strings.Contains(r.stdout, "table acct: 1000 rows") {
				t.Fatalf("init: exit %d\n%s", r.code, r.all())
			}
			r = dbh(t, home, "run", f, "--db", e.URL, "-c", "2", "-t", "50", "--no-save")
			if r.code != 0 || !strings.Contains(r.stdout, "100 transactions") || !strings.Contains(r.stdout, " 0 errors") {
				t.Fatalf("run: exit %d\n%s", r.code, r.all())
			}
			if r := dbh(t, home, "check", f, "--db", e.URL); r.code != 0 {
				t.Fatalf("check: exit %d\n%s", r.code, r.all())
			}
		})
	}
}

func TestBadWorkloadFilesAndScriptsGetOneSentence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bad := filepath.Join(home, "bad.yaml")
	os.WriteFile(bad, []byte("tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: int, gen: zipf, max: 9, exponent: 0}\n"), 0o644)
	badSQL := filepath.Join(home, "bad.sql")
	os.WriteFile(badSQL, []byte("\\set x random(1,\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"init", bad}, 2, bad + ":5:35: t.a: gen zipf needs \"min\""},
		{[]string{"init", filepath.Join(home, "missing.yaml")}, 2, "missing.yaml does not exist"},
		{[]string{"run", "--script", badSQL}, 2, badSQL + ":1:17: \\set x: unexpected end of expression"},
		{[]string{"run", "--script", filepath.Join(home, "none.sql")}, 2, "none.sql: no such file"},
		{[]string{"profile", "tpcb"}, 2, "profile takes a workload file"},
	}
	for _, c := range cases {
		r := dbh(t, home, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q on one line", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}
