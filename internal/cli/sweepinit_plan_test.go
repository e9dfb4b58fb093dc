package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

func newWorkload(t *testing.T, name string) workload.Generator {
	t.Helper()
	wl, err := workload.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

func TestASweptInitFlagSplitsTheArgumentsBetweenInitAndRun(t *testing.T) {
	t.Parallel()
	wl := newWorkload(t, "inserts")
	vary := []results.VaryFlag{{Flag: "pad", Values: []string{"10", "20"}}, {Flag: "batch", Values: []string{"1", "2"}}}
	si := newSweepInit(wl, vary)
	if si == nil || !reflect.DeepEqual(si.varied, []string{"pad"}) || !si.initOnly["pad"] {
		t.Fatalf("pad is not seen as an init-only flag: %+v", si)
	}
	run, err := si.takeArgs(wl, []string{"inserts", "--db", "x", "--key", "uuid-random", "--prefill=100", "-T", "1s", "--pad", "99"})
	if err != nil {
		t.Fatal(err)
	}
	// --key is a run flag too (a safeguard): it goes to both. The swept
	// --pad given plainly is dropped: the point's value wins.
	if want := []string{"inserts", "--db", "x", "--key", "uuid-random", "-T", "1s"}; !reflect.DeepEqual(run, want) {
		t.Errorf("run arguments %q, want %q", run, want)
	}
	if want := []string{"--key=uuid-random", "--prefill=100"}; !reflect.DeepEqual(si.args, want) {
		t.Errorf("init arguments %q, want %q", si.args, want)
	}
	pr := results.SweepRun{Clients: 2, Vary: map[string]string{"pad": "20", "batch": "2"}}
	if got, want := si.argsFor(pr), []string{"inserts", "--key=uuid-random", "--prefill=100", "--pad=20"}; !reflect.DeepEqual(got, want) {
		t.Errorf("init of a point %q, want %q", got, want)
	}
	if got := pointArgs(run, pr, si.runVary(vary)); strings.Contains(strings.Join(got, " "), "pad") || !strings.Contains(strings.Join(got, " "), "--batch=2") {
		t.Errorf("a run gets %q", got)
	}
}

func TestInitFlagsAreReadInEveryForm(t *testing.T) {
	t.Parallel()
	wl := newWorkload(t, "tpcb")
	si := newSweepInit(wl, []results.VaryFlag{{Flag: "scale", Values: []string{"1", "2"}}})
	for _, args := range [][]string{{"-s", "3"}, {"-s3"}, {"-s=3"}, {"--scale", "3"}, {"--scale=3"}} {
		si.args = nil
		run, err := si.takeArgs(wl, append([]string{"tpcb", "-T", "1s"}, args...))
		if err != nil || !reflect.DeepEqual(run, []string{"tpcb", "-T", "1s"}) {
			t.Errorf("%q: run arguments %q (%v)", args, run, err)
		}
	}
	other := &sweepInit{workload: "tpcb", varied: []string{"mix"}}
	if _, err := other.takeArgs(wl, []string{"tpcb", "-s", "3", "--", "-s", "4"}); err != nil || !reflect.DeepEqual(other.args, []string{"--scale=3"}) {
		t.Errorf("init arguments %q (%v); only those before -- count", other.args, err)
	}
}

func TestAnInitFlagInASweepThatRunsNoInitIsRefused(t *testing.T) {
	t.Parallel()
	wl := newWorkload(t, "tpcb")
	vary := []results.VaryFlag{{Flag: "mix", Values: []string{"select-only"}}}
	si := newSweepInit(wl, vary)
	if si != nil {
		t.Fatalf("--mix is a run flag, yet the sweep would init: %+v", si)
	}
	_, err := si.takeArgs(wl, []string{"tpcb", "--scale", "10"})
	if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), "`dbharness init tpcb --scale 10`") {
		t.Errorf("got %v", err)
	}
	// A flag both take is a run flag here: no init.
	ins := newWorkload(t, "inserts")
	if run, err := si.takeArgs(ins, []string{"inserts", "--key", "serial"}); err != nil || len(run) != 3 {
		t.Errorf("inserts --key without an init: %q (%v)", run, err)
	}
}
