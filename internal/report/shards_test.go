package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

func groupRun() *results.Run {
	r := buildRun(2, 0)
	r.Group = &results.Group{Name: "g1", Shards: 3, Start: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), MaxClockOffsetMs: 0.042, MaxStartLateMs: 12.5, Missing: []int{2}}
	r.Shards = []results.ShardResult{
		{Index: 0, RunID: "20261124-120000-aaaa", Host: "gen-a", Status: "completed", Clients: 4, Transactions: 40000, TPS: 4000, LatencyMs: results.Latency{"p99": 1.5}, ClockOffsetMs: 0.01},
		{Index: 1, RunID: "20261124-120000-bbbb", Host: "gen-b", Status: "completed", Clients: 4, Transactions: 12000, TPS: 1200, LatencyMs: results.Latency{"p99": 9.25}, ClockOffsetMs: -0.042, StartLateMs: 12.5},
	}
	return r
}

// A group's shards show a line each in the text, and in its HTML report a
// table and their throughput and p99 side by side: the slow load
// generator (gen-b) stands out; a shard that never came is named.
func TestAGroupsShardsShowInTheTextAndTheHTMLReport(t *testing.T) {
	r := groupRun()
	var b bytes.Buffer
	ShardText(&b, r)
	text := b.String()
	for _, want := range []string{"group g1: 2 of 3 shards, largest clock offset 0.042 ms, latest start 12.5 ms after the group's instant; never came: shard 2\n", "gen-b", "12.5", "1200.0", "9.25", "-0.042"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n"); n != 4 {
		t.Errorf("%d lines, want the group's, the head and a line per shard:\n%s", n, text)
	}
	p, err := runPage(r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sec *section
	for i := range p.Sections {
		if p.Sections[i].ID == "shards" {
			sec = &p.Sections[i]
		}
	}
	if sec == nil {
		t.Fatal("no shards section in the group's report")
	}
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 2 || sec.Tables[0].Rows[1][2] != "gen-b" || len(sec.Charts) != 2 ||
		!strings.Contains(string(sec.Charts[0].SVG), "shard 1 (gen-b)") || len(sec.Warnings) != 1 || !strings.Contains(sec.Warnings[0], "Shard 2 never came") {
		t.Errorf("shards section %+v", sec)
	}

	// A run that is no group has none of it.
	r.Group, r.Shards = nil, nil
	b.Reset()
	ShardText(&b, r)
	if b.Len() != 0 {
		t.Errorf("a run of one process printed %q", b.String())
	}
	p, err = runPage(r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Sections {
		if s.ID == "shards" {
			t.Error("a run of one process has a shards section")
		}
	}
}

// hostSeries is an os collector's series of a client host over n
// intervals, idle idlePct and run queue queue throughout.
func hostSeries(n int, idlePct, queue float64) *evidence.Series {
	s := &evidence.Series{Source: "/proc (stat, meminfo, diskstats) on the local host", Describes: evidence.DescribesClientHost,
		Title: "Operating system", Layout: evidence.LayoutHost}
	for k := range n {
		s.Intervals = append(s.Intervals, evidence.Point{Seq: k, Phase: "measure", T: float64(k + 1), Seconds: 1,
			Rates:  map[string]float64{"ctxt": 1000},
			Values: map[string]float64{"cpu.user_pct": 60 - idlePct/2, "cpu.system_pct": 40 - idlePct/2, "cpu.idle_pct": idlePct, "run_queue": queue}})
	}
	return s
}

// Each shard host's evidence shows next to the others': in the text a
// line each and a warning for the saturated one (gen-b), in the HTML
// report a section with their cost, CPU busy and run queue on one chart
// each, and each host's CPU split; the database's evidence says whose it is.
func TestAGroupsShardHostsShowSideBySideWithTheSaturatedOneWarned(t *testing.T) {
	r := groupRun()
	idle, q := []float64{55, 2}, []float64{1.5, 7}
	for i := range r.Shards {
		e := &results.HostEvidence{Cores: 2, Driver: "loop", Loops: 1, ClientCPUSeconds: float64(i+1) / 2, ClientCPUUsPerTx: 12.5,
			HostIdlePct: &idle[i], HostRunQueue: &q[i], HostSaturated: i == 1, Collect: &results.Collect{Enabled: []string{"os", "server"}}}
		e.Collect.Set("os", hostSeries(len(r.Intervals), idle[i], q[i]))
		r.Shards[i].Evidence = e
	}
	zero := 0
	r.Group.EvidenceShard, r.Group.EvidenceNote = &zero, "the database's evidence is shard 0's, the lowest-index shard that completed; shard 1 sampled the same server"
	r.Collect = &results.Collect{Enabled: []string{"os", "server"}}
	r.Collect.Set("server", &evidence.Series{Source: "pg_stat_database", Describes: "database server", Intervals: []evidence.Point{
		{Seq: 0, Phase: "measure", T: 1, Seconds: 1, Rates: map[string]float64{"pg_stat_database.xact_commit": 400}}}})

	var b bytes.Buffer
	ShardText(&b, r)
	text := b.String()
	for _, want := range []string{"shard hosts:\n", "  shard 0 (gen-a): harness loop driver (1 loop), 12.5 µs CPU per transaction (0.50 s in all); client host 55% idle, run queue 1.5\n",
		"    cpu (client host): user 32.5%, system 12.5%, idle 55.0%", "  shard 1 (gen-b): harness", "    cpu (client host): user 59.0%, system 39.0%, idle 2.0%",
		"warning: shard 1 (gen-b)'s host was saturated during the run (idle under 5% or a run queue above twice its 2 cores)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "warning:") != 1 {
		t.Errorf("want one warning, for gen-b:\n%s", text)
	}
	b.Reset()
	Evidence(&b, r)
	if !strings.HasPrefix(b.String(), "evidence (the database's evidence is shard 0's,") || strings.Contains(b.String(), "cpu (") {
		t.Errorf("the group's evidence is not the database's alone, saying whose:\n%s", b.String())
	}

	p, err := runPage(r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sec *section
	for i := range p.Sections {
		switch p.Sections[i].ID {
		case "shard-hosts":
			sec = &p.Sections[i]
		case "server":
			if f := p.Sections[i].Facts; len(f) == 0 || f[0].K != "sampled by" || !strings.HasPrefix(f[0].V, "shard 0;") {
				t.Errorf("the server section does not say whose it is: %+v", f)
			}
		case "os":
			t.Error("the group's report has a host section of its own: the hosts' are the shards'")
		}
	}
	if sec == nil {
		t.Fatal("no shard-hosts section in the group's report")
	}
	var titles []string
	for _, c := range sec.Charts {
		titles = append(titles, c.Title)
	}
	if want := []string{"CPU busy per shard host", "Run queue per shard host", "CPU of shard 0 (gen-a)", "CPU of shard 1 (gen-b)"}; strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("charts %q, want %q", titles, want)
	}
	if !strings.Contains(string(sec.Charts[0].SVG), "shard 1 (gen-b)") || !strings.Contains(string(sec.Charts[1].SVG), "shard 0 (gen-a)") {
		t.Error("the side-by-side charts do not name each shard host")
	}
	if len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 2 || sec.Tables[0].Rows[1][1] != "gen-b" || sec.Tables[0].Rows[1][9] != "yes" || sec.Tables[0].Rows[0][9] != "no" {
		t.Errorf("hosts table %+v", sec.Tables)
	}
	if len(sec.Warnings) != 1 || !strings.Contains(sec.Warnings[0], "shard 1 (gen-b)'s host was saturated") {
		t.Errorf("warnings %q, want gen-b's saturation", sec.Warnings)
	}
	var page bytes.Buffer
	if err := RunHTML(&page, r, HTMLOptions{}); err != nil || !strings.Contains(page.String(), `id="shard-hosts"`) || !strings.Contains(page.String(), "Load generator hosts") {
		t.Errorf("the page has no load generator hosts section (%v)", err)
	}

	// A group whose shards recorded no host evidence has no such section.
	for i := range r.Shards {
		r.Shards[i].Evidence = nil
	}
	if p, err = runPage(r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Sections {
		if s.ID == "shard-hosts" {
			t.Error("a group without host evidence has a shard-hosts section")
		}
	}
}

// Each shard host's CPU account shows under its harness line, and lays a
// saturated host to what filled it: shard 1's host, saturated with the
// database server at 74% and the harness at 20%, is laid to the server, not
// to the harness; shard 0's, where a `yes` took 41%, warns of the
// interference. The HTML table carries the three shares.
func TestAShardHostsCPUAccountSaysWhatFilledIt(t *testing.T) {
	r := groupRun()
	idle, q := []float64{40, 2}, []float64{1.5, 7}
	server := 74.0
	cpu := []*results.HostCPU{
		{CPUs: 2, Seconds: 10, HarnessPct: 18, OthersPct: 41, IdlePct: 40, TopOthers: []results.CPUUse{{Comm: "yes", Pct: 40}}},
		{CPUs: 2, Seconds: 10, HarnessPct: 20, ServerPct: &server, OthersPct: 1, IdlePct: 2, Server: "postgres (postmaster 812 and its children)"},
	}
	cpu[0].Warning = cpu[0].OthersWarning()
	for i := range r.Shards {
		r.Shards[i].Evidence = &results.HostEvidence{Cores: 2, Driver: "loop", Loops: 2, ClientCPUSeconds: 1, ClientCPUUsPerTx: 12.5,
			HostIdlePct: &idle[i], HostRunQueue: &q[i], HostSaturated: i == 1, HostCPU: cpu[i]}
	}
	var b bytes.Buffer
	ShardText(&b, r)
	text := b.String()
	for _, want := range []string{
		"    host CPU: harness 18%, others 41% (yes 40%), idle 40% of 2 CPUs\n",
		"    host CPU: harness 20%, server 74%, others 1%, idle 2% of 2 CPUs\n",
		"warning: shard 1 (gen-b)'s host was saturated during the run (idle under 5% or a run queue above twice its 2 cores): the database server took 74% of its CPU and the harness 20%",
		"warning: shard 0 (gen-a)'s host: other processes used 41% of the host's CPU during the measured phase (yes 40%): the figures include their interference",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "the harness may have been the bottleneck") {
		t.Errorf("a host the server filled is laid to the harness:\n%s", text)
	}
	p, err := runPage(r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Sections {
		if s.ID != "shard-hosts" {
			continue
		}
		rows := s.Tables[0].Rows
		if got := rows[1][10]; got != "20/74/1" {
			t.Errorf("gen-b's harness, server and others in the table: %q; want 20/74/1", got)
		}
		if got := rows[0][10]; got != "18/-/41" {
			t.Errorf("gen-a's harness, server and others in the table: %q; want 18/-/41", got)
		}
		if len(s.Warnings) != 2 {
			t.Errorf("warnings %q; want gen-a's interference and gen-b's saturation", s.Warnings)
		}
		return
	}
	t.Fatal("no shard-hosts section")
}

// Two shards on one host each count the other's harness among the host's
// other processes; the group counts both as its harness: no interference
// warning for what is the group's own load, a line saying so, and the
// saturated host laid to the server, which took the most.
func TestShardsOnOneHostAreTheGroupsHarnessNotOthers(t *testing.T) {
	r := groupRun()
	server := 64.0
	for i := range r.Shards {
		r.Shards[i].Host = "gen-a"
		idle, q := 2.0, 8.0
		h := &results.HostCPU{CPUs: 2, Seconds: 3, HarnessPct: 9, Harness: "dbharness", ServerPct: &server, OthersPct: 10, IdlePct: 17,
			TopOthers: []results.CPUUse{{Comm: "dbharness", Pct: 9}, {Comm: "kdamond.0", Pct: 0.4}}}
		h.Warning = h.OthersWarning()
		r.Shards[i].Evidence = &results.HostEvidence{Cores: 2, Driver: "loop", Loops: 2, ClientCPUSeconds: 0.5, ClientCPUUsPerTx: 17,
			HostIdlePct: &idle, HostRunQueue: &q, HostSaturated: true, HostCPU: h}
	}
	var b bytes.Buffer
	ShardText(&b, r)
	text := b.String()
	if n := strings.Count(text, "    shards 0 and 1 ran on this host: their harnesses together took 18% of it, other processes 1%\n"); n != 2 {
		t.Errorf("the line of the shards that shared a host shows %d times, want under each of the 2:\n%s", n, text)
	}
	if strings.Contains(text, "other processes used") || strings.Contains(text, "other processes took") {
		t.Errorf("the other shard's harness is taken for interference:\n%s", text)
	}
	if n := strings.Count(text, "warning: the host of shards 0 and 1 (gen-a) was saturated during the run (idle under 5% or a run queue above twice its 2 cores): "+
		"the database server took 64% of its CPU and the harness 18%"); n != 1 || strings.Count(text, "saturated during the run") != 1 {
		t.Errorf("the host the shards shared is laid to the server, against the group's harness on it, once (%d times):\n%s", n, text)
	}
	p, err := runPage(r, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cells := 0
	for _, s := range p.Sections {
		if s.ID == "shard-hosts" {
			if len(s.Warnings) != 1 {
				t.Errorf("the section's warnings %q; want the shared host's saturation once", s.Warnings)
			}
			for _, row := range s.Tables[0].Rows {
				cells++
				if got := row[10]; got != "18/64/1 (shards 0 and 1)" {
					t.Errorf("shard %s's harness, server and others in the table: %q; want the group's, 18/64/1 (shards 0 and 1)", row[0], got)
				}
			}
		}
	}
	if cells != 2 {
		t.Errorf("the hosts table has %d rows; want the 2 shards'", cells)
	}
	// A process of another program beside them is interference, and the
	// warning names it, not the other shard's harness.
	for i := range r.Shards {
		h := r.Shards[i].Evidence.HostCPU
		h.OthersPct, h.IdlePct = 40, 0
		h.TopOthers = []results.CPUUse{{Comm: "yes", Pct: 30}, {Comm: "dbharness", Pct: 9}, {Comm: "kdamond.0", Pct: 0.4}}
	}
	b.Reset()
	ShardText(&b, r)
	text = b.String()
	if n := strings.Count(text, "warning: the host of shards 0 and 1 (gen-a): other processes used 31% of the host's CPU during the measured phase (yes 30%): the figures include their interference"); n != 1 ||
		strings.Count(text, "other processes used") != 1 {
		t.Errorf("the host the shards shared warns of the yes (and only of it) %d times; want once:\n%s", n, text)
	}
	// The host's saturation is its shards' together: shard 1 alone saw it.
	r.Shards[0].Evidence.HostSaturated = false
	b.Reset()
	ShardText(&b, r)
	if text := b.String(); !strings.Contains(text, "warning: the host of shards 0 and 1 (gen-a) was saturated") || strings.Count(text, "saturated during the run") != 1 {
		t.Errorf("a host one of its shards saw saturated:\n%s", text)
	}
	r.Shards[0].Evidence.HostSaturated = true
	// A shard of a run from before accounts kept the harness's name: its
	// share moves, and the names stay as they were.
	for i := range r.Shards {
		r.Shards[i].Evidence.HostCPU.Harness = ""
	}
	b.Reset()
	ShardText(&b, r)
	if text := b.String(); strings.Count(text, "other processes used 31% of the host's CPU during the measured phase (yes 30%, dbharness 9%)") != 1 {
		t.Errorf("accounts without the harness's name:\n%s", text)
	}
	// Apart, on hosts of their own, the same accounts are each a host's.
	r.Shards[1].Host = "gen-b"
	b.Reset()
	ShardText(&b, r)
	if text := b.String(); strings.Contains(text, "ran on this host") || strings.Count(text, "other processes used 40% of the host's CPU during the measured phase (yes 30%, dbharness 9%)") != 2 {
		t.Errorf("shards on hosts of their own:\n%s", text)
	}
}
