package datagen

import "testing"

func keyDrawers() []struct {
	name string
	next func() int64
} {
	type k = struct {
		name string
		next func() int64
	}
	u := func(name string, g UUIDKeys) k {
		return k{name, func() int64 { x := g.Next(); return int64(x[15]) }}
	}
	return []k{
		u("uuid v4 seeded", NewUUIDv4(newRand(1))),
		u("uuid v4 crypto", NewUUIDv4(nil)),
		u("uuid v7 seeded", NewUUIDv7(newRand(2), nil)),
		u("uuid v7 crypto", NewUUIDv7(nil, nil)),
		{"partitioned", Must(NewPartitioned(5)).Next},
		{"random bigint", NewRandomBigint(newRand(3)).Next},
	}
}

func TestHotDrawsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates; run without -race")
	}
	r := newRand(11)
	for _, c := range drawers() {
		t.Run(c.name+" draws without allocating", func(t *testing.T) {
			if n := testing.AllocsPerRun(1000, func() { c.draw(r) }); n != 0 {
				t.Errorf("%v allocations per draw", n)
			}
		})
	}
	for _, c := range keyDrawers() {
		t.Run(c.name+" keys come without allocating", func(t *testing.T) {
			if n := testing.AllocsPerRun(1000, func() { c.next() }); n != 0 {
				t.Errorf("%v allocations per key", n)
			}
		})
	}
	t.Run("hashes and PermuteInt do not allocate", func(t *testing.T) {
		if n := testing.AllocsPerRun(1000, func() {
			_ = HashFNV1a(HashMurmur2(PermuteInt(r.Int64(), 1000, 1), 2), 3)
		}); n != 0 {
			t.Errorf("%v allocations per call", n)
		}
	})
}

var sink int64

func BenchmarkDraw(b *testing.B) {
	for _, c := range drawers() {
		b.Run(c.name, func(b *testing.B) {
			r := newRand(12)
			b.ReportAllocs()
			for b.Loop() {
				sink += c.draw(r)
			}
		})
	}
}

func BenchmarkKeys(b *testing.B) {
	for _, c := range keyDrawers() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink += c.next()
			}
		})
	}
}

func BenchmarkPgbench(b *testing.B) {
	b.Run("PermuteInt", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink += PermuteInt(int64(i), 1_000_000, 5432)
		}
	})
	b.Run("Permutation.Apply", func(b *testing.B) {
		p := NewPermutation(1_000_000, 5432)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink += p.Apply(int64(i))
		}
	})
	b.Run("HashMurmur2", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink += HashMurmur2(int64(i), 5432)
		}
	})
}
