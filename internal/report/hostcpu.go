package report

import (
	"fmt"

	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
)

// hostCPUSection draws how the host's CPU was shared over the measured
// phase between the harness, the server, other processes and idle time,
// stacked to 100 %; false when the run has no such readings.
func hostCPUSection(r *results.Run, bands []svg.Band, markers []svg.Marker) (section, bool, error) {
	h := r.Summary.HostCPU
	if h == nil || len(h.Intervals) == 0 {
		return section{}, false, nil
	}
	sec := section{ID: "host-cpu", Title: "Who used the host's CPU", ChartsFirst: true,
		Intro: "The client host's CPU over the measured phase, read from /proc at its start and at every interval: the harness (and its child processes), " +
			"the database server's processes, every other process, and idle time, in % of all its CPUs."}
	xs := make([]float64, len(h.Intervals))
	parts := [4][]float64{}
	for i, p := range h.Intervals {
		xs[i] = p.T
		for j, v := range []float64{p.HarnessPct, p.ServerPct, p.OthersPct, p.IdlePct} {
			parts[j] = append(parts[j], v)
		}
	}
	ch := svg.StackedArea{Width: chartWidth, Height: chartHeight, Title: "Host CPU by owner", XLabel: "elapsed", YLabel: "share of the host's CPU",
		X: xs, Percent: true, XDuration: true, XRange: timeRange(r), Bands: bands, Markers: markers}
	names := [4]string{"harness", "server", "others", "idle"}
	colors := [4]string{"#004488", "#228833", "#BB5566", "#E8E8E8"}
	for j := range parts {
		if j == 1 && h.ServerPct == nil {
			continue
		}
		ch.Series = append(ch.Series, svg.StackSeries{Name: names[j], Values: parts[j], Color: colors[j]})
	}
	note := fmt.Sprintf("Over the measured phase: %s.", h.Line())
	c, err := renderChart(ch, "Host CPU by owner", note)
	if err != nil {
		return section{}, false, err
	}
	sec.Charts = append(sec.Charts, c)
	if len(h.TopOthers) > 0 {
		t := table{Caption: "Other processes by CPU (measured phase)", Head: []string{"command", "% of the host"}, Num: []bool{false, true}}
		for _, u := range h.TopOthers {
			t.Rows = append(t.Rows, []string{u.Comm, fmt.Sprintf("%.1f", u.Pct)})
		}
		sec.Tables = append(sec.Tables, t)
	}
	if h.Warning != "" {
		sec.Warnings = append(sec.Warnings, h.Warning)
	}
	return sec, true, nil
}
