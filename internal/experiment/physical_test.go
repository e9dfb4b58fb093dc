package experiment

import (
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

func TestASweepPointHoldsTheMedianOfEachIndexAfterItsRuns(t *testing.T) {
	idx, pk := "t_pkey", "t_other"
	run := func(size int64, dens float64, frag *float64) *results.Run {
		return &results.Run{Physical: &results.Physical{
			Before: []evidence.PhysicalItem{{Table: "t", Index: &idx, Primary: true, SizeBytes: &size}},
			After: []evidence.PhysicalItem{
				{Table: "t"}, // a heap table: not an index, left out
				{Table: "t", Index: &idx, Primary: true, SizeBytes: &size, LeafDensityPct: &dens, LeafFragmentationPct: frag},
				{Table: "t", Index: &pk, Error: "could not read"},
			}}}
	}
	f1, f2 := 10.0, 30.0
	got := physicalMedians([]*results.Run{run(100, 60, &f1), run(300, 70, &f2), run(200, 80, nil), {}})
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	p := got[0]
	if p.Key != "t.t_pkey" || p.Kind != "primary key" || *p.SizeBytes != 200 || *p.LeafDensityPct != 70 || *p.LeafFragmentationPct != 20 {
		t.Errorf("%+v size %v density %v frag %v", p, *p.SizeBytes, *p.LeafDensityPct, *p.LeafFragmentationPct)
	}
	if physicalMedians([]*results.Run{{}}) != nil {
		t.Error("runs without a physical measurement give a point with one")
	}
}
