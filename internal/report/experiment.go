package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
)

func varyCell(v map[string]string) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+v[k])
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func optCell(f *float64, format string) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf(format, *f)
}

// SweepTable prints a sweep's analysis: throughput per point with its
// confidence interval and scaling efficiency, latency and concurrency
// inflation per transaction type, and the USL fit.
func SweepTable(w io.Writer, sw *results.Sweep) {
	made := 0
	for _, p := range sw.Plan {
		if p.Status == results.StatusCompleted {
			made++
		}
	}
	engine := ""
	if e := sw.Engine; e != nil {
		engine = "  engine " + strings.TrimSpace(e.Engine+" "+e.Version)
	}
	fmt.Fprintf(w, "\nsweep %s%s  workload %s%s  status %s  %d of %d runs completed  clients %s  repeat %d\n",
		sw.SweepID, results.Quoted(sw.Label), sw.Name(), engine, sw.Status, made, len(sw.Plan), intList(sw.Clients), sw.Repeat)
	if len(sw.Points) == 0 {
		fmt.Fprintln(w, "no completed runs yet: nothing to analyse")
		return
	}
	hasVary := len(sw.Vary) > 0
	vw := 0
	if hasVary {
		for _, p := range sw.Points {
			vw = max(vw, len(varyCell(p.Vary)))
		}
		vw = max(vw, 4)
	}
	vcol := func(v map[string]string) string {
		if !hasVary {
			return ""
		}
		return fmt.Sprintf(" %-*s", vw, varyCell(v))
	}
	vhead := ""
	if hasVary {
		vhead = fmt.Sprintf(" %-*s", vw, "vary")
	}
	// The parallel workers the points' plans planned and launched, where
	// their runs measured them (a --dop sweep).
	wcol, whead := func(results.SweepPoint) string { return "" }, ""
	if sweepHasWorkers(sw.Points) {
		whead = fmt.Sprintf(" %9s", "workers")
		wcol = func(p results.SweepPoint) string { return fmt.Sprintf(" %9s", workersCell(p.Workers)) }
	}
	// The workload's result figure (TPC-C's NOPM), where its runs name
	// one, beside the tps its interval and efficiency are of.
	hm, hw := sw.HeadlineMetric, 0
	hcol := func(p results.SweepPoint) string { return "" }
	if hm != "" {
		hw = max(11, len(hm)+len("_median"))
		hcol = func(p results.SweepPoint) string {
			if v, ok := p.Metrics[hm]; ok {
				return fmt.Sprintf(" %*.1f", hw, v)
			}
			return fmt.Sprintf(" %*s", hw, "-")
		}
		fmt.Fprintf(w, "%7s%s %*s %11s %25s %10s %7s %5s%s\n", "clients", vhead, hw, hm+"_median", "tps_median", "95% CI", "efficiency", "errors", "runs", whead)
	} else {
		fmt.Fprintf(w, "%7s%s %11s %25s %10s %7s %5s%s\n", "clients", vhead, "tps_median", "95% CI", "efficiency", "errors", "runs", whead)
	}
	interfered, clipped := 0, false
	for _, p := range sw.Points {
		ci := fmt.Sprintf("[%s, %.1f] %s", ciLow(p, func(f float64) string { return fmt.Sprintf("%.1f", f) }), p.TPSCIHigh, ciTag(p.CIMethod))
		clipped = clipped || p.TPSCILowClipped
		mark := ""
		if len(p.Interfered) > 0 {
			mark, interfered = fmt.Sprintf("  ! %d interfered", len(p.Interfered)), interfered+1
		}
		fmt.Fprintf(w, "%7d%s%s %11.1f %25s %10s %7d %5d%s%s\n", p.Clients, vcol(p.Vary), hcol(p), p.TPSMedian, ci,
			optCell(p.Efficiency, "%.2f"), p.Errors, len(p.Runs), wcol(p), mark)
	}
	if whead != "" {
		fmt.Fprintln(w, "workers: parallel workers planned/launched, one EXPLAIN ANALYZE of each statement summed over the statements (median over the point's runs)")
	}
	if hm != "" {
		fmt.Fprintf(w, "%s_median: the workload's result, median over the point's runs; the interval and efficiency are of the tps\n", hm)
	}
	fmt.Fprintln(w, "95% CI: (r) bootstrap over 5+ repeats, (t) Student t over 2-4 repeats, (i) one run, block bootstrap over its intervals")
	if clipped {
		fmt.Fprintln(w, ciClippedNote)
	}
	if interfered > 0 {
		fmt.Fprintf(w, "! interfered: in that many of the point's runs other processes used more than %d%% of the host's CPU during the measured phase (`show RUN` names them): its figures include their interference\n", results.OthersWarnPct)
	}
	seriesTable(w, sw.SeriesComparisons)
	fmt.Fprintln(w, "\nlatency per transaction (median over runs); inflation = latency / latency at 1 client")
	fmt.Fprintf(w, "%7s%s %-16s %10s %9s %9s %9s %9s\n", "clients", vhead, "transaction", "tps", "p50_ms", "p99_ms", "infl_p50", "infl_p99")
	for _, p := range sw.Points {
		for _, o := range p.Ops {
			fmt.Fprintf(w, "%7d%s %-16s %10.1f %9s %9s %9s %9s\n", p.Clients, vcol(p.Vary), o.Name, o.TPSMedian,
				fmtMs(o.P50Ms), fmtMs(o.P99Ms), optCell(o.InflationP50, "%.2fx"), optCell(o.InflationP99, "%.2fx"))
		}
	}
	if rows := sweepPhysicalRows(seriesOf(sw)); len(rows) > 0 {
		sw, iw := len("series"), len("item")
		for _, r := range rows {
			sw, iw = max(sw, len(r[0])), max(iw, len(r[2]))
		}
		fmt.Fprintln(w, "\nphysical storage after the runs (median over runs)")
		fmt.Fprintf(w, "%-*s %7s %-*s %-12s %10s %12s %10s\n", sw, "series", "clients", iw, "item", "kind", "size", "leaf density", "leaf frag.")
		for _, r := range rows {
			fmt.Fprintf(w, "%-*s %7s %-*s %-12s %10s %12s %10s\n", sw, r[0], r[1], iw, r[2], r[3], r[4], r[5], r[6])
		}
	}
	fmt.Fprintln(w)
	if hasVary {
		for _, f := range sw.Fits {
			fmt.Fprintf(w, "USL %s: %s\n", varyCell(f.Vary), uslLine(f.USL, f.USLError))
		}
	} else {
		fmt.Fprintf(w, "USL: %s\n", uslLine(sw.USL, sw.USLError))
	}
	switch {
	case sw.Caveats == nil: // analysed before caveats existed
	case len(sw.Caveats) == 0:
		fmt.Fprintln(w, "caveats: none (fit, efficiency, repeats and rounds checked)")
	default:
		fmt.Fprintln(w, "caveats (what this analysis cannot vouch for):")
		for _, c := range sw.Caveats {
			fmt.Fprintf(w, "  ! %s\n", c.Text)
		}
	}
}

// ciClippedNote explains the "≤0" of an interval cut at zero.
const ciClippedNote = "≤0: the interval reached below zero and was cut there (throughput cannot be negative); the repeats are too few or too far apart to bound it"

// ciLow is the low end of a point's interval, "≤0" when it was cut at
// zero, so that the 0 does not read as a measured value.
func ciLow(p results.SweepPoint, format func(float64) string) string {
	if p.TPSCILowClipped {
		return "≤0"
	}
	return format(p.TPSCILow)
}

// seriesTable prints a sweep's series side by side at each client count:
// B against A, which differs from it in one swept flag, with compare's
// verdict on the total throughput.
func seriesTable(w io.Writer, cs []results.SeriesComparison) {
	if len(cs) == 0 {
		return
	}
	aw, bw := 1, 1
	for _, c := range cs {
		aw, bw = max(aw, len(varyCell(c.A))), max(bw, len(varyCell(c.B)))
	}
	fmt.Fprintln(w, "\nseries side by side: B against A at each client count (tps change (B-A)/A, 95% interval, compare's verdict)")
	fmt.Fprintf(w, "%7s %-*s %-*s %10s %10s %8s %19s %8s  %s\n", "clients", aw, "A", bw, "B", "tps_a", "tps_b", "tps", "95% CI", "p99", "verdict")
	methods := map[string]bool{}
	for _, c := range cs {
		o := c.Total()
		if o == nil {
			continue
		}
		methods[c.Method] = true
		ci := "-"
		if o.TPSCILowPct != nil && o.TPSCIHighPct != nil {
			ci = fmt.Sprintf("[%+.1f%%, %+.1f%%]", *o.TPSCILowPct, *o.TPSCIHighPct)
		}
		fmt.Fprintf(w, "%7d %-*s %-*s %10.1f %10.1f %8s %19s %8s  %s\n", c.Clients, aw, varyCell(c.A), bw, varyCell(c.B), o.TPSA, o.TPSB,
			optCell(o.TPSDeltaPct, "%+.1f%%"), ci, optCell(o.P99DeltaPct, "%+.1f%%"), o.Verdict)
		if c.Note != "" {
			fmt.Fprintf(w, "%7s note: %s\n", "", c.Note)
		}
	}
	ms := make([]string, 0, len(methods))
	for m := range methods {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	fmt.Fprintf(w, "interval over %s, as `compare` computes it (docs/sweep-json.md)\n", strings.Join(ms, ", "))
}

func ciTag(method string) string {
	switch method {
	case "repeats":
		return "(r)"
	case "repeats-t":
		return "(t)"
	}
	return "(i)"
}

func uslLine(u *results.USLModel, why string) string {
	if u == nil {
		return "no fit: " + why
	}
	if u.Poor() {
		return fmt.Sprintf("poor fit (R^2 %.4f, under %.2f): no peak or ceiling stated  (sigma %.4g, kappa %.4g, lambda %s tps, %d runs)",
			u.R2, results.USLMinR2, u.Sigma, u.Kappa, numfmt.Figure(u.Lambda), u.Points)
	}
	s := fmt.Sprintf("sigma %.4g (contention)  kappa %.4g (coherency)  ", u.Sigma, u.Kappa)
	if u.PeakClients != nil && u.PeakExtrapolated {
		s += fmt.Sprintf("peak not stated: at %.1f clients it lies beyond the clients measured", *u.PeakClients)
	} else if u.PeakClients != nil {
		s += fmt.Sprintf("peak %.1f clients at %s tps", *u.PeakClients, numfmt.Figure(*u.PeakTPS))
	} else if u.AsymptoteTPS != nil {
		s += fmt.Sprintf("no peak: throughput approaches %s tps", numfmt.Figure(*u.AsymptoteTPS))
	} else {
		s += "no peak: linear scaling"
	}
	return s + fmt.Sprintf("  R^2 %.4f  (lambda %s tps, %d runs)", u.R2, numfmt.Figure(u.Lambda), u.Points)
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// ComparisonTable prints a comparison of B against A.
func ComparisonTable(w io.Writer, c *results.Comparison) {
	fmt.Fprintf(w, "A: %s\nB: %s\n", c.A.Side(), c.B.Side())
	wn := c.WorkloadsNote()
	if wn != "" {
		fmt.Fprintf(w, "WARNING: %s (compared with --force)\n", wn)
	}
	fmt.Fprintf(w, "tps, p50..max: change (B-A)/A; verdict on throughput from its %.0f%% interval (over %s)\n", c.Level*100, c.Method)
	sweep := c.A.Kind == "sweep"
	lead := fmt.Sprintf("%-16s", "transaction")
	if sweep {
		lead = fmt.Sprintf("%-22s %-16s", "point", "transaction")
	}
	fmt.Fprintf(w, "%s %10s %10s %8s %19s %8s %8s %8s %8s  %s\n", lead, "tps_a", "tps_b", "tps", "95% CI", "p50", "p95", "p99", "max", "verdict")
	for _, o := range c.Ops {
		l := fmt.Sprintf("%-16s", o.Name)
		if sweep {
			p := fmt.Sprintf("clients=%d", o.Clients)
			if len(o.Vary) > 0 {
				p += " " + varyCell(o.Vary)
			}
			l = fmt.Sprintf("%-22s %-16s", p, o.Name)
		}
		ci := "-"
		if o.TPSCILowPct != nil && o.TPSCIHighPct != nil {
			ci = fmt.Sprintf("[%+.1f%%, %+.1f%%]", *o.TPSCILowPct, *o.TPSCIHighPct)
		}
		ta, tb := sidesTPS(o, func(v float64) string { return fmt.Sprintf("%.1f", v) })
		fmt.Fprintf(w, "%s %10s %10s %8s %19s %8s %8s %8s %8s  %s\n", l, ta, tb, optCell(o.TPSDeltaPct, "%+.1f%%"), ci,
			pctCell(o.LatencyDeltaPct, "p50"), pctCell(o.LatencyDeltaPct, "p95"), pctCell(o.LatencyDeltaPct, "p99"),
			pctCell(o.LatencyDeltaPct, "max"), o.Verdict)
	}
	if ft, ok := figuresTable(c); ok {
		widths := make([]int, len(ft.Head))
		for _, r := range append([][]string{ft.Head}, ft.Rows...) {
			for i, v := range r {
				widths[i] = max(widths[i], len([]rune(v)))
			}
		}
		fmt.Fprintf(w, "\n%s:\n", ft.Caption)
		for _, r := range append([][]string{ft.Head}, ft.Rows...) {
			fmt.Fprintf(w, "  %-*s", widths[0], r[0])
			for i := 1; i < len(r)-1; i++ {
				fmt.Fprintf(w, "  %*s", widths[i], r[i])
			}
			fmt.Fprintf(w, "  %s\n", r[len(r)-1])
		}
		fmt.Fprintln(w)
	}
	for _, n := range c.Notes {
		if n != wn {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	if d := c.ServerCPUDifferences; d != nil {
		defer diffLines(w, "server CPU (self time)", []results.ServerCPUDiff{*d})
	}
	defer diffLines(w, "physical (after each run)", c.PhysicalDifferences)
	defer diffLines(w, "plan differences", c.PlanDifferences)
	if len(c.ConfigDifferences) == 0 {
		fmt.Fprintln(w, "\nconfiguration: no differences")
		return
	}
	kw := 3
	for _, d := range c.ConfigDifferences {
		kw = max(kw, len(d.Key))
	}
	for _, g := range diffGroups(c.ConfigDifferences) {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		fmt.Fprintf(w, "  %-*s  %-24s  %s\n", kw, "key", "A", "B")
		for _, d := range g.diffs {
			fmt.Fprintf(w, "  %-*s  %-24s  %s\n", kw, d.Key, d.A, d.B)
		}
	}
}

// diffGroup is the configuration differences of one group, with a title.
type diffGroup struct {
	title, intro string
	diffs        []results.ConfigDiff
}

// diffGroups splits configuration differences into their groups, in
// order: the data and the engine, the configuration, what is expected to
// differ. Differences of comparisons made before groups existed count as
// configuration.
func diffGroups(ds []results.ConfigDiff) []diffGroup {
	groups := []diffGroup{
		{title: "data and engine differences", intro: "The data the runs ran on, and the engine and its version: these decide throughput more than anything else, so a difference here is the first confounder to rule out."},
		{title: "host differences", intro: "How much of the host's CPU other processes took during the measured phase: above 5% they took enough to move the figures, so a difference here is a confounder."},
		{title: "configuration differences", intro: "Configuration items that differ between A and B: a difference not meant to be tested is a confounder."},
		{title: "expected to differ", intro: "Items that differ between any two runs and are no confounder: each run draws its own random seed."},
	}
	for _, d := range ds {
		i := 2
		switch d.Group {
		case results.DiffGroupData:
			i = 0
		case results.DiffGroupHost:
			i = 1
		case results.DiffGroupExpected:
			i = 3
		}
		groups[i].diffs = append(groups[i].diffs, d)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.diffs) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// liner is a difference between two runs that writes itself as lines.
type liner interface{ Lines() []string }

// diffLines prints a titled list of differences between the runs: the
// statements whose plans differ, the tables and indexes.
func diffLines[T liner](w io.Writer, title string, ds []T) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, d := range ds {
		for _, l := range d.Lines() {
			fmt.Fprintf(w, "  %s\n", clip(l, 160))
		}
	}
}

func pctCell(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

// sidesTPS writes the throughput of A and B for a comparison's row with
// f; a side that did not run the transaction type has no figure ("-"),
// not 0.
func sidesTPS(o results.CompareOp, f func(float64) string) (a, b string) {
	a, b = f(o.TPSA), f(o.TPSB)
	switch o.OnlyIn {
	case "A":
		b = "-"
	case "B":
		a = "-"
	}
	return a, b
}

// sweepHasWorkers reports whether any point's runs measured their plans'
// parallel workers.
func sweepHasWorkers(points []results.SweepPoint) bool {
	for _, p := range points {
		if p.Workers != nil {
			return true
		}
	}
	return false
}

// workersCell is a point's parallel workers as planned/launched.
func workersCell(w *results.SweepWorkers) string {
	if w == nil {
		return "-"
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(w.Planned) + "/" + f(w.Launched)
}
