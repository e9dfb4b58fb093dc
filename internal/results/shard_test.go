package results

import "testing"

func TestShardOfSharesEveryItemOnce(t *testing.T) {
	for _, c := range []struct{ n, count int }{{10, 3}, {3, 3}, {12, 3}, {7, 1}, {1000, 7}} {
		next := 0
		for i := range c.count {
			first, items := ShardOf(c.n, i, c.count)
			if first != next || items < c.n/c.count || items > c.n/c.count+1 {
				t.Errorf("ShardOf(%d, %d, %d) = %d, %d after %d", c.n, i, c.count, first, items, next)
			}
			next = first + items
		}
		if next != c.n {
			t.Errorf("%d items in %d shards: %d shared", c.n, c.count, next)
		}
	}
}
