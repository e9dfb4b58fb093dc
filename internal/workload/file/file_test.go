package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

const skewFile = `name: skew
tables:
  - name: events
    rows: 200000 * scale
    primary_key: [id]
    indexes: [[user_id], [kind]]
    columns:
      - {name: id, type: bigint, gen: sequence}
      - {name: user_id, type: int, gen: zipf, min: 1, max: 1000000, exponent: 1.01}
      - {name: kind, type: varchar(10), gen: choice, values: [view, click, buy], weights: [90, 9, 1]}
      - {name: ref, type: int, gen: uniform, min: 1, max: 100000, null: 0.9}
`

func openFile(t *testing.T, src string) *Workload {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := workload.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return g.(*Workload)
}

func initAndProfile(t *testing.T, url string, w *Workload) *Profile {
	t.Helper()
	d := testdb.Open(t, url)
	ctx := context.Background()
	if err := w.Init(ctx, &workload.Env{DB: d, Seed: 1, Loaders: 2, Progress: workload.NopProgress{}}); err != nil {
		t.Fatal(err)
	}
	conn, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p, err := w.Profile(ctx, d, conn)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func col(p *Profile, name string) *ColumnProfile {
	for i := range p.Tables[0].Columns {
		if p.Tables[0].Columns[i].Name == name {
			return &p.Tables[0].Columns[i]
		}
	}
	return nil
}

func TestTheProfileFlagsStatisticsThatMissTheSkew(t *testing.T) {
	w := openFile(t, skewFile)
	p := initAndProfile(t, testdb.Postgres(t, "dbh_cus_skew"), w)
	tb := p.Tables[0]
	if tb.Rows != 200000 || tb.Pages == 0 || tb.RowsPerPage < 50 || tb.AvgRowBytes <= 0 {
		t.Fatalf("table figures: %+v", tb)
	}
	u, k, r := col(p, "user_id"), col(p, "kind"), col(p, "ref")
	// A long zipf tail: PostgreSQL's 30,000-row sample sees few of the
	// rare values and underestimates n_distinct several times over.
	if len(u.Flags) == 0 || !strings.Contains(strings.Join(p.Flags, "\n"), "events.user_id: distinct values") {
		t.Errorf("user_id not flagged: true %d distinct, engine %+v, flags %v", u.Distinct, u.Engine, p.Flags)
	}
	if len(k.Flags) != 0 || k.Distinct != 3 || k.TopShare < 0.88 || k.TopShare > 0.92 {
		t.Errorf("kind: %+v", k)
	}
	if len(r.Flags) != 0 || r.NullFrac < 0.88 || r.NullFrac > 0.92 || r.Engine == nil || *r.Engine.NullFrac < 0.85 {
		t.Errorf("ref: %+v engine %+v", r, r.Engine)
	}
}

func TestTheProfileReadsMySQLAndSQLiteStorage(t *testing.T) {
	for _, e := range []testdb.Engine{{Name: "mysql", URL: testdb.MySQL(t, "dbh_cus_prof")}, {Name: "sqlite", URL: testdb.SQLite(t)}} {
		t.Run(e.Name, func(t *testing.T) {
			w := openFile(t, strings.Replace(skewFile, "200000 * scale", "5000", 1))
			p := initAndProfile(t, e.URL, w)
			tb := p.Tables[0]
			if tb.Rows != 5000 || tb.Pages == 0 || tb.RowsPerPage <= 0 || tb.PageBytes == 0 {
				t.Fatalf("%s storage figures: %+v", e.Name, tb)
			}
			if u := col(p, "user_id"); u.Engine == nil || u.Engine.Distinct <= 0 {
				t.Errorf("%s: no engine statistics for the indexed column user_id: %+v", e.Name, u.Engine)
			}
			if k := col(p, "kind"); k.Distinct != 3 {
				t.Errorf("kind has %d distinct values", k.Distinct)
			}
		})
	}
}

func TestCompareFlagsOnlyWhatIsOffByMoreThanTwice(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	cp := &ColumnProfile{Distinct: 1000, NullFrac: 0.5, TopShare: 0.001}
	if fl := compare(cp, &EngineStats{Distinct: 600, NullFrac: f(0.3), TopShare: f(0.004)}); len(fl) != 0 {
		t.Errorf("flags within 2x (and a top share under 1%%): %v", fl)
	}
	if fl := compare(cp, &EngineStats{Distinct: 400, NullFrac: f(0.2), TopShare: f(0.05)}); len(fl) != 3 {
		t.Errorf("want distinct, null and top-share flags, got %v", fl)
	}
	if fl := compare(&ColumnProfile{Distinct: 100, TopShare: 0.01}, &EngineStats{Distinct: 100, NullFrac: f(0)}); len(fl) != 0 {
		t.Errorf("an unknown top share is flagged: %v", fl)
	}
}

func TestBucketsGroupLargeCountsInPowersOfTwo(t *testing.T) {
	b := buckets(map[int64]int64{0: 5, 3: 2, 20: 1, 21: 1, 40: 2, 41: 3, 300: 1})
	want := []Bucket{{0, 0, 5}, {3, 3, 2}, {20, 20, 1}, {21, 40, 3}, {41, 80, 3}, {161, 320, 1}}
	if len(b) != len(want) {
		t.Fatalf("%v", b)
	}
	for i := range b {
		if b[i] != want[i] {
			t.Fatalf("%v, want %v", b, want)
		}
	}
}

func TestAnExistingFileOfAnyNameIsAWorkloadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shop.conf")
	if err := os.WriteFile(p, []byte(skewFile), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := workload.New(p)
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := g.(*Workload); !ok || w.Key() != "skew" || len(w.Tables()) != 1 {
		t.Fatalf("New(%s) = %#v", p, g)
	}
	if _, err := workload.New("nope.yaml"); err == nil || !strings.Contains(err.Error(), "nope.yaml does not exist") {
		t.Fatalf("a missing file: %v", err)
	}
	if _, err := workload.New("tpcbb"); err == nil || !strings.Contains(err.Error(), "unknown workload") {
		t.Fatalf("an unknown name: %v", err)
	}
}

// PostgreSQL keeps no most-common-values list for a unique column: the
// profile takes that as unknown, not as 0%, and flags nothing, while a
// skewed column of the same table keeps its share.
func TestTheProfileDoesNotFlagAUniqueKeyWithoutMostCommonValues(t *testing.T) {
	w := openFile(t, `tables:
  - name: tags
    rows: 100
    primary_key: [id]
    columns:
      - {name: id, type: bigint, gen: sequence}
      - {name: kind, type: varchar(10), gen: choice, values: [a, b], weights: [90, 10]}
`)
	p := initAndProfile(t, testdb.Postgres(t, "dbh_wf_profile"), w)
	id, kind := col(p, "id"), col(p, "kind")
	if id.Engine == nil || id.Engine.TopShare != nil || len(id.Flags) != 0 || len(p.Flags) != 0 {
		t.Errorf("id (true top share %.2f): engine %+v, flags %v, all flags %v", id.TopShare, id.Engine, id.Flags, p.Flags)
	}
	if kind.Engine == nil || kind.Engine.TopShare == nil || *kind.Engine.TopShare < 0.8 {
		t.Errorf("kind: engine %+v", kind.Engine)
	}
}
