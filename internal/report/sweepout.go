package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
)

// CSV file names written for sweeps and comparisons.
const (
	CSVSweepPoints = "sweep_points.csv" // one row per sweep point
	CSVSweepOps    = "sweep_ops.csv"    // one row per point and transaction type
	CSVCompare     = "compare.csv"      // one row per compared transaction type (and point)
	CSVConfigDiffs = "config_differences.csv"
	// CSVFigures is a comparison's workload figures (compare_figures.csv).
	CSVFigures = "compare_figures.csv"
)

func fptr(f *float64) string {
	if f == nil {
		return ""
	}
	return ff(*f)
}

// WriteSweepCSV writes a sweep's points and per-operation statistics as
// CSV files into dir.
func WriteSweepCSV(dir string, sw *results.Sweep) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create CSV directory %s: %v", dir, err)
	}
	err := writeCSVFile(filepath.Join(dir, CSVSweepPoints), func(w *csvWriter) error {
		if err := w.Write([]string{"sweep_id", "series", "clients", "tps_median", "tps_ci_low", "tps_ci_high", "ci_method", "efficiency", "errors", "runs",
			"tps_ci_low_clipped", "label", "headline_metric", "headline_median", "workers_planned", "workers_launched"}); err != nil {
			return err
		}
		for _, p := range sw.Points {
			// The workload's result figure (TPC-C's NOPM) and a --dop
			// sweep's parallel workers, empty where the runs have none.
			hv, wp, wl := "", "", ""
			if v, ok := p.Metrics[sw.HeadlineMetric]; ok && sw.HeadlineMetric != "" {
				hv = ff(v)
			}
			if p.Workers != nil {
				wp, wl = ff(p.Workers.Planned), ff(p.Workers.Launched)
			}
			if err := w.Write([]string{sw.SweepID, varyLabel(p.Vary), fint(p.Clients), ff(p.TPSMedian), ff(p.TPSCILow), ff(p.TPSCIHigh),
				p.CIMethod, fptr(p.Efficiency), fi(p.Errors), strings.Join(p.Runs, " "), strconv.FormatBool(p.TPSCILowClipped), sw.Label,
				sw.HeadlineMetric, hv, wp, wl}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeCSVFile(filepath.Join(dir, CSVSweepOps), func(w *csvWriter) error {
		if err := w.Write([]string{"sweep_id", "series", "clients", "op", "tps_median", "p50_ms", "p99_ms", "inflation_p50", "inflation_p99", "errors"}); err != nil {
			return err
		}
		for _, p := range sw.Points {
			for _, o := range p.Ops {
				if err := w.Write([]string{sw.SweepID, varyLabel(p.Vary), fint(p.Clients), o.Name, ff(o.TPSMedian), ff(o.P50Ms), ff(o.P99Ms),
					fptr(o.InflationP50), fptr(o.InflationP99), fi(o.Errors)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// WriteCompareCSV writes a comparison's rows and configuration differences
// as CSV files into dir.
func WriteCompareCSV(dir string, c *results.Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create CSV directory %s: %v", dir, err)
	}
	err := writeCSVFile(filepath.Join(dir, CSVCompare), func(w *csvWriter) error {
		if err := w.Write([]string{"a", "b", "op", "clients", "series", "tps_a", "tps_b", "tps_delta_pct", "tps_ci_low_pct", "tps_ci_high_pct",
			"p50_a_ms", "p50_b_ms", "p50_delta_pct", "p99_a_ms", "p99_b_ms", "p99_delta_pct", "verdict", "label_a", "label_b"}); err != nil {
			return err
		}
		for _, o := range c.Ops {
			if err := w.Write([]string{c.A.ID, c.B.ID, o.Name, clientsCell(o.Clients), varyLabel(o.Vary), ff(o.TPSA), ff(o.TPSB), fptr(o.TPSDeltaPct),
				fptr(o.TPSCILowPct), fptr(o.TPSCIHighPct), latencyCells(o.LatencyA, []string{"p50"})[0], latencyCells(o.LatencyB, []string{"p50"})[0],
				fptr(o.P50DeltaPct), latencyCells(o.LatencyA, []string{"p99"})[0], latencyCells(o.LatencyB, []string{"p99"})[0],
				fptr(o.P99DeltaPct), o.Verdict, c.A.Label, c.B.Label}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Written, if only its header, when neither side has figures: a
	// directory used again then holds no earlier comparison's.
	err = writeCSVFile(filepath.Join(dir, CSVFigures), func(w *csvWriter) error {
		if err := w.Write([]string{"a", "b", "figure", "clients", "series", "value_a", "value_b", "delta_pct", "headline", "label"}); err != nil {
			return err
		}
		for _, f := range c.Figures {
			if err := w.Write([]string{c.A.ID, c.B.ID, f.Name, clientsCell(f.Clients), varyLabel(f.Vary), fptr(f.A), fptr(f.B), fptr(f.DeltaPct),
				strconv.FormatBool(f.Headline), f.Label}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeCSVFile(filepath.Join(dir, CSVConfigDiffs), func(w *csvWriter) error {
		if err := w.Write([]string{"key", "a", "b", "group"}); err != nil {
			return err
		}
		for _, d := range c.ConfigDifferences {
			if err := w.Write([]string{d.Key, d.A, d.B, d.Group}); err != nil {
				return err
			}
		}
		return nil
	})
}

// SweepMarkdown writes a compact summary of a sweep: the throughput per
// point with its interval and efficiency (beside the workload's result
// figure and a --dop sweep's parallel workers, where the runs have them),
// the series side by side, and the USL fit.
func SweepMarkdown(w io.Writer, sw *results.Sweep) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### dbharness sweep `%s`%s: %s\n\n", mdCode(sw.SweepID), mdLabel(sw.Label), mdText(sw.Name()))
	fmt.Fprintf(&b, "**%s** · %d of %d runs · %d repeat(s)\n\n", mdText(sw.Status), len(sw.RunIDs), len(sw.Plan), sw.Repeat)
	series := seriesOf(sw)
	interfered, clipped := false, false
	hm, workers := sw.HeadlineMetric, sweepHasWorkers(sw.Points)
	head, align := []string{"series", "clients"}, "|---|--:|"
	if hm != "" {
		head, align = append(head, mdText(hm)+" (median)"), align+"--:|"
	}
	head, align = append(head, "tps (median)", "95% CI", "efficiency", "errors"), align+"--:|--:|--:|--:|"
	if workers {
		head, align = append(head, "workers planned/launched"), align+"--:|"
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n" + align + "\n")
	for _, s := range series {
		for _, p := range s.points {
			eff := "-"
			if p.Efficiency != nil {
				eff = fmt.Sprintf("%.0f%%", 100**p.Efficiency)
			}
			tps := numfmt.Figure(p.TPSMedian)
			if len(p.Interfered) > 0 {
				tps += " ⚠"
				interfered = true
			}
			row := []string{mdText(orDash(s.label)), strconv.Itoa(p.Clients)}
			if hm != "" {
				v := "-"
				if x, ok := p.Metrics[hm]; ok {
					v = numfmt.Figure(x)
				}
				row = append(row, v)
			}
			row = append(row, tps, ciLow(p, numfmt.Figure)+" – "+numfmt.Figure(p.TPSCIHigh), eff, fmtCount(p.Errors))
			if workers {
				row = append(row, workersCell(p.Workers))
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			clipped = clipped || p.TPSCILowClipped
		}
	}
	b.WriteString("\n")
	if hm != "" {
		fmt.Fprintf(&b, "%s (median): the workload's result, median over the point's runs; the interval and efficiency are of the tps.\n\n", mdText(hm))
	}
	if clipped {
		b.WriteString(ciClippedNote + ".\n\n")
	}
	if interfered {
		fmt.Fprintf(&b, "⚠ other processes used more than %d%% of the host's CPU during a run of the point: its figures include their interference.\n\n", results.OthersWarnPct)
	}
	seriesMarkdown(&b, sw.SeriesComparisons)
	if rows := sweepPhysicalRows(series); len(rows) > 0 {
		b.WriteString("| " + strings.Join(sweepPhysicalHead, " | ") + " |\n|---|--:|---|---|--:|--:|--:|\n")
		for _, r := range rows {
			for i := range r {
				r[i] = mdText(r[i])
			}
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
	for _, s := range series {
		name := ""
		if s.label != "" {
			name = " (" + mdText(s.label) + ")"
		}
		switch {
		case s.fit != nil:
			f := s.fit
			peak := "no peak (κ = 0)"
			switch {
			case f.Poor():
				peak = "**poor fit**: no peak stated"
			case f.PeakExtrapolated:
				peak = fmt.Sprintf("peak not stated: extrapolated past the clients measured (%s)", optNum(f.PeakClients, "%.1f"))
			case f.PeakClients != nil:
				peak = fmt.Sprintf("peak %s tps at %.1f clients", optTPS(f.PeakTPS), *f.PeakClients)
			}
			fmt.Fprintf(&b, "USL%s: σ = %.4g, κ = %.4g, λ = %s tps, %s, R² = %.3f\n", name, f.Sigma, f.Kappa, numfmt.Figure(f.Lambda), peak, f.R2)
		case s.fitErr != "":
			fmt.Fprintf(&b, "USL%s: not fitted: %s\n", name, mdText(s.fitErr))
		}
	}
	switch {
	case sw.Caveats == nil:
	case len(sw.Caveats) == 0:
		b.WriteString("\nCaveats: none.\n")
	default:
		b.WriteString("\nCaveats:\n")
		for _, c := range sw.Caveats {
			fmt.Fprintf(&b, "- ⚠ %s\n", mdText(c.Text))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdChange is a compared row's throughput interval ("-" when there is
// none) and its verdict, in bold when it is one.
func mdChange(o results.CompareOp) (ci, verdict string) {
	ci = "-"
	if o.TPSCILowPct != nil && o.TPSCIHighPct != nil {
		ci = pctPtr(o.TPSCILowPct) + " … " + pctPtr(o.TPSCIHighPct)
	}
	verdict = mdText(o.Verdict)
	if o.Verdict == verdictFaster || o.Verdict == verdictSlower {
		verdict = "**" + verdict + "**"
	}
	return ci, verdict
}

// seriesMarkdown writes a sweep's series side by side, as the text's
// seriesTable: B against A, which differs from it in one swept flag, at
// each client count, with compare's verdict on the total throughput.
func seriesMarkdown(b *strings.Builder, cs []results.SeriesComparison) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("Series side by side, B against A at each client count (as `compare` computes it):\n\n")
	b.WriteString("| clients | A | B | tps A | tps B | Δ tps | 95% interval | Δ p99 | verdict |\n|--:|---|---|--:|--:|--:|--:|--:|---|\n")
	for _, c := range cs {
		o := c.Total()
		if o == nil {
			continue
		}
		ci, v := mdChange(*o)
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Clients, mdText(varyCell(c.A)), mdText(varyCell(c.B)),
			numfmt.Figure(o.TPSA), numfmt.Figure(o.TPSB), pctPtr(o.TPSDeltaPct), ci, pctPtr(o.P99DeltaPct), v)
	}
	for _, c := range cs {
		if c.Note != "" {
			fmt.Fprintf(b, "\nNote (%d clients, %s against %s): %s\n", c.Clients, mdText(varyCell(c.B)), mdText(varyCell(c.A)), mdText(c.Note))
		}
	}
	b.WriteString("\n")
}

// CompareMarkdown writes a compact summary of a comparison: one row per
// compared transaction type with the change, its interval and the verdict,
// then the configuration differences.
func CompareMarkdown(w io.Writer, c *results.Comparison) error {
	var b strings.Builder
	level := c.Level
	if level == 0 {
		level = 0.95
	}
	fmt.Fprintf(&b, "### dbharness comparison: B `%s`%s against A `%s`%s\n\n", mdCode(c.B.ID), mdLabel(c.B.Label),
		mdCode(c.A.ID), mdLabel(c.A.Label))
	if wn := c.WorkloadsNote(); wn != "" {
		fmt.Fprintf(&b, "**Warning: %s.**\n\n", mdText(wn))
	}
	fmt.Fprintf(&b, "| transaction | tps A | tps B | Δ tps | %.0f%% interval | Δ p50 | Δ p99 | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n", 100*level)
	for _, o := range c.Ops {
		ci, v := mdChange(o)
		ta, tb := sidesTPS(o, numfmt.Figure)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdText(opLabel(o)), ta, tb,
			pctPtr(o.TPSDeltaPct), ci, pctPtr(o.P50DeltaPct), pctPtr(o.P99DeltaPct), v)
	}
	b.WriteString("\n")
	if ft, ok := figuresTable(c); ok {
		fmt.Fprintf(&b, "%s:\n\n| %s |\n|---|--:|--:|--:|---|\n", ft.Caption, strings.Join(ft.Head, " | "))
		for _, r := range ft.Rows {
			for i := range r {
				r[i] = mdText(r[i])
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
		}
		b.WriteString("\n")
	}
	if len(c.ConfigDifferences) == 0 {
		b.WriteString("No configuration differences.\n")
	} else {
		for i, g := range diffGroups(c.ConfigDifferences) {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s%s:\n", strings.ToUpper(g.title[:1]), g.title[1:])
			for _, d := range g.diffs {
				fmt.Fprintf(&b, "- `%s`: `%s` → `%s`\n", mdCode(d.Key), mdCode(d.A), mdCode(d.B))
			}
		}
	}
	mdDiffLines(&b, "Plan differences", c.PlanDifferences)
	mdDiffLines(&b, "Physical differences (after each run)", c.PhysicalDifferences)
	if d := c.ServerCPUDifferences; d != nil {
		mdDiffLines(&b, "Server CPU (self time)", []results.ServerCPUDiff{*d})
	}
	for _, n := range c.Notes {
		if n != c.WorkloadsNote() {
			fmt.Fprintf(&b, "\nNote: %s\n", mdText(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdDiffLines writes a titled Markdown list of differences between the
// runs.
func mdDiffLines[T liner](b *strings.Builder, title string, ds []T) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, d := range ds {
		for _, l := range d.Lines() {
			fmt.Fprintf(b, "- %s\n", mdText(l))
		}
	}
}

// clientsCell is a comparison row's client count: empty for two runs (0),
// the point's for two sweeps.
func clientsCell(n int) string {
	if n > 0 {
		return fint(n)
	}
	return ""
}
