package wlfile

import (
	"fmt"
	"github.com/dbharness/dbharness/internal/sqlparams"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/datagen"
)

// load parses src as a workload file and returns all rows of each table.
func load(t *testing.T, src string, seed uint64) (*Spec, map[string][][]any) {
	t.Helper()
	spec, err := Parse("test.yaml", []byte(src), 1)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := Rows(spec, seed)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]any{}
	for _, tb := range tables {
		for b := 0; b < tb.Batches; b++ {
			out[tb.Table.Name] = tb.Batch(b, out[tb.Table.Name])
		}
		if int64(len(out[tb.Table.Name])) != tb.Rows {
			t.Fatalf("%s: %d rows loaded, %d announced", tb.Table.Name, len(out[tb.Table.Name]), tb.Rows)
		}
	}
	return spec, out
}

func column(rows [][]any, i int) []any {
	out := make([]any, len(rows))
	for r, row := range rows {
		out[r] = row[i]
	}
	return out
}

func counts(vals []any) map[any]int {
	m := map[any]int{}
	for _, v := range vals {
		m[v]++
	}
	return m
}

// chiSquareOK tests observed counts against expected probabilities at the
// 0.1% level (Wilson-Hilferty approximation of the chi-square quantile).
func chiSquareOK(t *testing.T, name string, obs []int, probs []float64) {
	t.Helper()
	n := 0
	for _, o := range obs {
		n += o
	}
	stat, df := 0.0, -1
	for i, p := range probs {
		e := p * float64(n)
		if e < 5 {
			continue
		}
		d := float64(obs[i]) - e
		stat += d * d / e
		df++
	}
	if df < 1 {
		t.Fatalf("%s: too few cells", name)
	}
	k := float64(df)
	z := 3.09 // 0.999 quantile of the standard normal
	crit := k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
	if stat > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (df %d): the counts %v do not fit", name, stat, crit, df, obs)
	}
}

const genFile = `
tables:
  - name: t
    rows: 40000
    columns:
      - {name: id, type: bigint, gen: sequence, start: 10, step: 2}
      - {name: u, type: int, gen: uniform, min: 1, max: 10}
      - {name: z, type: int, gen: zipf, n: 10, exponent: 1.2}
      - {name: h, type: int, gen: hotspot, min: 1, max: 100, hot_fraction: 0.1, hot_share: 0.7}
      - {name: c, type: varchar(5), gen: choice, values: [a, b, c], weights: [6, 3, 1]}
      - {name: d, type: int, gen: zipf, distinct: 25, exponent: 1.1}
      - {name: s, type: varchar(200), gen: string, length: {gen: gaussian, min: 10, max: 190, mean: 100, stddev: 20}}
      - {name: f, type: varchar(9), gen: string, length: 8, null: 0.25}
      - {name: p, type: varchar(20), gen: pattern, prefix: "VC", width: 3, number: {gen: uniform, min: 1, max: 40}}
      - {name: ts, type: timestamp, gen: timestamp, from: "2024-01-01", to: "2024-01-02"}
      - {name: id4, type: uuid, gen: uuid}
      - {name: id7, type: uuid, gen: uuid, version: 7}
      - {name: x, type: float, gen: gaussian, min: 0, max: 10, mean: 5, stddev: 1}
      - {name: e, type: int, gen: exponential, min: 1, max: 10, param: 2}
      - {name: g, type: int, gen: geometric, min: 1, mean: 3}
      - {name: sd, type: varchar(30), gen: string, length: 12, distinct: 7, shape: {gen: zipf, exponent: 2}}
`

func TestColumnGeneratorsProduceTheRequestedDistributions(t *testing.T) {
	spec, data := load(t, genFile, 7)
	rows := data["t"]
	idx := map[string]int{}
	for i, c := range spec.Tables[0].Columns {
		idx[c.Name] = i
	}
	col := func(n string) []any { return column(rows, idx[n]) }
	t.Run("sequence counts from start by step", func(t *testing.T) {
		for i, v := range col("id") {
			if v.(int64) != 10+2*int64(i) {
				t.Fatalf("row %d: %v", i, v)
			}
		}
	})
	t.Run("uniform fits", func(t *testing.T) {
		m := counts(col("u"))
		obs, probs := make([]int, 10), make([]float64, 10)
		for i := range obs {
			obs[i], probs[i] = m[int64(i+1)], 0.1
		}
		chiSquareOK(t, "uniform", obs, probs)
	})
	t.Run("zipf fits", func(t *testing.T) {
		m := counts(col("z"))
		obs, probs := make([]int, 10), make([]float64, 10)
		h := 0.0
		for k := 1; k <= 10; k++ {
			h += math.Pow(float64(k), -1.2)
		}
		for k := 1; k <= 10; k++ {
			obs[k-1], probs[k-1] = m[int64(k)], math.Pow(float64(k), -1.2)/h
		}
		chiSquareOK(t, "zipf", obs, probs)
	})
	t.Run("hot spot gives 10% of values 70% of rows", func(t *testing.T) {
		hot := 0
		for _, v := range col("h") {
			if v.(int64) <= 10 {
				hot++
			}
		}
		share := float64(hot) / float64(len(rows))
		if math.Abs(share-0.7) > 0.015 {
			t.Errorf("hot share %.3f, want 0.7", share)
		}
	})
	t.Run("weighted choice fits", func(t *testing.T) {
		m := counts(col("c"))
		chiSquareOK(t, "choice", []int{m["a"], m["b"], m["c"]}, []float64{0.6, 0.3, 0.1})
	})
	t.Run("distinct gives exactly N values with the shape", func(t *testing.T) {
		m := counts(col("d"))
		if len(m) != 25 {
			t.Fatalf("%d distinct values, want 25", len(m))
		}
		// The most common value holds zipf(25, 1.1)'s first share.
		h := 0.0
		for k := 1; k <= 25; k++ {
			h += math.Pow(float64(k), -1.1)
		}
		top := 0
		for _, c := range m {
			top = max(top, c)
		}
		if got, want := float64(top)/float64(len(rows)), 1/h; math.Abs(got-want) > 0.015 {
			t.Errorf("top share %.3f, want %.3f", got, want)
		}
		sm := counts(col("sd"))
		if len(sm) != 7 {
			t.Fatalf("string column with distinct 7 has %d values", len(sm))
		}
	})
	t.Run("string lengths follow the length distribution", func(t *testing.T) {
		sum := 0
		for _, v := range col("s") {
			l := len(v.(string))
			if l < 10 || l > 190 {
				t.Fatalf("length %d outside [10, 190]", l)
			}
			sum += l
		}
		if mean := float64(sum) / float64(len(rows)); math.Abs(mean-100) > 1 {
			t.Errorf("mean length %.2f, want 100", mean)
		}
	})
	t.Run("null fraction holds", func(t *testing.T) {
		nulls := 0
		for _, v := range col("f") {
			if v == nil {
				nulls++
			} else if len(v.(string)) != 8 {
				t.Fatalf("fixed length 8, got %q", v)
			}
		}
		if share := float64(nulls) / float64(len(rows)); math.Abs(share-0.25) > 0.012 {
			t.Errorf("null fraction %.3f, want 0.25", share)
		}
	})
	t.Run("patterns are prefix plus padded number", func(t *testing.T) {
		for _, v := range col("p") {
			s := v.(string)
			var n int
			if !strings.HasPrefix(s, "VC") || len(s) != 5 || func() bool { _, err := fmt.Sscanf(s[2:], "%d", &n); return err != nil }() || n < 1 || n > 40 {
				t.Fatalf("pattern value %q", s)
			}
		}
	})
	t.Run("timestamps stay in the range", func(t *testing.T) {
		lo, hi := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
		for _, v := range col("ts") {
			ts := v.(time.Time)
			if ts.Before(lo) || ts.After(hi) {
				t.Fatalf("timestamp %v outside the range", ts)
			}
		}
	})
	t.Run("uuids are v4 and time-ordered v7", func(t *testing.T) {
		prev := ""
		for i, v := range col("id7") {
			s := v.(string)
			if s[14] != '7' || i > 0 && s <= prev {
				t.Fatalf("v7 uuid %q after %q", s, prev)
			}
			prev = s
		}
		if m := counts(col("id4")); len(m) != len(rows) {
			t.Fatal("v4 uuids repeat")
		}
		if s := col("id4")[0].(string); s[14] != '4' {
			t.Fatalf("v4 uuid %q", s)
		}
	})
	t.Run("gaussian floats centre on the mean", func(t *testing.T) {
		sum := 0.0
		for _, v := range col("x") {
			sum += v.(float64)
		}
		if m := sum / float64(len(rows)); math.Abs(m-5) > 0.03 {
			t.Errorf("mean %.3f, want 5", m)
		}
	})
	t.Run("geometric has the requested mean", func(t *testing.T) {
		sum := 0.0
		for _, v := range col("g") {
			sum += float64(v.(int64))
		}
		if m := sum / float64(len(rows)); math.Abs(m-3) > 0.06 {
			t.Errorf("mean %.3f, want 3", m)
		}
	})
}

func relFile(children string) string {
	return `
tables:
  - name: parent
    rows: 20000
    primary_key: [id]
    columns:
      - {name: id, type: bigint, gen: sequence}
  - name: child
    parent: {table: parent, column: pid, children: ` + children + `}
    columns:
      - {name: pid, type: bigint}
      - {name: v, type: int, gen: uniform, min: 1, max: 5}
`
}

func TestRelationshipsGiveTheRequestedChildrenPerParent(t *testing.T) {
	perParent := func(t *testing.T, children string) (map[int64]int, int) {
		_, data := load(t, relFile(children), 3)
		per := map[int64]int{}
		for _, row := range data["child"] {
			per[row[0].(int64)]++
		}
		hist := map[int64]int{}
		for p := int64(1); p <= 20000; p++ {
			hist[int64(per[p])]++
		}
		if _, ok := per[0]; ok {
			t.Fatal("a child references parent 0, which does not exist")
		}
		return hist, len(data["child"])
	}
	t.Run("fixed gives every parent the same number", func(t *testing.T) {
		hist, n := perParent(t, "3")
		if n != 60000 || hist[3] != 20000 {
			t.Fatalf("%d children, histogram %v", n, hist)
		}
	})
	t.Run("uniform fits", func(t *testing.T) {
		hist, _ := perParent(t, "{gen: uniform, min: 0, max: 4}")
		obs := []int{hist[0], hist[1], hist[2], hist[3], hist[4]}
		chiSquareOK(t, "uniform children", obs, []float64{0.2, 0.2, 0.2, 0.2, 0.2})
	})
	t.Run("geometric fits", func(t *testing.T) {
		hist, _ := perParent(t, "{gen: geometric, min: 0, mean: 2}")
		p := 1.0 / 3
		var obs []int
		var probs []float64
		for k := 0; k < 12; k++ {
			obs = append(obs, hist[int64(k)])
			probs = append(probs, p*math.Pow(1-p, float64(k)))
		}
		chiSquareOK(t, "geometric children", obs, probs)
	})
	t.Run("zipf fits: a few parents own most children", func(t *testing.T) {
		hist, n := perParent(t, "{gen: zipf, min: 1, max: 50, exponent: 1.5}")
		h := 0.0
		for k := 1; k <= 50; k++ {
			h += math.Pow(float64(k), -1.5)
		}
		var obs []int
		var probs []float64
		for k := 1; k <= 50; k++ {
			obs = append(obs, hist[int64(k)])
			probs = append(probs, math.Pow(float64(k), -1.5)/h)
		}
		chiSquareOK(t, "zipf children", obs, probs)
		if hist[1] < 20000/3 || n > 20000*6 {
			t.Errorf("zipf children: %d parents with one child, %d children", hist[1], n)
		}
	})
}

func fingerprint(data map[string][][]any) uint64 {
	h := fnv.New64a()
	for _, name := range []string{"t", "parent", "child"} {
		for _, row := range data[name] {
			fmt.Fprint(h, row...)
		}
	}
	return h.Sum64()
}

func TestLoadingIsDeterministicPerSeed(t *testing.T) {
	_, a := load(t, genFile, 11)
	_, b := load(t, genFile, 11)
	_, c := load(t, genFile, 12)
	if fingerprint(a) != fingerprint(b) {
		t.Fatal("the same seed gave different data")
	}
	if fingerprint(a) == fingerprint(c) {
		t.Fatal("different seeds gave the same data")
	}
	// Batches can be produced in any order: load the relationship
	// backwards and compare.
	spec, _ := Parse("r.yaml", []byte(relFile("{gen: zipf, min: 1, max: 50, exponent: 1.5}")), 1)
	tables, _ := Rows(spec, 5)
	for _, tb := range tables {
		var fwd, bwd [][]any
		for i := 0; i < tb.Batches; i++ {
			fwd = tb.Batch(i, fwd)
		}
		for i := tb.Batches - 1; i >= 0; i-- {
			bwd = append(tb.Batch(i, nil), bwd...)
		}
		if fmt.Sprint(fwd) != fmt.Sprint(bwd) {
			t.Fatalf("%s: batches depend on the order they are made in", tb.Table.Name)
		}
	}
}

func TestMistakesNameTheFileLineAndColumn(t *testing.T) {
	checkErrors(t, []errCase{
		{"tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: int, gen: zipff}\n", `test.yaml:5:35: t.a: unknown gen "zipff"; expected one of: sequence`},
		{"tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: integr, gen: sequence}\n", `test.yaml:5:25: t.a: unknown type "integr"`},
		{"tables:\n  - name: t\n    rowz: 10\n", `test.yaml:3:5: table 1 has no field "rowz"; expected one of: columns, indexes, name, parent, primary_key, rows`},
		{"tables:\n  - name: t\n    rows: 10 * scal\n    columns:\n      - {name: a, type: int, gen: sequence}\n", `test.yaml:3:11: table t: rows: "10 * scal" is not a number or an expression of scale`},
		{"tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: int, gen: zipf, min: 1}\n", `test.yaml:5:35: t.a: gen zipf needs "max"`},
		{"tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: int, gen: string, length: 3}\n", `t.a: gen string makes text, but the column holds integer`},
		{"tables:\n  - name: c\n    parent: {table: p, column: x, children: 2}\n    columns:\n      - {name: x, type: int}\n", `test.yaml:3:21: table c: parent table "p" is not defined above this table`},
		{"tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: int, gen: uniform, min: 1, max: 5, null: 2}\n", `test.yaml:5:66: t.a: null must be a fraction from 0 to 1, not 2`},
		{"tables:\n  - name: t\n    rows: 10\n    columns:\n      - {name: a, type: int, gen: sequence}\ntransactions:\n  - name: x\n    statements:\n      - SELECT a FROM t WHERE a = :nope\n", `test.yaml:9:9: transaction x: parameter :nope is neither in params nor a column returned by an earlier statement`},
		{"tables: [\n", "test.yaml:1:9: the `[` opened here is not closed"},
		{"", "test.yaml:1:1: the file is empty"},
	})
}

func TestTheExamplesParse(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) < 8 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data, 3); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestPlaceholdersSkipQuotesAndCasts(t *testing.T) {
	text, args := sqlparams.Number("SELECT ':x', a::int FROM t WHERE a = :a AND b = :b AND c = :a -- :c")
	if text != "SELECT ':x', a::int FROM t WHERE a = $1 AND b = $2 AND c = $3 -- :c" || fmt.Sprint(args) != "[a b a]" {
		t.Fatalf("%s %v", text, args)
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{"../../examples/orders.yaml", "../../examples/kv.yaml"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(string(data))
		}
	}
	f.Add(genFile)
	f.Add(relFile("{gen: zipf, min: 1, max: 50, exponent: 1.5}"))
	f.Fuzz(func(t *testing.T, src string) {
		spec, err := Parse("fuzz.yaml", []byte(src), 1)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		// A file that parses must load its first rows without panicking.
		for _, tb := range spec.Tables {
			if tb.Rows > 1000 || tb.Parent != nil && tb.Parent.Table.Rows > 1000 {
				return
			}
		}
		tables, err := Rows(spec, 1)
		if err != nil {
			return
		}
		for _, tb := range tables {
			if tb.Rows > 5000 {
				return
			}
			if tb.Batches > 0 {
				tb.Batch(0, nil)
			}
		}
	})
}

func TestParametersLikeAColumnDrawItsValues(t *testing.T) {
	src := `tables:
  - name: t
    rows: 2000
    columns:
      - {name: code, type: varchar(12), gen: string, length: 10, distinct: 20, shape: {gen: zipf, exponent: 1.2}}
params:
  c: {like: t.code}
transactions:
  - name: q
    statements: ["SELECT 1 FROM t WHERE code = :c"]
`
	spec, data := load(t, src, 9)
	loaded := counts(column(data["t"], 0))
	d := NewDrawer(9)
	r := datagen.NewRand(1)
	for i := 0; i < 500; i++ {
		v := d.Draw(spec.Params[0].Gen, r)
		if _, ok := loaded[v]; !ok {
			t.Fatalf("parameter value %v is not among the column's %d values", v, len(loaded))
		}
	}
	for _, bad := range []string{"{like: t.nope}", "{like: x.code}", "{like: code}", "{like: t.code, gen: uniform}"} {
		if _, err := Parse("p.yaml", []byte(strings.Replace(src, "{like: t.code}", bad, 1)), 1); err == nil {
			t.Errorf("params %s accepted", bad)
		}
	}
}

func TestReturnedColumnsBecomeParameters(t *testing.T) {
	base := "tables:\n  - name: t\n    rows: 1\n    columns:\n      - {name: a, type: int, gen: sequence}\ntransactions:\n  - name: x\n    statements:\n"
	for _, ok := range []string{
		"      - SELECT a AS b FROM t\n      - SELECT :b\n",
		"      - SELECT t.a, count(*) FROM t GROUP BY t.a\n      - SELECT :a\n",
		"      - SELECT * FROM t\n      - SELECT :whatever\n",
		"      - INSERT INTO t (a) VALUES (1) RETURNING a AS id\n      - SELECT :id\n",
	} {
		if _, err := Parse("r.yaml", []byte(base+ok), 1); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if _, err := Parse("r.yaml", []byte(base+"      - SELECT :b\n      - SELECT a AS b FROM t\n"), 1); err == nil {
		t.Error("a column returned by a later statement is accepted")
	}
}

// A numeric(P,S) or decimal(P,S) column's floats are rounded to S
// decimals (numeric(P) to whole numbers), at load and at run time, so
// that every engine stores the same values; a float column is not rounded.
func TestNumericColumnsAreRoundedToTheirScale(t *testing.T) {
	src := `tables:
  - name: t
    rows: 3000
    columns:
      - {name: amount, type: "numeric(10,2)", gen: uniform, min: 0, max: 1000}
      - {name: weight, type: NUMERIC(8), gen: gaussian, min: 0, max: 100}
      - {name: rate, type: "decimal(5, 1)", gen: choice, values: [1.25, 2.75]}
      - {name: f, type: float, gen: uniform, min: 0, max: 1}
params:
  amt: {type: "numeric(10,3)", gen: uniform, min: 0, max: 1}
  like_amount: {like: t.amount}
transactions:
  - name: q
    statements: ["SELECT 1 FROM t WHERE amount = :amt OR amount = :like_amount"]
`
	spec, data := load(t, src, 3)
	// What the engines are sent: the shortest text of the float.
	decimals := func(v float64, s int) bool {
		_, frac, _ := strings.Cut(strconv.FormatFloat(v, 'f', -1, 64), ".")
		return len(frac) <= s
	}
	check := func(what string, v any, s int) {
		t.Helper()
		if f, ok := v.(float64); !ok || !decimals(f, s) {
			t.Fatalf("%s: %v (%T) has more than %d decimals", what, v, v, s)
		}
	}
	rounded := 0
	for _, row := range data["t"] {
		check("amount", row[0], 2)
		check("weight", row[1], 0)
		if r := row[2].(float64); r != 1.3 && r != 2.8 {
			t.Fatalf("rate %v, want 1.3 or 2.8 (1.25 and 2.75 rounded to one decimal)", r)
		}
		if decimals(row[3].(float64), 6) {
			rounded++
		}
	}
	if rounded > 10 {
		t.Errorf("%d of 3000 values of a float column have at most 6 decimals", rounded)
	}
	d := NewDrawer(3)
	r := datagen.NewRand(1)
	for range 500 {
		check("parameter amt", d.Draw(spec.Params[0].Gen, r), 3)
		check("parameter like_amount", d.Draw(spec.Params[1].Gen, r), 2)
	}
}
