package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestOpenLoopSummaryShowsTargetAndAchievedRate(t *testing.T) {
	r := &results.Run{RunID: "r", Workload: "tpcb", Status: results.StatusCompleted,
		Config:  results.Config{Clients: 4, Rate: 2000, Percentiles: []float64{50, 99}},
		Summary: results.Summary{TPS: 1500, Transactions: 4500, Seconds: 3, LagMs: results.Latency{"p50": 1, "p99": 40, "max": 90}}}
	var b bytes.Buffer
	Summary(&b, r)
	out := b.String()
	for _, want := range []string{"open loop: target 2000.0 tps, achieved 1500.0 tps (75%)", "schedule lag (ms): p50 1.000  p99 40.000  max 90.000"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	r.Config.Rate = 0
	Summary(&b, r)
	if strings.Contains(b.String(), "open loop") {
		t.Errorf("a closed-loop run mentions the open loop:\n%s", b.String())
	}
}
