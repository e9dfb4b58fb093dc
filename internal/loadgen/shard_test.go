package loadgen

import (
	"testing"
	"time"
)

func TestEachShardDrawsItsOwnArrivals(t *testing.T) {
	start := time.Unix(0, 0)
	first := func(base int) []time.Time {
		cfg := Config{Seed: 42, ClientBase: base}
		s := newSchedule(start, 1000, scheduleSeed(&cfg))
		out := make([]time.Time, 5)
		for i := range out {
			out[i] = s.Next()
		}
		return out
	}
	if cfg := (Config{Seed: 42}); scheduleSeed(&cfg) != 42 {
		t.Error("a run of one process draws other arrivals than before shards")
	}
	seen := map[time.Time]int{}
	for _, base := range []int{0, 2, 4} {
		for _, at := range first(base) {
			if b, ok := seen[at]; ok {
				t.Fatalf("the shards from clients %d and %d share an arrival at %s", b, base, at)
			}
			seen[at] = base
		}
	}
}
