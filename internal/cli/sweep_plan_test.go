package cli

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestSplitSweepArgsTakesOnlyTheSweepsOwnFlags(t *testing.T) {
	own, rest, err := splitSweepArgs([]string{"tpcb", "-c", "1,2", "--repeat=3", "--vary", "mix=a,b", "--scale", "2",
		"--json", "out.json", "-T", "1s", "--verbose", "-c4", "--db=postgres://x/y"})
	if err != nil {
		t.Fatal(err)
	}
	wantOwn := []string{"--clients=1,2", "--repeat=3", "--vary=mix=a,b", "--json=out.json", "--verbose", "--clients=4"}
	wantRest := []string{"tpcb", "--scale", "2", "-T", "1s", "--db=postgres://x/y"}
	if !reflect.DeepEqual(own, wantOwn) || !reflect.DeepEqual(rest, wantRest) {
		t.Errorf("own %q\nrest %q", own, rest)
	}
	if _, _, err := splitSweepArgs([]string{"tpcb", "--repeat"}); err == nil || !strings.Contains(err.Error(), "--repeat needs a value") {
		t.Errorf("a missing value: %v", err)
	}
}

func TestParseClientsAlwaysStartsWithOneClient(t *testing.T) {
	c, added, err := parseClients("8, 2,4,2")
	if err != nil || !added || !reflect.DeepEqual(c, []int{1, 2, 4, 8}) {
		t.Errorf("%v %v %v", c, added, err)
	}
	c, added, _ = parseClients("1,16")
	if added || !reflect.DeepEqual(c, []int{1, 16}) {
		t.Errorf("%v %v", c, added)
	}
	for _, bad := range []string{"", "0,1", "-2", "a"} {
		if _, _, err := parseClients(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestBuildPlanRandomisesEachRoundReproducibly(t *testing.T) {
	vary := []results.VaryFlag{{Flag: "mix", Values: []string{"a", "b"}}}
	plan := buildPlan([]int{1, 2, 4, 8}, vary, 3, 42)
	if len(plan) != 24 {
		t.Fatalf("%d runs, want 4 clients x 2 values x 3 rounds", len(plan))
	}
	key := func(p results.SweepRun) string { return fmt.Sprintf("%d/%s", p.Clients, p.Vary["mix"]) }
	var orders []string
	for r := 0; r < 3; r++ {
		seen := map[string]bool{}
		var order []string
		for i, p := range plan[r*8 : r*8+8] {
			if p.Round != r+1 || p.Seq != r*8+i {
				t.Fatalf("entry %d: round %d seq %d", r*8+i, p.Round, p.Seq)
			}
			seen[key(p)] = true
			order = append(order, key(p))
		}
		if len(seen) != 8 {
			t.Errorf("round %d does not hold every point once: %v", r+1, order)
		}
		orders = append(orders, strings.Join(order, " "))
	}
	if orders[0] == orders[1] && orders[1] == orders[2] {
		t.Errorf("every round has the same order: %s", orders[0])
	}
	if !reflect.DeepEqual(plan, buildPlan([]int{1, 2, 4, 8}, vary, 3, 42)) {
		t.Error("the same seed gives another plan")
	}
	if reflect.DeepEqual(plan, buildPlan([]int{1, 2, 4, 8}, vary, 3, 43)) {
		t.Error("another seed gives the same plan")
	}
}

func TestPointArgsPutTheSweptValuesLast(t *testing.T) {
	got := pointArgs([]string{"tpcb", "-T", "1s"}, results.SweepRun{Clients: 4, Vary: map[string]string{"mix": "b", "scale": "2"}},
		[]results.VaryFlag{{Flag: "scale"}, {Flag: "mix"}})
	want := []string{"tpcb", "-T", "1s", "--clients=4", "--scale=2", "--mix=b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q", got)
	}
}
