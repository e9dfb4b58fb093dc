package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// hostCPUOf is an account of a run whose others took 41% of the host.
func hostCPUOf(r *results.Run) *results.HostCPU {
	srv := 40.0
	h := &results.HostCPU{CPUs: 2, Seconds: r.Summary.Seconds, HarnessPct: 18, ServerPct: &srv, Server: "PostgreSQL postmaster (pid 7) and its child processes",
		OthersPct: 41, IdlePct: 1, TopOthers: []results.CPUUse{{Comm: "yes", Pct: 40}, {Comm: "cc1plus", Pct: 1}}}
	for _, iv := range r.Intervals {
		if iv.Phase == "measure" {
			h.Intervals = append(h.Intervals, results.HostCPUPoint{T: iv.T, HarnessPct: 18, ServerPct: 40, OthersPct: 41, IdlePct: 1})
		}
	}
	h.Warning = h.OthersWarning()
	return h
}

// TestHostCPUInTheReports: the text summary has the host line and the
// warning, the HTML report the chart, the table of others and the warning.
func TestHostCPUInTheReports(t *testing.T) {
	r := syntheticRun(30, 5)
	r.Summary.HostCPU = hostCPUOf(r)
	var b bytes.Buffer
	Summary(&b, r)
	for _, want := range []string{
		"host CPU: harness 18%, server 40%, others 41% (yes 40%, cc1plus 1%), idle 1% of 2 CPUs\n",
		"warning: other processes used 41% of the host's CPU during the measured phase (yes 40%, cc1plus 1%): the figures include their interference\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	var h bytes.Buffer
	if err := RunHTML(&h, r, HTMLOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="host-cpu"`, "Host CPU by owner", "Other processes by CPU", "other processes used 41% of the host&#39;s CPU"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	var md bytes.Buffer
	if err := RunMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Host CPU: harness 18%") || !strings.Contains(md.String(), "⚠ other processes used 41%") {
		t.Errorf("Markdown lacks the host line or the warning:\n%s", md.String())
	}
	r.Summary.HostCPU = &results.HostCPU{NotMeasured: "the host is not Linux (its /proc is read)"}
	b.Reset()
	Summary(&b, r)
	if !strings.Contains(b.String(), "host CPU: not measured: the host is not Linux") || strings.Contains(b.String(), "interference") {
		t.Errorf("summary of an unmeasured host:\n%s", b.String())
	}
}

// TestSweepMarksInterferedPoints: the sweep's table, HTML and Markdown mark
// a point with a run whose others took more than 5% of the host.
func TestSweepMarksInterferedPoints(t *testing.T) {
	sw := syntheticSweep(false)
	var plain bytes.Buffer
	SweepTable(&plain, sw)
	if strings.Contains(plain.String(), "interfered") {
		t.Errorf("a sweep without interference is marked:\n%s", plain.String())
	}
	sw.Points[1].Interfered = []string{sw.Points[1].Runs[0]}
	var b bytes.Buffer
	SweepTable(&b, sw)
	if !strings.Contains(b.String(), "  ! 1 interfered\n") || !strings.Contains(b.String(), "other processes used more than 5% of the host's CPU") {
		t.Errorf("sweep table without the mark:\n%s", b.String())
	}
	var h, md bytes.Buffer
	if err := SweepHTML(&h, sw, HTMLOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "1 interfered ⚠") {
		t.Error("sweep HTML without the mark")
	}
	if err := SweepMarkdown(&md, sw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), " ⚠ |") {
		t.Errorf("sweep Markdown without the mark:\n%s", md.String())
	}
}
