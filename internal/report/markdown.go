package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/results"
)

// RunMarkdown writes a compact summary of a run for a pull request or a
// ticket: one line of context, the per-operation table, the errors and
// the command line.
func RunMarkdown(w io.Writer, r *results.Run) error {
	s := r.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "### dbharness run `%s`%s: %s on %s %s\n\n", mdCode(r.RunID), mdLabel(r.Label), mdText(r.Name()), mdText(r.Engine.Engine), mdText(r.Engine.Version))
	what := fmt.Sprintf("%s measured", fmtSeconds(s.Seconds))
	if r.Config.WarmupSeconds > 0 {
		what += fmt.Sprintf(" after %s warm-up", fmtSeconds(r.Config.WarmupSeconds))
	}
	loop := "closed loop"
	if r.Config.Rate > 0 {
		loop = fmt.Sprintf("open loop at %s tps", numfmt.Figure(r.Config.Rate))
	}
	fmt.Fprintf(&b, "**%s** · %d clients · %s · %s · %s tps · %s transactions · %s errors", mdText(r.Status), r.Config.Clients,
		what, loop, numfmt.Figure(s.TPS), fmtCount(s.Transactions), fmtCount(s.Errors))
	if s.Retries > 0 {
		fmt.Fprintf(&b, " · %s retries", fmtCount(s.Retries))
	}
	if s.Reconnects > 0 {
		fmt.Fprintf(&b, " · %s reconnects", fmtCount(s.Reconnects))
	}
	b.WriteString("\n\n")
	if r.Dataset != nil {
		fmt.Fprintf(&b, "Dataset: %s\n\n", mdText(r.Dataset.Summary()))
	}
	if o := FindOutlier(r); o != nil && o.IsOutlier() {
		fmt.Fprintf(&b, "Outlier: %s\n\n", mdText(o.Sentence()))
	}
	if keys := sortedMetricKeys(s.Metrics); len(keys) > 0 {
		// The workload's own figures (NOPM, HammerDB's TPM, ...).
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %s", mdText(k), numfmt.Figure(s.Metrics[k]))
		}
		fmt.Fprintf(&b, "Figures: %s\n\n", strings.Join(parts, " · "))
	}
	for _, o := range s.Outages {
		fmt.Fprintf(&b, "Outage: %s.\n\n", mdText(o.String()))
	}
	if h := s.HostCPU; h != nil {
		fmt.Fprintf(&b, "Host CPU: %s\n\n", mdText(h.Line()))
		if h.Warning != "" {
			fmt.Fprintf(&b, "⚠ %s\n\n", mdText(h.Warning))
		}
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "Error: %s\n\n", mdText(r.Error))
	}

	keys := []string{"p50", "p95", "p99", "max"}
	b.WriteString("| transaction | count | tps | errors |")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s ms |", k)
	}
	b.WriteString("\n|---|--:|--:|--:|")
	for range keys {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	row := func(name string, count int64, tps float64, errs int64, l results.Latency) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", name, fmtCount(count), numfmt.Figure(tps), fmtCount(errs))
		for _, k := range keys {
			fmt.Fprintf(&b, " %s |", msCell(l, k))
		}
		b.WriteString("\n")
	}
	for _, o := range r.Ops {
		row(mdText(o.Name), o.Count, o.TPS, o.Errors, o.LatencyMs)
	}
	if len(r.Ops) > 1 {
		row("**total**", s.Transactions, s.TPS, s.Errors, s.LatencyMs)
	}
	b.WriteString("\n")
	if len(r.ErrorClasses) > 0 {
		b.WriteString("Errors:\n")
		for _, k := range results.SortedClasses(r.ErrorClasses) {
			fmt.Fprintf(&b, "- `%s` ×%s", mdCode(k), fmtCount(r.ErrorClasses[k]))
			if m := r.ErrorSamples[k]; m != "" {
				fmt.Fprintf(&b, ", first: `%s`", mdCode(m))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if ev := evidenceSummary(r); len(ev) > 0 {
		for _, l := range ev {
			fmt.Fprintf(&b, "- %s\n", mdText(l))
		}
		b.WriteString("\n")
	}
	serverCPUMarkdown(&b, r.ServerCPU)
	h := r.Host
	fmt.Fprintf(&b, "Host: %s, %d cores, %d MB · target `%s`\n\n", mdText(h.CPUModel), h.Cores, h.MemoryMB, mdCode(redact.String(r.Target)))
	if len(r.Command) > 0 {
		fmt.Fprintf(&b, "`%s`\n", mdCode(strings.Join(results.RedactArgs(r.Command), " ")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdLabel is a label as it follows an id in a Markdown title (results.Quoted).
func mdLabel(label string) string {
	if label == "" {
		return ""
	}
	return " " + mdText(`"`+label+`"`)
}

// mdText makes database-supplied text safe in a Markdown table cell or
// line: one line, pipes and markup characters escaped, HTML defused.
func mdText(s string) string {
	s = oneLineText(s)
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '|', '\\', '`', '*', '[', ']', '<', '>':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// mdCode makes text safe inside a single-backtick code span: one line,
// backticks replaced, pipes escaped (GitHub splits table cells on them).
func mdCode(s string) string {
	s = oneLineText(s)
	s = strings.ReplaceAll(s, "`", "'")
	return s
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 300
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return s
}

func init() {
	Register(Format{
		Name:      "markdown",
		Order:     30,
		Stdout:    true,
		Help:      "write a compact Markdown summary to FILE (- for standard output)",
		SweepHelp: "write the sweep's Markdown summary to FILE (- for standard output) at the end",
		Noun:      "a Markdown summary",
		Written:   "Markdown summary",
		Run:       toFile(func(w io.Writer, r *results.Run, _ HTMLOptions) error { return RunMarkdown(w, r) }),
		Sweep:     toFile(func(w io.Writer, sw *results.Sweep, _ HTMLOptions) error { return SweepMarkdown(w, sw) }),
		Compare:   toFile(func(w io.Writer, c *results.Comparison, _ HTMLOptions) error { return CompareMarkdown(w, c) }),
	})
}
