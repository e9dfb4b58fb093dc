package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

func serverCPURun() *results.Run {
	r := buildRun(2, 0)
	r.Collect, r.Waits, r.Plans = nil, nil, nil
	r.ServerCPU = &results.ServerCPU{Method: "perf record -e cpu-clock -F 199 -g", Processes: "PostgreSQL postmaster (pid 7)",
		FrequencyHz: 199, Samples: 40, CPUSeconds: 0.2, Seconds: 2, PerfCPUSeconds: 0.01,
		Functions: []results.CPUShare{{Symbol: "ExecScan", Module: "postgres", Samples: 30, SelfPct: 75}, {Symbol: "memcpy|x", Module: "libc.so.6", Samples: 10, SelfPct: 25}},
		Modules:   []results.CPUShare{{Module: "postgres", Samples: 30, SelfPct: 75}, {Module: "libc.so.6", Samples: 10, SelfPct: 25}},
		Stacks:    []results.FoldedStack{{Frames: "main;PostgresMain;ExecScan", Samples: 30}, {Frames: "main;PostgresMain;memcpy|x", Samples: 10}}, StacksMinPct: 0.1}
	return r
}

func TestTheServerCPUProfileShowsInTextMarkdownAndHTML(t *testing.T) {
	r := serverCPURun()
	var b bytes.Buffer
	Evidence(&b, r)
	want := "evidence:\n  server cpu: 0.20 s of CPU in 40 samples over 2.0 s (perf record -e cpu-clock -F 199 -g; perf itself used 0.01 s of CPU)\n" +
		"    by module: postgres 75.0%, libc.so.6 25.0%\n    top functions (self): ExecScan (postgres) 75.0%, memcpy|x (libc.so.6) 25.0%\n"
	if b.String() != want {
		t.Errorf("text: got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := RunMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "| ExecScan | postgres | 75.0 | 30 |") || !strings.Contains(md, `| memcpy\|x | libc.so.6 | 25.0 | 10 |`) ||
		!strings.Contains(md, "- Server CPU: 0.20 s of CPU") {
		t.Errorf("markdown lacks the profile:\n%s", md)
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 1 || secs[0].ID != "server-cpu" || len(secs[0].Tables) != 2 || len(secs[0].Charts) != 1 ||
		!strings.Contains(string(secs[0].Charts[0].SVG), "PostgresMain") {
		t.Fatalf("sections %+v", secs)
	}
}

func TestAServerCPUProfileNotTakenSaysWhyEverywhere(t *testing.T) {
	r := serverCPURun()
	r.ServerCPU = &results.ServerCPU{Unavailable: "perf is not installed (Debian package linux-perf)"}
	var b bytes.Buffer
	Evidence(&b, r)
	if want := "evidence:\n  server cpu: not profiled (perf is not installed (Debian package linux-perf))\n"; b.String() != want {
		t.Errorf("text: got %q, want %q", b.String(), want)
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 1 || len(secs[0].Warnings) != 1 || !strings.Contains(secs[0].Warnings[0], "perf is not installed") || len(secs[0].Tables) != 0 {
		t.Fatalf("sections %+v", secs)
	}
}

func TestAServerCPUProfileOfPartOfThePhaseSaysSoEverywhere(t *testing.T) {
	r := serverCPURun()
	note := "perf stopped 1.0 s into the measured phase of 2.0 s (its data file reached its cap of 1024 MB): the profile covers that part"
	r.ServerCPU.Note, r.ServerCPU.Seconds = note, 1
	var b bytes.Buffer
	Evidence(&b, r)
	if !strings.Contains(b.String(), "over 1.0 s") || !strings.HasSuffix(b.String(), "    note: "+note+"\n") {
		t.Errorf("text: got\n%s", b.String())
	}
	b.Reset()
	if err := RunMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "- Server CPU: 0.20 s of CPU in 40 samples over 1.0 s") || !strings.Contains(b.String(), "("+note+")") {
		t.Errorf("markdown lacks the note:\n%s", b.String())
	}
	secs, err := evidenceSections(r, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 1 || len(secs[0].Warnings) != 1 || secs[0].Warnings[0] != "Partial: "+note+"." || len(secs[0].Tables) != 2 {
		t.Fatalf("sections %+v", secs)
	}
}

func TestTwoRunsServerCPUDifferencesShowInTheComparisonReport(t *testing.T) {
	a, b := serverCPURun(), serverCPURun()
	b.RunID = "b"
	b.ServerCPU.Functions = []results.CPUShare{{Symbol: "ExecScan", Module: "postgres", Samples: 24, SelfPct: 60}}
	c := &results.Comparison{A: results.CompareSide{Kind: "run", ID: a.RunID}, B: results.CompareSide{Kind: "run", ID: "b"},
		ServerCPUDifferences: results.DiffServerCPU(a, b)}
	sec := serverCPUDiffSection(c.ServerCPUDifferences)
	if len(sec.Tables) != 2 || len(sec.Tables[1].Rows) != 2 || sec.Tables[1].Rows[0][0] != "ExecScan" || sec.Tables[1].Rows[0][4] != "-15.0" ||
		strings.Join(sec.Tables[1].Rows[1], " ") != "memcpy|x libc.so.6 25.0 not listed -" ||
		sec.Facts[0].V != "165.8 µs → 165.8 µs (+0.0%)" {
		t.Fatalf("section %+v", sec)
	}
	var buf bytes.Buffer
	ComparisonTable(&buf, c)
	if !strings.Contains(buf.String(), "server CPU (self time):\n  server CPU per transaction: 165.8 µs → 165.8 µs (+0.0%)\n") {
		t.Errorf("text:\n%s", buf.String())
	}
}
