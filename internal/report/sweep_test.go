package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/results"
)

func renderWith(t *testing.T, name string, fn func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		t.Fatal(err)
	}
	if *keepOut != "" {
		_ = os.WriteFile(filepath.Join(*keepOut, name+".html"), b.Bytes(), 0o644)
	}
	return b.Bytes()
}

func renderSweep(t *testing.T, vary bool) []byte {
	name := "sweep"
	if vary {
		name = "sweep-vary"
	}
	return renderWith(t, name, func(b *bytes.Buffer) error { return SweepHTML(b, syntheticSweep(vary), HTMLOptions{Version: "test"}) })
}

func renderCompare(t *testing.T) []byte {
	return renderWith(t, "compare", func(b *bytes.Buffer) error {
		return CompareHTML(b, syntheticComparison(), HTMLOptions{Version: "test"})
	})
}

func checkGolden(t *testing.T, name string, b []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name)
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
		t.Errorf("output differs from %s; inspect the change and run `go test ./internal/report -update`", golden)
	}
}

func TestSweepReport(t *testing.T) {
	b := renderSweep(t, false)
	checkGolden(t, "sweep.golden.html", b)
	if got := strings.Join(sectionIDs(b), ","); got != "scaling,latency,inflation,config" {
		t.Errorf("sections %s", got)
	}
	for _, s := range []string{"measured (median, 95% CI)", "USL fit (σ=", "ideal linear from 1 client", "Latency of tpcb_like",
		"p50 inflation", "Runs in execution order", "USL peak", "postgres://u:xxxxx@h/db"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("sweep report lacks %q", s)
		}
	}
	if n := bytes.Count(b, []byte("<svg xmlns=")); n != 2 {
		t.Errorf("%d charts, want 2 (throughput, latency)", n)
	}
	// The USL peak has thousands separators, as the best throughput
	// beside it does, in the HTML and the Markdown.
	var md bytes.Buffer
	if err := SweepMarkdown(&md, syntheticSweep(false)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("<dd>6,721 tps at 22 clients</dd>")) || !strings.Contains(md.String(), "peak 6,721 tps at 22.0 clients") {
		t.Errorf("the USL peak is not written 6,721 tps in the HTML headline and the Markdown:\n%s", md.String())
	}
	// The CI bars are drawn: one per client count.
	if n := len(regexp.MustCompile(`<path d="M[0-9.]+,[0-9.]+V[0-9.]+M`).FindAll(b, -1)); n != 6 {
		t.Errorf("%d confidence bars in the throughput chart, want 6", n)
	}

	v := renderSweep(t, true)
	if n := bytes.Count(v, []byte("<svg xmlns=")); n != 3 {
		t.Errorf("vary sweep: %d charts, want 3 (two series, latency)", n)
	}
	for _, s := range []string{"Throughput against clients: mix=select-only", "Throughput against clients: mix=tpcb-like", "mix=tpcb-like p99"} {
		if !bytes.Contains(v, []byte(s)) {
			t.Errorf("vary sweep report lacks %q", s)
		}
	}
}

func TestSweepReportEscapesAndHandlesAnEmptySweep(t *testing.T) {
	sw := syntheticSweep(true)
	for i := range sw.Points {
		if sw.Points[i].Vary["mix"] == "select-only" {
			sw.Points[i].Vary = map[string]string{"mix": "<script>alert(1)</script>"}
		}
	}
	sw.Error = "<img src=x>"
	var b bytes.Buffer
	if err := SweepHTML(&b, sw, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("<script")) || bytes.Contains(b.Bytes(), []byte("<img")) {
		t.Error("sweep report contains raw markup from the data")
	}
	empty := syntheticSweep(false)
	empty.Points, empty.Fits, empty.USL, empty.USLError, empty.Status = nil, nil, nil, "", "running"
	b.Reset()
	if err := SweepHTML(&b, empty, HTMLOptions{}); err != nil {
		t.Fatalf("a sweep without points: %v", err)
	}
	if !bytes.Contains(b.Bytes(), []byte("No run of the sweep completed yet")) {
		t.Error("an empty sweep does not say it has nothing to chart")
	}
}

func TestCompareReport(t *testing.T) {
	b := renderCompare(t)
	checkGolden(t, "compare.golden.html", b)
	if got := strings.Join(sectionIDs(b), ","); got != "verdicts,differences,sides" {
		t.Errorf("sections %s", got)
	}
	for _, s := range []string{`<tr class="better">`, `<tr class="same">`, "&#43;15.0%", "&#43;11.2% … &#43;18.9%", "shared_buffers", "128MB", "1GB",
		"Throughput change of B against A", "&lt;script&gt;x&lt;/script&gt;", "&lt;b&gt;on&lt;/b&gt;"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("compare report lacks %q", s)
		}
	}
	if bytes.Contains(b, []byte("<script")) || bytes.Contains(b, []byte("<b>on")) {
		t.Error("compare report contains raw markup from the data")
	}
	if n := bytes.Count(b, []byte("<svg xmlns=")); n != 4 {
		t.Errorf("%d charts, want 4 (tps, change, p50, p99)", n)
	}
}

func TestSweepAndCompareCSVAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	sw := syntheticSweep(true)
	if err := WriteSweepCSV(dir, sw); err != nil {
		t.Fatal(err)
	}
	pts := readCSV(t, filepath.Join(dir, CSVSweepPoints))
	if len(pts) != len(sw.Points)+1 || pts[0][2] != "clients" {
		t.Errorf("sweep_points.csv has %d rows, want %d and a header", len(pts), len(sw.Points)+1)
	}
	ops := readCSV(t, filepath.Join(dir, CSVSweepOps))
	if len(ops) != len(sw.Points)+1 || ops[1][3] != "tpcb_like" || ops[1][7] == "" {
		t.Errorf("sweep_ops.csv: %v", ops[:2])
	}
	c := syntheticComparison()
	if err := WriteCompareCSV(dir, c); err != nil {
		t.Fatal(err)
	}
	cmp := readCSV(t, filepath.Join(dir, CSVCompare))
	if len(cmp) != 4 || cmp[1][2] != "tpcb_like" || cmp[1][7] != "15" || cmp[1][16] != "faster" {
		t.Errorf("compare.csv: %v", cmp)
	}
	if d := readCSV(t, filepath.Join(dir, CSVConfigDiffs)); len(d) != 3 || d[2][1] != "<b>on</b>" {
		t.Errorf("config_differences.csv: %v", d)
	}
	if f := readCSV(t, filepath.Join(dir, CSVFigures)); len(f) != 3 || f[1][2] != "nopm" || f[1][5] != "51000" || f[1][6] != "58650" ||
		f[1][8] != "true" || f[2][6] != "" {
		t.Errorf("compare_figures.csv: %v", f)
	}
	// A comparison without figures, into the same directory: the file
	// holds its header, not the earlier comparison's figures.
	bare := *c
	bare.Figures = nil
	if err := WriteCompareCSV(dir, &bare); err != nil {
		t.Fatal(err)
	}
	if f := readCSV(t, filepath.Join(dir, CSVFigures)); len(f) != 1 || f[0][2] != "figure" {
		t.Errorf("compare_figures.csv after a comparison without figures: %v", f)
	}

	var md bytes.Buffer
	if err := SweepMarkdown(&md, sw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| mix=select-only | 32 |") || !strings.Contains(md.String(), "USL (mix=tpcb-like): σ = ") {
		t.Errorf("sweep markdown:\n%s", md.String())
	}
	// A sweep whose runs have a result figure (NOPM) and parallel
	// workers, with its series side by side: the Markdown and the CSV
	// carry them as the text does.
	fig := syntheticSweep(true)
	fig.HeadlineMetric = "nopm"
	for i := range fig.Points {
		fig.Points[i].Metrics = map[string]float64{"nopm": 1000 * float64(i+1)}
	}
	fig.Points[0].Workers = &results.SweepWorkers{Planned: 2, Launched: 1.5, Runs: 3}
	up, lo, hi, p99 := 12.5, 4.0, 21.0, -8.0
	fig.SeriesComparisons = []results.SeriesComparison{{Clients: 4, Flag: "mix", A: map[string]string{"mix": "tpcb-like"},
		B: map[string]string{"mix": "select-only"}, Method: "repeats", Note: "B's repeats disagree",
		Ops: []results.CompareOp{{Name: "total", TPSA: 800, TPSB: 900, TPSDeltaPct: &up, TPSCILowPct: &lo, TPSCIHighPct: &hi, P99DeltaPct: &p99, Verdict: "faster"}}}}
	md.Reset()
	if err := SweepMarkdown(&md, fig); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| series | clients | nopm (median) | tps (median) | 95% CI | efficiency | errors | workers planned/launched |\n|---|--:|--:|--:|--:|--:|--:|--:|\n",
		"| mix=select-only | 1 | 1,000 | 2,904 | ", " | 2/1.5 |\n", " | - |\n",
		"| 4 | mix=tpcb-like | mix=select-only | 800 | 900 | +12.5% | +4.0% … +21.0% | -8.0% | **faster** |",
		"Note (4 clients, mix=select-only against mix=tpcb-like): B's repeats disagree"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("sweep markdown lacks %q:\n%s", want, md.String())
		}
	}
	csvDir := t.TempDir()
	if err := WriteSweepCSV(csvDir, fig); err != nil {
		t.Fatal(err)
	}
	fp := readCSV(t, filepath.Join(csvDir, CSVSweepPoints))
	if h := fp[0][12:]; strings.Join(h, ",") != "headline_metric,headline_median,workers_planned,workers_launched" ||
		strings.Join(fp[1][12:], ",") != "nopm,1000,2,1.5" || strings.Join(fp[2][12:], ",") != "nopm,2000,," {
		t.Errorf("sweep_points.csv's figure and workers columns: %v", fp[:3])
	}
	if strings.Join(pts[1][12:], ",") != ",,," {
		t.Errorf("sweep_points.csv without figures or workers: %v", pts[1])
	}
	md.Reset()
	if err := CompareMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| tpcb_like | 4,000 | 4,600 | +15.0% | +11.2% … +18.9% | -15.8% | -18.7% | **faster** |", "`128MB` → `1GB`",
		"| nopm \\* | 51,000 | 58,650 | +15.0% | New-Order transactions a minute |", "| \\<i\\>tpm\\</i\\> | 117,000 | - | - | - |"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("compare markdown lacks %q:\n%s", s, md.String())
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// The sweep report names the engine and the client host; a series with no
// USL fit has no row of an empty table that stretches past the page, only
// its chart's note; the ideal line stops at the top of the y axis.
func TestSweepReportNamesTheEngineAndKeepsTheUSLTableNarrow(t *testing.T) {
	sw := syntheticSweep(false)
	sw.Engine = &results.EngineInfo{Engine: "postgresql", Version: "15.20"}
	sw.ClientHost = &hostinfo.Host{Hostname: "loadgen1", CPUModel: "AMD EPYC", Cores: 2, MemoryMB: 24000, OS: "debian 12", Kernel: "6.1"}
	var b bytes.Buffer
	if err := SweepHTML(&b, sw, HTMLOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tpcb on postgresql 15.20, clients", "loadgen1: AMD EPYC, 2 cores"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("sweep report lacks %q", want)
		}
	}
	sw.USL, sw.USLError, sw.Fits = nil, "at least 4 distinct client counts are needed to fit the Universal Scalability Law, got 3", nil
	b.Reset()
	if err := SweepHTML(&b, sw, HTMLOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Universal Scalability Law fit, X(N)") || !strings.Contains(b.String(), "No USL fit: at least 4 distinct") {
		t.Errorf("a sweep with no fit has a USL table, or does not say why there is no fit")
	}
	xs, ys := idealLine(1000, 16*1.15, 9000*1.15)
	if ys[1] > 9000*1.15+1e-9 || xs[1] >= 16*1.15 {
		t.Errorf("the ideal line ends at (%v, %v), past the y axis' top", xs[1], ys[1])
	}
}
