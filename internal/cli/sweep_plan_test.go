package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestSplitSweepArgsTakesOnlyTheSweepsOwnFlags(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	c, added, err := parseClients("8, 2,4,2", false)
	if err != nil || !added || !reflect.DeepEqual(c, []int{1, 2, 4, 8}) {
		t.Errorf("%v %v %v", c, added, err)
	}
	c, added, _ = parseClients("1,16", false)
	if added || !reflect.DeepEqual(c, []int{1, 16}) {
		t.Errorf("%v %v", c, added)
	}
	for _, bad := range []string{"", "0,1", "-2", "a"} {
		if _, _, err := parseClients(bad, false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestPointArgsPutTheSweptValuesLast(t *testing.T) {
	t.Parallel()
	got := pointArgs([]string{"tpcb", "-T", "1s"}, results.SweepRun{Clients: 4, Vary: map[string]string{"mix": "b", "scale": "2"}},
		[]results.VaryFlag{{Flag: "scale"}, {Flag: "mix"}})
	want := []string{"tpcb", "-T", "1s", "--clients=4", "--scale=2", "--mix=b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q", got)
	}
}
