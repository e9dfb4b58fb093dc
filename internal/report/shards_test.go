package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

func groupRun() *results.Run {
	r := buildRun(2, 0)
	r.Group = &results.Group{Name: "g1", Shards: 3, Start: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), MaxClockOffsetMs: 0.042, Missing: []int{2}}
	r.Shards = []results.ShardResult{
		{Index: 0, RunID: "20261124-120000-aaaa", Host: "gen-a", Status: "completed", Clients: 4, Transactions: 40000, TPS: 4000, LatencyMs: results.Latency{"p99": 1.5}, ClockOffsetMs: 0.01},
		{Index: 1, RunID: "20261124-120000-bbbb", Host: "gen-b", Status: "completed", Clients: 4, Transactions: 12000, TPS: 1200, LatencyMs: results.Latency{"p99": 9.25}, ClockOffsetMs: -0.042},
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
	for _, want := range []string{"group g1: 2 of 3 shards, largest clock offset 0.042 ms; never came: shard 2\n", "gen-b", "1200.0", "9.25", "-0.042"} {
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
