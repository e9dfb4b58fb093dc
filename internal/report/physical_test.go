package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

func i64(n int64) *int64   { return &n }
func str(s string) *string { return &s }

// physicalRun is a run whose primary key was measured before and after
// it, on an engine that cannot say how its leaves are ordered.
func physicalRun(density float64, size int64) *results.Run {
	pk := func(d float64, sz int64) evidence.PhysicalItem {
		return evidence.PhysicalItem{Table: "inserts", Index: str("inserts_pkey"), Primary: true, SizeBytes: i64(sz), Pages: i64(sz / 8192),
			LeafPages: i64(sz/8192 - 1), Depth: i64(2), LeafDensityPct: f64(d), Method: "pgstatindex", PagesRead: i64(sz / 8192), Seconds: 0.0021}
	}
	table := evidence.PhysicalItem{Table: "inserts", SizeBytes: i64(1 << 20), Pages: i64(128), Method: "pgstattuple", PagesRead: i64(128), Seconds: 0.003}
	return &results.Run{Physical: &results.Physical{Mode: "detailed", ModeReason: "auto: small", Source: "pg_class, pgstattuple",
		Notes:  []string{"leaf order unknown here"},
		Before: []evidence.PhysicalItem{table, pk(90, 1<<19)}, After: []evidence.PhysicalItem{table, pk(density, size)}}}
}

func TestThePhysicalMeasurementIsInTheSummaryTheReportAndMarkdown(t *testing.T) {
	r := physicalRun(64.9, 920*1024)
	var b bytes.Buffer
	Evidence(&b, r)
	text := b.String()
	for _, want := range []string{"physical (detailed; auto: small):", "inserts_pkey  primary key  after   920 KiB", "64.9%", "2.1 ms",
		"note: leaf order unknown here", "1 other table or index did not change notably (--verbose shows it)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
	// The table did not change: only --verbose shows it.
	if strings.Contains(text, "inserts       table") {
		t.Errorf("the summary shows a table that did not change:\n%s", text)
	}
	b.Reset()
	evidenceText(&b, r, TextOptions{Verbose: true})
	if v := b.String(); !strings.Contains(v, "inserts       table        after") || strings.Contains(v, "did not change notably") {
		t.Errorf("--verbose does not show every row:\n%s", v)
	}
	// No item has a fragmentation or dead rows: the columns are left out.
	if strings.Contains(text, "frag.") || strings.Contains(text, "dead") {
		t.Errorf("a column with no figure is shown:\n%s", text)
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sec *section
	for i := range secs {
		if secs[i].ID == "physical" {
			sec = &secs[i]
		}
	}
	if sec == nil || len(sec.Tables) != 1 || len(sec.Tables[0].Rows) != 4 || !strings.Contains(facts(secs), "read with: inserts: pgstattuple; inserts_pkey: pgstatindex") {
		t.Fatalf("report section: %+v", sec)
	}
	if md := strings.Join(evidenceSummary(r), "\n"); md != "Physical (detailed, after the run): inserts_pkey 920 KiB, leaf density 64.9%, fragmentation -" {
		t.Errorf("markdown: %q", md)
	}
	none := &results.Run{Physical: &results.Physical{Mode: "detailed", Unavailable: "workload null names no tables"}}
	b.Reset()
	Evidence(&b, none)
	if b.String() != "evidence:\n  physical: not measured (workload null names no tables)\n" {
		t.Errorf("got %q", b.String())
	}
}

func TestAPhysicalMeasurementWithNoNotableChangeIsOneLine(t *testing.T) {
	r := physicalRun(89, 1<<19) // a point of density, the same size
	var b bytes.Buffer
	Evidence(&b, r)
	want := "evidence:\n  physical (detailed; auto: small): none of the 2 tables and indexes measured changed notably over the run (--verbose shows them)\n    note: leaf order unknown here\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Without a measurement after the run there is no change to show.
	r.Physical.After, r.Physical.AfterError = nil, "could not connect"
	b.Reset()
	Evidence(&b, r)
	if !strings.Contains(b.String(), "2 tables and indexes measured before the run only (--verbose shows them)\n    after the run: not measured (could not connect)") {
		t.Errorf("got\n%s", b.String())
	}
	// What the run created is said, whatever changed.
	r.Physical.CreatedExtensions = []string{"pgstattuple"}
	b.Reset()
	Evidence(&b, r)
	if !strings.Contains(b.String(), "    created the extension pgstattuple in the target database to measure its tables, as --create-extensions allows (DROP EXTENSION removes it)\n") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestCompareListsThePhysicalDifferencesOfTwoRuns(t *testing.T) {
	a, b := physicalRun(90.2, 512*1024), physicalRun(64.9, 920*1024)
	ds := results.PhysicalDiffs(a.Physical, b.Physical)
	if len(ds) != 2 {
		t.Fatalf("%+v", ds)
	}
	var out bytes.Buffer
	diffLines(&out, "physical (after each run)", ds)
	want := "\nphysical (after each run):\n" +
		"  inserts (table): size 1.00 MiB → 1.00 MiB, leaf density - → -, leaf fragmentation - → -\n" +
		"  inserts.inserts_pkey (primary key): size 512 KiB → 920 KiB, leaf density 90.2% → 64.9%, leaf fragmentation - → -\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	sec := physicalDiffSection(ds)
	if row := strings.Join(sec.Tables[0].Rows[1], "|"); row != "inserts.inserts_pkey|primary key|512 KiB|920 KiB|90.2%|64.9%|-|-" {
		t.Errorf("row %s", row)
	}
}

func TestASweepOverKeysShowsEachPointsIndexAfterItsRuns(t *testing.T) {
	sw := &results.Sweep{SweepID: "sw-1", Workload: "inserts", Clients: []int{1}, Vary: []results.VaryFlag{{Flag: "key", Values: []string{"serial", "uuid-random"}}}}
	for _, k := range []struct {
		key        string
		dens, frag float64
	}{{"serial", 90.2, 0}, {"uuid-random", 64.7, 50}} {
		sw.Points = append(sw.Points, results.SweepPoint{Clients: 1, Vary: map[string]string{"key": k.key}, Runs: []string{"r"},
			Physical: []results.SweepPhysical{{Key: "inserts.inserts_pkey", Kind: "primary key", SizeBytes: i64(592 * 1024), LeafDensityPct: f64(k.dens), LeafFragmentationPct: f64(k.frag)}}})
	}
	var b bytes.Buffer
	SweepTable(&b, sw)
	if !strings.Contains(b.String(), "physical storage after the runs (median over runs)") ||
		!strings.Contains(b.String(), "key=uuid-random       1 inserts.inserts_pkey primary key     592 KiB        64.7%      50.0%") {
		t.Errorf("text:\n%s", b.String())
	}
	b.Reset()
	if err := SweepMarkdown(&b, sw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| key=serial | 1 | inserts.inserts_pkey | primary key | 592 KiB | 90.2% | 0.0% |") {
		t.Errorf("markdown:\n%s", b.String())
	}
}
