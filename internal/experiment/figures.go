package experiment

import (
	"math"
	"sort"

	"github.com/dbharness/dbharness/internal/analysis"
	"github.com/dbharness/dbharness/internal/results"
)

// diffFigures pairs the workload figures of two groups of runs (one run
// each when two runs are compared): every figure either side reports, the
// headline first, then by name. Each side's value is the median over its
// runs that report it.
func diffFigures(as, bs []*results.Run) []results.FigureDiff {
	labels := map[string]string{}
	headline := ""
	collect := func(rs []*results.Run) map[string][]float64 {
		m := map[string][]float64{}
		for _, r := range rs {
			if r == nil {
				continue
			}
			s := r.Summary
			for k, v := range s.Metrics {
				m[k] = append(m[k], v)
				if l := s.MetricLabels[k]; l != "" && labels[k] == "" {
					labels[k] = l
				}
			}
			if headline == "" {
				headline = s.HeadlineMetric
			}
		}
		return m
	}
	ma, mb := collect(as), collect(bs)
	names := map[string]bool{}
	for k := range ma {
		names[k] = true
	}
	for k := range mb {
		names[k] = true
	}
	var out []results.FigureDiff
	for k := range names {
		d := results.FigureDiff{Name: k, Label: labels[k], Headline: k == headline, RunsA: len(ma[k]), RunsB: len(mb[k])}
		if v := analysis.Median(ma[k]); !math.IsNaN(v) {
			d.A = &v
		}
		if v := analysis.Median(mb[k]); !math.IsNaN(v) {
			d.B = &v
		}
		if d.A != nil && d.B != nil && *d.A != 0 {
			p := (*d.B - *d.A) / *d.A * 100
			d.DeltaPct = &p
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Headline != out[j].Headline {
			return out[i].Headline
		}
		return out[i].Name < out[j].Name
	})
	return out
}
