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

// ioHead are the columns of a storage run's steps, in text and HTML.
var ioHead = []string{"step", "threads", "MiB/s", "MiB/s/thread", "IOPS", "rows/s", "MiB/cpu-s", "p50 ms", "p99 ms", "max ms",
	"sync p50 ms", "dev req KiB", "dev queue", "dev await ms", "dev util %"}

// ioRows are the cells of each step; columns with no value in any step
// are dropped.
func ioRows(x *results.IO) ([]string, [][]string) {
	cell := func(v float64, f string) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf(f, v)
	}
	var rows [][]string
	for _, s := range x.Steps {
		row := []string{s.Name, strconv.Itoa(s.Threads), fmt.Sprintf("%.1f", s.MiBPerS), fmt.Sprintf("%.1f", s.MiBPerSPerThread),
			cell(s.IOPS, "%.0f"), cell(s.RowsPerS, "%.0f"), cell(s.MiBPerCPUSecond, "%.0f"),
			msCell(s.LatencyMs, "p50"), msCell(s.LatencyMs, "p99"), msCell(s.LatencyMs, "max"), msCell(s.SyncMs, "p50")}
		if d := s.Disk; d != nil {
			row = append(row, fmt.Sprintf("%.1f", d.AvgRequestKB), fmt.Sprintf("%.2f", d.AvgQueue), fmt.Sprintf("%.3f", d.AwaitMs), fmt.Sprintf("%.0f", d.UtilPct))
		} else {
			row = append(row, "-", "-", "-", "-")
		}
		rows = append(rows, row)
	}
	keep := make([]bool, len(ioHead))
	for i := range keep {
		keep[i] = i < 4
		for _, r := range rows {
			if r[i] != "-" {
				keep[i] = true
			}
		}
	}
	var head []string
	for i, h := range ioHead {
		if keep[i] {
			head = append(head, h)
		}
	}
	for j, r := range rows {
		var out []string
		for i, c := range r {
			if keep[i] {
				out = append(out, c)
			}
		}
		rows[j] = out
	}
	return head, rows
}

// ioFacts are the lines that say what was measured and what it means.
func ioFacts(x *results.IO) []kv {
	var f []kv
	if x.Dir != "" {
		where := x.Dir + " (" + x.Filesystem
		if x.Device != "" {
			where += " on " + x.Device
		}
		f = append(f, kv{"directory", where + ")"})
	}
	if x.SizeBytes > 0 {
		f = append(f, kv{map[bool]string{true: "table size", false: "working set"}[x.Pattern == "scan"], results.HumanBytes(x.SizeBytes)})
	}
	if x.Mode != "" {
		f = append(f, kv{"writes", x.Mode})
	}
	if x.Pattern == "seqwrite" {
		f = append(f, kv{"CRC32C per block", map[bool]string{true: "yes", false: "no"}[x.CRC]})
	}
	if x.Pattern != "scan" {
		f = append(f, kv{"O_DIRECT", map[bool]string{true: "yes", false: "no"}[x.Direct]})
	}
	if x.CommitCeiling > 0 {
		f = append(f, kv{"commit ceiling", fmt.Sprintf("%s commits/s for one stream (1 / median fdatasync time)", numfmt.Whole(x.CommitCeiling))})
	}
	if t := x.TPCB; t != nil {
		f = append(f, kv{"tpcb, 1 client", fmt.Sprintf("%s tps in run %s (%.0f%% of the ceiling; its data in %s, on the same device)",
			numfmt.Figure(t.TPS), t.RunID, t.OfCeilingPct, t.DataDir)})
	}
	for _, n := range x.Notes {
		f = append(f, kv{"note", n})
	}
	return f
}

// IOText prints a storage run's steps and what they mean.
func IOText(w io.Writer, r *results.Run) {
	x := r.IO
	if x == nil {
		return
	}
	fmt.Fprintf(w, "storage: %s\n", x.Pattern)
	for _, f := range ioFacts(x) {
		fmt.Fprintf(w, "  %s: %s\n", f.K, f.V)
	}
	head, rows := ioRows(x)
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = len(h)
		for _, r := range rows {
			widths[i] = max(widths[i], len(r[i]))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", widths[i], c)
			} else {
				fmt.Fprintf(&b, " %*s", widths[i], c)
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
}

// ioSection is a storage run's part of its HTML report: the steps, and
// their bandwidth and p99 latency side by side.
func ioSection(r *results.Run) (section, error) {
	x := r.IO
	sec := section{ID: "storage", Title: "Storage", Facts: ioFacts(x)}
	sec.Intro = "Each step of the pattern; its I/Os are the run's transactions (the throughput charts count I/Os per second). " +
		"MiB/cpu-s is the MiB moved per second of dbharness's own CPU time (getrusage); the dev columns are the device's counters from /proc/diskstats over the step."
	head, rows := ioRows(x)
	t := table{Head: head, Rows: rows}
	for i := range head {
		t.Num = append(t.Num, i > 0)
	}
	sec.Tables = append(sec.Tables, t)
	var cats []string
	var bw, p99 []float64
	for _, s := range x.Steps {
		cats = append(cats, s.Name)
		bw = append(bw, s.MiBPerS)
		p99 = append(p99, latencyValue(s.LatencyMs, "p99"))
	}
	if len(cats) == 0 {
		return sec, nil
	}
	charts, err := categoryBars(cats, []bars{{"Bandwidth per step", "MiB/s", bw}, {"p99 latency per step", "ms", p99}})
	sec.Charts = append(sec.Charts, charts...)
	if err != nil {
		return sec, err
	}
	return sec, nil
}

// bars are one horizontal bar chart of a value per category.
type bars struct {
	title, label string
	v            []float64
}

// categoryBars draws each of cs over the categories, leaving out a chart
// with no value at all.
func categoryBars(cats []string, cs []bars) ([]chart, error) {
	var out []chart
	for _, c := range cs {
		allNaN := true
		for _, v := range c.v {
			allNaN = allNaN && math.IsNaN(v)
		}
		if allNaN {
			continue
		}
		ch := svg.BarChart{Width: chartWidth, Title: c.title, XLabel: c.label, Categories: cats, Horizontal: true, ValueLabels: true,
			Series: []svg.BarSeries{{Name: c.label, Values: c.v}}}
		b, err := ch.Render()
		if err != nil {
			return out, fmt.Errorf("%s chart: %w", c.title, err)
		}
		out = append(out, chart{Title: c.title, SVG: template.HTML(b)})
	}
	return out, nil
}
