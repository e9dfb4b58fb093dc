package report

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
)

// Evidence sections of the run report: they appear only when the run
// carries the data (run --collect), on the same time axis as the
// throughput and latency charts.

const (
	maxServerLines  = 6  // server counters drawn in one chart
	maxWaitBars     = 15 // wait events in the profile chart
	maxWaitLayers   = 6  // wait events stacked over time (the rest is "other")
	maxPlanExamples = 3  // parameter sets named per plan or plan change
)

// evidenceSections returns a section for each collector's series (drawn
// as its layout says), then the waits and plans sections, where the run
// has data for them.
func evidenceSections(r *results.Run, bands []svg.Band, markers []svg.Marker) ([]section, error) {
	var out []section
	for _, n := range r.Collect.Names() {
		s := r.Collect.Get(n)
		if len(s.Intervals) == 0 {
			continue
		}
		title, layout := s.TitleAndLayout(n)
		draw := countersSection
		if layout == evidence.LayoutHost {
			draw = hostSection
		}
		sec, err := draw(r, n, title, s, bands, markers)
		if err != nil {
			return nil, err
		}
		out = append(out, sec)
	}
	if r.Waits != nil && (len(r.Waits.Events) > 0 || r.Waits.Unavailable != "") {
		sec, err := waitsSection(r.Waits, r.WaitsCoverage(r.Waits), bands, timeRange(r))
		if err != nil {
			return nil, err
		}
		out = append(out, sec)
	}
	if len(r.Plans) > 0 {
		out = append(out, plansSection(r.Plans, r.Config.DOP))
	}
	if r.Physical != nil {
		out = append(out, physicalSection(r.Physical))
	}
	if r.ServerCPU != nil {
		sec, err := serverCPUSection(r.ServerCPU)
		if err != nil {
			return nil, err
		}
		out = append(out, sec)
	}
	return out, nil
}

// seriesFacts describes where a collector's numbers come from, and what
// of the run they do not cover.
func seriesFacts(r *results.Run, s *evidence.Series) []kv {
	var f []kv
	if s.Side != "" {
		f = append(f, kv{"read from", s.Side})
	}
	if s.Source != "" {
		f = append(f, kv{"source", s.Source})
	}
	if s.Describes != "" {
		f = append(f, kv{"describes", s.Describes})
	}
	if s.DBLocal != nil {
		if *s.DBLocal {
			f = append(f, kv{"database on this host", "yes: the host's counters include the server's work"})
		} else {
			f = append(f, kv{"database on this host", "no: these are the client host's counters only"})
		}
	}
	for _, u := range s.Unavailable {
		f = append(f, kv{"unavailable", u})
	}
	return coverageFact(f, r.SeriesCoverage(s))
}

// coverageFact adds to f what of the measured phase a collector did not
// cover, if anything.
func coverageFact(f []kv, c results.Coverage) []kv {
	if c.Complete() {
		return f
	}
	return append(f, kv{"covered", fmt.Sprintf("%.1f s of the %.1f s measured: %s; totals and figures per transaction are over the intervals covered",
		c.Seconds, c.Of, uncovered(c))})
}

// pointSeries reads one key of a collector's points as a line: rates when
// rate is true, else values; NaN where the point lacks it.
func pointSeries(s *evidence.Series, key string, rate bool) (xs, ys []float64, any bool) {
	for _, p := range s.Intervals {
		m := p.Values
		if rate {
			m = p.Rates
		}
		v, ok := m[key]
		if !ok {
			v = math.NaN()
		} else {
			any = true
		}
		xs, ys = append(xs, p.T), append(ys, v)
	}
	return xs, ys, any
}

// keysOf lists the keys of a collector's rates (or values) seen in any point.
func keysOf(s *evidence.Series, rate bool) []string {
	seen := map[string]bool{}
	for _, p := range s.Intervals {
		m := p.Values
		if rate {
			m = p.Rates
		}
		for k := range m {
			seen[k] = true
		}
	}
	return sortedKeys(seen)
}

func lineChart(title, ylabel string, bands []svg.Band, markers []svg.Marker, xr *svg.Range) svg.LineChart {
	return svg.LineChart{Width: chartWidth, Height: chartHeight, Title: title, XLabel: "elapsed", YLabel: ylabel,
		XDuration: true, XRange: xr, Bands: bands, Markers: markers, MaxPoints: chartPoints}
}

func renderChart(ch interface{ Render() ([]byte, error) }, title, note string) (chart, error) {
	b, err := ch.Render()
	if err != nil {
		return chart{}, fmt.Errorf("%s chart: %w", strings.ToLower(title), err)
	}
	return chart{Title: title, Note: note, SVG: template.HTML(b)}, nil
}

// hostSection draws a series of LayoutHost.
func hostSection(r *results.Run, name, title string, s *evidence.Series, bands []svg.Band, markers []svg.Marker) (section, error) {
	sec := section{ID: name, Title: title, Facts: seriesFacts(r, s), ChartsFirst: true,
		Intro: "CPU, disk and memory of the host, sampled on the run's intervals (same time axis as above)."}
	c, ok, err := cpuChart(r, s, "CPU", bands, markers)
	if err != nil {
		return sec, err
	}
	if ok {
		sec.Charts = append(sec.Charts, c)
	}
	// Disk throughput and utilisation per device.
	var devs []string
	for _, k := range keysOf(s, true) {
		if strings.HasPrefix(k, "disk.") && strings.HasSuffix(k, ".read_mb") {
			devs = append(devs, strings.TrimSuffix(strings.TrimPrefix(k, "disk."), ".read_mb"))
		}
	}
	for _, k := range keysOf(s, true) {
		if strings.HasPrefix(k, "disk.") && strings.HasSuffix(k, ".write_mb") {
			d := strings.TrimSuffix(strings.TrimPrefix(k, "disk."), ".write_mb")
			if !contains(devs, d) {
				devs = append(devs, d)
			}
		}
	}
	sort.Strings(devs)
	if len(devs) > 0 {
		disk := lineChart("Disk throughput", "MB per second", bands, markers, timeRange(r))
		util := lineChart("Disk utilisation", "busy (%)", bands, markers, timeRange(r))
		util.YRange = &svg.Range{Min: 0, Max: 100}
		for i, d := range devs {
			if i >= maxSeries/2 {
				break
			}
			col := svg.PaletteColor(i)
			if x, y, ok := pointSeries(s, "disk."+d+".read_mb", true); ok {
				disk.Series = append(disk.Series, svg.Series{Name: d + " read", X: x, Y: zeroGaps(y), Color: col})
			}
			if x, y, ok := pointSeries(s, "disk."+d+".write_mb", true); ok {
				disk.Series = append(disk.Series, svg.Series{Name: d + " write", X: x, Y: zeroGaps(y), Color: col, Style: svg.StyleDashed})
			}
			if x, y, ok := pointSeries(s, "disk."+d+".util_pct", false); ok {
				util.Series = append(util.Series, svg.Series{Name: d, X: x, Y: zeroGaps(y), Color: col})
			}
		}
		c, err := renderChart(disk, "Disk throughput", "Read (solid) and written (dashed) megabytes per second, per block device.")
		if err != nil {
			return sec, err
		}
		sec.Charts = append(sec.Charts, c)
		if len(util.Series) > 0 {
			c, err := renderChart(util, "Disk utilisation", "Share of the interval the device was busy (iostat %util).")
			if err != nil {
				return sec, err
			}
			sec.Charts = append(sec.Charts, c)
		}
	}
	// Context switches and the wake-ups that crossed CPUs.
	sw := lineChart("Context switches and reschedule interrupts", "per second", bands, markers, timeRange(r))
	for i, c := range []struct{ key, name string }{{"ctxt", "context switches"}, {"resched_ipis", "reschedule interrupts"}} {
		if x, y, ok := pointSeries(s, c.key, true); ok {
			sw.Series = append(sw.Series, svg.Series{Name: c.name, X: x, Y: zeroGaps(y), Color: svg.PaletteColor(i)})
		}
	}
	if len(sw.Series) > 0 {
		c, err := renderChart(sw, "Context switches", "Context switches per second on all CPUs, and reschedule interrupts: one CPU telling another to run a task it woke there (a wake-up that crossed CPUs, as when a client and a server on one host run apart).")
		if err != nil {
			return sec, err
		}
		sec.Charts = append(sec.Charts, c)
	}
	// Run queue and memory.
	other := lineChart("Run queue and blocked processes", "processes", bands, markers, timeRange(r))
	for i, k := range []string{"run_queue", "procs_blocked"} {
		if x, y, ok := pointSeries(s, k, false); ok {
			other.Series = append(other.Series, svg.Series{Name: k, X: x, Y: y, Color: svg.PaletteColor(i)})
		}
	}
	if len(other.Series) > 0 {
		c, err := renderChart(other, "Run queue", fmt.Sprintf("Runnable and blocked processes; the host has %d cores.", r.Host.Cores))
		if err != nil {
			return sec, err
		}
		sec.Charts = append(sec.Charts, c)
	}
	if t, ok := totalsTable("Increases over the measured phase", s.Totals, r.SeriesCoverage(s).Transactions, func(k string) bool {
		return !strings.HasPrefix(k, "cpu") || strings.HasPrefix(k, "cpu.")
	}); ok {
		sec.Tables = append(sec.Tables, t)
	}
	return sec, nil
}

// cpuChart draws a host series' CPU split, stacked to 100 %, titled
// title; false when the series has no CPU figures.
func cpuChart(r *results.Run, s *evidence.Series, title string, bands []svg.Band, markers []svg.Marker) (chart, bool, error) {
	var xs []float64
	for _, p := range s.Intervals {
		xs = append(xs, p.T)
	}
	cpu := svg.StackedArea{Width: chartWidth, Height: chartHeight, Title: title, XLabel: "elapsed", YLabel: "share of CPU time",
		X: xs, Percent: true, XDuration: true, XRange: timeRange(r), Bands: bands, Markers: markers}
	for _, part := range []struct{ key, name, color string }{
		{"user", "user", "#004488"}, {"system", "system", "#BB5566"}, {"iowait", "iowait", "#DDAA33"},
		{"steal", "steal", "#555555"}, {"idle", "idle", "#E8E8E8"}} {
		_, ys, ok := pointSeries(s, "cpu."+part.key+"_pct", false)
		if !ok {
			continue
		}
		// A share missing where the interval has CPU figures is zero (the
		// collector leaves out steal when there is none); a NaN would
		// blank the whole stack at that time.
		for i, p := range s.Intervals {
			if _, has := p.Values["cpu.user_pct"]; has && math.IsNaN(ys[i]) {
				ys[i] = 0
			}
		}
		cpu.Series = append(cpu.Series, svg.StackSeries{Name: part.name, Values: ys, Color: part.color})
	}
	if len(cpu.Series) == 0 {
		return chart{}, false, nil
	}
	c, err := renderChart(cpu, title, "All CPUs together: user (with nice), system (with irq and softirq), iowait, steal and idle.")
	return c, err == nil, err
}

// zeroGaps treats a missing rate as zero: collectors drop rates that stay
// zero, so a hole means nothing happened.
func zeroGaps(ys []float64) []float64 {
	out := make([]float64, len(ys))
	for i, v := range ys {
		if math.IsNaN(v) {
			v = 0
		}
		out[i] = v
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// totalsTable lists counter increases over the measured phase with their
// amount per transaction.
func totalsTable(caption string, totals map[string]float64, txns int64, keep func(string) bool) (table, bool) {
	t := table{Caption: caption, Head: []string{"counter", "total", "per transaction"}, Num: []bool{false, true, true}}
	for _, k := range sortedKeys(totals) {
		if !keep(k) {
			continue
		}
		per := "-"
		if txns > 0 {
			per = numfmt.Figure(totals[k] / float64(txns))
		}
		t.Rows = append(t.Rows, []string{counterLabel(k), numfmt.Figure(totals[k]), per})
	}
	return t, len(t.Rows) > 0
}

// counterLabel names a counter with its unit where the name alone does not
// say it: PostgreSQL's and InnoDB's *_time counters are milliseconds
// (active_time, blk_read_time, Innodb_row_lock_time).
func counterLabel(k string) string {
	if strings.HasSuffix(strings.ToLower(k), "_time") {
		return k + " (ms)"
	}
	return k
}

// serverRank ranks the counters the series puts first (its priority);
// the rest follow by their mean rate.
func serverRank(priority []string, k string) int {
	for i, p := range priority {
		if strings.HasSuffix(k, p) {
			return i
		}
	}
	return len(priority)
}

// countersSection draws a series of LayoutCounters.
func countersSection(r *results.Run, name, title string, s *evidence.Series, bands []svg.Band, markers []svg.Marker) (section, error) {
	sec := section{ID: name, Title: title, Facts: seriesFacts(r, s), ChartsFirst: true,
		Intro: title + " per second on the run's intervals, on a log scale (their magnitudes differ); every counter is in the table and the run JSON."}
	keys := keysOf(s, true)
	mean := map[string]float64{}
	for _, k := range keys {
		_, ys, _ := pointSeries(s, k, true)
		n, sum := 0.0, 0.0
		for _, v := range ys {
			if !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n > 0 {
			mean[k] = sum / n
		}
	}
	priority := s.PriorityOf(name)
	sort.SliceStable(keys, func(i, j int) bool {
		ri, rj := serverRank(priority, keys[i]), serverRank(priority, keys[j])
		if ri != rj {
			return ri < rj
		}
		return mean[keys[i]] > mean[keys[j]]
	})
	if len(keys) > 0 {
		ch := lineChart("Server counters", "per second (log scale)", bands, markers, timeRange(r))
		ch.YLog = true
		for i, k := range keys {
			if i >= maxServerLines {
				break
			}
			x, y, _ := pointSeries(s, k, true)
			ch.Series = append(ch.Series, svg.Series{Name: counterLabel(k), X: x, Y: y, Color: svg.PaletteColor(i)})
		}
		c, err := renderChart(ch, "Server counters", fmt.Sprintf("The %d leading of %d counters that moved.", min(len(keys), maxServerLines), len(keys)))
		if err != nil {
			return sec, err
		}
		sec.Charts = append(sec.Charts, c)
	}
	var pcts []string
	for _, k := range keysOf(s, false) {
		if strings.HasSuffix(k, "_pct") {
			pcts = append(pcts, k)
		}
	}
	if len(pcts) > 0 {
		ch := lineChart("Server ratios", "percent", bands, markers, timeRange(r))
		ch.YTight = true
		for i, k := range pcts {
			if i >= maxSeries {
				break
			}
			x, y, _ := pointSeries(s, k, false)
			ch.Series = append(ch.Series, svg.Series{Name: k, X: x, Y: y, Color: svg.PaletteColor(i)})
		}
		c, err := renderChart(ch, "Server ratios", "Derived percentages such as the buffer cache hit ratio.")
		if err != nil {
			return sec, err
		}
		sec.Charts = append(sec.Charts, c)
	}
	if t, ok := totalsTable("Increases over the measured phase", s.Totals, r.SeriesCoverage(s).Transactions, func(string) bool { return true }); ok {
		sec.Tables = append(sec.Tables, t)
	}
	return sec, nil
}

func waitsSection(w *results.Waits, cov results.Coverage, bands []svg.Band, xr *svg.Range) (section, error) {
	sec := section{ID: "waits", Title: "Wait profile", ChartsFirst: true}
	if w.Side != "" {
		sec.Facts = append(sec.Facts, kv{"read from", w.Side})
	}
	if w.Method != "" {
		sec.Facts = append(sec.Facts, kv{"method", w.Method})
	}
	if w.Total > 0 {
		sec.Facts = append(sec.Facts, kv{"measured", numfmt.Figure(w.Total) + " " + w.Unit})
	}
	if w.Unavailable != "" {
		sec.Facts = append(sec.Facts, kv{"unavailable", w.Unavailable})
	} else if len(w.Intervals) > 0 {
		sec.Facts = coverageFact(sec.Facts, cov)
	}
	sec.Facts = blockerFacts(sec.Facts, w)
	if len(w.Events) == 0 {
		sec.Intro = "No wait profile."
		return sec, nil
	}
	sec.Intro = "Where the harness's sessions spent their time in the measured phase: \"CPU\" is an active session not waiting."
	events := w.Events
	if len(events) > maxWaitBars {
		events = events[:maxWaitBars]
	}
	cats := make([]string, len(events))
	vals := make([]float64, len(events))
	for i, e := range events {
		cats[i], vals[i] = e.Event, 100*e.Share
	}
	bar := svg.BarChart{Width: chartWidth, Title: "Wait events", XLabel: "share of " + orDefault(w.Unit, "time") + " (%)", Categories: cats,
		Horizontal: true, ValueLabels: true, ValueFormat: func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
		AxisFormat: func(v float64) string { return fmt.Sprintf("%g%%", v) },
		Series:     []svg.BarSeries{{Name: "share", Values: vals, Color: "#004488"}}}
	note := ""
	if len(w.Events) > maxWaitBars {
		note = fmt.Sprintf("The %d largest of %d events.", maxWaitBars, len(w.Events))
	}
	c, err := renderChart(bar, "Wait events", note)
	if err != nil {
		return sec, err
	}
	sec.Charts = append(sec.Charts, c)

	if len(w.Intervals) > 1 {
		top := []string{}
		for _, e := range w.Events {
			if len(top) >= maxWaitLayers {
				break
			}
			top = append(top, e.Event)
		}
		var xs []float64
		layers := make([][]float64, len(top)+1)
		for _, iv := range w.Intervals {
			xs = append(xs, iv.T)
			rest := 1.0
			for i, e := range top {
				v := iv.Shares[e]
				layers[i] = append(layers[i], v)
				rest -= v
			}
			layers[len(top)] = append(layers[len(top)], math.Max(rest, 0))
		}
		st := svg.StackedArea{Width: chartWidth, Height: chartHeight, Title: "Wait events over time", XLabel: "elapsed", YLabel: "share",
			X: xs, Percent: true, XDuration: true, XRange: xr, Bands: bands}
		for i, e := range top {
			st.Series = append(st.Series, svg.StackSeries{Name: e, Values: layers[i]})
		}
		st.Series = append(st.Series, svg.StackSeries{Name: "other", Values: layers[len(top)], Color: "#DDDDDD"})
		c, err := renderChart(st, "Wait events over time", "")
		if err != nil {
			return sec, err
		}
		sec.Charts = append(sec.Charts, c)
	}
	t := table{Caption: "All events", Head: []string{"event", "share", w.Unit}, Num: []bool{false, true, true}}
	for _, e := range w.Events {
		t.Rows = append(t.Rows, []string{e.Event, fmt.Sprintf("%.1f%%", 100*e.Share), numfmt.Figure(e.Weight)})
	}
	sec.Tables = append(sec.Tables, t)
	return sec, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// paramList formats a parameter set: "aid=1, bid=2", sorted.
func paramList(m map[string]any) string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func plansSection(plans []results.StatementPlans, dop int) section {
	sec := section{ID: "plans", Title: "Plans",
		Intro: "The plans of the workload's statements over sampled parameter values, before the run and after it, and on PostgreSQL the prepared statement's generic plan and the parallel workers one EXPLAIN ANALYZE of each statement planned and launched. A flag marks a statement whose plan depends on its parameters, whose generic plan differs from a sampled value's plan, or whose plan changed during the run."}
	if after := results.PlansAfterFailed(plans); after != "" {
		sec.Facts = append(sec.Facts, kv{"after the run", "not checked (" + after + "): whether a plan changed during the run is unknown"})
	}
	if dop > 0 {
		sec.Facts = append(sec.Facts, kv{"degree of parallelism", fmt.Sprintf("--dop %d: at most %d processes per query, leader included", dop, dop)})
	}
	t := table{Head: []string{"statement", "plans", "flags", "parallel workers", "note"}, Num: []bool{false, true, false, false, false}}
	for _, p := range plans {
		flags := strings.Join(p.Flags, ", ")
		if flags == "" {
			flags = "-"
		}
		workers := "-"
		if p.Workers != nil {
			workers = workersText(p.Workers)
		}
		t.Rows = append(t.Rows, []string{p.Statement, fmt.Sprintf("%d", len(p.Plans)), flags, workers, p.Error})
		if len(p.Flags) > 0 {
			t.RowClass = append(t.RowClass, "flagged")
		} else {
			t.RowClass = append(t.RowClass, "")
		}
	}
	sec.Tables = append(sec.Tables, t)
	for _, p := range plans {
		if len(p.Plans) == 0 && p.Error == "" {
			continue
		}
		if p.SQL != "" {
			sec.Pre = append(sec.Pre, preBlock{Caption: p.Statement, Text: p.SQL})
		}
		for i, v := range p.Plans {
			caption := fmt.Sprintf("%s: plan %d of %d (%s), %d sampled parameter sets", p.Statement, i+1, len(p.Plans), v.Fingerprint, v.Count)
			var ex []string
			for i, e := range v.Examples {
				if i >= maxPlanExamples {
					ex = append(ex, "…")
					break
				}
				ex = append(ex, e.Draw+": "+paramList(e.Params))
			}
			if len(ex) > 0 {
				caption += "; e.g. " + strings.Join(ex, "; ")
			}
			sec.Pre = append(sec.Pre, preBlock{Caption: caption, Text: v.Shape})
		}
		if g := p.Generic; g != nil {
			caption := fmt.Sprintf("%s: generic plan (%s), the prepared statement's plan for any values; %s", p.Statement, g.Fingerprint, genericNote(g))
			sec.Pre = append(sec.Pre, preBlock{Caption: caption, Text: g.Shape})
		}
		// One block per distinct change, listing the parameter sets.
		type change struct{ before, after, shape string }
		var order []change
		params := map[change][]string{}
		for _, c := range p.Changed {
			k := change{c.Before, c.After, c.AfterShape}
			if _, ok := params[k]; !ok {
				order = append(order, k)
			}
			params[k] = append(params[k], paramList(c.Params))
		}
		for _, k := range order {
			ps := params[k]
			shown := ps
			if len(shown) > maxPlanExamples {
				shown = append(append([]string{}, ps[:maxPlanExamples]...), "…")
			}
			sec.Pre = append(sec.Pre, preBlock{Caption: fmt.Sprintf("%s: plan changed during the run, %s, for %d sampled parameter sets, e.g. %s",
				p.Statement, planChangeOutline(p, results.PlanChange{Before: k.before, After: k.after, AfterShape: k.shape}), len(ps), strings.Join(shown, "; ")), Text: k.shape})
		}
	}
	return sec
}

// measuredMean is the mean of one value (or rate) of a collector over the
// measured phase.
func measuredMean(s *evidence.Series, key string, rate bool) (float64, bool) {
	sum, n := 0.0, 0
	for _, p := range s.Intervals {
		if p.Phase == "warmup" {
			continue
		}
		m := p.Values
		if rate {
			m = p.Rates
		}
		if v, ok := m[key]; ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// evidenceSummary is one line per kind of evidence, for Markdown.
func evidenceSummary(r *results.Run) []string {
	var out []string
	for _, n := range r.Collect.Names() {
		s := r.Collect.Get(n)
		if layoutOf(n, s) != evidence.LayoutHost {
			continue
		}
		var parts []string
		for _, k := range []string{"user", "system", "iowait", "idle"} {
			if v, ok := measuredMean(s, "cpu."+k+"_pct", false); ok {
				parts = append(parts, fmt.Sprintf("%s %.0f%%", k, v))
			}
		}
		if len(parts) > 0 {
			out = append(out, "CPU (mean over the measured phase): "+strings.Join(parts, ", "))
		}
	}
	if r.Waits != nil && len(r.Waits.Events) > 0 {
		var parts []string
		for i, e := range r.Waits.Events {
			if i >= 3 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s %.0f%%", e.Event, 100*e.Share))
		}
		out = append(out, "Top waits: "+strings.Join(parts, ", "))
	}
	var flagged []string
	for _, p := range r.Plans {
		if len(p.Flags) > 0 {
			flagged = append(flagged, p.Statement+" ("+strings.Join(p.Flags, ", ")+")")
		}
	}
	if len(flagged) > 0 {
		out = append(out, "Plan flags: "+strings.Join(flagged, "; "))
	} else if len(r.Plans) > 0 && results.PlansAfterFailed(r.Plans) == "" {
		out = append(out, fmt.Sprintf("Plans: %s checked, none flagged", plural(len(r.Plans), "statement")))
	}
	if l := serverCPUSummary(r.ServerCPU); l != "" {
		out = append(out, l)
	}
	if after := results.PlansAfterFailed(r.Plans); after != "" {
		out = append(out, "Plans after the run: not checked ("+after+"): whether a plan changed during the run is unknown")
	}
	out = append(out, physicalSummary(r.Physical)...)
	for _, n := range r.Collect.Names() {
		if s := r.Collect.Get(n); len(s.Intervals) > 0 || len(s.Gaps) > 0 {
			if c := r.SeriesCoverage(s); !c.Complete() {
				out = append(out, fmt.Sprintf("%s evidence covers %.1f s of %.1f s: %s", n, c.Seconds, c.Of, uncovered(c)))
			}
		}
	}
	return out
}
