package metrics_test

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/metrics"
)

func hist(us ...int64) *hdr.Histogram {
	h := hdr.New(1, 3_600_000_000, 2)
	for _, v := range us {
		_ = h.RecordValue(v)
	}
	return h
}

// scrape reads /metrics in the given format (an Accept header).
func scrape(t *testing.T, s *metrics.Server, accept string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL(), nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	out := map[string]*dto.MetricFamily{}
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err != nil {
			break
		}
		out[mf.GetName()] = &mf
	}
	if len(out) == 0 {
		t.Fatalf("scrape as %q decoded nothing (%s)", accept, resp.Header.Get("Content-Type"))
	}
	return out
}

// find returns the metric of a family whose labels include want.
func find(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m
	}
	t.Fatalf("no %s with labels %v", name, want)
	return nil
}

func TestTheTicksAndPointsOfARunAreExportedAsCountersGaugesAndHistograms(t *testing.T) {
	s, err := metrics.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	r := s.StartRun(metrics.RunInfo{RunID: "r1", Workload: "tpcb", Engine: "postgresql", Ops: []string{"a", "b"}, Clients: 4,
		Warmup: true, OpenLoop: true, Start: start})
	r.OnTick(&measure.Tick{Phase: "warmup", Ops: []measure.OpTick{{Hist: hist(100, 200)}, {Hist: hist()}}, Lag: hist(5)})
	r.OnTick(&measure.Tick{Phase: "measure", Ops: []measure.OpTick{{Hist: hist(1000, 1000, 3000), Errors: 2, Retries: 1, Late: 1}, {Hist: hist(70_000)}},
		ErrorClasses: map[string]int64{"sqlstate:40": 2}, Down: 1, Waiting: 1, Reconnects: 3, Lag: hist(10, 20), CPU: 250 * time.Millisecond})
	r.OnTick(&measure.Tick{Phase: "measure", Ops: []measure.OpTick{{Hist: hist(1500)}, {Hist: hist()}}})
	pt := evidence.Point{Rates: map[string]float64{"xact_commit": 42}, Values: map[string]float64{"hit_pct": 99.5}}
	r.OnPoint("server", 1, pt)
	// The collector goes on owning its point's maps (its Stop drops the
	// rates that stayed zero, while a scrape may be reading): the run
	// keeps copies.
	delete(pt.Rates, "xact_commit")
	pt.Values["hit_pct"] = 0

	t.Run("OpenMetrics", func(t *testing.T) {
		req, _ := http.NewRequest("GET", s.URL(), nil)
		req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body := string(b)
		for _, want := range []string{"# TYPE dbharness_transactions counter", `dbharness_transactions_total{engine="postgresql",phase="measure",run_id="r1",type="a",workload="tpcb"} 4`, "# EOF"} {
			if !strings.Contains(body, want) {
				t.Errorf("the OpenMetrics page (%s) lacks %q", resp.Header.Get("Content-Type"), want)
			}
		}
	})
	for _, accept := range []string{"text/plain", "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"} {
		t.Run(accept, func(t *testing.T) {
			f := scrape(t, s, accept)
			run := map[string]string{"run_id": "r1", "workload": "tpcb", "engine": "postgresql"}
			with := func(kv ...string) map[string]string {
				m := map[string]string{}
				for k, v := range run {
					m[k] = v
				}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i]] = kv[i+1]
				}
				return m
			}
			if v := find(t, f, metrics.Transactions, with("type", "a", "phase", "measure")).GetCounter().GetValue(); v != 4 {
				t.Errorf("measured transactions of a = %v, want 4", v)
			}
			if v := find(t, f, metrics.Transactions, with("type", "a", "phase", "warmup")).GetCounter().GetValue(); v != 2 {
				t.Errorf("warm-up transactions of a = %v, want 2", v)
			}
			if v := find(t, f, metrics.Errors, with("class", "sqlstate:40", "phase", "measure")).GetCounter().GetValue(); v != 2 {
				t.Errorf("errors of class sqlstate:40 = %v, want 2", v)
			}
			for name, want := range map[string]float64{metrics.TransactionErrors: 2, metrics.Retries: 1, metrics.Late: 1} {
				if v := find(t, f, name, with("type", "a", "phase", "measure")).GetCounter().GetValue(); v != want {
					t.Errorf("%s = %v, want %v", name, v, want)
				}
			}
			if v := find(t, f, metrics.Reconnects, run).GetCounter().GetValue(); v != 3 {
				t.Errorf("reconnects = %v, want 3", v)
			}
			if v := find(t, f, metrics.ClientsDown, run).GetGauge().GetValue(); v != 0 {
				t.Errorf("clients down at the last tick = %v, want 0", v)
			}
			if v := find(t, f, metrics.ClientsConnected, run).GetGauge().GetValue(); v != 4 {
				t.Errorf("clients connected = %v, want 4", v)
			}
			if v := find(t, f, metrics.Phase, with("phase", "measure")).GetGauge().GetValue(); v != 1 {
				t.Errorf("phase measure = %v, want 1", v)
			}
			if v := find(t, f, metrics.EvidenceRate, with("collector", "server", "counter", "xact_commit")).GetGauge().GetValue(); v != 42 {
				t.Errorf("evidence rate = %v, want 42", v)
			}
			if v := find(t, f, metrics.EvidenceValue, with("collector", "server", "name", "hit_pct")).GetGauge().GetValue(); v != 99.5 {
				t.Errorf("evidence value = %v, want 99.5", v)
			}
			h := find(t, f, metrics.Duration, with("type", "a", "phase", "measure")).GetHistogram()
			if h.GetSampleCount() != 4 {
				t.Errorf("histogram count = %d, want 4", h.GetSampleCount())
			}
			if sum := h.GetSampleSum(); math.Abs(sum-0.0065) > 0.0065*0.01 {
				t.Errorf("histogram sum = %v s, want 0.0065 within 1%%", sum)
			}
			// Classic: 1 ms twice (le 0.001), 1.5 ms (le 0.002), 3 ms (le 0.005).
			cum := map[float64]uint64{}
			for _, b := range h.Bucket {
				cum[b.GetUpperBound()] = b.GetCumulativeCount()
			}
			for le, want := range map[float64]uint64{0.0005: 0, 0.001: 2, 0.002: 3, 0.005: 4, 50: 4} {
				if cum[le] != want {
					t.Errorf("classic bucket le=%v holds %d, want %d (%v)", le, cum[le], want, cum)
				}
			}
			lag := find(t, f, metrics.Lag, with("phase", "measure")).GetHistogram()
			if lag.GetSampleCount() != 2 {
				t.Errorf("lag count = %d, want 2", lag.GetSampleCount())
			}
			if strings.Contains(accept, "protobuf") {
				if h.GetSchema() != metrics.NativeSchema || len(h.PositiveSpan) == 0 {
					t.Fatalf("the protobuf scrape has no native histogram: schema %d, spans %v", h.GetSchema(), h.PositiveSpan)
				}
				// Native buckets: decode the spans and deltas back into
				// counts by index and check each value's bucket.
				got := map[int32]int64{}
				idx, count := int32(0), int64(0)
				d := 0
				for _, sp := range h.PositiveSpan {
					idx += sp.GetOffset()
					for range sp.GetLength() {
						count += h.PositiveDelta[d]
						d++
						if count != 0 {
							got[idx] = count
						}
						idx++
					}
				}
				want := map[int32]int64{}
				for _, v := range []float64{0.001, 0.001, 0.0015, 0.003} {
					want[int32(math.Ceil(math.Log2(v)*8))]++
				}
				for k, n := range want {
					lo, hi := math.Pow(2, float64(k-1)/8), math.Pow(2, float64(k)/8)
					if got[k] != n {
						t.Errorf("native bucket %d (%.6f, %.6f] holds %d, want %d (all: %v)", k, lo, hi, got[k], n, got)
					}
				}
			}
		})
	}
	r.End()
	f := scrape(t, s, "text/plain")
	if v := find(t, f, metrics.Phase, map[string]string{"run_id": "r1", "phase": "done"}).GetGauge().GetValue(); v != 1 {
		t.Errorf("phase done after End = %v, want 1", v)
	}
}

func TestAnAddressThatCannotBeServedIsOneSentence(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for addr, want := range map[string]string{
		taken.Addr().String(): "already in use",
		"192.0.2.1:9464":      "not one of this host's",
		"localhost":           "not HOST:PORT",
		"127.0.0.1:70000":     "from 0 to 65535",
		"127.0.0.1:http":      "from 0 to 65535",
	} {
		s, err := metrics.Listen(addr)
		if err == nil {
			s.Close()
			t.Errorf("Listen(%q) succeeded", addr)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, want) || strings.Count(msg, "\n") > 0 {
			t.Errorf("Listen(%q) = %q, want one line saying %q", addr, msg, want)
		}
	}
}

// A shard's series carry its group and index, so that two shards of a
// group served at once (here by one server, as a scraper sees the shards'
// endpoints together) do not collide; a run of one process has neither
// label, and the scrape holds all three runs in both formats.
func TestAShardsSeriesHaveItsGroupAndShardLabels(t *testing.T) {
	s, err := metrics.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, id := range []string{"s0", "s1"} {
		r := s.StartRun(metrics.RunInfo{RunID: id, Workload: "null", Engine: "sqlite", Ops: []string{"a"}, Clients: 1, Group: "g1", Shard: &i})
		r.OnTick(&measure.Tick{Phase: "measure", Ops: []measure.OpTick{{Hist: hist(make([]int64, i+1)...)}}})
	}
	plain := s.StartRun(metrics.RunInfo{RunID: "r1", Workload: "null", Engine: "sqlite", Ops: []string{"a"}, Clients: 1, Group: "ignored"})
	plain.OnTick(&measure.Tick{Phase: "measure", Ops: []measure.OpTick{{Hist: hist(5, 5, 5)}}})
	for _, accept := range []string{"text/plain", "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"} {
		t.Run(accept, func(t *testing.T) {
			f := scrape(t, s, accept)
			for i, id := range []string{"s0", "s1"} {
				m := find(t, f, metrics.Transactions, map[string]string{"run_id": id, "group": "g1", "shard": fmt.Sprint(i), "phase": "measure"})
				if v := m.GetCounter().GetValue(); v != float64(i+1) {
					t.Errorf("shard %d's transactions = %v, want %d", i, v, i+1)
				}
				find(t, f, metrics.Duration, map[string]string{"run_id": id, "group": "g1", "shard": fmt.Sprint(i)})
				find(t, f, metrics.Phase, map[string]string{"run_id": id, "group": "g1", "shard": fmt.Sprint(i), "phase": "measure"})
			}
			for _, m := range f[metrics.Transactions].Metric {
				labels := map[string]string{}
				for _, l := range m.Label {
					labels[l.GetName()] = l.GetValue()
				}
				_, group := labels["group"]
				_, shard := labels["shard"]
				if isShard := labels["run_id"] != "r1"; group != isShard || shard != isShard {
					t.Errorf("run %s has labels %v: want group and shard on a shard's series only", labels["run_id"], labels)
				}
			}
			if v := find(t, f, metrics.Transactions, map[string]string{"run_id": "r1", "phase": "measure"}).GetCounter().GetValue(); v != 3 {
				t.Errorf("the run of one process's transactions = %v, want 3", v)
			}
		})
	}
}
