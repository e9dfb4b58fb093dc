package results

import (
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
)

func TestAPhysicalChangeIsNotableAboveItsThresholdsOnly(t *testing.T) {
	i := func(n int64) *int64 { return &n }
	f := func(v float64) *float64 { return &v }
	base := func() *evidence.PhysicalItem {
		return &evidence.PhysicalItem{Table: "t", SizeBytes: i(10 << 20), FreeBytes: i(1 << 20), Depth: i(3), LeafDensityPct: f(90), LeafFragmentationPct: f(1)}
	}
	for _, c := range []struct {
		name    string
		change  func(a *evidence.PhysicalItem)
		notable bool
	}{
		{"the same item", func(*evidence.PhysicalItem) {}, false},
		{"a size 9% larger", func(a *evidence.PhysicalItem) { *a.SizeBytes = 10<<20 + 900<<10 }, false},
		{"a size 10% larger", func(a *evidence.PhysicalItem) { *a.SizeBytes = 11 << 20 }, true},
		{"a small table twice its size by less than 64 KiB", func(a *evidence.PhysicalItem) { *a.SizeBytes = 10<<20 + 32<<10 }, false},
		{"free space up by a tenth of the size", func(a *evidence.PhysicalItem) { *a.FreeBytes = 2<<20 + 100<<10 }, true},
		{"free space up by less", func(a *evidence.PhysicalItem) { *a.FreeBytes = 1<<20 + 512<<10 }, false},
		{"a level deeper", func(a *evidence.PhysicalItem) { *a.Depth = 4 }, true},
		{"density down 4.9 points", func(a *evidence.PhysicalItem) { *a.LeafDensityPct = 85.1 }, false},
		{"density down 5 points", func(a *evidence.PhysicalItem) { *a.LeafDensityPct = 85 }, true},
		{"fragmentation up 6 points", func(a *evidence.PhysicalItem) { *a.LeafFragmentationPct = 7 }, true},
		{"dead rows alone", func(a *evidence.PhysicalItem) { a.DeadRows = i(1000) }, false},
		{"an error", func(a *evidence.PhysicalItem) { a.Error = "gone" }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := base()
			c.change(a)
			if got := PhysicalNotable(base(), a); got != c.notable {
				t.Errorf("notable %v, want %v", got, c.notable)
			}
		})
	}
	if !PhysicalNotable(base(), nil) {
		t.Error("an item not measured after the run is not notable")
	}
	p := &Physical{Before: []evidence.PhysicalItem{*base()}, After: []evidence.PhysicalItem{*base(), {Table: "u"}}}
	if got := p.Notable(); len(got) != 1 || got[0] != "u" || p.Items() != 2 {
		t.Errorf("notable %v of %d items; want u, of 2", got, p.Items())
	}
}
