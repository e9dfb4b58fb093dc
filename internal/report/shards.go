package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
)

// shardRows are a group's shards, a row each: what tells a slow load
// generator from the others.
func shardRows(r *results.Run) ([]string, [][]string) {
	head := []string{"shard", "run", "host", "clients", "transactions", "tps", "p99_ms", "errors", "offset_ms", "late_ms", "first_tx_ms", "status"}
	var rows [][]string
	for _, sh := range r.Shards {
		rows = append(rows, []string{fmt.Sprint(sh.Index), sh.RunID, sh.Host, fmt.Sprint(sh.Clients), fmt.Sprint(sh.Transactions),
			fmt.Sprintf("%.1f", sh.TPS), fmtMaybeMs(latencyValue(sh.LatencyMs, "p99")), fmt.Sprint(sh.Errors),
			fmt.Sprintf("%.3f", sh.ClockOffsetMs), fmt.Sprintf("%.1f", sh.StartLateMs), optMs(sh.FirstTxLateMs), sh.Status})
	}
	return head, rows
}

// optPct is a share in % without decimals, or "-" when absent.
func optPct(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", *v)
}

// optMs is a figure in milliseconds with one decimal, or "-" when absent.
func optMs(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *v)
}

// lateStartWarning is the warning for a shard (named who) whose first
// transaction began late for the group's instant, by more than
// results.LateStartShare of the first interval; "" otherwise.
func lateStartWarning(who string, late *float64, intervalS float64) string {
	if late == nil || !results.LateStart(*late, intervalS) {
		return ""
	}
	return fmt.Sprintf("%s's first transaction began %.1f ms after the group's instant, %.0f%% of the first %gs interval (more than %.0f%%): "+
		"that interval's throughput is low by about as much for a reason that is not the server's (a busy host, or a process held back)",
		who, *late, *late/(intervalS*10), intervalS, results.LateStartShare*100)
}

// lateStartWarnings are lateStartWarning of each of a group's shards.
func lateStartWarnings(r *results.Run) []string {
	var out []string
	for _, sh := range r.Shards {
		if w := lateStartWarning(shardName(sh), sh.FirstTxLateMs, r.Config.IntervalSeconds); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func fmtMaybeMs(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmtMs(v)
}

// groupLine heads a group's shards: how many came and how far apart
// their clocks were.
func groupLine(g *results.Group, n int) string {
	s := fmt.Sprintf("group %s: %d of %d shards, largest clock offset %.3f ms, latest start %.1f ms after the group's instant", g.Name, n, g.Shards, g.MaxClockOffsetMs, g.MaxStartLateMs)
	if g.MaxFirstTxLateMs != nil {
		s += fmt.Sprintf(", latest first transaction %.1f ms after it", *g.MaxFirstTxLateMs)
	}
	if len(g.Missing) > 0 {
		s += fmt.Sprintf("; never came: shard %s", strings.Trim(fmt.Sprint(g.Missing), "[]"))
	}
	return s
}

// ShardText writes a group's shards, a line each; nothing for a run that
// is no group.
func ShardText(w io.Writer, r *results.Run) {
	if r.Group == nil {
		return
	}
	fmt.Fprintln(w, groupLine(r.Group, len(r.Shards)))
	head, rows := shardRows(r)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, x := range lateStartWarnings(r) {
		fmt.Fprintln(w, "warning: "+x)
	}
	shardHostsText(w, r)
}

// shardSection is a group's shards in its HTML report: the table, and
// each shard's throughput and p99 side by side, so that a load generator
// that fell behind shows at a glance.
func shardSection(r *results.Run) (section, error) {
	g := r.Group
	sec := section{ID: "shards", Title: "Shards", Facts: []kv{
		{"group", g.Name}, {"shards", fmt.Sprintf("%d of %d", len(r.Shards), g.Shards)},
		{"largest clock offset", fmt.Sprintf("%.3f ms from the results store's clock", g.MaxClockOffsetMs)},
		{"latest start", fmt.Sprintf("%.1f ms after the common start (the shard's intervals start at the common start)", g.MaxStartLateMs)}}}
	if g.MaxFirstTxLateMs != nil {
		sec.Facts = append(sec.Facts, kv{"latest first transaction", fmt.Sprintf("%.1f ms after the common start", *g.MaxFirstTxLateMs)})
	}
	if !g.Start.IsZero() {
		sec.Facts = append(sec.Facts, kv{"common start", g.Start.UTC().Format("2006-01-02 15:04:05.000 UTC")})
	}
	if len(g.Missing) > 0 {
		sec.Warnings = append(sec.Warnings, fmt.Sprintf("Shard %s never came: the group is partial.", strings.Trim(fmt.Sprint(g.Missing), "[]")))
	}
	for _, x := range lateStartWarnings(r) {
		sec.Warnings = append(sec.Warnings, strings.ToUpper(x[:1])+x[1:]+".")
	}
	sec.Intro = "Each shard is a run of its own, on its own load generator; the group's figures above merge their intervals, " +
		"their HdrHistograms exactly. A shard far below the others' throughput, or far above their p99, is a load generator that could not keep up."
	head, rows := shardRows(r)
	t := table{Head: head, Rows: rows}
	for i := range head {
		t.Num = append(t.Num, i != 1 && i != 2 && i != len(head)-1)
	}
	sec.Tables = append(sec.Tables, t)
	if len(r.Shards) == 0 {
		return sec, nil
	}
	var cats []string
	var tps, p99 []float64
	for _, sh := range r.Shards {
		cats = append(cats, fmt.Sprintf("shard %d (%s)", sh.Index, sh.Host))
		tps = append(tps, sh.TPS)
		p99 = append(p99, latencyValue(sh.LatencyMs, "p99"))
	}
	charts, err := categoryBars(cats, []bars{{"Throughput per shard", "tps", tps}, {"p99 latency per shard", "ms", p99}})
	sec.Charts = append(sec.Charts, charts...)
	if err != nil {
		return sec, err
	}
	return sec, nil
}

// shardName names a shard and its host: "shard 1 (gen-b)".
func shardName(sh results.ShardResult) string {
	if sh.Host == "" {
		return fmt.Sprintf("shard %d", sh.Index)
	}
	return fmt.Sprintf("shard %d (%s)", sh.Index, sh.Host)
}

// shardHostCost is hostCost of a shard's host, its warnings naming it,
// laid to what filled the host as the group sees it (groupHostCPU). Of
// shards that shared a host, the lowest-index one gives the host's
// warnings (saturated when any of them saw it so, and the others'
// interference), naming them all; the rest give their own loops' only.
func shardHostCost(r *results.Run, sh results.ShardResult) (string, []string) {
	if sh.Evidence == nil {
		return "", nil
	}
	n := shardName(sh)
	host := n + "'s host"
	e := *sh.Evidence
	h, together := groupHostCPU(r, sh)
	hostWarns := true
	if together != nil {
		if hostWarns = sh.Index == together[0]; hostWarns {
			host = fmt.Sprintf("the host of shards %s (%s)", joinInts(together), sh.Host)
			for _, o := range r.Shards {
				if slices.Contains(together, o.Index) && o.Evidence != nil && o.Evidence.HostSaturated {
					e.HostSaturated = true
				}
			}
		} else {
			e.HostSaturated = false
		}
	}
	line, warnings := hostCost(e, host, n+"'s event loop", saturatedBy(h), true)
	if w := h.OthersWarning(); w != "" && hostWarns {
		warnings = append(warnings, host+": "+w)
	}
	return line, warnings
}

// groupHostCPU is shard sh's host CPU account as its group sees it, and
// the shards of the group that ran on that host, sh among them, in order
// (nil when it ran alone). Each shard counted the others' harness
// processes there among its other processes; for the group they are its
// own harness, so their shares move from the others' to the harness's
// (each shard's over its own measured phase, which a group aligns). nil
// when the shard's run has no account.
func groupHostCPU(r *results.Run, sh results.ShardResult) (*results.HostCPU, []int) {
	if sh.Evidence == nil || sh.Evidence.HostCPU == nil || sh.Evidence.HostCPU.NotMeasured != "" {
		return nil, nil
	}
	h := *sh.Evidence.HostCPU
	if sh.Host == "" {
		return &h, nil
	}
	together := []int{sh.Index}
	for _, o := range r.Shards {
		if o.Index == sh.Index || o.Host != sh.Host || o.Evidence == nil || o.Evidence.HostCPU == nil || o.Evidence.HostCPU.NotMeasured != "" {
			continue
		}
		together = append(together, o.Index)
		oh := o.Evidence.HostCPU
		h.HarnessPct += oh.HarnessPct
		h.OthersPct = max(0, h.OthersPct-oh.HarnessPct)
		h.TopOthers = withoutShare(h.TopOthers, oh.Harness, oh.HarnessPct)
	}
	if len(together) == 1 {
		return &h, nil
	}
	slices.Sort(together)
	return &h, together
}

// withoutShare is top less pct of the processes named comm, largest
// first, without those left below half a percent; top itself is not
// changed. A comm of "" (an account from before runs kept their harness's
// name) takes nothing away.
func withoutShare(top []results.CPUUse, comm string, pct float64) []results.CPUUse {
	if comm == "" {
		return top
	}
	out := make([]results.CPUUse, 0, len(top))
	for _, u := range top {
		if u.Comm == comm {
			if u.Pct -= pct; u.Pct < 0.5 {
				continue
			}
		}
		out = append(out, u)
	}
	slices.SortStableFunc(out, func(a, b results.CPUUse) int { return cmp.Compare(b.Pct, a.Pct) })
	return out
}

// shardHostSeries is a shard's series of its own host, or nil.
func shardHostSeries(sh results.ShardResult) *evidence.Series {
	if sh.Evidence == nil {
		return nil
	}
	for _, n := range sh.Evidence.Collect.Names() {
		if s := sh.Evidence.Collect.Get(n); layoutOf(n, s) == evidence.LayoutHost && len(s.Intervals) > 0 {
			return s
		}
	}
	return nil
}

// shardHostsText writes each shard host's evidence under the shards'
// table: the harness's cost there and its host's CPU, then a warning for
// each host that was saturated.
func shardHostsText(w io.Writer, r *results.Run) {
	var b strings.Builder
	var warnings []string
	for _, sh := range r.Shards {
		line, warns := shardHostCost(r, sh)
		s := shardHostSeries(sh)
		if line == "" && s == nil {
			continue
		}
		fmt.Fprintf(&b, "  %s:", shardName(sh))
		if line != "" {
			fmt.Fprintf(&b, " harness %s", line)
		}
		b.WriteString("\n")
		if sh.Evidence != nil && sh.Evidence.HostCPU != nil {
			fmt.Fprintf(&b, "    host CPU: %s\n", sh.Evidence.HostCPU.Line())
			if h, together := groupHostCPU(r, sh); together != nil {
				fmt.Fprintf(&b, "    shards %s ran on this host: their harnesses together took %.0f%% of it, other processes %.0f%%\n",
					joinInts(together), h.HarnessPct, h.OthersPct)
			}
		}
		if s != nil {
			var os strings.Builder
			osLine(&os, s)
			b.WriteString(strings.ReplaceAll(os.String(), "  cpu", "    cpu"))
		}
		warnings = append(warnings, warns...)
	}
	if b.Len() == 0 {
		return
	}
	fmt.Fprint(w, "shard hosts:\n", b.String())
	for _, x := range warnings {
		fmt.Fprintln(w, "warning: "+x)
	}
}

// shardHostsSection is a group's load generators side by side in its HTML
// report: each host's harness cost, its CPU busy share and run queue over
// time on one chart each, and its CPU split, with a warning for each host
// that was saturated.
func shardHostsSection(r *results.Run, bands []svg.Band, markers []svg.Marker) (section, bool, error) {
	sec := section{ID: "shard-hosts", Title: "Load generator hosts",
		Intro: "Each shard sampled its own host: the harness's CPU per transaction there, the host's idle time and run queue, and (with the os collector) " +
			"its CPU over time. A host near 0% idle, or whose run queue stays above twice its cores, was a load generator that could not keep up."}
	if g := r.Group; g != nil && g.EvidenceNote != "" {
		sec.Facts = append(sec.Facts, kv{"database evidence", g.EvidenceNote + "; it is in the sections below"})
	}
	t := table{Head: []string{"shard", "host", "cores", "driver", "CPU µs/tx", "CPU s", "idle %", "run queue", "busiest loop %", "saturated",
		"harness/server/others %"},
		Num: []bool{true, false, true, false, true, true, true, true, true, false, false}}
	opt := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f", *v)
	}
	busy := lineChart("CPU busy per shard host", "busy (%)", bands, markers, timeRange(r))
	busy.YRange = &svg.Range{Min: 0, Max: 100}
	queue := lineChart("Run queue per shard host", "runnable processes", bands, markers, timeRange(r))
	var stacks []chart
	cores := map[int]bool{}
	for i, sh := range r.Shards {
		e := sh.Evidence
		if e == nil {
			continue
		}
		_, warns := shardHostCost(r, sh)
		sec.Warnings = append(sec.Warnings, warns...)
		t.Rows = append(t.Rows, []string{fmt.Sprint(sh.Index), sh.Host, fmt.Sprint(e.Cores), e.Driver, fmt.Sprintf("%.1f", e.ClientCPUUsPerTx),
			fmt.Sprintf("%.2f", e.ClientCPUSeconds), opt(e.HostIdlePct), opt(e.HostRunQueue), opt(e.LoopBusyPct), map[bool]string{true: "yes", false: "no"}[e.HostSaturated]})
		split := "-"
		if h, together := groupHostCPU(r, sh); h != nil {
			split = fmt.Sprintf("%.0f/%s/%.0f", h.HarnessPct, optPct(h.ServerPct), h.OthersPct)
			if together != nil {
				split += " (shards " + joinInts(together) + ")"
			}
		}
		t.Rows[len(t.Rows)-1] = append(t.Rows[len(t.Rows)-1], split)
		cores[e.Cores] = true
		s := shardHostSeries(sh)
		if s == nil {
			continue
		}
		col := svg.PaletteColor(i)
		if x, idle, ok := pointSeries(s, "cpu.idle_pct", false); ok {
			y := make([]float64, len(idle))
			for k, v := range idle {
				y[k] = 100 - v
			}
			busy.Series = append(busy.Series, svg.Series{Name: shardName(sh), X: x, Y: y, Color: col})
		}
		if x, y, ok := pointSeries(s, "run_queue", false); ok {
			queue.Series = append(queue.Series, svg.Series{Name: shardName(sh), X: x, Y: y, Color: col})
		}
		c, ok, err := cpuChart(r, s, "CPU of "+shardName(sh), bands, markers)
		if err != nil {
			return sec, false, err
		}
		if ok {
			stacks = append(stacks, c)
		}
	}
	if len(t.Rows) == 0 {
		return sec, false, nil
	}
	sec.Tables = append(sec.Tables, t)
	for _, c := range []struct {
		ch   svg.LineChart
		note string
	}{
		{busy, "Each shard host's CPU not idle (100% less idle), all CPUs together."},
		{queue, fmt.Sprintf("Each shard host's runnable processes; a host whose run queue stays above twice its cores (%s) is saturated.", coresText(cores))},
	} {
		if len(c.ch.Series) == 0 {
			continue
		}
		ch, err := renderChart(c.ch, c.ch.Title, c.note)
		if err != nil {
			return sec, false, err
		}
		sec.Charts = append(sec.Charts, ch)
	}
	sec.Charts = append(sec.Charts, stacks...)
	return sec, true, nil
}

// coresText lists the hosts' core counts: "2 cores", "2 or 4 cores".
func coresText(cores map[int]bool) string {
	var ns []int
	for c := range cores {
		ns = append(ns, c)
	}
	sort.Ints(ns)
	return strings.Trim(strings.ReplaceAll(fmt.Sprint(ns), " ", " or "), "[]") + " cores"
}
