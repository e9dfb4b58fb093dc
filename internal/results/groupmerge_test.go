package results

import (
	"reflect"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
)

// bars are a histogram's non-empty buckets: its exact counts at every
// recorded value.
func bars(t *testing.T, h *hdr.Histogram) []hdr.Bar {
	t.Helper()
	var out []hdr.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, b)
		}
	}
	return out
}

// shardRuns makes the runs of a group's shards: shard i's interval k
// records i+k+1 transactions of latencies (i+1) ms, (k+2) ms, ...
func shardRuns(shards []int, intervals int) ([]*Run, []map[int]map[string]string, [][]*hdr.Histogram) {
	start := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var runs []*Run
	var hists []map[int]map[string]string
	var raw [][]*hdr.Histogram
	for _, i := range shards {
		r := &Run{RunID: "run-" + string(rune('a'+i)), Status: StatusCompleted, Workload: "null", StartTime: start,
			Config: Config{Clients: 2, Rate: 100, Percentiles: NormalizePercentiles(DefaultPercentiles)},
			Shard:  &Shard{Group: "g", Index: i, Count: 3, FirstClient: 2 * i, GroupStart: start, ClockOffsetMs: float64(i) - 1.5}}
		r.Host.Hostname = "host" + string(rune('a'+i))
		h := map[int]map[string]string{}
		var rs []*hdr.Histogram
		for k := range intervals {
			hk := histogram.New()
			n := int64(i + k + 1)
			for j := range n {
				histogram.Record(hk, time.Duration(int64(i+1)+j+int64(k))*time.Millisecond)
			}
			r.Intervals = append(r.Intervals, Interval{Seq: k, Phase: "measure", T: float64(k + 1), Seconds: 1, Count: n, Errors: 1,
				ErrorClasses: map[string]int64{"timeout": 1}, Ops: []IntervalOp{{Name: "one", Count: n, Errors: 1}}})
			h[k] = map[string]string{"one": EncodeHist(hk)}
			rs = append(rs, hk)
		}
		SummarizeIntervals(r, h)
		runs, hists, raw = append(runs, r), append(hists, h), append(raw, rs)
	}
	return runs, hists, raw
}

func TestAGroupMergesItsShardsHistogramsExactly(t *testing.T) {
	runs, hists, raw := shardRuns([]int{0, 1, 2}, 4)
	g, _, err := MergeShards(&Group{Name: "g", Shards: 3, Start: runs[0].StartTime}, runs, hists)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != StatusCompleted || g.RunID != "g" || len(g.Shards) != 3 || g.Config.Clients != 6 || g.Config.Rate != 300 ||
		g.Group.MaxClockOffsetMs != 1.5 || len(g.Intervals) != 4 {
		t.Fatalf("group %s %s: %d shards, clients %d, rate %g, offset %g, %d intervals", g.RunID, g.Status, len(g.Shards),
			g.Config.Clients, g.Config.Rate, g.Group.MaxClockOffsetMs, len(g.Intervals))
	}
	all := histogram.New()
	var sum, errs int64
	for k, iv := range g.Intervals {
		want := histogram.New()
		var n int64
		for i := range runs {
			want.Merge(raw[i][k])
			n += runs[i].Intervals[k].Count
		}
		all.Merge(want)
		sum += n
		errs += 3
		if iv.Count != n || iv.TPS != float64(n) || iv.Ops[0].Count != n || iv.ErrorClasses["timeout"] != 3 {
			t.Errorf("interval %d: count %d tps %g op %d classes %v, want %d", k, iv.Count, iv.TPS, iv.Ops[0].Count, iv.ErrorClasses, n)
		}
		if got := LatencyOf(want, g.Config.Percentiles); !reflect.DeepEqual(iv.LatencyMs, got) {
			t.Errorf("interval %d: latency %v, want that of the merged histograms %v", k, iv.LatencyMs, got)
		}
	}
	h, err := DecodeHist(g.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(bars(t, h), bars(t, all)) {
		t.Errorf("the group's histogram is not the merge of its shards':\n%v\n%v", bars(t, h), bars(t, all))
	}
	if g.Summary.Transactions != sum || g.Summary.Errors != errs || g.ErrorClasses["timeout"] != errs || g.Summary.TPS != float64(sum)/4 {
		t.Errorf("summary %+v, classes %v; want %d transactions, %d errors", g.Summary, g.ErrorClasses, sum, errs)
	}
	// The shards' own runs are left as they were.
	if runs[0].RunID != "run-a" || runs[0].Ops[0].Count != 1+2+3+4 {
		t.Errorf("shard 0's run changed: %+v", runs[0].Ops)
	}
}

func TestAGroupWithAShardThatNeverCameIsPartialAndNamesIt(t *testing.T) {
	runs, hists, _ := shardRuns([]int{0, 2}, 2)
	runs[1].Status = StatusFailed
	g, _, err := MergeShards(&Group{Name: "g", Shards: 3}, runs, hists)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != StatusPartial || !strings.Contains(g.Error, "shard 1 never started") || !strings.Contains(g.Error, "shard 2 (run run-c) failed") ||
		!reflect.DeepEqual(g.Group.Missing, []int{1}) {
		t.Errorf("status %s, error %q, missing %v", g.Status, g.Error, g.Group.Missing)
	}
	if want := runs[0].Summary.Transactions + runs[1].Summary.Transactions; g.Summary.Transactions != want {
		t.Errorf("%d transactions, want the two shards' %d", g.Summary.Transactions, want)
	}
}

// A group keeps each shard host's evidence in its shards[] line, its own,
// and the database's once, from the lowest-index shard that completed;
// the harness's CPU is the shards' together, and the clients' times of
// fixed work line up in global client order.
func TestAGroupKeepsEachShardHostsEvidenceAndTheDatabasesOnce(t *testing.T) {
	runs, hists, _ := shardRuns([]int{0, 1, 2}, 2)
	runs[0].Status = StatusFailed
	for i, r := range runs {
		r.Host.Cores = 2 + i
		r.Config.Driver = "loop"
		idle := float64(10 * i)
		r.Summary.ClientCPUSeconds, r.Summary.HostIdlePct, r.Summary.HostSaturated = float64(i+1), &idle, i == 0
		r.ClientSeconds = []float64{float64(10*i + 1), float64(10*i + 2)}
		r.Collect = &Collect{Enabled: []string{"os", "server"}}
		r.Collect.Set("os", &evidence.Series{Describes: evidence.DescribesClientHost, Intervals: []evidence.Point{{Seq: 0, Values: map[string]float64{"cpu.idle_pct": idle}}}})
		r.Collect.Set("server", &evidence.Series{Describes: "database server", Intervals: []evidence.Point{{Seq: 0, Rates: map[string]float64{"xact_commit": float64(100 + i)}}}})
		r.Waits = &Waits{Method: "shard " + string(rune('a'+i))}
	}
	g, _, err := MergeShards(&Group{Name: "g", Shards: 3}, runs, hists)
	if err != nil {
		t.Fatal(err)
	}
	for i, sh := range g.Shards {
		e := sh.Evidence
		if e == nil || e.Cores != 2+i || e.Driver != "loop" || e.ClientCPUSeconds != float64(i+1) || *e.HostIdlePct != float64(10*i) ||
			e.HostSaturated != (i == 0) || e.Collect.Get("os") != runs[i].Collect.Get("os") || e.Collect.Get("server") != nil {
			t.Errorf("shard %d's host evidence %+v is not its own", i, e)
		}
	}
	// Shard 0 failed: the database's evidence is shard 1's.
	if g.Group.EvidenceShard == nil || *g.Group.EvidenceShard != 1 || g.Collect.Get("server") != runs[1].Collect.Get("server") ||
		g.Collect.Get("os") != nil || g.Waits != runs[1].Waits ||
		g.Group.EvidenceNote != "the database's evidence is shard 1's, the lowest-index shard that completed; shards 0 and 2 sampled the same server" {
		t.Errorf("database evidence from shard %v (%q): collect %v, waits %+v", g.Group.EvidenceShard, g.Group.EvidenceNote, g.Collect.Names(), g.Waits)
	}
	if g.Summary.ClientCPUSeconds != 6 || g.Summary.HostIdlePct != nil || g.Summary.HostSaturated {
		t.Errorf("the group's summary: harness CPU %g s, idle %v, saturated %v; want 6 s and no host's figures", g.Summary.ClientCPUSeconds,
			g.Summary.HostIdlePct, g.Summary.HostSaturated)
	}
	if want := []float64{1, 2, 11, 12, 21, 22}; !reflect.DeepEqual(g.ClientSeconds, want) {
		t.Errorf("client seconds %v, want %v", g.ClientSeconds, want)
	}
	// With none completed, the lowest-index shard with any evidence.
	for _, r := range runs {
		r.Status = StatusFailed
	}
	runs[0].Collect, runs[0].Waits = nil, nil
	g, _, err = MergeShards(&Group{Name: "g", Shards: 3}, runs, hists)
	if err != nil || *g.Group.EvidenceShard != 1 || !strings.Contains(g.Group.EvidenceNote, "shard 1's, the lowest-index shard with any, as none completed") {
		t.Errorf("%v: evidence from shard %v (%q)", err, g.Group.EvidenceShard, g.Group.EvidenceNote)
	}
	// A missing shard leaves the clients' times out: their ids would not
	// line up.
	g, _, _ = MergeShards(&Group{Name: "g", Shards: 3}, runs[:2], hists[:2])
	if g.ClientSeconds != nil {
		t.Errorf("client seconds %v with a shard missing", g.ClientSeconds)
	}
}
