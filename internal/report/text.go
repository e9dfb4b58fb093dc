// Package report turns runs into text, JSON and other outputs. It never
// queries the target database.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
)

// Progress prints one fixed-width line per interval, with the header
// repeated every 20 lines.
type Progress struct {
	W     io.Writer
	Rate  bool // show schedule lag
	lines int
}

// HeaderEvery is how often the progress header is repeated.
const HeaderEvery = 20

// Line prints one interval.
func (p *Progress) Line(iv *results.Interval) {
	if p.lines%HeaderEvery == 0 {
		h := fmt.Sprintf("%8s %-7s %9s %9s %8s %8s %8s %9s %7s %7s", "elapsed", "phase", "tps", "cum_tps",
			"p50_ms", "p95_ms", "p99_ms", "max_ms", "errors", "retries")
		if p.Rate {
			h += fmt.Sprintf(" %9s", "lag_ms")
		}
		fmt.Fprintln(p.W, h)
	}
	p.lines++
	l := iv.LatencyMs
	line := fmt.Sprintf("%7.1fs %-7s %9.1f %9.1f %8s %8s %8s %9s %7d %7d", iv.T, iv.Phase, iv.TPS, iv.CumulativeTPS,
		msCell(l, "p50"), msCell(l, "p95"), msCell(l, "p99"), msCell(l, "max"), iv.Errors, iv.Retries)
	if p.Rate {
		line += fmt.Sprintf(" %9s", msCell(iv.LagMs, "max"))
	}
	var notes []string
	if iv.Reconnects > 0 {
		notes = append(notes, fmt.Sprintf("%d reconnected", iv.Reconnects))
	}
	if iv.Down > 0 {
		notes = append(notes, fmt.Sprintf("%d clients down", iv.Down))
	}
	if iv.Waiting > 0 {
		notes = append(notes, fmt.Sprintf("%d waiting", iv.Waiting))
	}
	for _, k := range results.SortedClasses(iv.ErrorClasses) {
		notes = append(notes, fmt.Sprintf("%s x%d", k, iv.ErrorClasses[k]))
	}
	if len(notes) > 0 {
		line += "  [" + strings.Join(notes, ", ") + "]"
	}
	fmt.Fprintln(p.W, line)
}

func msCell(l results.Latency, k string) string {
	v, ok := l[k]
	if !ok {
		return "-"
	}
	return fmtMs(v)
}

func fmtMs(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

// TextOptions say how much of a run the text summary prints.
type TextOptions struct {
	// Verbose prints it whole: every row of the physical table, not only
	// those that changed notably, and the harness's driver in full (its
	// loops' CPUs, connection moves, CPU seconds, the host's idle share).
	Verbose bool
}

// Summary prints the end-of-run summary: the run line and a table per
// transaction type, without what only --verbose prints.
func Summary(w io.Writer, r *results.Run) { SummaryWith(w, r, TextOptions{}) }

// SummaryWith prints the end-of-run summary as opt says.
func SummaryWith(w io.Writer, r *results.Run, opt TextOptions) {
	s := r.Summary
	fmt.Fprintf(w, "\nrun %s%s  %s  workload %s  engine %s %s  clients %d  status %s\n", r.RunID, results.Quoted(r.Label),
		r.StartTime.Local().Format("2006-01-02 15:04:05"), r.Name(), r.Engine.Engine, r.Engine.Version, r.Config.Clients, r.Status)
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	if r.Dataset != nil {
		fmt.Fprintf(w, "dataset: %s\n", r.Dataset.Summary())
	}
	if l := r.Engine.TLSLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "measured %.1fs: %s transactions, %s tps, %d errors, %d retries", s.Seconds, numfmt.Group(strconv.FormatInt(int64(s.Transactions), 10)), numfmt.Figure(s.TPS), s.Errors, s.Retries)
	if s.Reconnects > 0 {
		fmt.Fprintf(w, ", %d reconnects", s.Reconnects)
	}
	if r.Config.LatencyLimitMs > 0 {
		fmt.Fprintf(w, ", %d over the latency limit", s.Late)
	}
	fmt.Fprintln(w)
	if s.Transactions == 0 && s.Errors > 0 {
		fmt.Fprintf(w, "no transaction succeeded: all %d failed; see the errors by class below\n", s.Errors)
	}
	for _, o := range s.Outages {
		fmt.Fprintf(w, "outage: %s (the throughput includes it)\n", o)
	}
	if s.AbandonedClients > 0 {
		fmt.Fprintf(w, "%d clients were still waiting for the server when the run ended: their statements could not be cancelled\n", s.AbandonedClients)
	}
	costLine(w, r, opt.Verbose)
	if sh := r.Shard; sh != nil {
		if x := lateStartWarning("this shard", sh.FirstTxLateMs, r.Config.IntervalSeconds); x != "" {
			fmt.Fprintln(w, "warning: "+x)
		}
	}
	hostCPULine(w, r.Summary.HostCPU)
	if len(r.Warmup) > 0 {
		var n, errs int64
		for _, o := range r.Warmup {
			n, errs = n+o.Count, errs+o.Errors
		}
		fmt.Fprintf(w, "warm-up %.1fs (not in the figures below): %d transactions, %d errors\n", r.Config.WarmupSeconds, n, errs)
	}
	if n := len(r.ClientSeconds); n > 0 {
		lo, hi := r.ClientSeconds[0], r.ClientSeconds[0]
		for _, v := range r.ClientSeconds {
			lo, hi = min(lo, v), max(hi, v)
		}
		fmt.Fprintf(w, "fixed work: %d clients finished between %.3fs and %.3fs (spread %.3fs; the slowest client sets the elapsed time)\n", n, lo, hi, hi-lo)
		if n <= maxClientTimes {
			parts := make([]string, n)
			for i, v := range r.ClientSeconds {
				parts[i] = fmt.Sprintf("%.3f", v)
			}
			fmt.Fprintf(w, "client seconds: %s\n", strings.Join(parts, " "))
		}
	}
	if len(s.LagMs) > 0 {
		fmt.Fprintf(w, "schedule lag (ms): p50 %s  p99 %s  max %s\n", msCell(s.LagMs, "p50"), msCell(s.LagMs, "p99"), msCell(s.LagMs, "max"))
	}
	if rate := r.Config.Rate; rate > 0 {
		// A server that cannot keep up leaves scheduled transactions
		// unstarted: the achieved rate says how far it fell behind.
		fmt.Fprintf(w, "open loop: target %s tps, achieved %s tps (%.0f%%)\n", numfmt.Figure(rate), numfmt.Figure(s.TPS), 100*s.TPS/rate)
	}
	for _, k := range sortedMetricKeys(s.Metrics) {
		fmt.Fprintf(w, "%s: %s%s\n", k, fmtMetric(s.Metrics[k]), metricLabel(s, k))
	}
	cols := []string{}
	for _, p := range r.Config.Percentiles {
		cols = append(cols, results.PercentileKey(p))
	}
	cols = append(cols, "max")
	head := fmt.Sprintf("%-16s %10s %10s %7s %7s", "transaction", "count", "tps", "errors", "retries")
	for _, c := range cols {
		head += fmt.Sprintf(" %9s", c+"_ms")
	}
	fmt.Fprintln(w, head)
	row := func(name string, count int64, tps float64, errs, retries int64, l results.Latency) {
		line := fmt.Sprintf("%-16s %10d %10.1f %7d %7d", name, count, tps, errs, retries)
		for _, c := range cols {
			line += fmt.Sprintf(" %9s", msCell(l, c))
		}
		fmt.Fprintln(w, line)
	}
	for _, o := range r.Ops {
		row(o.Name, o.Count, o.TPS, o.Errors, o.Retries, o.LatencyMs)
	}
	if len(r.Ops) > 1 {
		row("total", s.Transactions, s.TPS, s.Errors, s.Retries, s.LatencyMs)
	}
	StatementsText(w, r)
	ConnectText(w, r)
	if o := FindOutlier(r); o != nil && o.IsOutlier() {
		fmt.Fprintf(w, "outlier: %s\n", o.Sentence())
	}
	if len(r.ErrorClasses) > 0 {
		var parts []string
		for _, k := range results.SortedClasses(r.ErrorClasses) {
			parts = append(parts, fmt.Sprintf("%s x%d", k, r.ErrorClasses[k]))
		}
		fmt.Fprintf(w, "errors by class: %s\n", strings.Join(parts, ", "))
		for _, k := range results.SortedClasses(r.ErrorClasses) {
			if m := r.ErrorSamples[k]; m != "" {
				fmt.Fprintf(w, "  %s, first: %s\n", k, m)
			}
		}
	}
	IOText(w, r)
	evidenceText(w, r, opt)
}

// metricLabel is a workload figure's label, in brackets after two
// spaces, or "" when the run has none.
func metricLabel(s results.Summary, k string) string {
	if l := s.MetricLabels[k]; l != "" {
		return "  (" + l + ")"
	}
	return ""
}

// maxClientTimes is the most clients whose times the summary lists one by
// one (the JSON always has them all).
const maxClientTimes = 64

// fmtMetric prints a workload figure with one decimal when large and three
// when small (seconds, bytes per row).
func fmtMetric(v float64) string {
	if v >= 100 || v <= -100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func sortedMetricKeys(m map[string]float64) []string {
	c := map[string]int64{}
	for k := range m {
		c[k] = 0
	}
	keys := results.SortedClasses(c)
	return keys
}

// WriteJSON writes v as indented JSON to path ("-" is standard output).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeOut(path, append(b, '\n'))
}

// costLine prints what the harness itself cost (principle 6: it is never the
// bottleneck, and every run shows that it was not) and warns when its host
// was saturated: in one short line (the driver and its CPU per
// transaction), or in full when verbose.
func costLine(w io.Writer, r *results.Run, verbose bool) {
	line, warnings := harnessCost(r, verbose)
	if line == "" {
		return
	}
	fmt.Fprintln(w, "harness: "+line)
	for _, x := range warnings {
		fmt.Fprintln(w, "warning: "+x)
	}
}

// hostCPULine prints how the host's CPU was shared over the measured
// phase, and the warning of a run whose other processes took enough of it
// to move its figures.
func hostCPULine(w io.Writer, h *results.HostCPU) {
	if h == nil {
		return
	}
	fmt.Fprintln(w, "host CPU: "+h.Line())
	if h.Warning != "" {
		fmt.Fprintln(w, "warning: "+h.Warning)
	}
}

// harnessCost describes the harness's driver and its own CPU, in full or
// in short, and returns warnings when its host was saturated or its event
// loop nearly so; "" for a run saved before the driver was recorded.
func harnessCost(r *results.Run, full bool) (string, []string) {
	line, warnings := hostCost(r.HostCost(), "the client host", "the event loop", saturatedBy(r.Summary.HostCPU), full)
	if r.Group != nil && line != "" {
		line += fmt.Sprintf(", its %d shard hosts together (each host's own under the shards)", len(r.Shards))
	}
	return line, warnings
}

// saturatedBy says what saturated the host, from its CPU account: of the
// other processes (when they took more than results.OthersWarnPct) and the
// database server on this host, the one that took more, when it took at
// least the harness's share; else the harness may have.
func saturatedBy(h *results.HostCPU) string {
	if h == nil || h.NotMeasured != "" {
		return "the harness may have been the bottleneck"
	}
	others := h.OthersPct > results.OthersWarnPct && h.OthersPct >= h.HarnessPct
	server := h.ServerPct != nil && *h.ServerPct >= h.HarnessPct
	if others && (!server || h.OthersPct > *h.ServerPct) {
		return fmt.Sprintf("other processes took %.0f%% of its CPU and the harness %.0f%% (see the host CPU account), so the host was busy, not the harness alone", h.OthersPct, h.HarnessPct)
	}
	if server {
		return fmt.Sprintf("the database server took %.0f%% of its CPU and the harness %.0f%% (see the host CPU account), so the server's work filled the host, not the harness's", *h.ServerPct, h.HarnessPct)
	}
	return "the harness may have been the bottleneck"
}

// hostCost is harnessCost of one host's figures, the warnings naming the
// host and its loop as given ("the client host", "the event loop"), and
// the saturation's likely cause as cause. The short line is the driver,
// its CPU per transaction and its busiest loop's share; full adds the
// loops' CPUs and connection moves, the CPU seconds, and the host's idle
// share and run queue (which the host CPU line also gives).
func hostCost(e results.HostEvidence, host, loop, cause string, full bool) (string, []string) {
	if e.Driver == "" {
		return "", nil
	}
	drv := e.Driver + " driver"
	var warnings []string
	if e.Driver == "loop" && e.LoopBusyPct != nil && *e.LoopBusyPct >= loopBusyWarn {
		n := max(1, e.Loops)
		warnings = append(warnings, fmt.Sprintf("%s was %.0f%% busy: one loop nearly saturated a core, so the harness may have held the throughput back; %s",
			loop, *e.LoopBusyPct, moreLoops(n, e.Cores)))
	}
	if e.HostSaturated {
		warnings = append(warnings, saturatedWarning(e, host, cause))
	}
	if !full {
		line := fmt.Sprintf("%s, %.1f µs CPU per transaction", drv, e.ClientCPUUsPerTx)
		if e.Driver == "loop" && e.LoopBusyPct != nil {
			which := "its loop"
			if e.Loops > 1 {
				which = fmt.Sprintf("the busiest of %d loops", e.Loops)
			}
			line += fmt.Sprintf(", %s %.0f%% busy", which, *e.LoopBusyPct)
		}
		return line, warnings
	}
	if e.Driver == "loop" {
		n := max(1, e.Loops)
		drv = fmt.Sprintf("loop driver (%s", plural(n, "loop"))
		if len(e.LoopCPUs) > 0 {
			drv += " pinned to CPUs " + joinInts(e.LoopCPUs)
		}
		if e.FollowServer {
			drv += fmt.Sprintf(", %s to the server's CPU", plural(int(e.LoopMoves), "connection move"))
		}
		if e.LoopBusyPct != nil {
			busiest := ""
			if n > 1 {
				busiest = "the busiest "
			}
			drv += fmt.Sprintf(", %s%.0f%% busy", busiest, *e.LoopBusyPct)
		}
		drv += ")"
	}
	line := fmt.Sprintf("%s, %.1f µs CPU per transaction (%.2f s in all)", drv, e.ClientCPUUsPerTx, e.ClientCPUSeconds)
	if e.HostIdlePct != nil {
		line += fmt.Sprintf("; client host %.0f%% idle", *e.HostIdlePct)
	}
	if e.HostRunQueue != nil {
		line += fmt.Sprintf(", run queue %.1f", *e.HostRunQueue)
	}
	return line, warnings
}

// saturatedWarning says that host was saturated, and its likely cause.
func saturatedWarning(e results.HostEvidence, host, cause string) string {
	return fmt.Sprintf("%s was saturated during the run (idle under 5%% or a run queue above twice its %d cores): %s", host, e.Cores, cause)
}

// moreLoops is the advice to a run of n loops, one of which nearly
// saturated a core, on a host of cores CPUs (0: unknown): another loop
// while the host has a CPU without one, else another host.
func moreLoops(n, cores int) string {
	if cores > 0 && n >= cores {
		return fmt.Sprintf("each of the host's %s has a loop already, so another loop would not help: run the clients from a host with more CPUs, or from several hosts (--shard)", plural(cores, "CPU"))
	}
	return fmt.Sprintf("give it another with --loops %d", n+1)
}

// loopBusyWarn is the busy share of an event loop, in %, from which a run
// warns that its loop nearly saturated a core.
const loopBusyWarn = 90

// StatementsText prints the statement latencies of a run -r, per
// transaction type, as pgbench -r prints them (the mean in ms first), with
// the count and p50/p99.
func StatementsText(w io.Writer, r *results.Run) {
	if len(r.Statements) == 0 {
		return
	}
	fmt.Fprintf(w, "statement latencies in milliseconds (-r), measured phase:\n")
	last := ""
	for _, st := range r.Statements {
		if st.Op != last {
			fmt.Fprintf(w, "  %s:\n  %10s %9s %9s %9s  statement\n", st.Op, "count", "mean", "p50", "p99")
			last = st.Op
		}
		fmt.Fprintf(w, "  %10d %9s %9s %9s  %s\n", st.Count, msCell(st.LatencyMs, "mean"), msCell(st.LatencyMs, "p50"), msCell(st.LatencyMs, "p99"), st.Name)
	}
}

// ConnectText prints, for a run -C, the connections it opened and their
// time, which (as in pgbench) is in the tps but not in a closed loop's
// latencies.
func ConnectText(w io.Writer, r *results.Run) {
	if !r.Config.ConnectPerTx {
		return
	}
	s := r.Summary
	where := "not in the latencies above (as pgbench -C), but in the tps"
	if r.Config.Rate > 0 {
		where = "in the latencies above, which count from the intended start, and in the tps"
	}
	fmt.Fprintf(w, "connections (-C, one per transaction): %d opened in the measured phase, mean %s ms, p99 %s ms; %s\n",
		s.Connections, msCell(s.ConnectMs, "mean"), msCell(s.ConnectMs, "p99"), where)
}
