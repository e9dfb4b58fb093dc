package experiment

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/report"
)

func TestASweepOfAWorkloadWithAResultFigureTabulatesItsMedian(t *testing.T) {
	sw, runs := fakeSweep([]int{1, 2}, 2, 1000, 0.1, 0.001, 0.01)
	for id, r := range runs {
		r.Summary.HeadlineMetric = "nopm"
		r.Summary.Metrics = map[string]float64{"nopm": 100 * float64(r.Config.Clients), "tpm": 1}
		if id == "r2-2" {
			r.Summary.Metrics["nopm"] = 300
		}
	}
	Analyze(sw, runs)
	if sw.HeadlineMetric != "nopm" || len(sw.Points) != 2 || sw.Points[0].Metrics["nopm"] != 100 || sw.Points[1].Metrics["nopm"] != 250 {
		t.Fatalf("headline %q, points %+v", sw.HeadlineMetric, sw.Points)
	}
	var b bytes.Buffer
	report.SweepTable(&b, sw)
	if !strings.Contains(b.String(), "clients nopm_median  tps_median") || !strings.Contains(b.String(), "      2       250.0 ") {
		t.Errorf("the sweep's table does not show the NOPM:\n%s", b.String())
	}
	// Runs that do not all name the same figure: none is tabulated.
	runs["r1-1"].Summary.HeadlineMetric = ""
	Analyze(sw, runs)
	b.Reset()
	report.SweepTable(&b, sw)
	if sw.HeadlineMetric != "" || strings.Contains(b.String(), "nopm_median") {
		t.Errorf("headline %q:\n%s", sw.HeadlineMetric, b.String())
	}
}
