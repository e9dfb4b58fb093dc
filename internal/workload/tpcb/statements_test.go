package tpcb_test

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpcb"
)

func TestTheMixesDescribeTheirStatementsAndParameterRanges(t *testing.T) {
	d := testdb.Open(t, testdb.SQLite(t))
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{
		"CREATE TABLE pgbench_branches (bid int, bbalance int, filler char(88))",
		"CREATE TABLE pgbench_tellers (tid int, bid int, tbalance int, filler char(84))",
		"CREATE TABLE pgbench_accounts (aid int, bid int, abalance int, filler char(84))",
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))",
		"INSERT INTO pgbench_branches VALUES (1, 0, ''), (2, 0, ''), (3, 0, '')",
	} {
		if err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	highest := map[string]int64{"aid": 300000, "bid": 3, "tid": 30, "delta": 5000}
	placeholder := regexp.MustCompile(`\$(\d+)`)
	for mix, want := range map[string][]string{
		tpcb.MixSelectOnly:   {"select_account"},
		tpcb.MixSimpleUpdate: {"update_account", "select_account", "insert_history"},
		tpcb.MixTPCB:         {"update_account", "select_account", "update_teller", "update_branch", "insert_history"},
	} {
		w := &tpcb.TPCB{Mix: tpcb.NewMix(mix)}
		if err := w.Setup(ctx, &workload.Env{DB: d, Seed: 1, Progress: workload.NopProgress{}}, c); err != nil {
			t.Fatal(err)
		}
		var st workload.Statementer = w
		got := st.Statements()
		if len(got) != len(want) {
			t.Fatalf("%s: %d statements, want %v", mix, len(got), want)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		for i, s := range got {
			if s.Name != want[i] {
				t.Errorf("%s: statement %d is %s, want %s", mix, i, s.Name, want[i])
			}
			n := 0
			for _, m := range placeholder.FindAllStringSubmatch(s.SQL, -1) {
				k, _ := strconv.Atoi(m[1])
				n = max(n, k)
			}
			if n != len(s.Params) {
				t.Errorf("%s: %d placeholders, %d parameters", s.Name, n, len(s.Params))
			}
			for _, p := range s.Params {
				if p.Max.(int64) != highest[p.Name] {
					t.Errorf("%s.%s: max %v, want %d", s.Name, p.Name, p.Max, highest[p.Name])
				}
				for k := 0; k < 100; k++ {
					v := p.Sample(rng).(int64)
					if v < p.Min.(int64) || v > p.Max.(int64) {
						t.Fatalf("%s.%s: drew %d outside [%v, %v]", s.Name, p.Name, v, p.Min, p.Max)
					}
				}
			}
		}
	}
}
