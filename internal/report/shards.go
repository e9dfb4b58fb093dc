package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/dbharness/dbharness/internal/results"
)

// shardRows are a group's shards, a row each: what tells a slow load
// generator from the others.
func shardRows(r *results.Run) ([]string, [][]string) {
	head := []string{"shard", "run", "host", "clients", "transactions", "tps", "p99_ms", "errors", "offset_ms", "status"}
	var rows [][]string
	for _, sh := range r.Shards {
		rows = append(rows, []string{fmt.Sprint(sh.Index), sh.RunID, sh.Host, fmt.Sprint(sh.Clients), fmt.Sprint(sh.Transactions),
			fmt.Sprintf("%.1f", sh.TPS), fmtMaybeMs(latencyValue(sh.LatencyMs, "p99")), fmt.Sprint(sh.Errors),
			fmt.Sprintf("%.3f", sh.ClockOffsetMs), sh.Status})
	}
	return head, rows
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
	s := fmt.Sprintf("group %s: %d of %d shards, largest clock offset %.3f ms", g.Name, n, g.Shards, g.MaxClockOffsetMs)
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
}

// shardSection is a group's shards in its HTML report: the table, and
// each shard's throughput and p99 side by side, so that a load generator
// that fell behind shows at a glance.
func shardSection(r *results.Run) (section, error) {
	g := r.Group
	sec := section{ID: "shards", Title: "Shards", Facts: []kv{
		{"group", g.Name}, {"shards", fmt.Sprintf("%d of %d", len(r.Shards), g.Shards)},
		{"largest clock offset", fmt.Sprintf("%.3f ms from the results store's clock", g.MaxClockOffsetMs)}}}
	if !g.Start.IsZero() {
		sec.Facts = append(sec.Facts, kv{"common start", g.Start.UTC().Format("2006-01-02 15:04:05.000 UTC")})
	}
	if len(g.Missing) > 0 {
		sec.Warnings = append(sec.Warnings, fmt.Sprintf("Shard %s never came: the group is partial.", strings.Trim(fmt.Sprint(g.Missing), "[]")))
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
