package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// readHLog reads an HdrHistogram interval log with hdrhistogram-go's own
// reader: each tag's histograms, in the order of the log's intervals.
func readHLog(t *testing.T, log []byte) map[string][]*hdr.Histogram {
	t.Helper()
	out := map[string][]*hdr.Histogram{}
	r := hdr.NewHistogramLogReader(bytes.NewReader(log))
	for n := 0; ; n++ {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("hdrhistogram-go's reader failed at histogram %d: %v", n, err)
		}
		if h == nil {
			return out
		}
		out[h.Tag()] = append(out[h.Tag()], h)
	}
}

// showRun reads `show ID --json` of a run or group in store.
func showRun(t *testing.T, home, store, id string) *results.Run {
	t.Helper()
	r := dbh(t, home, "show", id, "--json", "--results", store)
	var run results.Run
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil || r.code != 0 {
		t.Fatalf("show %s: exit %d, %v\n%s", id, r.code, err, r.all())
	}
	return &run
}

func TestAThreeShardGroupKeepsEachHostsEvidenceAndWritesItsMergedHDRLog(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	target := testdb.Postgres(t, "dbh_cli_shards_ev")
	store := testdb.Postgres(t, "dbh_cli_shards_ev_store")
	var args [][]string
	for i := range 3 {
		args = append(args, []string{"run", "null", "--db", target, "-c", "6", "-T", "3s", "-P", "500ms", "--collect", "os,server,waits",
			"--shard", fmt.Sprintf("%d/3", i), "--group", "gev", "--results", store})
	}
	res, runs := runShards(t, home, args...)
	var own []*results.Run // each shard's run, as the store has it
	for i, r := range res {
		if r.code != 0 || runs[i].Status != "completed" {
			t.Fatalf("shard %d: exit %d, status %s\n%s", i, r.code, runs[i].Status, r.all())
		}
	}
	g := showRun(t, home, store, "gev")
	if g.Status != results.StatusCompleted || len(g.Shards) != 3 {
		t.Fatalf("show gev: status %s, %d shards", g.Status, len(g.Shards))
	}
	for _, sh := range g.Shards {
		own = append(own, showRun(t, home, store, sh.RunID))
	}

	// Each shard's line keeps its own host's evidence: the series of its
	// host and the harness's cost there, exactly as its run has them.
	for i, sh := range g.Shards {
		r, e := own[i], sh.Evidence
		if e == nil || e.Collect == nil {
			t.Fatalf("shard %d has no host evidence: %+v", i, sh)
		}
		mine := r.Collect.Get("os")
		if mine == nil || len(mine.Intervals) == 0 || mine.Describes != evidence.DescribesClientHost {
			t.Fatalf("shard %d's own run has no client host series: %+v", i, mine)
		}
		if got := e.Collect.Get("os"); !reflect.DeepEqual(got, mine) {
			t.Errorf("shard %d's host series in the group is not its run's:\n%+v\n%+v", i, got, mine)
		}
		if e.Collect.Get("server") != nil {
			t.Errorf("shard %d's host evidence holds the server's series", i)
		}
		s := r.Summary
		if e.ClientCPUSeconds != s.ClientCPUSeconds || e.ClientCPUUsPerTx != s.ClientCPUUsPerTx || !reflect.DeepEqual(e.HostIdlePct, s.HostIdlePct) ||
			!reflect.DeepEqual(e.HostRunQueue, s.HostRunQueue) || e.HostSaturated != s.HostSaturated || e.Cores != r.Host.Cores ||
			e.Driver != r.Config.Driver || e.HostIdlePct == nil {
			t.Errorf("shard %d's host evidence %+v is not its run's summary %+v (cores %d, driver %s)", i, e, s, r.Host.Cores, r.Config.Driver)
		}
		if e.HostCPU == nil || s.HostCPU == nil || !reflect.DeepEqual(e.HostCPU, s.HostCPU) {
			t.Errorf("shard %d's host CPU account in the group %+v is not its run's %+v", i, e.HostCPU, s.HostCPU)
		}
		// Three processes sampled /proc at their own instants: no two
		// shards' series are alike, so none is another's copy.
		for j := range i {
			if reflect.DeepEqual(e.Collect.Get("os"), g.Shards[j].Evidence.Collect.Get("os")) {
				t.Errorf("shards %d and %d have the same host series", j, i)
			}
		}
	}
	// The database's evidence appears once, shard 0's, saying so.
	if g.Group.EvidenceShard == nil || *g.Group.EvidenceShard != 0 || !strings.Contains(g.Group.EvidenceNote, "shard 0's") ||
		!strings.Contains(g.Group.EvidenceNote, "shards 1 and 2 sampled the same server") {
		t.Errorf("the group's database evidence is from shard %v: %q", g.Group.EvidenceShard, g.Group.EvidenceNote)
	}
	if g.Collect.Get("os") != nil || g.Collect.Get("server") == nil || !reflect.DeepEqual(g.Collect.Get("server"), own[0].Collect.Get("server")) ||
		g.Waits == nil || !reflect.DeepEqual(g.Waits, own[0].Waits) {
		t.Errorf("the group's collect has %v, want shard 0's server series and waits alone", g.Collect.Names())
	}
	var cpu float64
	for _, r := range own {
		cpu += r.Summary.ClientCPUSeconds
	}
	if d := g.Summary.ClientCPUSeconds - cpu; d > 0.002 || d < -0.002 {
		t.Errorf("the group's harness CPU is %.3f s, the shards' together %.3f s", g.Summary.ClientCPUSeconds, cpu)
	}
	text := dbh(t, home, "show", "gev", "--results", store)
	if text.code != 0 || !strings.Contains(text.stdout, "shard hosts:") || strings.Count(text.stdout, "    cpu (client host") != 3 ||
		strings.Count(text.stdout, "    host CPU: harness ") != 3 ||
		!strings.Contains(text.stdout, "evidence (the database's evidence is shard 0's") {
		t.Errorf("show gev: exit %d, want each shard host's evidence and the database's once\n%s", text.code, text.all())
	}

	// The group's HdrHistogram log is, interval by interval and type by
	// type, the exact merge of its shards' logs.
	var shardLogs []map[string][]*hdr.Histogram
	for i, sh := range g.Shards {
		f := filepath.Join(home, fmt.Sprintf("shard%d.hlog", i))
		if r := dbh(t, home, "report", sh.RunID, "--hdr-log", f, "--results", store); r.code != 0 {
			t.Fatalf("report %s --hdr-log: exit %d\n%s", sh.RunID, r.code, r.all())
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		shardLogs = append(shardLogs, readHLog(t, b))
	}
	f := filepath.Join(home, "group.hlog")
	r := dbh(t, home, "report", "gev", "--hdr-log", f, "--results", store)
	if r.code != 0 || !strings.Contains(r.stdout, "HdrHistogram log written to "+f) {
		t.Fatalf("report gev --hdr-log: exit %d\n%s", r.code, r.all())
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if out := dbh(t, home, "report", "gev", "--hdr-log", "-", "--results", store); out.code != 0 || out.stdout != string(b) {
		t.Errorf("report gev --hdr-log -: exit %d, standard output differs from the file\n%s", out.code, out.stderr)
	}
	logs := readHLog(t, b)
	if len(logs) != len(g.Ops) {
		t.Fatalf("the group's log has tags %v, want one per transaction type %v", reflect.ValueOf(logs).MapKeys(), g.Ops)
	}
	var total int64
	for _, op := range g.Ops {
		hs := logs[op.Name]
		if len(hs) != len(g.Intervals) {
			t.Fatalf("the group's log has %d %s histograms, the group %d intervals", len(hs), op.Name, len(g.Intervals))
		}
		for k, h := range hs {
			want := histogram.New()
			for _, l := range shardLogs {
				if k < len(l[op.Name]) {
					want.Merge(l[op.Name][k])
				}
			}
			if !reflect.DeepEqual(h.Distribution(), want.Distribution()) || h.TotalCount() != opCount(g.Intervals[k], op.Name) {
				t.Errorf("interval %d, %s: the group's histogram (%d) is not the merge of the shards' (%d)", k, op.Name, h.TotalCount(), want.TotalCount())
			}
			total += h.TotalCount()
		}
	}
	if total != g.Summary.Transactions || total == 0 || g.Intervals[0].Phase == "warmup" {
		t.Errorf("the group's log counts %d transactions, the group %d", total, g.Summary.Transactions)
	}

	// The group's HTML report shows each shard host, and whose the
	// database's evidence is.
	html := filepath.Join(home, "gev.html")
	if r := dbh(t, home, "report", "gev", "--html", html, "--results", store); r.code != 0 {
		t.Fatalf("report gev --html: exit %d\n%s", r.code, r.all())
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="shard-hosts"`, "CPU busy per shard host", "Run queue per shard host", "CPU of shard 0 (", "CPU of shard 2 (",
		"sampled by", "shard 0; the other shards sampled the same server"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the group's HTML report lacks %q", want)
		}
	}
}

// opCount is the count of the operation named name in iv, 0 if none.
func opCount(iv results.Interval, name string) int64 {
	for _, o := range iv.Ops {
		if o.Name == name {
			return o.Count
		}
	}
	return 0
}
