package wlfile

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/datagen"
)

const latestFile = `tables:
  - name: t
    rows: 1000
    columns:
      - {name: id, type: bigint, gen: sequence}
transactions:
  - name: read
    params:
      key: {gen: latest, sequence: insert.k, min: 1, exponent: 0.99}
    statements: ["SELECT 1 FROM t WHERE id = :key"]
  - name: insert
    params:
      k: {gen: sequence, start: 1001}
    statements: ["INSERT INTO t (id) VALUES (:k)"]
`

// zipfShare is the probability of ranks 1..k of a zipf over n ranks.
func zipfShare(k, n int64, s float64) float64 {
	var top, all float64
	for i := int64(1); i <= n; i++ {
		p := math.Pow(float64(i), -s)
		all += p
		if i <= k {
			top += p
		}
	}
	return top / all
}

// within fails unless got of n draws is within 4 standard deviations of
// the binomial expectation n·p.
func within(t *testing.T, what string, got, n int, p float64) {
	t.Helper()
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	if math.Abs(float64(got)-mean) > 4*sd {
		t.Errorf("%s: %d of %d draws, want %.0f ± %.0f (4σ)", what, got, n, mean, 4*sd)
	}
}

// The latest distribution draws the keys a sequence parameter has given,
// zipf over recency: the newest key most often. A key whose inserting
// transaction has not ended is never drawn, even when later keys' have.
func TestLatestFavoursTheKeysInsertedLast(t *testing.T) {
	spec, err := Parse("l.yaml", []byte(latestFile), 1)
	if err != nil {
		t.Fatal(err)
	}
	latest, seq := spec.Transactions[0].Params[0].Gen, spec.Transactions[1].Params[0].Gen
	d := NewDrawer(1)
	r := datagen.NewRand(5)
	// draws draws n keys, checks they lie in [1, top] and that the newest
	// and the newest ten come as often as a zipf over recency says.
	draws := func(what string, top int64) {
		t.Helper()
		const n = 20000
		newest, ten := 0, 0
		for range n {
			v := d.Draw(latest, r).(int64)
			if v < 1 || v > top {
				t.Fatalf("%s: drew %d, outside [1, %d]", what, v, top)
			}
			if v == top {
				newest++
			}
			if v > top-10 {
				ten++
			}
		}
		within(t, what+": the newest key", newest, n, zipfShare(1, top, 0.99))
		within(t, what+": the newest ten keys", ten, n, zipfShare(10, top, 0.99))
	}
	draws("before any insert", 1000)

	// Three inserts drawn, none ended: none of their keys is drawn.
	var keys []int64
	for range 3 {
		keys = append(keys, d.Draw(seq, r).(int64))
	}
	if keys[0] != 1001 || keys[2] != 1003 {
		t.Fatalf("the sequence gave %v, want 1001..1003", keys)
	}
	draws("three inserts under way", 1000)
	// The second ends first: the first is still under way.
	d.Done(seq, keys[1])
	draws("the second insert ended, not the first", 1000)
	d.Done(seq, keys[0])
	draws("the first two ended", 1002)
	d.Done(seq, keys[2])
	d.Done(seq, keys[2]) // harmless twice
	draws("all three ended", 1003)
	for range 997 {
		d.Done(seq, d.Draw(seq, r))
	}
	draws("a thousand inserts ended", 2000)
}

// Scan lengths are a parameter like any other: the YCSB E file's are
// uniform over 1..100 and reach both ends.
func TestTheYCSBScanLengthsFallInTheirRange(t *testing.T) {
	data, err := os.ReadFile("../../examples/ycsb-e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := Parse("ycsb-e.yaml", data, 1)
	if err != nil {
		t.Fatal(err)
	}
	var g *Gen
	for _, p := range spec.Transactions[0].Params {
		if p.Name == "len" {
			g = p.Gen
		}
	}
	if spec.Transactions[0].Name != "scan" || g == nil {
		t.Fatalf("no scan length in ycsb-e.yaml: %+v", spec.Transactions[0])
	}
	d, r := NewDrawer(1), datagen.NewRand(3)
	seen := map[int64]int{}
	for range 20000 {
		v := d.Draw(g, r).(int64)
		if v < 1 || v > 100 {
			t.Fatalf("scan length %d outside 1..100", v)
		}
		seen[v]++
	}
	if len(seen) != 100 {
		t.Errorf("%d of the 100 scan lengths drawn", len(seen))
	}
	within(t, "scan length 100", seen[100], 20000, 0.01)
}

func TestMistakesInLatestAndAfterAreRefused(t *testing.T) {
	with := func(old, new string) string { return strings.Replace(latestFile, old, new, 1) }
	checkErrors(t, []errCase{
		{with("sequence: insert.k, ", ""), `test.yaml:9:18: transaction read: params: key: gen latest needs "sequence"`},
		{with("insert.k", "insrt.k"), `test.yaml:9:36: transaction read: params: key: sequence insrt.k: there is no transaction "insrt"`},
		{with("insert.k", "insert.q"), `there is no parameter "q" in transaction insert's params; write NAME for a top-level parameter, TRANSACTION.NAME for a transaction's`},
		{with("insert.k", "k"), `there is no parameter "k" in the top-level params`},
		{with("k: {gen: sequence, start: 1001}", "k: {gen: uniform, min: 1, max: 9}"), `test.yaml:9:36: transaction read: params: key: sequence insert.k is gen uniform; expected a parameter with gen: sequence`},
		{with("start: 1001}", "start: 1001, step: -1}"), `sequence insert.k counts down (step -1); latest follows a sequence with a step above 0`},
		{with("min: 1,", "min: 1001,"), `test.yaml:9:36: transaction read: params: key: min 1001 is above the last value before the run (insert.k's start - step = 1000); expected min at most 1000`},
		{with("exponent: 0.99", "exponent: 0"), `test.yaml:9:64: transaction read: params: key: exponent must be above 0, not 0`},
		{with("min: 1,", "min: 1, distinct: 5,"), `gen latest takes no distinct`},
		{with("{gen: latest,", "{type: text, gen: latest,"), `gen latest makes integers, but the column holds text`},
		{with("{name: id, type: bigint, gen: sequence}", "{name: id, type: bigint, gen: latest, sequence: insert.k}"),
			`test.yaml:5:39: t.id: gen latest draws while the transactions run; a column cannot take it, a parameter can`},
		{with("{gen: latest, sequence: insert.k, min: 1, exponent: 0.99}", "{gen: string, length: {gen: latest, sequence: insert.k}}"),
			`a nested generator cannot be a latest`},
		// after: TABLE.COLUMN
		{with("start: 1001}", "after: t.nope}"), `test.yaml:13:33: transaction insert: params: k: after: table t has no column "nope"`},
		{with("start: 1001}", "after: u.id}"), `after: no table "u"`},
		{with("start: 1001}", "after: id}"), `after must be TABLE.COLUMN`},
		{with("start: 1001}", "after: t.id, step: 0}"), `after: the sequence continues after the largest value, so its step must be above 0, not 0`},
		{with("{gen: sequence, start: 1001}", "{gen: uniform, min: 1, max: 5, after: t.id}"), `gen uniform takes no "after"`},
		{with("{name: id, type: bigint, gen: sequence}", "{name: id, type: bigint, gen: sequence, after: t.id}"),
			`test.yaml:5:49: t.id: after goes with a sequence parameter`},
	})
	// after: on a text column.
	src := with("{name: id, type: bigint, gen: sequence}", "{name: id, type: bigint, gen: sequence}\n      - {name: s, type: text, gen: string, length: 3}")
	checkErrors(t, []errCase{{strings.Replace(src, "start: 1001}", "after: t.s}", 1), `after: t.s holds text; a sequence continues after an integer column`}})
}
