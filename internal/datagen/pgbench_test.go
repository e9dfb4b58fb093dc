package datagen

import (
	"fmt"
	"testing"
)

func TestPgbenchCompatibility(t *testing.T) {
	t.Run("PermuteInt returns what pgbench's permute returns", func(t *testing.T) {
		for _, c := range pgbenchPermuteCases {
			if got := PermuteInt(c[0], c[1], c[2]); got != c[3] {
				t.Errorf("PermuteInt(%d, %d, %d) = %d, pgbench says %d", c[0], c[1], c[2], got, c[3])
			}
		}
	})
	t.Run("a reused Permutation returns what pgbench's permute returns", func(t *testing.T) {
		for _, c := range pgbenchPermuteCases {
			p := NewPermutation(c[1], c[2])
			if got := p.Apply(c[0]); got != c[3] {
				t.Errorf("NewPermutation(%d, %d).Apply(%d) = %d, pgbench says %d", c[1], c[2], c[0], got, c[3])
			}
		}
	})
	t.Run("HashFNV1a returns what pgbench's hash_fnv1a returns", func(t *testing.T) {
		for _, c := range pgbenchFNV1aCases {
			if got := HashFNV1a(c[0], c[1]); got != c[2] {
				t.Errorf("HashFNV1a(%d, %d) = %d, pgbench says %d", c[0], c[1], got, c[2])
			}
		}
	})
	t.Run("HashMurmur2 returns what pgbench's hash_murmur2 returns", func(t *testing.T) {
		for _, c := range pgbenchMurmur2Cases {
			if got := HashMurmur2(c[0], c[1]); got != c[2] {
				t.Errorf("HashMurmur2(%d, %d) = %d, pgbench says %d", c[0], c[1], got, c[2])
			}
		}
	})
}

func TestPermutationIsABijection(t *testing.T) {
	for _, size := range []int64{1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 4096, 65537} {
		for _, seed := range []int64{0, 42, -3} {
			t.Run(fmt.Sprintf("size %d with seed %d hits every value once", size, seed), func(t *testing.T) {
				p := NewPermutation(size, seed)
				seen := make([]bool, size)
				for v := range size {
					w := p.Apply(v)
					if w < 0 || w >= size {
						t.Fatalf("Apply(%d) = %d, outside [0, %d)", v, w, size)
					}
					if seen[w] {
						t.Fatalf("Apply maps two values to %d", w)
					}
					seen[w] = true
				}
			})
		}
	}
}
