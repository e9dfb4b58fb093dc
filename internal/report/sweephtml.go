package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/analysis"
	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
)

// maxSweepSeries bounds the per-series throughput charts of a sweep.
const maxSweepSeries = 8

// varyLabel names a sweep series by its vary values: "fillfactor=70,
// mix=select-only"; "" for a sweep without --vary.
func varyLabel(v map[string]string) string {
	keys := sortedKeys(v)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + v[k]
	}
	return strings.Join(parts, ", ")
}

// sweepSeries is the points of one combination of vary values, by clients.
type sweepSeries struct {
	label  string
	points []results.SweepPoint
	fit    *results.USLModel
	fitErr string
}

func seriesOf(sw *results.Sweep) []sweepSeries {
	idx := map[string]int{}
	var out []sweepSeries
	for _, p := range sw.Points {
		l := varyLabel(p.Vary)
		i, ok := idx[l]
		if !ok {
			i = len(out)
			idx[l] = i
			out = append(out, sweepSeries{label: l})
		}
		out[i].points = append(out[i].points, p)
	}
	for i := range out {
		sort.SliceStable(out[i].points, func(a, b int) bool { return out[i].points[a].Clients < out[i].points[b].Clients })
		for _, f := range sw.Fits {
			if varyLabel(f.Vary) == out[i].label {
				out[i].fit, out[i].fitErr = f.USL, f.USLError
			}
		}
		if out[i].fit == nil && out[i].fitErr == "" && out[i].label == "" {
			out[i].fit, out[i].fitErr = sw.USL, sw.USLError
		}
	}
	return out
}

// single is the series' 1-client throughput, 0 when it has none.
func (s sweepSeries) single() float64 {
	for _, p := range s.points {
		if p.Clients == 1 {
			return p.TPSMedian
		}
	}
	return 0
}

func optNum(f *float64, format string) string {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return "-"
	}
	return fmt.Sprintf(format, *f)
}

// optTPS is a throughput the fit may not give, in whole transactions a
// second with thousands separators, as the tables' λ (numfmt.Figure); "-" when
// there is none.
func optTPS(f *float64) string {
	if f == nil || math.IsNaN(*f) || math.IsInf(*f, 0) {
		return "-"
	}
	return numfmt.Whole(*f)
}

// SweepHTML writes the HTML report of a sweep: throughput against clients
// with confidence bars, the fitted USL curve and the ideal linear line from
// the single-client point, latency against clients per transaction type,
// and the concurrency inflation table.
func SweepHTML(w io.Writer, sw *results.Sweep, opt HTMLOptions) error {
	p, err := sweepPage(sw, opt)
	if err != nil {
		return err
	}
	return renderPage(w, p)
}

func sweepPage(sw *results.Sweep, opt HTMLOptions) (*page, error) {
	p := &page{
		Title:  "dbharness sweep " + sw.SweepID + results.Quoted(sw.Label),
		Status: sw.Status,
		Bad:    sw.Status != results.StatusCompleted,
		Error:  sw.Error,
		Footer: footer(opt),
	}
	clients := make([]string, len(sw.Clients))
	for i, c := range sw.Clients {
		clients[i] = strconv.Itoa(c)
	}
	on := ""
	if e := sw.Engine; e != nil {
		on = fmt.Sprintf(" on %s %s", e.Engine, e.Version)
	}
	p.Subtitle = fmt.Sprintf("%s%s, clients %s, %d repeat(s), %s", sw.Name(), on, strings.Join(clients, " "), sw.Repeat,
		sw.StartTime.UTC().Format("2006-01-02 15:04:05 UTC"))
	series := seriesOf(sw)
	var best results.SweepPoint
	for _, pt := range sw.Points {
		if pt.TPSMedian > best.TPSMedian {
			best = pt
		}
	}
	p.Headline = []kv{{"runs", fmt.Sprintf("%d of %d", len(sw.RunIDs), len(sw.Plan))}, {"points", strconv.Itoa(len(sw.Points))}}
	if best.Clients > 0 {
		p.Headline = append(p.Headline, kv{"best throughput", numfmt.Figure(best.TPSMedian) + " tps"}, kv{"at clients", strconv.Itoa(best.Clients)})
	}
	if len(series) == 1 && series[0].fit != nil {
		p.Headline = append(p.Headline, uslHeadline(series[0].fit)...)
	}
	if sw.Caveats != nil {
		n := "none"
		if len(sw.Caveats) > 0 {
			n = fmt.Sprintf("%d (see below)", len(sw.Caveats))
		}
		p.Headline = append(p.Headline, kv{"caveats", n})
	}

	sec := section{ID: "scaling", Title: "Throughput against clients", ChartsFirst: true,
		Intro: "Median throughput per client count with its 95% confidence interval (bars), the Universal Scalability Law fitted to every run (dashed) and ideal linear scaling from the single-client point (dotted)."}
	for _, c := range sw.Caveats {
		sec.Warnings = append(sec.Warnings, c.Text)
	}
	for i, s := range series {
		if i >= maxSweepSeries {
			sec.Intro += fmt.Sprintf(" %d further series are in the tables only.", len(series)-maxSweepSeries)
			break
		}
		c, err := scalingChart(s)
		if err != nil {
			return nil, err
		}
		sec.Charts = append(sec.Charts, c)
	}
	if len(sw.Points) == 0 {
		sec.Intro = "No run of the sweep completed yet: nothing to chart."
	}
	sec.Tables = append(sec.Tables, scalingTable(series))
	if rows := sweepPhysicalRows(series); len(rows) > 0 {
		sec.Tables = append(sec.Tables, table{Caption: "Physical storage after the runs", Head: sweepPhysicalHead,
			Num: []bool{false, true, false, false, true, true, true}, Rows: rows, Note: sweepPhysicalNote})
	}
	if usl := uslTable(series); len(usl.Rows) > 0 {
		sec.Tables = append(sec.Tables, usl)
	}
	for i, s := range series {
		// A chart's note says why its series has no fit; these have no chart.
		if i >= maxSweepSeries && s.fit == nil && s.fitErr != "" {
			sec.Facts = append(sec.Facts, kv{"no USL fit (" + orDash(s.label) + ")", s.fitErr})
		}
	}
	p.Sections = append(p.Sections, sec)
	if cs := sw.SeriesComparisons; len(cs) > 0 {
		p.Sections = append(p.Sections, seriesSection(cs))
	}

	if lat, ok, err := sweepLatency(series); err != nil {
		return nil, err
	} else if ok {
		p.Sections = append(p.Sections, lat)
	}
	p.Sections = append(p.Sections, inflationSection(series), sweepConfigSection(sw))
	return p, nil
}

// seriesSection sets a sweep's series side by side at each client count:
// B against A, which differs from it in one swept flag, with compare's
// verdict on each transaction type and the total.
func seriesSection(cs []results.SeriesComparison) section {
	sec := section{ID: "series", Title: "Series side by side",
		Intro: "At each client count, each series (B) against the series that differs from it in one swept flag only, which there takes its first value (A). " +
			"Δ is (B − A) / A; the verdict, from the 95% interval of the throughput change computed as `dbharness compare` does, is \"faster\" or \"slower\" only when the whole interval lies on one side of zero."}
	t := table{Head: []string{"clients", "A", "B", "transaction", "verdict", "tps A", "tps B", "Δ tps", "95% interval", "p99 ms A → B", "Δ p99", "interval over"},
		Num: []bool{true, false, false, false, false, true, true, true, true, true, true, false}}
	for _, c := range cs {
		for _, o := range c.Ops {
			ci := "-"
			if o.TPSCILowPct != nil && o.TPSCIHighPct != nil {
				ci = pctPtr(o.TPSCILowPct) + " … " + pctPtr(o.TPSCIHighPct)
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(c.Clients), varyLabel(c.A), varyLabel(c.B), o.Name, o.Verdict, numfmt.Figure(o.TPSA), numfmt.Figure(o.TPSB),
				pctPtr(o.TPSDeltaPct), ci, msCell(o.LatencyA, "p99") + " → " + msCell(o.LatencyB, "p99"), pctPtr(o.P99DeltaPct), c.Method})
			t.RowClass = append(t.RowClass, verdictClass(o.Verdict))
		}
		if c.Note != "" {
			sec.Facts = append(sec.Facts, kv{fmt.Sprintf("note (%d clients, %s)", c.Clients, varyLabel(c.B)), c.Note})
		}
	}
	sec.Tables = []table{t}
	return sec
}

func scalingChart(s sweepSeries) (chart, error) {
	title := "Throughput against clients"
	if s.label != "" {
		title += ": " + s.label
	}
	ch := svg.LineChart{Width: chartWidth, Height: chartHeight, Title: title, XLabel: "clients", YLabel: "transactions per second", MaxPoints: -1, XInteger: true}
	var xs, ys, lo, hi []float64
	top, maxN := 0.0, 1.0
	for _, p := range s.points {
		xs, ys = append(xs, float64(p.Clients)), append(ys, p.TPSMedian)
		l, h := p.TPSCILow, p.TPSCIHigh
		if l == 0 && h == 0 {
			l, h = math.NaN(), math.NaN()
		}
		lo, hi = append(lo, l), append(hi, h)
		top = math.Max(top, math.Max(p.TPSMedian, nanZero(h)))
		maxN = math.Max(maxN, float64(p.Clients))
	}
	ch.Series = append(ch.Series, svg.Series{Name: "measured (median, 95% CI)", X: xs, Y: ys, Low: lo, High: hi, Style: svg.StyleLinePoints, Width: 2})
	note := ""
	if s.fit != nil {
		f := analysis.USLFit{Lambda: s.fit.Lambda, Sigma: s.fit.Sigma, Kappa: s.fit.Kappa}
		var ux, uy []float64
		end := maxN * 1.15
		for i := 0; i <= 200; i++ {
			n := 1 + (end-1)*float64(i)/200
			ux, uy = append(ux, n), append(uy, f.Predict(n))
			top = math.Max(top, f.Predict(n))
		}
		poor := ""
		if s.fit.Poor() {
			poor = ", poor fit"
		}
		ch.Series = append(ch.Series, svg.Series{Name: fmt.Sprintf("USL fit (σ=%.3g, κ=%.3g, R²=%.3f%s)", s.fit.Sigma, s.fit.Kappa, s.fit.R2, poor),
			X: ux, Y: uy, Style: svg.StyleDashed, Color: svg.PaletteColor(2)})
	} else if s.fitErr != "" {
		note = "No USL fit: " + s.fitErr + "."
	}
	if one := s.single(); one > 0 {
		ix, iy := idealLine(one, maxN*1.15, top*1.15)
		ch.Series = append(ch.Series, svg.Series{Name: "ideal linear from 1 client", X: ix, Y: iy, Style: svg.StyleDotted, Color: svg.PaletteColor(6)})
	} else {
		note = strings.TrimSpace(note + " No single-client point, so no ideal line.")
	}
	if top > 0 {
		ch.XRange = &svg.Range{Min: 0, Max: maxN * 1.15}
		ch.YRange = &svg.Range{Min: 0, Max: top * 1.15}
	}
	b, err := ch.Render()
	if err != nil {
		return chart{}, fmt.Errorf("sweep throughput chart: %w", err)
	}
	return chart{Title: title, Note: note, SVG: template.HTML(b)}, nil
}

// idealLine is linear scaling from the single-client throughput one, from
// 1 client to xMax; it ends where it reaches the top of the y axis, yMax,
// rather than rising past the chart's frame (0: no limit).
func idealLine(one, xMax, yMax float64) (xs, ys []float64) {
	end := xMax
	if yMax > 0 {
		end = math.Min(end, yMax/one)
	}
	return []float64{1, end}, []float64{one, one * end}
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func scalingTable(series []sweepSeries) table {
	interfered, clipped := false, false
	t := table{Caption: "Points", Head: []string{"series", "clients", "tps (median)", "95% CI", "CI from", "efficiency", "errors", "runs"},
		Num: []bool{false, true, true, true, false, true, true, true}}
	workers := false
	for _, s := range series {
		workers = workers || sweepHasWorkers(s.points)
	}
	if workers {
		t.Head, t.Num = append(t.Head, "parallel workers planned/launched"), append(t.Num, true)
	}
	for _, s := range series {
		for _, p := range s.points {
			ci := "-"
			if p.TPSCILow != 0 || p.TPSCIHigh != 0 {
				ci = ciLow(p, numfmt.Figure) + " – " + numfmt.Figure(p.TPSCIHigh)
			}
			clipped = clipped || p.TPSCILowClipped
			eff := "-"
			if p.Efficiency != nil {
				eff = fmt.Sprintf("%.0f%%", 100**p.Efficiency)
			}
			runs := strconv.Itoa(len(p.Runs))
			if len(p.Interfered) > 0 {
				runs += fmt.Sprintf(" (%d interfered ⚠)", len(p.Interfered))
				interfered = true
			}
			row := []string{orDash(s.label), strconv.Itoa(p.Clients), numfmt.Figure(p.TPSMedian), ci, p.CIMethod, eff,
				fmtCount(p.Errors), runs}
			if workers {
				row = append(row, workersCell(p.Workers))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	t.Note = "Efficiency is tps(N) / (N × tps(1)): 100% is linear scaling."
	if workers {
		t.Note += " Parallel workers: planned/launched by one EXPLAIN ANALYZE of each statement, summed over the statements, median over the point's runs."
	}
	if clipped {
		t.Note += " " + ciClippedNote + "."
	}
	if interfered {
		t.Note += fmt.Sprintf(" ⚠ interfered: runs during whose measured phase other processes used more than %d%% of the host's CPU; their figures include that interference.", results.OthersWarnPct)
	}
	return t
}

// uslTable lists the series the Universal Scalability Law was fitted to;
// why the others were not is said beside their charts, not in a table cell
// that would stretch the table past the page.
func uslTable(series []sweepSeries) table {
	t := table{Caption: "Universal Scalability Law fit, X(N) = λN / (1 + σ(N−1) + κN(N−1)): σ is contention, κ coherency",
		Head: []string{"series", "λ tps/client", "σ", "κ", "peak clients", "peak tps", "R²", "runs"},
		Num:  []bool{false, true, true, true, true, true, true, true}}
	for _, s := range series {
		if s.fit == nil {
			continue
		}
		f := s.fit
		peakN, peakX := optNum(f.PeakClients, "%.1f"), optTPS(f.PeakTPS)
		if f.PeakClients == nil && f.AsymptoteTPS != nil {
			peakN, peakX = "none (κ = 0)", "→ "+optTPS(f.AsymptoteTPS)
		}
		r2 := fmt.Sprintf("%.3f", f.R2)
		switch {
		case f.Poor():
			peakN, peakX, r2 = "not stated", "not stated", r2+" (poor fit)"
		case f.PeakExtrapolated:
			peakN, peakX = "not stated (past "+optNum(f.PeakClients, "%.1f")+")", "not stated"
		}
		t.Rows = append(t.Rows, []string{orDash(s.label), numfmt.Figure(f.Lambda), fmt.Sprintf("%.4g", f.Sigma), fmt.Sprintf("%.4g", f.Kappa),
			peakN, peakX, r2, strconv.Itoa(f.Points)})
	}
	t.Note = fmt.Sprintf("A fit with R² under %.2f is a poor fit, and a peak beyond the largest client count measured an extrapolation: neither states a peak as a finding (docs/experiments.md says why).", results.USLMinR2)
	return t
}

// uslHeadline is the headline of a sweep's single USL fit: its peak when
// it is a finding, else why it is not stated; and its R².
func uslHeadline(f *results.USLModel) []kv {
	r2 := kv{"USL R²", fmt.Sprintf("%.2f", f.R2)}
	switch {
	case f.Poor():
		return []kv{{"USL peak", fmt.Sprintf("not stated: poor fit (R² %.2f)", f.R2)}, r2}
	case f.PeakExtrapolated:
		return []kv{{"USL peak", fmt.Sprintf("not stated: extrapolated past the clients measured (%s)", optNum(f.PeakClients, "%.0f"))}, r2}
	case f.PeakClients != nil:
		return []kv{{"USL peak", fmt.Sprintf("%s tps at %.0f clients", optTPS(f.PeakTPS), *f.PeakClients)}, r2}
	case f.AsymptoteTPS != nil:
		return []kv{{"USL ceiling", "→ " + optTPS(f.AsymptoteTPS) + " tps (no peak)"}, r2}
	}
	return []kv{r2}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// sweepOps lists the transaction types of a sweep in first-seen order.
func sweepOps(series []sweepSeries) []string {
	seen := map[string]bool{}
	var names []string
	for _, s := range series {
		for _, p := range s.points {
			for _, o := range p.Ops {
				if !seen[o.Name] {
					seen[o.Name] = true
					names = append(names, o.Name)
				}
			}
		}
	}
	return names
}

func sweepLatency(series []sweepSeries) (section, bool, error) {
	ops := sweepOps(series)
	if len(ops) == 0 {
		return section{}, false, nil
	}
	sec := section{ID: "latency", Title: "Latency against clients",
		Intro: "Median over the runs of each run's p50 (solid) and p99 (dashed), per transaction type, on a log scale."}
	for i, op := range ops {
		if i >= maxSeries {
			break
		}
		ch := svg.LineChart{Width: chartWidth, Height: chartHeight, Title: "Latency of " + op, XLabel: "clients",
			YLabel: "latency (ms, log scale)", YLog: true, MaxPoints: -1, XInteger: true}
		for j, s := range series {
			if j >= maxSweepSeries {
				break
			}
			var xs, p50, p99 []float64
			for _, p := range s.points {
				for _, o := range p.Ops {
					if o.Name == op {
						xs, p50, p99 = append(xs, float64(p.Clients)), append(p50, o.P50Ms), append(p99, o.P99Ms)
					}
				}
			}
			name := ""
			if s.label != "" {
				name = s.label + " "
			}
			col := svg.PaletteColor(j)
			ch.Series = append(ch.Series, svg.Series{Name: name + "p50", X: xs, Y: p50, Style: svg.StyleLinePoints, Color: col},
				svg.Series{Name: name + "p99", X: xs, Y: p99, Style: svg.StyleDashed, Color: col})
		}
		b, err := ch.Render()
		if err != nil {
			return section{}, false, fmt.Errorf("sweep latency chart: %w", err)
		}
		sec.Charts = append(sec.Charts, chart{Title: "Latency of " + op, SVG: template.HTML(b)})
	}
	return sec, true, nil
}

func inflationSection(series []sweepSeries) section {
	sec := section{ID: "inflation", Title: "Concurrency inflation",
		Intro: "Latency at N clients divided by latency at 1 client in the same series: 1.0 means concurrency costs nothing; 4.0 means each transaction takes four times as long."}
	t := table{Head: []string{"series", "transaction", "clients", "tps", "p50 ms", "p99 ms", "p50 inflation", "p99 inflation", "errors"},
		Num: []bool{false, false, true, true, true, true, true, true, true}}
	for _, s := range series {
		for _, p := range s.points {
			for _, o := range p.Ops {
				t.Rows = append(t.Rows, []string{orDash(s.label), o.Name, strconv.Itoa(p.Clients), numfmt.Figure(o.TPSMedian), fmtMs(o.P50Ms), fmtMs(o.P99Ms),
					optNum(o.InflationP50, "%.2f×"), optNum(o.InflationP99, "%.2f×"), fmtCount(o.Errors)})
			}
		}
	}
	if len(t.Rows) == 0 {
		sec.Intro = "No completed point yet."
		return sec
	}
	sec.Tables = []table{t}
	return sec
}

func sweepConfigSection(sw *results.Sweep) section {
	sec := section{ID: "config", Title: "Configuration"}
	sec.Facts = []kv{
		{"sweep", sw.SweepID},
		{"status", sw.Status},
		{"workload", sw.Workload},
		{"command", strings.Join(results.RedactArgs(sw.Command), " ")},
		{"run arguments", strings.Join(results.RedactArgs(sw.BaseArgs), " ")},
		{"target", redact.String(sw.Target)},
		{"repeat", strconv.Itoa(sw.Repeat)},
		{"order seed", strconv.FormatUint(sw.OrderSeed, 10)},
		{"started", sw.StartTime.UTC().Format("2006-01-02T15:04:05Z")},
		{"ended", sw.EndTime.UTC().Format("2006-01-02T15:04:05Z")},
	}
	if e := sw.Engine; e != nil {
		sec.Facts = append(sec.Facts, kv{"engine", strings.TrimSpace(e.Engine + " " + e.Version)})
	}
	if h := sw.ClientHost; h != nil {
		sec.Facts = append(sec.Facts, kv{"client host", fmt.Sprintf("%s: %s, %d cores, %d MB, %s %s", h.Hostname, h.CPUModel, h.Cores, h.MemoryMB, h.OS, h.Kernel)})
	}
	for _, v := range sw.Vary {
		sec.Facts = append(sec.Facts, kv{"vary --" + v.Flag, strings.Join(v.Values, ", ")})
	}
	for _, n := range sw.Notes {
		sec.Facts = append(sec.Facts, kv{"note", n})
	}
	if len(sw.Plan) > 0 {
		t := table{Caption: "Runs in execution order", Head: []string{"#", "round", "clients", "series", "run", "status"},
			Num: []bool{true, true, true, false, false, false}}
		for _, r := range sw.Plan {
			t.Rows = append(t.Rows, []string{strconv.Itoa(r.Seq + 1), strconv.Itoa(r.Round), strconv.Itoa(r.Clients), orDash(varyLabel(r.Vary)),
				orDash(r.RunID), orDash(r.Status)})
		}
		sec.Tables = append(sec.Tables, t)
	}
	return sec
}
