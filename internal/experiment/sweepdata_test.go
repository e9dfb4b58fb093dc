package experiment

import (
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// A table that grows run to run is a size the runs of a sweep disagree
// on: compare of two sweeps lists it as the range of each, when the
// ranges are apart, as compare of two runs lists the sizes.
func TestCompareSweepsListsTheirDataDifferences(t *testing.T) {
	sweep := func(id string, history, accounts []int64) (*results.Sweep, map[string]*results.Run) {
		sw, rs := fakeSweep([]int{1, 2, 4}, 1, 1000, 0.1, 0.01, 0.01)
		sw.SweepID = id
		runs := map[string]*results.Run{}
		for i := range sw.Plan {
			r := rs[sw.Plan[i].RunID]
			r.Dataset = &results.Dataset{Params: map[string]any{"scale": 1}, Tables: []results.DatasetTable{
				{Name: "history", Rows: history[i], RowsExact: true},
				{Name: "accounts", Rows: accounts[i], RowsExact: true}}}
			sw.Plan[i].RunID = id + sw.Plan[i].RunID
			runs[sw.Plan[i].RunID] = r
		}
		return sw, runs
	}
	a, ra := sweep("sw-a", []int64{0, 1000, 2000}, []int64{100000, 100000, 100000})
	b, rb := sweep("sw-b", []int64{5000, 6000, 7000}, []int64{100000, 100000, 100000})
	for k, v := range rb {
		ra[k] = v
	}
	c := CompareSweeps(a, b, ra)
	var found *results.ConfigDiff
	for i, d := range c.ConfigDifferences {
		if d.Key == "dataset.tables.history.rows" {
			found = &c.ConfigDifferences[i]
		}
		if d.Key == "dataset.tables.accounts.rows" {
			t.Errorf("the same table size listed as a difference: %+v", d)
		}
	}
	if found == nil || found.A != "0 to 2000" || found.B != "5000 to 7000" || found.Group != results.DiffGroupData {
		t.Fatalf("history's rows: %+v in %+v", found, c.ConfigDifferences)
	}
	// Overlapping ranges are the same data.
	b2, rb2 := sweep("sw-c", []int64{1500, 2500, 3500}, []int64{100000, 100000, 100000})
	for k, v := range rb2 {
		ra[k] = v
	}
	for _, d := range CompareSweeps(a, b2, ra).ConfigDifferences {
		if d.Key == "dataset.tables.history.rows" {
			t.Errorf("overlapping ranges listed as a difference: %+v", d)
		}
	}
}
