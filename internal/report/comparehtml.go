package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
)

// Verdicts of a comparison (results.CompareOp.Verdict).
const (
	verdictFaster = "faster"
	verdictSlower = "slower"
)

// CompareHTML writes the HTML report of a comparison: side-by-side bars of
// A and B with the interval of the change, the verdicts, and every
// configuration difference.
func CompareHTML(w io.Writer, c *results.Comparison, opt HTMLOptions) error {
	p, err := comparePage(c, opt)
	if err != nil {
		return err
	}
	return renderPage(w, p)
}

// opLabel names a compared row: the operation, and for sweeps the point.
func opLabel(o results.CompareOp) string { return pointLabel(o.Name, o.Clients, o.Vary) }

// pointLabel names a row of a comparison: name alone for two runs, with
// the sweep point ("nopm @ 4 clients, set.x=1") for two sweeps.
func pointLabel(name string, clients int, vary map[string]string) string {
	var parts []string
	if clients > 0 {
		parts = append(parts, fmt.Sprintf("%d clients", clients))
	}
	if v := varyLabel(vary); v != "" {
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return name
	}
	return name + " @ " + strings.Join(parts, ", ")
}

func sideLabel(s results.CompareSide) string {
	return s.Kind + " " + s.ID + results.Quoted(s.Label)
}

func pctPtr(f *float64) string {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", *f)
}

func ptrOr(f *float64, v float64) float64 {
	if f == nil {
		return v
	}
	return *f
}

func comparePage(c *results.Comparison, opt HTMLOptions) (*page, error) {
	level := c.Level
	if level == 0 {
		level = 0.95
	}
	p := &page{
		Title:  fmt.Sprintf("dbharness comparison: B %s%s against A %s%s", c.B.ID, results.Quoted(c.B.Label), c.A.ID, results.Quoted(c.A.Label)),
		Status: "comparison",
		Footer: footer(opt),
	}
	method := c.Method
	switch c.Method {
	case "intervals":
		method = "from each run's per-interval throughput"
	case "repeats":
		method = "from the repeated runs"
	}
	p.Subtitle = fmt.Sprintf("B = %s (%s) against the baseline A = %s (%s); %.0f%% intervals %s", sideLabel(c.B), results.WorkloadMix(c.B.Workload, c.B.Mix),
		sideLabel(c.A), results.WorkloadMix(c.A.Workload, c.A.Mix), 100*level, method)
	p.Headline = compareHeadline(c)

	sec := section{ID: "verdicts", Title: "Throughput and latency, B against A"}
	sec.Intro = "Δ is (B − A) / A. The verdict is about throughput and is only \"faster\" or \"slower\" when the whole interval of the change lies on one side of zero."
	t := table{Head: []string{"transaction", "verdict", "tps A", "tps B", "Δ tps", fmt.Sprintf("%.0f%% interval", 100*level), "p50 ms A → B", "Δ p50",
		"p99 ms A → B", "Δ p99"},
		Num: []bool{false, false, true, true, true, true, true, true, true, true}}
	for _, o := range c.Ops {
		ci := "-"
		if o.TPSCILowPct != nil && o.TPSCIHighPct != nil {
			ci = pctPtr(o.TPSCILowPct) + " … " + pctPtr(o.TPSCIHighPct)
		}
		ta, tb := sidesTPS(o, numfmt.Figure)
		t.Rows = append(t.Rows, []string{opLabel(o), o.Verdict, ta, tb, pctPtr(o.TPSDeltaPct), ci,
			msCell(o.LatencyA, "p50") + " → " + msCell(o.LatencyB, "p50"), pctPtr(o.P50DeltaPct),
			msCell(o.LatencyA, "p99") + " → " + msCell(o.LatencyB, "p99"), pctPtr(o.P99DeltaPct)})
		t.RowClass = append(t.RowClass, verdictClass(o.Verdict))
	}
	sec.Tables = append(sec.Tables, t)
	if ft, ok := figuresTable(c); ok {
		sec.Tables = append(sec.Tables, ft)
	}
	wn := c.WorkloadsNote()
	for _, n := range c.Notes {
		if n == wn {
			sec.Warnings = append(sec.Warnings, n)
			continue
		}
		sec.Facts = append(sec.Facts, kv{"note", n})
	}
	charts, err := compareCharts(c, level)
	if err != nil {
		return nil, err
	}
	sec.Charts = charts
	p.Sections = append(p.Sections, sec)

	cfg := section{ID: "differences", Title: "Configuration differences"}
	if len(c.ConfigDifferences) == 0 {
		cfg.Intro = "A and B were run with the same data, configuration, engine, settings and host."
	} else {
		cfg.Intro = "Every item that differs between A and B, the biggest confounders first."
		for _, g := range diffGroups(c.ConfigDifferences) {
			dt := table{Caption: strings.ToUpper(g.title[:1]) + g.title[1:], Note: g.intro, Head: []string{"item", "A", "B"}}
			for _, d := range g.diffs {
				dt.Rows = append(dt.Rows, []string{d.Key, d.A, d.B})
			}
			cfg.Tables = append(cfg.Tables, dt)
		}
	}
	p.Sections = append(p.Sections, cfg)

	if len(c.PlanDifferences) > 0 {
		pd := section{ID: "plan-differences", Title: "Plan differences",
			Intro: "Statements whose plans differ between A and B: plans seen in one run only, different flags, a different generic plan. A plan difference explains a throughput difference better than any counter."}
		for _, d := range c.PlanDifferences {
			pd.Pre = append(pd.Pre, preBlock{Caption: d.Statement, Text: strings.Join(d.Lines(), "\n")})
		}
		p.Sections = append(p.Sections, pd)
	}

	if len(c.PhysicalDifferences) > 0 {
		p.Sections = append(p.Sections, physicalDiffSection(c.PhysicalDifferences))
	}
	if d := c.ServerCPUDifferences; d != nil {
		p.Sections = append(p.Sections, serverCPUDiffSection(d))
	}

	ids := section{ID: "sides", Title: "Compared runs"}
	st := table{Head: []string{"side", "kind", "id", "workload", "runs"}}
	for _, s := range []struct {
		n string
		s results.CompareSide
	}{{"A (baseline)", c.A}, {"B", c.B}} {
		st.Rows = append(st.Rows, []string{s.n, s.s.Kind, s.s.ID, s.s.Workload, strings.Join(s.s.Runs, " ")})
	}
	ids.Tables = []table{st}
	p.Sections = append(p.Sections, ids)
	return p, nil
}

// maxCompareBars bounds the rows drawn in a comparison chart.
const maxCompareBars = 24

func compareCharts(c *results.Comparison, level float64) ([]chart, error) {
	if len(c.Ops) == 0 {
		return nil, nil
	}
	ops := c.Ops
	note := ""
	if len(ops) > maxCompareBars {
		ops = ops[:maxCompareBars]
		note = fmt.Sprintf(" The first %d of %d rows are drawn; the table has them all.", maxCompareBars, len(c.Ops))
	}
	cats := make([]string, len(ops))
	tpsA, tpsB := make([]float64, len(ops)), make([]float64, len(ops))
	d, lo, hi := make([]float64, len(ops)), make([]float64, len(ops)), make([]float64, len(ops))
	for i, o := range ops {
		cats[i] = opLabel(o)
		tpsA[i], tpsB[i] = o.TPSA, o.TPSB
		d[i] = ptrOr(o.TPSDeltaPct, math.NaN())
		lo[i], hi[i] = ptrOr(o.TPSCILowPct, math.NaN()), ptrOr(o.TPSCIHighPct, math.NaN())
	}
	var out []chart
	tp := svg.BarChart{Width: chartWidth, Title: "Throughput, A and B", XLabel: "transactions per second", Categories: cats,
		Horizontal: true, ValueLabels: true, ValueFormat: numfmt.Figure,
		Series: []svg.BarSeries{{Name: "A " + c.A.ID, Values: tpsA, Color: "#6699CC"}, {Name: "B " + c.B.ID, Values: tpsB, Color: "#004488"}}}
	b, err := tp.Render()
	if err != nil {
		return nil, fmt.Errorf("comparison throughput chart: %w", err)
	}
	out = append(out, chart{Title: "Throughput", SVG: template.HTML(b)})

	delta := svg.BarChart{Width: chartWidth, Title: fmt.Sprintf("Throughput change of B against A, with its %.0f%% interval", 100*level),
		XLabel: "Δ tps (%)", Categories: cats, Horizontal: true, ValueLabels: true,
		ValueFormat: func(v float64) string { return fmt.Sprintf("%+.1f%%", v) },
		AxisFormat:  func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "%" },
		Series:      []svg.BarSeries{{Name: "Δ tps", Values: d, Low: lo, High: hi, Color: "#997700"}}}
	b, err = delta.Render()
	if err != nil {
		return nil, fmt.Errorf("comparison change chart: %w", err)
	}
	out = append(out, chart{Title: "Throughput change", Note: "An interval that crosses 0% means the runs cannot tell A and B apart." + note, SVG: template.HTML(b)})

	for _, k := range []string{"p50", "p99"} {
		la, lb := make([]float64, len(ops)), make([]float64, len(ops))
		for i, o := range ops {
			la[i], lb[i] = latencyValue(o.LatencyA, k), latencyValue(o.LatencyB, k)
		}
		ch := svg.BarChart{Width: chartWidth, Title: k + " latency, A and B", XLabel: k + " latency (ms)", Categories: cats,
			Horizontal: true, ValueLabels: true, ValueFormat: fmtMs,
			Series: []svg.BarSeries{{Name: "A " + c.A.ID, Values: la, Color: "#EE99AA"}, {Name: "B " + c.B.ID, Values: lb, Color: "#BB5566"}}}
		b, err := ch.Render()
		if err != nil {
			return nil, fmt.Errorf("comparison latency chart: %w", err)
		}
		out = append(out, chart{Title: k + " latency", SVG: template.HTML(b)})
	}
	return out, nil
}

// verdictClass is the CSS class of a row with the verdict v.
func verdictClass(v string) string {
	switch v {
	case verdictFaster:
		return "better"
	case verdictSlower:
		return "worse"
	}
	return "same"
}

// compareHeadline sums a comparison up: the verdict on all transactions
// together, how many transaction types (not counting "total") went each
// way, and the count of differences that are not expected.
func compareHeadline(c *results.Comparison) []kv {
	var h []kv
	counts := map[string]int{}
	types := 0
	for _, o := range c.Ops {
		if o.Name == "total" {
			if c.A.Kind == "run" {
				h = append(h, kv{"all transactions", o.Verdict + " " + pctPtr(o.TPSDeltaPct)})
				// The workload's own result beside it (one figure a
				// side: a change, no verdict).
				for _, f := range c.Figures {
					if f.Headline && f.DeltaPct != nil {
						h = append(h, kv{f.Name, pctPtr(f.DeltaPct)})
					}
				}
			}
			continue
		}
		counts[o.Verdict]++
		types++
	}
	for _, v := range []string{verdictFaster, verdictSlower, "no significant difference", "insufficient data", results.VerdictSameRun} {
		if counts[v] > 0 {
			label := "transaction types " + v
			if c.A.Kind == "sweep" {
				label = "points × types " + v
			}
			h = append(h, kv{label, fmt.Sprintf("%d of %d", counts[v], types)})
		}
	}
	data, other := 0, 0
	for _, d := range c.ConfigDifferences {
		switch d.Group {
		case results.DiffGroupData:
			data++
		case results.DiffGroupExpected:
		default:
			other++
		}
	}
	if data > 0 {
		h = append(h, kv{"data and engine differences", strconv.Itoa(data)})
	}
	h = append(h, kv{"config differences", strconv.Itoa(other)})
	return h
}
