package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// TestThePlansWorkersAreShown: the summary's parallel workers line, the
// HTML plans table and the sweep's per-point table show whether the plans
// went parallel.
func TestThePlansWorkersAreShown(t *testing.T) {
	r := &results.Run{Summary: results.Summary{Transactions: 10}, Config: results.Config{DOP: 2},
		Plans: []results.StatementPlans{
			{Statement: "star", Plans: []results.PlanVariant{{Fingerprint: "aaaa", Count: 1}}, Workers: &results.Workers{Draw: "median", Planned: 1, Launched: 0}},
			{Statement: "upd", Plans: []results.PlanVariant{{Fingerprint: "bbbb", Count: 1}}, Workers: &results.Workers{NotMeasured: "the statement writes"}},
			{Statement: "window", Plans: []results.PlanVariant{{Fingerprint: "cccc", Count: 1}}, Workers: &results.Workers{}},
		}}
	var b bytes.Buffer
	Evidence(&b, r)
	want := "parallel workers (one EXPLAIN ANALYZE of each statement, --dop 2): star 1 planned, 0 launched; upd not measured (the statement writes); window serial (no worker planned)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in:\n%s", want, b.String())
	}
	sec := plansSection(r.Plans, 2)
	if got := sec.Tables[0].Head[3]; got != "parallel workers" || sec.Tables[0].Rows[0][3] != "1 planned, 0 launched" {
		t.Errorf("plans table %q, first row %q", sec.Tables[0].Head, sec.Tables[0].Rows[0])
	}
	b.Reset()
	Evidence(&b, &results.Run{Summary: results.Summary{Transactions: 10}})
	if strings.Contains(b.String(), "parallel workers") {
		t.Errorf("a run without --dop or workers: %q", b.String())
	}
	if got := workersCell(&results.SweepWorkers{Planned: 1.5, Launched: 1}); got != "1.5/1" {
		t.Errorf("sweep cell %q", got)
	}
}
