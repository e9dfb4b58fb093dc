package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
)

// How much of the server's CPU profile each output shows.
const (
	cpuTextFunctions = 5  // functions on the text summary's line
	cpuTextModules   = 4  // modules on it
	cpuMDRows        = 10 // functions in the Markdown table
)

// cpuFunction names a function with its module.
func cpuFunction(s results.CPUShare) string {
	return s.Symbol + " (" + s.Module + ")"
}

// cpuShares lists the first n shares as "name 12.3%".
func cpuShares(shares []results.CPUShare, n int, name func(results.CPUShare) string) string {
	var parts []string
	for i, s := range shares {
		if i >= n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", name(s), s.SelfPct))
	}
	return strings.Join(parts, ", ")
}

func cpuModule(s results.CPUShare) string { return s.Module }

// cpuHead says what the profile measured, in a phrase.
func cpuHead(c *results.ServerCPU) string {
	return fmt.Sprintf("%.2f s of CPU in %d samples over %.1f s (%s; perf itself used %.2f s of CPU)", c.CPUSeconds, c.Samples, c.Seconds, c.Method, c.PerfCPUSeconds)
}

// serverCPULines prints the profile on the text summary (and show): the
// CPU it saw, the top modules and functions by self time, or why there is
// no profile.
func serverCPULines(w io.Writer, c *results.ServerCPU) {
	switch {
	case c == nil:
	case c.Unavailable != "":
		fmt.Fprintf(w, "  server cpu: not profiled (%s)\n", c.Unavailable)
	case c.Samples == 0:
		fmt.Fprintf(w, "  server cpu: no samples in %s over %.1f s (the server used no CPU perf saw)\n", c.Processes, c.Seconds)
	default:
		fmt.Fprintf(w, "  server cpu: %s\n", cpuHead(c))
		fmt.Fprintf(w, "    by module: %s\n", cpuShares(c.Modules, cpuTextModules, cpuModule))
		fmt.Fprintf(w, "    top functions (self): %s\n", cpuShares(c.Functions, cpuTextFunctions, cpuFunction))
	}
	if c != nil && c.Unavailable == "" && c.Note != "" {
		fmt.Fprintf(w, "    note: %s\n", c.Note)
	}
}

// serverCPUSummary is the profile's line for the Markdown summary.
func serverCPUSummary(c *results.ServerCPU) string {
	switch {
	case c == nil:
		return ""
	case c.Unavailable != "":
		return "Server CPU: not profiled (" + c.Unavailable + ")"
	case c.Samples == 0:
		return "Server CPU: no samples"
	}
	line := fmt.Sprintf("Server CPU: %s; by module %s", cpuHead(c), cpuShares(c.Modules, cpuTextModules, cpuModule))
	if c.Note != "" {
		line += " (" + c.Note + ")"
	}
	return line
}

// serverCPUMarkdown writes the top functions as a Markdown table.
func serverCPUMarkdown(b *strings.Builder, c *results.ServerCPU) {
	if c == nil || len(c.Functions) == 0 {
		return
	}
	b.WriteString("| server function | module | self % | samples |\n|---|---|--:|--:|\n")
	for i, f := range c.Functions {
		if i >= cpuMDRows {
			break
		}
		fmt.Fprintf(b, "| %s | %s | %.1f | %d |\n", mdText(f.Symbol), mdText(f.Module), f.SelfPct, f.Samples)
	}
	b.WriteString("\n")
}

// serverCPUSection draws the profile in the HTML report: what was
// profiled, the modules and the functions by self time, and the flame
// graph of the call stacks.
func serverCPUSection(c *results.ServerCPU) (section, error) {
	sec := section{ID: "server-cpu", Title: "Server CPU",
		Intro: "Where the database server's processes spent their CPU during the measured phase, sampled by Linux perf on the software cpu-clock event. Self time is the share of samples in which a function (or module) was the code running; [unknown] is code perf could not name (a static function of a stripped binary, or a library without symbols)."}
	if c.Unavailable != "" {
		sec.Warnings = append(sec.Warnings, "Not profiled: "+c.Unavailable+".")
		return sec, nil
	}
	if c.Note != "" {
		sec.Warnings = append(sec.Warnings, "Partial: "+c.Note+".")
	}
	sec.Facts = []kv{{"processes", c.Processes}, {"method", c.Method}, {"measured phase", fmt.Sprintf("%.1f s", c.Seconds)},
		{"samples", fmt.Sprintf("%d (%.2f s of CPU)", c.Samples, c.CPUSeconds)},
		{"perf's own cost", fmt.Sprintf("%.2f s of CPU over the run; %.2f s to read the profile after it", c.PerfCPUSeconds, c.ReadSeconds)}}
	mods := table{Caption: "By module (self time)", Head: []string{"module", "self %", "samples"}, Num: []bool{false, true, true}}
	for _, m := range c.Modules {
		mods.Rows = append(mods.Rows, []string{m.Module, fmt.Sprintf("%.1f", m.SelfPct), fmt.Sprint(m.Samples)})
	}
	funcs := table{Caption: "Top functions (self time)", Head: []string{"function", "module", "self %", "samples"}, Num: []bool{false, false, true, true}}
	for _, f := range c.Functions {
		funcs.Rows = append(funcs.Rows, []string{f.Symbol, f.Module, fmt.Sprintf("%.1f", f.SelfPct), fmt.Sprint(f.Samples)})
	}
	sec.Tables = []table{mods, funcs}
	if len(c.Stacks) == 0 {
		return sec, nil
	}
	fg := svg.FlameGraph{Width: chartWidth, Title: "Server CPU by call stack (flame graph)"}
	for _, s := range c.Stacks {
		fg.Stacks = append(fg.Stacks, svg.FlameStack{Frames: strings.Split(s.Frames, ";"), Weight: float64(s.Samples)})
	}
	note := fmt.Sprintf("Each bar is a function in a call path, as wide as its share of the samples; callees stand on their callers, in name order (the x axis is not time). Stacks under %g%% of the samples are left out; a frame in brackets is code of that module perf could not name.", c.StacksMinPct)
	ch, err := renderChart(fg, "Server CPU flame graph", note)
	if err != nil {
		return sec, err
	}
	sec.Charts = []chart{ch}
	return sec, nil
}

// serverCPUDiffSection draws the comparison of two runs' server CPU
// profiles: the CPU per transaction, then the modules and functions whose
// share of the server's self time changed most.
func serverCPUDiffSection(d *results.ServerCPUDiff) section {
	sec := section{ID: "server-cpu-differences", Title: "Server CPU differences",
		Intro: "Where the database server spent its CPU in A and in B (--collect server-cpu on both): its CPU per transaction, and the modules and functions whose share of its self time changed most. \"not listed\" is below the shares that run's profile lists."}
	sec.Facts = []kv{{"server CPU per transaction", d.PerTx()}}
	for _, n := range d.Notes {
		sec.Warnings = append(sec.Warnings, "Partial profile, "+n+".")
	}
	pct := func(v *float64, f string) string {
		if v == nil {
			return "not listed"
		}
		return fmt.Sprintf(f, *v)
	}
	delta := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%+.1f", *v)
	}
	mods := table{Caption: "Modules", Head: []string{"module", "self % A", "self % B", "Δ pts"}, Num: []bool{false, true, true, true}}
	for _, m := range d.Modules {
		mods.Rows = append(mods.Rows, []string{m.Module, pct(m.SelfPctA, "%.1f"), pct(m.SelfPctB, "%.1f"), delta(m.DeltaPts)})
	}
	funcs := table{Caption: "Functions", Head: []string{"function", "module", "self % A", "self % B", "Δ pts"}, Num: []bool{false, false, true, true, true}}
	for _, f := range d.Functions {
		funcs.Rows = append(funcs.Rows, []string{f.Symbol, f.Module, pct(f.SelfPctA, "%.1f"), pct(f.SelfPctB, "%.1f"), delta(f.DeltaPts)})
	}
	sec.Tables = []table{mods, funcs}
	return sec
}
