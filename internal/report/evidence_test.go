package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestTheEvidenceBlockShowsCPUWaitsLogBytesAndPlanFlags(t *testing.T) {
	local := true
	r := &results.Run{Summary: results.Summary{Transactions: 1000},
		Collect: &results.Collect{
			OS: &results.Series{Describes: "client host", DBLocal: &local, Intervals: []results.Point{
				{Phase: "warmup", Seconds: 1, Values: map[string]float64{"cpu.user_pct": 99}},
				{Phase: "measure", Seconds: 1, Values: map[string]float64{"cpu.user_pct": 40, "cpu.system_pct": 10, "cpu.idle_pct": 50, "run_queue": 2},
					Rates: map[string]float64{"ctxt": 1000}},
				{Phase: "measure", Seconds: 1, Values: map[string]float64{"cpu.user_pct": 60, "cpu.system_pct": 20, "cpu.idle_pct": 20, "run_queue": 4},
					Rates: map[string]float64{"ctxt": 3000}},
			}},
			Server: &results.Series{Totals: map[string]float64{"pg_stat_wal.wal_bytes": 2048000}},
		},
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
		"cpu (client host, database on this host): user 50.0%, system 15.0%, idle 35.0%, 2000 context switches/s, run queue 3.0",
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
