package file

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	harness "github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// initAndRun loads the workload file at path on url and runs it with
// clients clients of perClient transactions each, as `init` and `run`
// would, and returns the run.
func initAndRun(t *testing.T, url, path string, clients int, perClient int64) *results.Run {
	t.Helper()
	tg, err := db.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := harness.Init(ctx, harness.InitConfig{Target: tg, Workload: testdb.Workload(t, path, workload.CmdInit), Seed: 1, Loaders: 2}); err != nil {
		t.Fatal(err)
	}
	return runOnly(t, tg, path, clients, perClient)
}

// runOnly runs the workload file at path on tg (already loaded).
func runOnly(t *testing.T, tg *db.Target, path string, clients int, perClient int64) *results.Run {
	t.Helper()
	var out, warn bytes.Buffer
	run, err := harness.Run(context.Background(), harness.Config{
		Target: tg, Workload: testdb.Workload(t, path, workload.CmdRun),
		Engine:      loadgen.Config{Clients: clients, Transactions: perClient, MaxTries: 1, Interval: time.Second, Seed: 7},
		Percentiles: results.NormalizePercentiles([]float64{50, 99}),
		NoSave:      true, Out: &out, Warn: &warn,
	}, nil)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), warn.String())
	}
	if run.Summary.Errors != 0 {
		t.Fatalf("%d errors\n%s%s", run.Summary.Errors, out.String(), warn.String())
	}
	return run
}

// ycsbMixes are the YCSB core workloads' operation proportions.
var ycsbMixes = map[string]map[string]float64{
	"a": {"read": 0.5, "update": 0.5},
	"b": {"read": 0.95, "update": 0.05},
	"c": {"read": 1},
	"d": {"read": 0.95, "insert": 0.05},
	"e": {"scan": 0.95, "insert": 0.05},
	"f": {"read": 0.5, "read_modify_write": 0.5},
}

// Each YCSB core workload file runs without an error on every engine, its
// measured mix within 4 binomial standard deviations of the proportions,
// and its inserts leave a row each.
func TestTheYCSBCoreWorkloadsRunInTheirProportionsOnEveryEngine(t *testing.T) {
	const clients, perClient = 2, 500
	for _, e := range testdb.Engines(t, "dbh_ycsb") {
		for _, w := range []string{"a", "b", "c", "d", "e", "f"} {
			t.Run(e.Name+"/ycsb-"+w, func(t *testing.T) {
				path := filepath.Join("..", "..", "..", "examples", "ycsb-"+w+".yaml")
				run := initAndRun(t, e.URL, path, clients, perClient)
				mix := ycsbMixes[w]
				n := float64(run.Summary.Transactions)
				if n != clients*perClient || len(run.Ops) != len(mix) {
					t.Fatalf("%v transactions of %d types, want %d of %d", n, len(run.Ops), clients*perClient, len(mix))
				}
				var inserts int64
				for _, op := range run.Ops {
					p, ok := mix[op.Name]
					if !ok {
						t.Fatalf("transaction %s is not in YCSB %s", op.Name, w)
					}
					if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(op.Count)-n*p) > 4*sd {
						t.Errorf("%s: %d of %v, want %.0f ± %.1f (4σ)", op.Name, op.Count, n, n*p, 4*sd)
					}
					if op.Name == "insert" {
						inserts = op.Count
					}
				}
				if got := testdb.QueryInt64(t, testdb.Open(t, e.URL), "SELECT count(*) FROM usertable"); got != 1000+inserts {
					t.Errorf("usertable has %d rows after %d inserts into 1000", got, inserts)
				}
			})
		}
	}
}

// A latest parameter draws only keys whose inserts have ended: with half
// the transactions inserting, from several clients, every key a read
// draws has its row (a read that found none would fail at its second
// statement). A sequence with after: continues after the keys of an
// earlier run, whose inserts would otherwise fail on a duplicate key.
func TestLatestReadsFindTheirRowsAndASecondRunInsertsAfterTheFirst(t *testing.T) {
	path := openFile(t, `tables:
  - name: kv
    rows: 100
    primary_key: [k]
    columns:
      - {name: k, type: bigint, gen: sequence}
  - name: ages
    rows: 0
    columns:
      - {name: age, type: bigint, gen: constant, value: 0}
transactions:
  - name: read
    params:
      key: {gen: latest, sequence: put.k, exponent: 0.99}
    statements:
      - SELECT k AS got FROM kv WHERE k = :key
      - INSERT INTO ages (age) SELECT max(k) - :got FROM kv
  - name: put
    params:
      k: {gen: sequence, after: kv.k}
    statements:
      - INSERT INTO kv (k) VALUES (:k)
`).Path
	url := testdb.Postgres(t, "dbh_ycsb_latest")
	first := initAndRun(t, url, path, 4, 100)
	tg, _ := db.ParseURL(url)
	second := runOnly(t, tg, path, 4, 100)
	var puts, reads int64
	for _, r := range []*results.Run{first, second} {
		for _, op := range r.Ops {
			switch op.Name {
			case "put":
				puts += op.Count
			case "read":
				reads += op.Count
			}
		}
	}
	d := testdb.Open(t, url)
	if got := testdb.QueryInt64(t, d, "SELECT count(*) FROM kv"); got != 100+puts {
		t.Errorf("kv has %d rows after %d puts into 100", got, puts)
	}
	// The newest keys are read most: the ten newest when the read ran take
	// at least 30% of the reads (about 42% here: zipf's share over 100 to
	// 500 keys is 57 to 43%, and keys inserted while a read ran add to its
	// age; a uniform choice would give them 2 to 10%).
	newest := testdb.QueryInt64(t, d, "SELECT count(*) FROM ages WHERE age < 10")
	if got := testdb.QueryInt64(t, d, "SELECT count(*) FROM ages"); got != reads || float64(newest) < 0.3*float64(reads) {
		t.Errorf("%d of %d reads (%d recorded) on the ten newest keys", newest, reads, got)
	}
}

// A scan's length is a parameter used in LIMIT: on every engine each scan
// reads as many rows as its length asks (fewer only at the end of the
// table), and the lengths stay in their range.
func TestScanLengthsLimitTheScanOnEveryEngine(t *testing.T) {
	path := openFile(t, `tables:
  - name: usertable
    rows: 200
    primary_key: [ycsb_key]
    columns:
      - {name: ycsb_key, type: bigint, gen: sequence}
  - name: scans
    rows: 0
    columns:
      - {name: got, type: int, gen: constant, value: 0}
      - {name: asked, type: int, gen: constant, value: 0}
      - {name: first_key, type: int, gen: constant, value: 0}
transactions:
  - name: scan
    params:
      start: {gen: uniform, min: 1, max: 200}
      len: {gen: zipf, min: 1, max: 100, exponent: 0.99}
    statements:
      - SELECT count(*) AS got FROM (SELECT ycsb_key FROM usertable WHERE ycsb_key >= :start ORDER BY ycsb_key LIMIT :len) s
      - INSERT INTO scans (got, asked, first_key) VALUES (:got, :len, :start)
`).Path
	for _, e := range testdb.Engines(t, "dbh_ycsb_scan") {
		t.Run(e.Name, func(t *testing.T) {
			initAndRun(t, e.URL, path, 2, 100)
			d := testdb.Open(t, e.URL)
			for q, want := range map[string]int64{
				"SELECT count(*) FROM scans": 200,
				"SELECT count(*) FROM scans WHERE got <> CASE WHEN asked < 201 - first_key THEN asked ELSE 201 - first_key END": 0,
				"SELECT count(*) FROM scans WHERE asked < 1 OR asked > 100":                                                     0,
				"SELECT count(*) FROM scans WHERE got > 1":                                                                      -1,
			} {
				got := testdb.QueryInt64(t, d, q)
				if want >= 0 && got != want || want < 0 && got == 0 {
					t.Errorf("%s: %d", q, got)
				}
			}
		})
	}
}
