package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

var update = flag.Bool("update", false, "rewrite golden files")

var keepOut = flag.String("out", "", "also write the rendered test reports (and screenshots) into this directory")

func render(t *testing.T, r *results.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := RunHTML(&b, r, HTMLOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if *keepOut != "" {
		_ = os.WriteFile(filepath.Join(*keepOut, t.Name()+".html"), b.Bytes(), 0o644)
	}
	return b.Bytes()
}

func sectionIDs(html []byte) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<section id="([^"]+)">`).FindAllSubmatch(html, -1) {
		ids = append(ids, string(m[1]))
	}
	return ids
}

func TestRunReportMatchesTheGoldenFile(t *testing.T) {
	b := render(t, syntheticRun(40, 5))
	golden := filepath.Join("testdata", "run.golden.html")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("the run report differs from %s; inspect the change and run `go test ./internal/report -run Golden -update`", golden)
	}
	if !bytes.Equal(b, render(t, syntheticRun(40, 5))) {
		t.Error("two renderings of the same run differ")
	}
}

func TestRunReportHasItsSections(t *testing.T) {
	b := render(t, syntheticRun(60, 10))
	want := []string{"summary", "errors", "throughput", "latency", "spectrum", "config"}
	if got := sectionIDs(b); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sections %v, want %v", got, want)
	}
	for _, s := range []string{"<title>dbharness run 20261122-100000-abcd</title>", "postgresql 15.20", "Test CPU @ 3.0GHz",
		">tpcb_like<", ">select_only<", ">total<", "Warm-up (excluded from the summary)", "warm-up", "reconnect", "errors/s",
		"shared_buffers", ">--mix<", "tpcb-like"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("report lacks %q", s)
		}
	}
	if n := bytes.Count(b, []byte(`<svg xmlns="http://www.w3.org/2000/svg"`)); n != 4 {
		t.Errorf("%d charts, want 4 (throughput, latency, p99 per operation, spectrum)", n)
	}

	// A clean run without warm-up has neither errors section nor warm-up band.
	r := syntheticRun(30, 0)
	r.ErrorClasses, r.ErrorSamples, r.Summary.Errors, r.Summary.Reconnects = nil, nil, 0, 0
	for i := range r.Intervals {
		r.Intervals[i].Errors, r.Intervals[i].ErrorClasses, r.Intervals[i].Reconnects, r.Intervals[i].Down = 0, nil, 0, 0
	}
	b = render(t, r)
	if got := sectionIDs(b); strings.Join(got, ",") != "summary,throughput,latency,spectrum,config" {
		t.Errorf("clean run: sections %v", got)
	}
	for _, s := range []string{">warm-up<", "errors/s", "reconnect", "Warm-up (excluded"} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("clean run report shows %q", s)
		}
	}
}

func TestRunReportEscapesTextFromTheDatabase(t *testing.T) {
	r := syntheticRun(20, 0)
	r.Ops[1].Name = `<img src=x onerror=alert(1)>`
	for i := range r.Intervals {
		r.Intervals[i].Ops[1].Name = r.Ops[1].Name
	}
	r.Engine.Settings["<b>evil</b>"] = `"><script>alert(2)</script>`
	r.Error = "</p><script>alert(3)</script>"
	b := render(t, r)
	for _, bad := range []string{"<script", "<img", "<b>evil"} {
		if bytes.Contains(bytes.ToLower(b), []byte(bad)) {
			t.Errorf("report contains raw %q: text from the database was not escaped", bad)
		}
	}
	for _, s := range []string{"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;evil&lt;/b&gt;"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("report lacks the escaped text %q", s)
		}
	}
}

// TestRunReportIsSelfContained checks there is nothing to fetch: no script,
// no stylesheet link, no external image, font or frame, no CSS url().
func TestRunReportIsSelfContained(t *testing.T) {
	b := render(t, syntheticRun(60, 10))
	lower := bytes.ToLower(b)
	for _, bad := range []string{"<script", "<link", "<iframe", "<object", "<embed", "@import", "url(", "@font-face"} {
		if bytes.Contains(lower, []byte(bad)) {
			t.Errorf("report contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(?i)\s(src|href|xlink:href|action)\s*=\s*"([^"]*)"`).FindAllSubmatch(b, -1) {
		if !bytes.HasPrefix(m[2], []byte("#")) {
			t.Errorf("report refers to %s=%q", m[1], m[2])
		}
	}
	for _, m := range regexp.MustCompile(`https?://[^"'\s<)]+`).FindAll(b, -1) {
		if string(m) != "http://www.w3.org/2000/svg" {
			t.Errorf("report mentions the URL %s", m)
		}
	}
	if !bytes.Contains(b, []byte(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)) {
		t.Error("report lacks its content security policy")
	}
}

// TestHourLongRunReportStaysSmall renders a 3600-interval run: charts are
// downsampled for display, so the file stays under 2 MB and about the size
// of a ten-minute run's.
func TestHourLongRunReportStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a synthetic hour-long run")
	}
	hour := render(t, syntheticRun(3600, 60))
	tenMin := render(t, syntheticRun(600, 60))
	t.Logf("1-hour run report: %d bytes; 10-minute run report: %d bytes", len(hour), len(tenMin))
	if len(hour) >= 2<<20 {
		t.Errorf("1-hour run report is %d bytes, over 2 MB", len(hour))
	}
	if len(hour) > len(tenMin)*3/2 {
		t.Errorf("1-hour run report (%d bytes) grows with the run: 10-minute report is %d bytes", len(hour), len(tenMin))
	}
	if got := sectionIDs(hour); len(got) != 6 {
		t.Errorf("sections %v", got)
	}
}

func TestRunReportShowsEvidenceWhenPresent(t *testing.T) {
	b := render(t, withEvidence(syntheticRun(120, 10)))
	want := "summary,errors,throughput,latency,spectrum,os,server,waits,plans,config"
	if got := strings.Join(sectionIDs(b), ","); got != want {
		t.Errorf("sections %s, want %s", got, want)
	}
	for _, s := range []string{">CPU<", "iowait", "Disk throughput", "sda write", "Disk utilisation", "Run queue", "Context switches and reschedule interrupts", "reschedule interrupts", "pg_stat_database.xact_commit",
		"Server ratios", "pg_stat_database.hit_pct", "track_wal_io_timing is off", "LWLock:WALWrite", "Wait events over time",
		"pg_stat_activity sampled every 100 ms", "parameter-sensitive", `<tr class="flagged">`, "Seq Scan on t\n  Filter: (k &gt; $1)",
		"the host&#39;s counters include the server&#39;s work"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("evidence sections lack %q", s)
		}
	}
	if bytes.Contains(b, []byte("<script")) {
		t.Error("hostile SQL or statement name rendered as markup")
	}
	// The CPU stack is drawn although steal is missing from half the
	// intervals: four layers of filled area (user, system, iowait, steal,
	// idle; steal is there).
	cpu := b[bytes.Index(b, []byte(`aria-label="CPU"`)):]
	cpu = cpu[:bytes.Index(cpu, []byte("</svg>"))]
	if n := bytes.Count(cpu, []byte(`<path d="M`)); n < 5 {
		t.Errorf("the CPU chart draws %d areas, want 5", n)
	}
	// A plan change seen for several parameter sets is one block, which
	// shows the two plans' shapes.
	if n := bytes.Count(b, []byte("update_teller: plan changed during the run, Update on pgbench_tellers &gt; Seq Scan on pgbench_tellers -&gt; "+
		"Update on pgbench_tellers &gt; Index Scan using pgbench_tellers_pkey on pgbench_tellers (c91f -&gt; 4201), "+
		"for 4 sampled parameter sets, e.g. tid=1; tid=2; tid=3; …")); n != 1 {
		t.Errorf("the plan change of update_teller appears %d times, want once for its 4 parameter sets", n)
	}
	if !bytes.Contains(b, []byte("note = &#39;&lt;script&gt;alert(5)&lt;/script&gt;&#39;")) {
		t.Error("the statement's SQL is not shown escaped")
	}
	// The evidence charts share the run's time axis: the warm-up band is in
	// the OS and server charts too.
	if n := bytes.Count(b, []byte(">warm-up</text>")); n < 7 {
		t.Errorf("warm-up band drawn in %d charts, want it on every time chart (at least 7)", n)
	}
	// An hour of evidence stays small too.
	hour := render(t, withEvidence(syntheticRun(3600, 60)))
	t.Logf("1-hour run report with evidence: %d bytes", len(hour))
	if len(hour) >= 2<<20 {
		t.Errorf("1-hour run report with evidence is %d bytes, over 2 MB", len(hour))
	}
}

func TestRunReportOfAFailedRunWithoutData(t *testing.T) {
	r := &results.Run{SchemaVersion: results.SchemaVersion, RunID: "20261122-100000-dead", Status: results.StatusFailed,
		Error: "connect: connection refused", Workload: "tpcb", Intervals: []results.Interval{}}
	b := render(t, r)
	if got := strings.Join(sectionIDs(b), ","); got != "summary,timeline,config" {
		t.Errorf("sections %s", got)
	}
	for _, s := range []string{`class="status bad"`, "Error: connect: connection refused", "The run has no intervals to chart."} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("failed-run report lacks %q", s)
		}
	}
	var md bytes.Buffer
	if err := RunMarkdown(&md, r); err != nil || !strings.Contains(md.String(), "**failed**") {
		t.Errorf("markdown of a failed run: %v\n%s", err, md.String())
	}
	if err := WriteRunCSV(t.TempDir(), r); err != nil {
		t.Error(err)
	}
}
