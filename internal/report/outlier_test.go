package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// A run whose maximum is far above its p99.9 says where the slowest
// transaction was and what the evidence says there: the waits and the
// counters that stood out in that interval, not the steady ones.
func TestAnOutlierSaysWhenItHappenedAndWhatTheEvidenceShows(t *testing.T) {
	r := withEvidence(syntheticRun(30, 5))
	const seq = 17
	var iv *results.Interval
	for i := range r.Intervals {
		if r.Intervals[i].Seq == seq {
			iv = &r.Intervals[i]
		}
	}
	if iv == nil || iv.Phase != runphase.Measure {
		t.Fatalf("no measured interval %d", seq)
	}
	iv.Ops[1].LatencyMs["max"] = 2261
	r.Summary.LatencyMs["max"], r.Summary.LatencyMs["p99.9"] = 2261, 109.6
	// The waits of that interval: a lock wait that is rare elsewhere.
	for i := range r.Waits.Intervals {
		if r.Waits.Intervals[i].Seq == seq {
			r.Waits.Intervals[i].Shares = map[string]float64{"CPU": 0.3, "Lock:tuple": 0.7}
		}
	}
	// A checkpoint: a counter that moved in that interval only.
	for i := range r.Collect.Get("server").Intervals {
		p := &r.Collect.Get("server").Intervals[i]
		p.Rates["pg_stat_bgwriter.buffers_checkpoint"] = 0
		if p.Seq == seq {
			p.Rates["pg_stat_bgwriter.buffers_checkpoint"] = 1200
		}
	}
	o := FindOutlier(r)
	if o == nil || o.Seq != seq || o.Op != iv.Ops[1].Name || o.MaxMs != 2261 || !o.IsOutlier() {
		t.Fatalf("outlier %+v, want interval %d, %s, 2261 ms", o, seq, iv.Ops[1].Name)
	}
	s := o.Sentence()
	for _, want := range []string{"slowest transaction 2261", "interval 17", "21x the run's p99.9 of 109.6 ms",
		"there: waited on a lock: Lock:tuple 70% of the interval's wait profile (rest of the run 6%)",
		"also there: server pg_stat_bgwriter.buffers_checkpoint 1,200/s"} {
		if !strings.Contains(s, want) {
			t.Errorf("outlier sentence lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "xact_commit") || strings.Contains(s, "client host idle") {
		t.Errorf("a steady counter is named as standing out:\n%s", s)
	}
	var text bytes.Buffer
	Summary(&text, r)
	if !strings.Contains(text.String(), "outlier: slowest transaction 2261") {
		t.Errorf("the summary does not show the outlier:\n%s", text.String())
	}
	var html bytes.Buffer
	if err := RunHTML(&html, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), ">slowest</text>") || !strings.Contains(html.String(), "outlier") {
		t.Errorf("the latency chart does not mark the slowest transaction")
	}
}

// A maximum close to the p99.9 is no outlier: the summary stays quiet.
func TestAnOrdinaryMaximumIsNoOutlier(t *testing.T) {
	r := syntheticRun(30, 5)
	o := FindOutlier(r)
	if o == nil {
		t.Fatal("no slowest transaction found")
	}
	r.Summary.LatencyMs["p99.9"] = o.MaxMs / 2
	var text bytes.Buffer
	Summary(&text, r)
	if strings.Contains(text.String(), "outlier:") {
		t.Errorf("a maximum twice the p99.9 is called an outlier:\n%s", text.String())
	}
}

// An interval in which clients only waited on the server (a stall) is
// marked as waiting, not as errors.
func TestAStallIsMarkedAsWaitingNotAsErrors(t *testing.T) {
	r := syntheticRun(30, 5)
	for i := range r.Intervals {
		r.Intervals[i].Errors, r.Intervals[i].ErrorClasses, r.Intervals[i].Reconnects, r.Intervals[i].Down = 0, nil, 0, 0
	}
	r.Intervals[12].Waiting = 4
	_, markers, _ := timeline(r)
	if len(markers) != 1 || markers[0].Text != "waiting" || !strings.Contains(markers[0].Label, "4 waiting") {
		t.Fatalf("markers %+v, want one 'waiting'", markers)
	}
}

// Transaction types whose rates differ tenfold each get a chart of their
// own, drawn in the colour the type has in every other chart.
func TestRareTransactionTypesGetTheirOwnAxisInTheirOwnColour(t *testing.T) {
	r := syntheticRun(30, 5)
	for i := range r.Intervals {
		r.Intervals[i].Ops[1].TPS /= 40
	}
	var b bytes.Buffer
	if err := RunHTML(&b, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if !strings.Contains(html, "select_only per second") || !strings.Contains(html, "tpcb_like per second") {
		t.Fatal("no chart of its own per transaction type")
	}
	col := opColor(1)
	i := strings.Index(html, "select_only per second")
	chartEnd := strings.Index(html[i:], "</svg>")
	if !strings.Contains(html[i:i+chartEnd], col) {
		t.Errorf("select_only's own chart is not drawn in its colour %s", col)
	}
	for _, title := range []string{"p99 latency per transaction type", "Latency by percentile"} {
		j := strings.Index(html, title)
		if j < 0 {
			t.Fatalf("no %q chart", title)
		}
		end := strings.Index(html[j:], "</svg>")
		if !strings.Contains(html[j:j+end], col) {
			t.Errorf("%q does not draw select_only in %s", title, col)
		}
	}
	// Two types at similar rates share the throughput chart.
	b.Reset()
	if err := RunHTML(&b, syntheticRun(30, 5), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "select_only per second") {
		t.Error("types at similar rates were split into charts of their own")
	}
}

// Counts print without a tenth that is always zero, and counters of time
// carry their unit.
func TestCountsAndTimeCountersReadRight(t *testing.T) {
	for v, want := range map[float64]string{266: "266", 266.5: "266.5", 1234: "1,234", 12.5: "12.5"} {
		if got := numfmt.Figure(v); got != want {
			t.Errorf("numfmt.Figure(%v) = %q, want %q", v, got, want)
		}
	}
	if got := counterLabel("pg_stat_database.active_time"); got != "pg_stat_database.active_time (ms)" {
		t.Errorf("active_time labelled %q", got)
	}
	if got := counterLabel("pg_stat_database.xact_commit"); got != "pg_stat_database.xact_commit" {
		t.Errorf("xact_commit labelled %q", got)
	}
}
