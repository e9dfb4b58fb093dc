package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// Evidence prints the short evidence block of a run: the CPU split of the
// client host, the top waits, the server's log bytes per transaction and
// the plan flags, or why the plans were not checked. It prints nothing for
// a run without evidence, never a header alone. Its physical block has
// only what changed notably (TextOptions.Verbose prints it whole).
func Evidence(w io.Writer, r *results.Run) { evidenceText(w, r, TextOptions{}) }

// evidenceText is Evidence as opt says.
func evidenceText(w io.Writer, r *results.Run, opt TextOptions) {
	var b strings.Builder
	// Hosts first, then the waits, then the counters of the server and
	// of any other collector.
	for _, n := range r.Collect.Names() {
		if s := r.Collect.Get(n); layoutOf(n, s) == evidence.LayoutHost {
			osLine(&b, s)
		}
	}
	if r.Waits != nil {
		waitLine(&b, r.Waits)
		coverageLine(&b, "wait", r.WaitsCoverage(r.Waits), len(r.Waits.Intervals) > 0)
		blockerLines(&b, r.Waits)
	}
	for _, n := range r.Collect.Names() {
		if s := r.Collect.Get(n); layoutOf(n, s) != evidence.LayoutHost {
			counterLine(&b, r, n, s)
		}
	}
	planLines(&b, r.Plans)
	workerLine(&b, r)
	if c := r.Collect; c != nil && len(r.Plans) == 0 && slices.Contains(c.Enabled, "plans") {
		why := c.PlansNotChecked
		if why == "" {
			why = "no statement of the workload was explained"
		}
		fmt.Fprintf(&b, "  plans: not checked (%s)\n", why)
	}
	physicalLines(&b, r.Physical, opt.Verbose)
	serverCPULines(&b, r.ServerCPU)
	if b.Len() > 0 {
		if g := r.Group; g != nil && g.EvidenceNote != "" {
			fmt.Fprintf(w, "evidence (%s; each shard host's own is under the shards):\n%s", g.EvidenceNote, b.String())
			return
		}
		fmt.Fprint(w, "evidence:\n", b.String())
	}
}

// measureMean is the time-weighted mean of a value over the measured
// intervals.
func measureMean(s *evidence.Series, key string, rate bool) (float64, bool) {
	var sum, secs float64
	found := false
	for _, p := range s.Intervals {
		if p.Phase == "warmup" {
			continue
		}
		m := p.Values
		if rate {
			m = p.Rates
		}
		v, ok := m[key]
		if !ok {
			if rate { // a counter that did not move in this interval
				secs += p.Seconds
			}
			continue
		}
		found = true
		sum += v * p.Seconds
		secs += p.Seconds
	}
	if !found || secs == 0 {
		return 0, false
	}
	return sum / secs, true
}

func osLine(w io.Writer, s *evidence.Series) {
	where := s.Describes
	if s.DBLocal != nil {
		if *s.DBLocal {
			where += ", database on this host"
		} else {
			where += ", database elsewhere"
		}
	}
	var parts []string
	for _, k := range []string{"user", "system", "iowait", "idle", "steal"} {
		if v, ok := measureMean(s, "cpu."+k+"_pct", false); ok && (k != "steal" || v > 0) {
			parts = append(parts, fmt.Sprintf("%s %.1f%%", k, v))
		}
	}
	if v, ok := measureMean(s, "ctxt", true); ok {
		parts = append(parts, fmt.Sprintf("%.0f context switches/s", v))
	}
	if v, ok := measureMean(s, "resched_ipis", true); ok {
		parts = append(parts, fmt.Sprintf("%.0f reschedule interrupts/s", v))
	}
	if v, ok := measureMean(s, "run_queue", false); ok {
		parts = append(parts, fmt.Sprintf("run queue %.1f", v))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  cpu (%s): %s\n", where, strings.Join(parts, ", "))
	}
}

func waitLine(w io.Writer, ws *results.Waits) {
	name := sided("waits", ws.Side)
	if ws.Unavailable != "" {
		fmt.Fprintf(w, "  %s: not measured: %s\n", name, ws.Unavailable)
		return
	}
	if len(ws.Events) == 0 {
		fmt.Fprintf(w, "  %s: none sampled\n", name)
		return
	}
	var parts []string
	for i, e := range ws.Events {
		if i == 6 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", e.Event, 100*e.Share))
	}
	unit := "session samples"
	if ws.Unit == "seconds" {
		unit = "s waited"
	}
	fmt.Fprintf(w, "  %s (%.0f %s): %s\n", name, ws.Total, unit, strings.Join(parts, ", "))
}

// sided names a collector's line with the other endpoint of the server
// its evidence was read from (--server-evidence), if any.
func sided(name, side string) string {
	if side == "" {
		return name
	}
	return name + " [" + side + "]"
}

// layoutOf is how series s of collector name is drawn (results.Layout*).
func layoutOf(name string, s *evidence.Series) string {
	_, l := s.TitleAndLayout(name)
	return l
}

// counterLine prints the headline figures of collector name's series, what
// of the run it did not cover, and what it could not measure.
func counterLine(w io.Writer, r *results.Run, name string, s *evidence.Series) {
	label := sided(name, s.Side)
	cov := r.SeriesCoverage(s)
	var parts []string
	for _, h := range s.HeadlinesOf(name) {
		if v, ok := headlineValue(r, s, cov, h); ok {
			parts = append(parts, strings.Replace(h.Label, "{}", v, 1))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  %s: %s\n", label, strings.Join(parts, ", "))
	}
	coverageLine(w, label, cov, len(s.Intervals) > 0 || len(s.Gaps) > 0)
	for _, u := range s.Unavailable {
		fmt.Fprintf(w, "  %s: not measured: %s\n", label, u)
	}
}

// coverageLine says what of the measured phase a collector's evidence did
// not cover, and why, when it missed any (and sampled at all: sampled).
func coverageLine(w io.Writer, name string, c results.Coverage, sampled bool) {
	if c.Complete() || !sampled {
		return
	}
	fmt.Fprintf(w, "  %s evidence covers %.1f s of %.1f s: %s; its figures are over the intervals it covered\n",
		name, c.Seconds, c.Of, uncovered(c))
}

// uncovered names the stretches a collector did not cover: "its
// connection was lost from 3.0 s to 6.0 s".
func uncovered(c results.Coverage) string {
	parts := make([]string, len(c.Uncovered))
	for i, u := range c.Uncovered {
		parts[i] = fmt.Sprintf("%s from %.1f s to %.1f s", u.Reason, u.From, u.To)
	}
	return strings.Join(parts, "; ")
}

// headlineValue computes and writes one headline figure of series s, as
// h.Show says; false when its counter or value is missing. Figures per
// transaction divide by the transactions of the intervals the series
// covered (cov).
func headlineValue(r *results.Run, s *evidence.Series, cov results.Coverage, h evidence.Headline) (string, bool) {
	tx := float64(cov.Transactions)
	switch h.Show {
	case evidence.ShowBytesPerTx:
		if v, ok := s.Totals[h.Key]; ok && tx > 0 {
			return byteSize(v / tx), true
		}
	case evidence.ShowMeanPct:
		if v, ok := measureMean(s, h.Key, false); ok {
			return fmt.Sprintf("%.2f%%", v), true
		}
	case evidence.ShowMean:
		if v, ok := measureMean(s, h.Key, false); ok {
			return fmt.Sprintf("%.1f", v), true
		}
	case evidence.ShowCount:
		if v, ok := s.Totals[h.Key]; ok && v > 0 {
			return fmt.Sprintf("%.0f", v), true
		}
	case evidence.ShowLast:
		if len(s.Intervals) > 0 {
			if v, ok := s.Intervals[len(s.Intervals)-1].Values[h.Key]; ok {
				return fmt.Sprintf("%.1f", v), true
			}
		}
	case evidence.ShowWaits:
		if n, ok := s.Totals[h.Key+".acquired"]; ok && n > 0 {
			waited := s.Totals[h.Key+".waited"]
			return fmt.Sprintf("%.0f taken, %.0f waited (%.1f%%), %.3f ms average", n, waited,
				100*waited/n, 1000*s.Totals[h.Key+".wait_s"]/n), true
		}
	}
	return "", false
}

func planLines(w io.Writer, plans []results.StatementPlans) {
	if len(plans) == 0 {
		return
	}
	// A check after the run that failed for every statement alike (it
	// could not connect) is said once.
	after, common := results.PlansAfterFailed(plans), ""
	if after != "" {
		common = results.AfterRun + after
	}
	flagged := 0
	for _, p := range plans {
		if len(p.Flags) > 0 || p.Error != "" && p.Error != common {
			flagged++
		}
	}
	switch {
	case flagged == 0 && after == "":
		fmt.Fprintf(w, "  plans: %s, one plan each over the sampled parameters, unchanged during the run\n", plural(len(plans), "statement"))
		return
	case after != "":
		line := fmt.Sprintf("  plans: %s", plural(len(plans), "statement"))
		if flagged > 0 {
			line += fmt.Sprintf(", %d flagged", flagged)
		}
		fmt.Fprintf(w, "%s; the check after the run failed (%s): whether a plan changed during the run is unknown\n", line, after)
	default:
		fmt.Fprintf(w, "  plans: %s, %d flagged\n", plural(len(plans), "statement"), flagged)
	}
	for _, p := range plans {
		if p.Error != "" && p.Error != common {
			fmt.Fprintf(w, "    %s: not explained: %s\n", p.Statement, p.Error)
		}
		if len(p.Flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %s: %s, %s\n", p.Statement, strings.ToUpper(strings.Join(p.Flags, ", ")), plural(len(p.Plans), "plan"))
		for i, v := range p.Plans {
			if i == 3 {
				fmt.Fprintf(w, "      ... %d more\n", len(p.Plans)-3)
				break
			}
			fmt.Fprintf(w, "      %s x%d e.g. %s: %s\n", v.Fingerprint, v.Count, paramText(v.Examples), clip(v.Shape, 110))
		}
		for i, c := range p.Changed {
			if i == 3 {
				break
			}
			fmt.Fprintf(w, "      changed during the run for %s: %s\n", paramText([]results.PlanExample{{Params: c.Params}}), clip(planChangeOutline(p, c), 220))
		}
		if g := p.Generic; g != nil && slices.Contains(p.Flags, "generic-plan-differs") {
			fmt.Fprintf(w, "      generic plan %s (%s): %s\n", g.Fingerprint, genericNote(g), clip(g.Shape, 110))
		}
	}
}

// workerLine says whether the statements' plans went parallel (the workers
// one EXPLAIN ANALYZE of each planned and launched), with the run's --dop;
// nothing when neither is known.
func workerLine(w io.Writer, r *results.Run) {
	var parts []string
	for _, p := range r.Plans {
		if p.Workers != nil {
			parts = append(parts, p.Statement+" "+workersText(p.Workers))
		}
	}
	dop := "the server's degree of parallelism"
	if r.Config.DOP > 0 {
		dop = fmt.Sprintf("--dop %d", r.Config.DOP)
	}
	switch {
	case len(parts) > 0:
		fmt.Fprintf(w, "  parallel workers (one EXPLAIN ANALYZE of each statement, %s): %s\n", dop, strings.Join(parts, "; "))
	case r.Config.DOP > 0:
		fmt.Fprintf(w, "  parallel workers: not measured (--dop %d; the plan check measured no statement)\n", r.Config.DOP)
	}
}

// workersText is a statement's parallel workers, short.
func workersText(wk *results.Workers) string {
	switch {
	case wk.NotMeasured != "":
		return "not measured (" + wk.NotMeasured + ")"
	case wk.Planned == 0:
		return "serial (no worker planned)"
	}
	return fmt.Sprintf("%d planned, %d launched", wk.Planned, wk.Launched)
}

// genericNote says whether the plan cache chose the generic plan.
func genericNote(g *results.GenericPlan) string {
	if g.Chosen {
		return "the server switched the prepared statement to it after 5 executions"
	}
	return "not chosen after 5 executions of sampled values"
}

// paramText shows the first example's parameters as name=value.
func paramText(ex []results.PlanExample) string {
	if len(ex) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(ex[0].Params))
	for k := range ex[0].Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, ex[0].Params[k]))
	}
	return strings.Join(parts, " ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func byteSize(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f kB", v/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", v)
	}
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// joinInts writes ns as an English list: "0", "0 and 1", "0, 1 and 2".
func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
