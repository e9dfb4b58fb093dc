package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

func TestTheEvidenceBlockShowsCPUWaitsLogBytesAndPlanFlags(t *testing.T) {
	local := true
	r := &results.Run{Summary: results.Summary{Transactions: 1000},
		Collect: &results.Collect{Series: map[string]*evidence.Series{
			"os": {Describes: "client host", DBLocal: &local, Intervals: []evidence.Point{
				{Phase: "warmup", Seconds: 1, Values: map[string]float64{"cpu.user_pct": 99}},
				{Phase: "measure", Seconds: 1, Values: map[string]float64{"cpu.user_pct": 40, "cpu.system_pct": 10, "cpu.idle_pct": 50, "run_queue": 2},
					Rates: map[string]float64{"ctxt": 1000, "resched_ipis": 100}},
				{Phase: "measure", Seconds: 1, Values: map[string]float64{"cpu.user_pct": 60, "cpu.system_pct": 20, "cpu.idle_pct": 20, "run_queue": 4},
					Rates: map[string]float64{"ctxt": 3000, "resched_ipis": 300}},
			}},
			"server": {Totals: map[string]float64{"pg_stat_wal.wal_bytes": 2048000}},
		}},
		Waits: &results.Waits{Unit: "samples", Total: 200, Events: []results.WaitShare{{Event: "CPU", Share: 0.6}, {Event: "LWLock:WALWrite", Share: 0.4}}},
		Plans: []results.StatementPlans{
			{Statement: "ok", Plans: []results.PlanVariant{{Fingerprint: "aaaa", Count: 8}}},
			{Statement: "by_v", Flags: []string{"parameter-sensitive"}, Plans: []results.PlanVariant{
				{Fingerprint: "bbbb", Count: 6, Shape: "Index Scan (on skew, using skew_v, Forward)", Examples: []results.PlanExample{{Params: map[string]any{"v": 42}}}},
				{Fingerprint: "cccc", Count: 2, Shape: "Seq Scan (on skew)", Examples: []results.PlanExample{{Params: map[string]any{"v": 1}}}},
			}},
		},
	}
	var b bytes.Buffer
	Evidence(&b, r)
	out := b.String()
	for _, want := range []string{
		"cpu (client host, database on this host): user 50.0%, system 15.0%, idle 35.0%, 2000 context switches/s, 200 reschedule interrupts/s, run queue 3.0",
		"waits (200 session samples): CPU 60.0%, LWLock:WALWrite 40.0%",
		"WAL 2.0 kB/transaction",
		"plans: 2 statements, 1 flagged",
		"by_v: PARAMETER-SENSITIVE, 2 plans",
		"cccc x2 e.g. v=1: Seq Scan (on skew)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	b.Reset()
	Evidence(&b, &results.Run{})
	if b.Len() != 0 {
		t.Errorf("a run without evidence prints %q", b.String())
	}
}

func TestTheEvidenceBlockNeverPrintsAHeaderAlone(t *testing.T) {
	for _, c := range []struct {
		name    string
		collect *results.Collect
		want    string
	}{
		{"plans asked for, none checked, with the reason", &results.Collect{Enabled: []string{"plans"}, PlansNotChecked: "workload script gave no statement whose parameters the check can draw"},
			"evidence:\n  plans: not checked (workload script gave no statement whose parameters the check can draw)\n"},
		{"plans asked for, none checked, an older run without a reason", &results.Collect{Enabled: []string{"os", "plans"}},
			"evidence:\n  plans: not checked (no statement of the workload was explained)\n"},
		{"collectors that gathered nothing", &results.Collect{Enabled: []string{"os", "server"}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			Evidence(&b, &results.Run{Collect: c.collect})
			if b.String() != c.want {
				t.Fatalf("Evidence printed %q, want %q", b.String(), c.want)
			}
		})
	}
}

// A series that describes its own headline figures is shown from that
// description alone: the report knows no engine's counter names.
func TestTheServerLineShowsTheFiguresTheSeriesDescribes(t *testing.T) {
	s := &evidence.Series{
		Totals: map[string]float64{"log.bytes": 4096000, "fails": 3, "idle": 0, "latch.acquired": 10, "latch.waited": 4, "latch.wait_s": 0.02},
		Intervals: []evidence.Point{
			{Phase: "warmup", Seconds: 1, Values: map[string]float64{"hits_pct": 10, "busy": 9}},
			{Phase: "measure", Seconds: 1, Values: map[string]float64{"hits_pct": 99, "busy": 2, "size_mb": 1.25}},
			{Phase: "measure", Seconds: 1, Values: map[string]float64{"hits_pct": 97, "busy": 3, "size_mb": 2.5}},
		},
		Headlines: []evidence.Headline{
			{Label: "log {}/transaction", Key: "log.bytes", Show: evidence.ShowBytesPerTx},
			{Label: "hits {}", Key: "hits_pct", Show: evidence.ShowMeanPct},
			{Label: "busy {}", Key: "busy", Show: evidence.ShowMean},
			{Label: "{} failures", Key: "fails", Show: evidence.ShowCount},
			{Label: "{} idle", Key: "idle", Show: evidence.ShowCount},
			{Label: "latch: {}", Key: "latch", Show: evidence.ShowWaits},
			{Label: "size {} MB", Key: "size_mb", Show: evidence.ShowLast},
			{Label: "missing {}", Key: "nowhere", Show: evidence.ShowBytesPerTx},
		},
	}
	r := &results.Run{Summary: results.Summary{Transactions: 1000}, Collect: &results.Collect{Series: map[string]*evidence.Series{"server": s}}}
	var b bytes.Buffer
	Evidence(&b, r)
	want := "evidence:\n  server: log 4.0 kB/transaction, hits 98.00%, busy 2.5, 3 failures, latch: 10 taken, 4 waited (40.0%), 2.000 ms average, size 2.5 MB\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	if got := serverRank([]string{"x", "commits"}, "engine.commits"); got != 1 {
		t.Errorf("rank of a priority counter: %d", got)
	}
}

// A collector the report has never heard of is summarised, drawn and
// written out from what its series says about itself.
func TestAnyCollectorsSeriesIsReported(t *testing.T) {
	pts := []evidence.Point{
		{Seq: 0, Phase: "measure", T: 1, Seconds: 1, Rates: map[string]float64{"net.retrans": 5, "net.segs": 900}, Values: map[string]float64{"loss_pct": 0.5}},
		{Seq: 1, Phase: "measure", T: 2, Seconds: 1, Rates: map[string]float64{"net.retrans": 7, "net.segs": 1100}, Values: map[string]float64{"loss_pct": 0.7}},
	}
	s := &evidence.Series{Source: "/proc/net/snmp", Title: "Network", Layout: evidence.LayoutCounters, Intervals: pts,
		Totals:    map[string]float64{"net.retrans": 12, "net.segs": 2000},
		Headlines: []evidence.Headline{{Label: "{} retransmits", Key: "net.retrans", Show: evidence.ShowCount}},
		Priority:  []string{"net.retrans"}}
	r := buildRun(2, 0) // one point per interval
	r.Collect = &results.Collect{Enabled: []string{"netstat"}, Series: map[string]*evidence.Series{"netstat": s}}
	r.Waits, r.Plans = nil, nil

	var b bytes.Buffer
	Evidence(&b, r)
	if want := "evidence:\n  netstat: 12 retransmits\n"; b.String() != want {
		t.Errorf("text: got %q, want %q", b.String(), want)
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 1 || secs[0].ID != "netstat" || secs[0].Title != "Network" || len(secs[0].Charts) != 2 || len(secs[0].Tables) != 1 ||
		!strings.Contains(secs[0].Charts[0].Note, "of 2 counters") {
		t.Fatalf("sections %+v", secs)
	}
	dir := t.TempDir()
	if err := WriteRunCSV(dir, r); err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, filepath.Join(dir, "netstat.csv")); len(rows) != 7 {
		t.Errorf("netstat.csv: %v", rows)
	}
}

func TestEvidenceFiguresAreOverTheIntervalsTheCollectorCovered(t *testing.T) {
	r := &results.Run{Summary: results.Summary{Transactions: 800, Seconds: 6}}
	for seq := 0; seq < 6; seq++ {
		n := int64(100)
		if seq == 2 || seq == 3 {
			n = 200 // while the server collector was away
		}
		r.Intervals = append(r.Intervals, results.Interval{Seq: seq, Phase: "measure", T: float64(seq + 1), Seconds: 1, Count: n})
	}
	s := &evidence.Series{Totals: map[string]float64{"log.bytes": 4 * 51200},
		Headlines: []evidence.Headline{{Label: "log {}/transaction", Key: "log.bytes", Show: evidence.ShowBytesPerTx}},
		Gaps:      []evidence.Gap{{FirstSeq: 2, LastSeq: 3, From: 2, To: 4, Reason: "its connection was lost"}}}
	for _, seq := range []int{0, 1, 4, 5} {
		s.Intervals = append(s.Intervals, evidence.Point{Seq: seq, Phase: "measure", Seconds: 1, Rates: map[string]float64{"log.bytes": 51200}})
	}
	r.Collect = &results.Collect{Enabled: []string{"server"}, Series: map[string]*evidence.Series{"server": s}}
	var b bytes.Buffer
	Evidence(&b, r)
	want := "evidence:\n" +
		"  server: log 512 B/transaction\n" +
		"  server evidence covers 4.0 s of 6.0 s: its connection was lost from 2.0 s to 4.0 s; its figures are over the intervals it covered\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := facts(secs); !strings.Contains(f, "covered: 4.0 s of the 6.0 s measured: its connection was lost from 2.0 s to 4.0 s") ||
		!strings.Contains(f, "per transaction are over the intervals covered") {
		t.Errorf("the report's facts do not say what was not covered:\n%s", f)
	}
	md := evidenceSummary(r)
	if len(md) == 0 || !strings.Contains(md[len(md)-1], "server evidence covers 4.0 s of 6.0 s") {
		t.Errorf("markdown: %q", md)
	}
}

func TestAPlanCheckThatFailedAfterTheRunSaysSo(t *testing.T) {
	lost := results.AfterRun + "could not connect: connection refused"
	r := &results.Run{Collect: &results.Collect{Enabled: []string{"plans"}},
		Plans: []results.StatementPlans{{Statement: "a", Error: lost}, {Statement: "b", Error: lost}}}
	var b bytes.Buffer
	Evidence(&b, r)
	want := "evidence:\n" +
		"  plans: 2 statements; the check after the run failed (could not connect: connection refused): whether a plan changed during the run is unknown\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f := facts(secs); !strings.Contains(f, "after the run: not checked (could not connect: connection refused)") {
		t.Errorf("the report's facts do not say the check after the run failed:\n%s", f)
	}
	if md := strings.Join(evidenceSummary(r), "\n"); strings.Contains(md, "none flagged") || !strings.Contains(md, "after the run: not checked") {
		t.Errorf("markdown: %q", md)
	}
}

// facts lists the facts of report sections, one "key: value" a line.
func facts(secs []section) string {
	var out []string
	for _, sec := range secs {
		for _, f := range sec.Facts {
			out = append(out, f.K+": "+f.V)
		}
	}
	return strings.Join(out, "\n")
}
