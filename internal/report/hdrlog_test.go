package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// ReadHDRLog is what HdrHistogram's own log reader makes of a log: its
// histograms in order, with their tags.
func readHDRLog(t *testing.T, log []byte) []*hdr.Histogram {
	t.Helper()
	r := hdr.NewHistogramLogReader(bytes.NewReader(log))
	var out []*hdr.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("the log reader failed after %d histograms: %v", len(out), err)
		}
		if h == nil {
			return out
		}
		out = append(out, h)
	}
}

func TestASavedRunsHDRLogReadsBackAsItsIntervalHistograms(t *testing.T) {
	start := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	run := &results.Run{RunID: "r1", StartTime: start, Ops: []results.Op{{Name: "new order"}, {Name: "payment"}}}
	encoded := map[int]map[string]string{}
	want := map[int][]*hdr.Histogram{}
	for seq := range 4 {
		phase := runphase.Measure
		if seq == 0 {
			phase = runphase.Warmup
		}
		run.Intervals = append(run.Intervals, results.Interval{Seq: seq, Phase: phase, T: float64(seq+1) * 0.5, Seconds: 0.5})
		encoded[seq] = map[string]string{}
		for i, op := range run.Ops {
			h := histogram.New()
			if seq != 2 || i != 1 { // payment records nothing in interval 2
				for k := range 50 + 10*seq {
					histogram.Record(h, time.Duration(100+k*(i+1)*37)*time.Microsecond)
				}
				encoded[seq][op.Name] = results.EncodeHist(h)
			}
			want[seq] = append(want[seq], h)
		}
	}
	var b bytes.Buffer
	if err := WriteHDRLog(&b, run, encoded); err != nil {
		t.Fatal(err)
	}
	got := readHDRLog(t, b.Bytes())
	if len(got) != 8 {
		t.Fatalf("the log holds %d histograms, want 2 per interval (8):\n%s", len(got), b.String())
	}
	for k, h := range got {
		seq, op := k/2, k%2
		if tag := []string{"new_order", "payment"}[op]; h.Tag() != tag {
			t.Errorf("histogram %d is tagged %q, want %q", k, h.Tag(), tag)
		}
		if !h.Equals(want[seq][op]) {
			t.Errorf("interval %d, %s: the log's histogram (%d values) differs from the saved one (%d)", seq, run.Ops[op].Name,
				h.TotalCount(), want[seq][op].TotalCount())
		}
		// The reader adds the log's StartTime to its relative stamps.
		if s, e := h.StartTimeMs()-start.UnixMilli(), h.EndTimeMs()-start.UnixMilli(); e-s != 500 || s != int64(seq)*500 {
			t.Errorf("interval %d spans %d–%d ms from the start, want %d–%d", seq, s, e, seq*500, seq*500+500)
		}
	}
	if !strings.Contains(b.String(), "#[StartTime: 1795503600 ") {
		t.Errorf("the log does not start at the run's start:\n%s", b.String())
	}
}
