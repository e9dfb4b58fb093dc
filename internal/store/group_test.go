package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

func TestTheShardsOfAGroupStartAtOneInstant(t *testing.T) {
	eachStore(t, func(t *testing.T, loc string) {
		ctx := context.Background()
		const shards = 3
		starts := make([]time.Time, shards)
		errs := make([]error, shards)
		var wg sync.WaitGroup
		before := time.Now()
		for i := range shards {
			wg.Go(func() {
				s, err := Open(loc)
				if err != nil {
					errs[i] = err
					return
				}
				defer s.Close()
				sh := &results.Shard{Group: "g", Index: i, Count: shards}
				if errs[i] = s.JoinGroup(ctx, sh, fmt.Sprintf("run-%d", i), "host"); errs[i] == nil {
					starts[i], errs[i] = s.StartGroup(ctx, sh, time.Minute)
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("shard %d: %v", i, err)
			}
			if !starts[i].Equal(starts[0]) || !starts[i].After(before) {
				t.Errorf("shard %d starts at %s, shard 0 at %s (the test began at %s)", i, starts[i], starts[0], before)
			}
		}

		s := openStoreT(t, loc)
		for _, c := range []struct {
			sh   results.Shard
			want string
		}{
			{results.Shard{Group: "g", Index: 1, Count: shards}, "shard 1/3 of group g is taken by run run-1 on host"},
			{results.Shard{Group: "g", Index: 3, Count: 4}, "group g has 3 shards, not 4"},
		} {
			if err := s.JoinGroup(ctx, &c.sh, "run-x", "other"); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("shard %d/%d: %v, want %q", c.sh.Index, c.sh.Count, err, c.want)
			}
		}

		// Shards 0 and 2 of 3 come; shard 1 never does.
		for _, i := range []int{0, 2} {
			if err := s.JoinGroup(ctx, &results.Shard{Group: "h", Index: i, Count: 3}, fmt.Sprintf("run-h%d", i), "host"); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.StartGroup(ctx, &results.Shard{Group: "h", Index: 0, Count: 3}, 200*time.Millisecond)
		if want := "group h: shard 1 has not come within --group-timeout 200ms (2 of 3 shards registered)"; err == nil || err.Error() != want {
			t.Errorf("a missing shard: %v, want %q", err, want)
		}
		if _, _, err := s.ServerNow(ctx); err != nil {
			t.Error(err)
		}
	})
}
