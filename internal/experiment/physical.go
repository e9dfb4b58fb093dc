package experiment

import (
	"math"

	"github.com/dbharness/dbharness/internal/results"
)

// physicalMedians is, for each index of the runs (and each table whose
// b-tree is its primary key's), the medians over the runs of its size,
// leaf density and leaf fragmentation after each run: what a point of a
// sweep over key designs and batches did to the index.
func physicalMedians(rs []*results.Run) []results.SweepPhysical {
	type acc struct {
		kind              string
		size, dens, frags []float64
	}
	by := map[string]*acc{}
	var order []string
	for _, r := range rs {
		for _, it := range r.Physical.Latest() {
			if it.Error != "" || (it.Index == nil && !it.Primary) {
				continue
			}
			k := it.Key()
			a := by[k]
			if a == nil {
				a = &acc{kind: it.Kind()}
				by[k] = a
				order = append(order, k)
			}
			if it.SizeBytes != nil {
				a.size = append(a.size, float64(*it.SizeBytes))
			}
			if it.LeafDensityPct != nil {
				a.dens = append(a.dens, *it.LeafDensityPct)
			}
			if it.LeafFragmentationPct != nil {
				a.frags = append(a.frags, *it.LeafFragmentationPct)
			}
		}
	}
	var out []results.SweepPhysical
	for _, k := range order {
		a := by[k]
		p := results.SweepPhysical{Key: k, Kind: a.kind, LeafDensityPct: ptr(round(medianOf(a.dens), 2)),
			LeafFragmentationPct: ptr(round(medianOf(a.frags), 2))}
		if m := medianOf(a.size); !math.IsNaN(m) {
			n := int64(math.Round(m))
			p.SizeBytes = &n
		}
		out = append(out, p)
	}
	return out
}
