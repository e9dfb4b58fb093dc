package loadgen

import (
	"fmt"
	"testing"

	"github.com/dbharness/dbharness/internal/evloop"
)

// The loops get the clients in blocks of consecutive ids, as even as they
// can be.
func TestClientsAreDealtToTheLoopsInBlocks(t *testing.T) {
	if got := []int{loopOf(0, 8, 2), loopOf(3, 8, 2), loopOf(4, 8, 2), loopOf(7, 8, 2)}; got[0] != 0 || got[1] != 0 || got[2] != 1 || got[3] != 1 {
		t.Fatalf("8 clients on 2 loops: clients 0, 3, 4, 7 on loops %v; want 0 0 1 1", got)
	}
	for clients := 1; clients <= 40; clients++ {
		for loops := 1; loops <= clients; loops++ {
			count := make([]int, loops)
			prev := 0
			for i := range clients {
				k := loopOf(i, clients, loops)
				if k < prev || k >= loops {
					t.Fatalf("%d clients, %d loops: client %d on loop %d after loop %d", clients, loops, i, k, prev)
				}
				prev = k
				count[k]++
			}
			lo, hi := clients, 0
			for _, n := range count {
				lo, hi = min(lo, n), max(hi, n)
			}
			if hi-lo > 1 || lo == 0 {
				t.Fatalf("%d clients, %d loops: loops hold %v clients", clients, loops, count)
			}
		}
	}
}

// A database on this host gets a loop per processor, up to one per client;
// one elsewhere.
func TestDefaultLoops(t *testing.T) {
	for _, tc := range []struct {
		local          bool
		clients, procs int
		want           int
	}{
		{true, 8, 2, 2}, {true, 2, 2, 2}, {true, 1, 2, 1}, {true, 3, 8, 3},
		{true, 64, 8, 8}, {true, 8, 1, 1}, {true, 8, 0, 1},
		{false, 8, 2, 1}, {false, 64, 16, 1}, {false, 1, 1, 1},
	} {
		if got := DefaultLoops(tc.local, tc.clients, tc.procs); got != tc.want {
			t.Errorf("DefaultLoops(local %v, %d clients, %d processors) = %d, want %d", tc.local, tc.clients, tc.procs, got, tc.want)
		}
	}
}

// Two or more loops are pinned, one to each of the CPUs given, when there
// are as many loops as CPUs; one loop, or more or fewer loops than CPUs,
// are left free.
func TestPinLoops(t *testing.T) {
	cpus := evloop.AllowedCPUs()
	if len(cpus) == 0 {
		t.Fatal("AllowedCPUs found no CPU this process may use")
	}
	c := cpus[0]
	for _, tc := range []struct {
		loops int
		cpus  []int
		want  []int // each loop's Stats().CPU after a run
	}{
		{1, []int{c, c}, []int{-1}},
		{2, []int{c, c}, []int{c, c}},
		{2, []int{c}, []int{-1, -1}},
		{3, []int{c, c}, []int{-1, -1, -1}},
		{2, []int{c, c, c}, []int{-1, -1}},
		{3, []int{c, c, c}, []int{c, c, c}},
		{2, nil, []int{-1, -1}},
	} {
		loops, err := newLoops(tc.loops)
		if err != nil {
			t.Fatal(err)
		}
		PinLoops(loops, tc.cpus)
		var got []int
		for _, l := range loops {
			l.Go(func(*evloop.Task) {})
			l.Run()
			l.Close()
			got = append(got, l.Stats().CPU)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%d loops, CPUs %v: pinned to %v, want %v", tc.loops, tc.cpus, got, tc.want)
		}
	}
}
