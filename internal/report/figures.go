package report

import (
	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
)

// figuresTable is the workloads' own figures of a comparison (nopm,
// power_at_size, ...), the headline first, as one table for every format:
// figure, A, B, the change and what the figure is. It is false when
// neither side has any.
func figuresTable(c *results.Comparison) (table, bool) {
	if len(c.Figures) == 0 {
		return table{}, false
	}
	t := table{Caption: "Workload figures, B against A (* marks the workload's result)",
		Note: "The workload's own results, each side's as its run reported it (for sweeps, the median over a point's repeats). One figure per run has no interval: the verdicts above are about throughput.",
		Head: []string{"figure", "A", "B", "Δ", "what it is"},
		Num:  []bool{false, true, true, true, false}}
	cell := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return numfmt.Figure(*v)
	}
	for _, f := range c.Figures {
		name := pointLabel(f.Name, f.Clients, f.Vary)
		if f.Headline {
			name += " *"
		}
		label := f.Label
		if label == "" {
			label = "-"
		}
		t.Rows = append(t.Rows, []string{name, cell(f.A), cell(f.B), pctPtr(f.DeltaPct), label})
	}
	return t, true
}
