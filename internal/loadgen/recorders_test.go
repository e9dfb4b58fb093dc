package loadgen

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/dbharness/dbharness/internal/histogram"
)

// Goroutine clients share their histograms in groups, a few per
// processor, each group under a lock of its own; the clients of an event
// loop share the loop's, with no lock.
func TestClientsShareTheirHistogramsInGroups(t *testing.T) {
	groups := 4 * runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		clients, loops, sets int
		locked               bool
	}{
		{1, 0, 1, false},
		{groups, 0, groups, false},
		{3*groups + 1, 0, groups, true},
		{1000, 0, groups, true},
		{1000, 2, 2, false},
		{8, 1, 1, false},
	} {
		reg, lagReg := histogram.NewRegistry([]string{"a", "b"}), histogram.NewRegistry([]string{"lag"})
		handles, lags, locks := recorders(reg, lagReg, tc.clients, tc.loops)
		if len(handles) != tc.clients || len(lags) != tc.clients || len(locks) != tc.clients {
			t.Fatalf("%d clients, %d loops: %d handles, %d lag handles, %d locks", tc.clients, tc.loops, len(handles), len(lags), len(locks))
		}
		sets, lagSets := map[*histogram.Recorder]*sync.Mutex{}, map[*histogram.Recorder]bool{}
		lockOf := map[*sync.Mutex]*histogram.Recorder{}
		for i := range handles {
			if (locks[i] != nil) != tc.locked {
				t.Fatalf("%d clients, %d loops: client %d has lock %p, want one: %v", tc.clients, tc.loops, i, locks[i], tc.locked)
			}
			if l, seen := sets[handles[i][0]]; seen && l != locks[i] {
				t.Fatalf("%d clients, %d loops: two clients of one set take different locks", tc.clients, tc.loops)
			}
			if r, seen := lockOf[locks[i]]; locks[i] != nil && seen && r != handles[i][0] {
				t.Fatalf("%d clients, %d loops: two sets share a lock", tc.clients, tc.loops)
			}
			sets[handles[i][0]], lagSets[lags[i][0]] = locks[i], true
			lockOf[locks[i]] = handles[i][0]
		}
		if len(sets) != tc.sets || len(lagSets) != tc.sets {
			t.Fatalf("%d clients, %d loops: %d sets of histograms and %d of lag histograms, want %d", tc.clients, tc.loops, len(sets), len(lagSets), tc.sets)
		}
	}
}

// Many goroutine clients recording into shared histograms lose no
// transaction (and, under -race, race on none).
func TestManyGoroutineClientsCountEveryTransaction(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration, cfg.Transactions, cfg.Clients = 0, 200, 10*4*runtime.GOMAXPROCS(0)+3
	r := &fakeRunner{ops: []string{"a", "b", "c"}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := total(res.Ops); n != int64(cfg.Clients*200) {
		t.Fatalf("measured %d transactions, want %d clients x 200", n, cfg.Clients)
	}
}
