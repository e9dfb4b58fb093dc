package script

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/workload"
)

// statements loads the scripts with scale 10 and seed 3 (as Setup would
// set them) and returns their statements by name.
func statements(t *testing.T, w *Workload, scripts ...string) map[string]workload.Statement {
	t.Helper()
	w.Scale = "10"
	if err := loadInto(t, w, scripts...); err != nil {
		t.Fatal(err)
	}
	w.seed = 3
	out := map[string]workload.Statement{}
	for _, st := range w.Statements() {
		name := st.Name[strings.LastIndexByte(st.Name, '/')+1:]
		out[name] = st
	}
	return out
}

func TestPgbenchsTPCBScriptDescribesTheStatementsOfTheTpcbWorkload(t *testing.T) {
	got := statements(t, &Workload{QueryMode: ModePrepared}, tpcbLike)
	// The statements and ranges of the tpcb workload's Statements() at
	// scale 10; BEGIN and END are not explainable.
	type dom struct{ min, med, max int64 }
	aid, bid, tid, delta := dom{1, 500000, 1000000}, dom{1, 5, 10}, dom{1, 50, 100}, dom{-5000, 0, 5000}
	want := []struct {
		name, sql string
		params    []string
		doms      []dom
	}{
		{"a:7:1", "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", []string{"delta", "aid"}, []dom{delta, aid}},
		{"a:8:1", "SELECT abalance FROM pgbench_accounts WHERE aid = $1", []string{"aid"}, []dom{aid}},
		{"a:9:1", "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2", []string{"delta", "tid"}, []dom{delta, tid}},
		{"a:10:1", "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2", []string{"delta", "bid"}, []dom{delta, bid}},
		{"a:11:1", "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
			[]string{"tid", "bid", "aid", "delta"}, []dom{tid, bid, aid, delta}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d statements, want %d: %v", len(got), len(want), got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range want {
		st, ok := got[w.name]
		if !ok || st.SQL != w.sql || st.OneShot {
			t.Errorf("%s: %+v", w.name, st)
			continue
		}
		for i, p := range st.Params {
			d := w.doms[i]
			if p.Name != w.params[i] || p.Min != d.min || p.Median != d.med || p.Max != d.max {
				t.Errorf("%s $%d: %s [%v %v %v], want %s [%v %v %v]", w.name, i+1, p.Name, p.Min, p.Median, p.Max, w.params[i], d.min, d.med, d.max)
			}
			for range 100 {
				if v := p.Sample(rng).(int64); v < d.min || v > d.max {
					t.Fatalf("%s: %s drew %d", w.name, p.Name, v)
				}
			}
		}
	}
}

func TestScriptStatementsTakeWhatTheCheckCanDraw(t *testing.T) {
	src := `\set n 10 * :scale
\set k random_zipfian(1, :n, 1.5)
\set e random_exponential(1, 1000, 5)
\set h hash(:k)
\set r random(1, 10) + 1
SELECT :k, :hot, :n, :random_seed FROM t WHERE a = :k;
SELECT :e;
SELECT :h;
SELECT :r;
SELECT :client_id;
SELECT 1 AS g \gset
SELECT :g;
BEGIN;
SELECT count(*) FROM t;
SELECT '[:hot]', :n;
`
	for _, mode := range []string{ModeSimple, ModeExtended, ModePrepared} {
		t.Run(mode, func(t *testing.T) {
			got := statements(t, &Workload{QueryMode: mode, Defines: []string{"hot=abc"}}, src)
			var names []string
			for n, st := range got {
				names = append(names, n)
				if st.OneShot != (mode != ModePrepared) {
					t.Errorf("%s: OneShot = %v in mode %s", n, st.OneShot, mode)
				}
			}
			slices.Sort(names)
			// Left out: hash() of a draw (8), a draw plus one (9),
			// :client_id (10), a \gset value (12), BEGIN (13); in simple
			// mode also a variable written inside quotes (15).
			want := "a:11:1 a:14:1 a:15:1 a:6:1 a:7:1"
			if mode == ModeSimple {
				want = "a:11:1 a:14:1 a:6:1 a:7:1"
			}
			if strings.Join(names, " ") != want {
				t.Fatalf("statements %v, want %s", names, want)
			}
			st := got["a:6:1"]
			if len(st.Params) != 5 || st.SQL != "SELECT $1, $2, $3, $4 FROM t WHERE a = $5" {
				t.Fatalf("%+v", st)
			}
			k, hot, n, seed, k2 := st.Params[0], st.Params[1], st.Params[2], st.Params[3], st.Params[4]
			// random_zipfian(1, 100, 1.5): most draws are small.
			if k.Min != int64(1) || k.Max != int64(100) || k.Median.(int64) > 10 {
				t.Errorf("k: [%v %v %v]", k.Min, k.Median, k.Max)
			}
			if hot.Min != "abc" || hot.Max != "abc" || n.Median != int64(100) || seed.Min != int64(3) {
				t.Errorf("constants: hot %v, n %v, random_seed %v", hot.Min, n.Median, seed.Min)
			}
			if k2.Derive == nil || k2.Derive([]any{int64(7), "abc", int64(100), int64(3)}) != int64(7) {
				t.Errorf("a variable read twice is not one value")
			}
			// The exponential's draws have the median the check reports.
			e := got["a:7:1"].Params[0]
			rng := rand.New(rand.NewPCG(9, 9))
			var draws []int64
			for range 4001 {
				draws = append(draws, e.Sample(rng).(int64))
			}
			slices.Sort(draws)
			med := e.Median.(int64)
			if m := draws[len(draws)/2]; e.Min != int64(1) || e.Max != int64(1000) || med > 200 || m < med*8/10-2 || m > med*12/10+2 {
				t.Errorf("exponential: [%v %v %v], median of fresh draws %d", e.Min, e.Median, e.Max, m)
			}
		})
	}
}

// Issue 13, item 5: two scripts that both \set aid had every statement
// reading :aid left out, silently. The same expression in both is one
// domain; different ones are left out, and LeftOut says which and why.
func TestTwoScriptsSettingTheSameVariableKeepTheirStatements(t *testing.T) {
	a := "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n" +
		"UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n"
	b := "\\set aid  random(1, 100000 * :scale)\nSELECT aid FROM pgbench_accounts WHERE aid = :aid;\n"
	w := &Workload{QueryMode: ModePrepared}
	got := statements(t, w, a, b)
	if len(got) != 3 {
		t.Fatalf("%d statements, want 3: %v; left out: %v", len(got), got, w.LeftOut())
	}
	for n, st := range got {
		if p := st.Params[0]; p.Name != "aid" || p.Min != int64(1) || p.Max != int64(1000000) {
			t.Errorf("%s: %+v", n, p)
		}
	}
	if len(w.LeftOut()) != 0 {
		t.Errorf("left out: %v", w.LeftOut())
	}

	c := "\\set aid random(1, 10)\nSELECT aid FROM pgbench_accounts WHERE aid = :aid;\nSELECT 1 AS g \\gset\nSELECT :g;\nSELECT 1 \\; SELECT 2;\n"
	w = &Workload{QueryMode: ModePrepared}
	got = statements(t, w, a, c)
	if _, ok := got["b:3:1"]; len(got) != 1 || !ok {
		t.Fatalf("statements %v, want only b:3:1 (SELECT 1 AS g)", got)
	}
	want := []string{
		"a:2:1: :aid is set by \\set commands of different expressions (a:1:1, b:1:1), so it has no single domain",
		"a:3:1: :aid is set by \\set commands of different expressions (a:1:1, b:1:1), so it has no single domain",
		"b:2:1: :aid is set by \\set commands of different expressions (a:1:1, b:1:1), so it has no single domain",
		"b:4:1: :g is set by \\gset or \\aset, whose values exist only in a running script",
		"b:5:1: a compound command (\\;), which EXPLAIN does not take",
	}
	if !slices.Equal(w.LeftOut(), want) {
		t.Errorf("left out:\n%s\nwant:\n%s", strings.Join(w.LeftOut(), "\n"), strings.Join(want, "\n"))
	}
}
