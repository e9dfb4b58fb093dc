package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func TestRunCSVHoldsTheFullSeries(t *testing.T) {
	r := syntheticRun(3600, 60)
	dir := t.TempDir()
	if err := WriteRunCSV(dir, r); err != nil {
		t.Fatal(err)
	}
	iv := readCSV(t, filepath.Join(dir, CSVIntervals))
	if len(iv) != 3601 {
		t.Fatalf("intervals.csv has %d rows, want 3600 and a header (no downsampling in the CSV)", len(iv))
	}
	col := map[string]int{}
	for i, h := range iv[0] {
		col[h] = i
	}
	for _, h := range []string{"seq", "phase", "t_s", "tps", "errors", "reconnects", "p50_ms", "p99_ms", "p99.9_ms", "max_ms", "error_classes"} {
		if _, ok := col[h]; !ok {
			t.Errorf("intervals.csv lacks the column %s: %v", h, iv[0])
		}
	}
	for i, row := range iv[1:] {
		want := r.Intervals[i]
		if row[col["phase"]] != want.Phase || row[col["tps"]] != strconv.FormatFloat(want.TPS, 'f', -1, 64) ||
			row[col["p99_ms"]] != strconv.FormatFloat(want.LatencyMs["p99"], 'f', -1, 64) {
			t.Fatalf("intervals.csv row %d = %v, interval %+v", i, row, want)
		}
	}
	if row := iv[1+1800]; row[col["error_classes"]] != "sqlstate:42=3" {
		t.Errorf("interval 1800 error classes %q", row[col["error_classes"]])
	}
	ops := readCSV(t, filepath.Join(dir, CSVIntervalOps))
	if len(ops) != 1+2*3600 {
		t.Errorf("interval_ops.csv has %d rows, want %d", len(ops), 1+2*3600)
	}
	sum := readCSV(t, filepath.Join(dir, CSVOps))
	// header, 2 warm-up rows, 2 measured rows, total
	if len(sum) != 6 || sum[5][2] != "total" || sum[5][3] != strconv.FormatInt(r.Summary.Transactions, 10) {
		t.Errorf("ops.csv: %v", sum)
	}
	errs := readCSV(t, filepath.Join(dir, CSVErrors))
	if len(errs) != 2 || errs[1][3] != hostileSample {
		t.Errorf("errors.csv does not keep the message verbatim: %v", errs)
	}
}

func TestRunMarkdownIsCompactAndSafe(t *testing.T) {
	r := syntheticRun(30, 5)
	r.Ops[1].Name = "odd|name*"
	r.Summary.Metrics = map[string]float64{"nopm": 38938.2, "hammerdb_nopm": 38940, "hammerdb_tpm": 88361}
	var b bytes.Buffer
	if err := RunMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, s := range []string{"### dbharness run `20261122-100000-abcd`: tpcb on postgresql 15.20", "| transaction | count | tps | errors | p50 ms | p95 ms | p99 ms | max ms |",
		"| tpcb_like | ", "| odd\\|name\\* | ", "| **total** | ", "- `sqlstate:42` ×3, first: `ERROR: relation \"<script>alert('x')</script>\" does not exist & more`",
		"target `postgres://u:xxxxx@h/db`", "`dbharness run tpcb --db=postgres://u:xxxxx@h/db -c 8`",
		"Figures: hammerdb_nopm 38,940 · hammerdb_tpm 88,361 · nopm 38,938\n"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
	if strings.Contains(md, "secret") {
		t.Error("markdown shows a password")
	}
	if n := strings.Count(md, "\n"); n > 20 {
		t.Errorf("markdown summary is %d lines; it should stay compact", n)
	}
}

func TestEvidenceCSVAndMarkdown(t *testing.T) {
	r := withEvidence(syntheticRun(40, 5))
	dir := t.TempDir()
	if err := WriteRunCSV(dir, r); err != nil {
		t.Fatal(err)
	}
	osRows := readCSV(t, filepath.Join(dir, CSVOS))
	var want int
	for _, p := range r.Collect.Get("os").Intervals {
		want += len(p.Rates) + len(p.Values)
	}
	if len(osRows) != want+1 || osRows[0][6] != "name" {
		t.Errorf("os.csv has %d rows, want %d", len(osRows), want+1)
	}
	found := false
	for _, row := range osRows {
		if row[1] == "10" && row[5] == "value" && row[6] == "cpu.user_pct" {
			found = row[7] == strconv.FormatFloat(r.Collect.Get("os").Intervals[10].Values["cpu.user_pct"], 'f', -1, 64)
		}
	}
	if !found {
		t.Error("os.csv lacks interval 10's cpu.user_pct")
	}
	if rows := readCSV(t, filepath.Join(dir, CSVServer)); len(rows) < 40*6 {
		t.Errorf("server.csv has %d rows", len(rows))
	}
	if rows := readCSV(t, filepath.Join(dir, CSVWaits)); len(rows) != 1+5+40*5 || rows[1][4] != "CPU" {
		t.Errorf("waits.csv has %d rows; first %v", len(rows), rows[1])
	}

	var b bytes.Buffer
	if err := RunMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"- CPU (mean over the measured phase): user ", "- Top waits: CPU 50%, LWLock:WALWrite 25%, IO:WALSync 12%",
		"- Plan flags: update_teller (changed-during-run); select_\\<script\\> (parameter-sensitive)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("markdown lacks %q:\n%s", s, b.String())
		}
	}
	// Without evidence, no evidence files.
	dir2 := t.TempDir()
	if err := WriteRunCSV(dir2, syntheticRun(10, 0)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{CSVOS, CSVServer, CSVWaits} {
		if _, err := os.Stat(filepath.Join(dir2, f)); err == nil {
			t.Errorf("%s written for a run without evidence", f)
		}
	}
}

// Every CSV file neutralises a text cell a spreadsheet would run as a
// formula (a leading single quote, as OWASP advises), and leaves numbers,
// negative ones too, as they are.
func TestCSVCellsNeverStartAFormula(t *testing.T) {
	r := syntheticRun(30, 5)
	r.Ops[0].Name = "=HYPERLINK(\"http://x\",\"y\")"
	r.Ops[1].Name = "-2+3"
	r.ErrorSamples = map[string]string{"sqlstate:42": "@SUM(1)"}
	r.ErrorClasses = map[string]int64{"sqlstate:42": 1}
	for i := range r.Intervals {
		for j := range r.Intervals[i].Ops {
			r.Intervals[i].Ops[j].Name = r.Ops[j].Name
		}
	}
	neg, pos := -1.5, 2.0
	c := &results.Comparison{A: results.CompareSide{ID: "a"}, B: results.CompareSide{ID: "+b"},
		Ops:               []results.CompareOp{{Name: "\tTab", TPSA: 10, TPSB: 8.5, TPSDeltaPct: &neg, TPSCILowPct: &neg, TPSCIHighPct: &pos, Verdict: "slower"}},
		ConfigDifferences: []results.ConfigDiff{{Key: "config.script", A: "\rcr.sql", B: "-1"}}}
	dir := t.TempDir()
	if err := WriteRunCSV(dir, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareCSV(dir, c); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{`'=HYPERLINK("http://x","y")`: true, "'-2+3": true, "'@SUM(1)": true, "'\tTab": true, "'+b": true, "'\rcr.sql": true}
	numbers := map[string]bool{"-1.5": true, "-1": true}
	for _, f := range []string{CSVOps, CSVIntervalOps, CSVErrors, CSVCompare, CSVConfigDiffs} {
		for _, row := range readCSV(t, filepath.Join(dir, f)) {
			for _, cell := range row {
				delete(want, cell)
				delete(numbers, cell)
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
					if _, err := strconv.ParseFloat(cell, 64); err != nil {
						t.Errorf("%s: the cell %q starts a formula", f, cell)
					}
				}
			}
		}
	}
	if len(want) > 0 || len(numbers) > 0 {
		t.Errorf("cells not written as expected: neutralised %v, numbers %v", want, numbers)
	}
}
