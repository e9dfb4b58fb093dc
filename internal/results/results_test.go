package results

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/runphase"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sampleRun builds a run from a synthetic engine result, as `run` does.
func sampleRun() *Run {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	h := histogram.New()
	for i := 1; i <= 1000; i++ {
		histogram.Record(h, time.Duration(i)*time.Microsecond*10)
	}
	lag := histogram.New()
	histogram.Record(lag, 250*time.Microsecond)
	tk := &loadgen.Tick{Seq: 0, Phase: runphase.Measure, Start: start, End: start.Add(time.Second), Elapsed: time.Second,
		Ops: []loadgen.OpTick{{Hist: h, Errors: 2, Retries: 1}}, ErrorClasses: map[string]int64{"sqlstate:40": 2},
		Reconnects: 1, PhaseCount: 1000, PhaseSeconds: 1}
	r := &Run{
		SchemaVersion: SchemaVersion, RunID: "20261122-100000-abcd", Status: StatusCompleted, Workload: "tpcb",
		Command: RedactArgs([]string{"dbharness", "run", "tpcb", "--db=postgres://u:secret@h/db"}),
		Target:  "postgres://u:xxxxx@h/db",
		Engine:  EngineInfo{Engine: "postgresql", Version: "15.20", Settings: map[string]string{"fsync": "on"}},
		Host:    hostinfo.Host{Hostname: "h", CPUModel: "cpu", Cores: 2, MemoryMB: 1024, OS: "linux", Kernel: "6.1", Arch: "amd64", Go: "go1"},
		Config: Config{Clients: 8, DurationSeconds: 1, MaxTries: 1, IntervalSeconds: 1, Seed: 42,
			Percentiles: NormalizePercentiles(DefaultPercentiles), WorkloadFlags: map[string]string{"mix": "tpcb-like"}},
	}
	r.Intervals = []Interval{IntervalFromTick(tk, []string{"tpcb_like"}, r.Config.Percentiles)}
	res := &loadgen.Result{Ops: []loadgen.OpResult{{Name: "tpcb_like", Hist: h, Errors: 2, Retries: 1}},
		ErrorClasses: map[string]int64{"sqlstate:40": 2}, ErrorSamples: map[string]string{"sqlstate:40": "deadlock detected"},
		Reconnects: 1, Lag: lag, Start: start, MeasureStart: start, End: start.Add(time.Second),
		Driver: loadgen.DriverLoop, Loops: 1, CPU: 150 * time.Millisecond, HostIdle: 0.42, RunQueue: 1.5, LoopBusy: 0.61}
	r.Fill(res, map[string]float64{"nopm": 12.5})
	return r
}

func TestRunJSONMatchesTheGoldenFile(t *testing.T) {
	b, err := json.MarshalIndent(sampleRun(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "run.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(want) {
		t.Fatalf("run JSON changed; if on purpose, bump SchemaVersion if a key changed, update docs/results-json.md and run go test -update\n%s", b)
	}
}

func TestRunJSONHasTheKeysOtherToolsRead(t *testing.T) {
	b, _ := json.Marshal(sampleRun())
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"run_id", "status", "summary.tps", "summary.transactions", "summary.errors", "summary.nopm",
		"ops.0.name", "ops.0.count", "ops.0.errors", "ops.0.latency_ms.p50", "ops.0.latency_ms.p90",
		"ops.0.latency_ms.p95", "ops.0.latency_ms.p99", "ops.0.latency_ms.max",
		"intervals.0.tps", "intervals.0.latency_ms.p99", "config.clients", "engine.name", "engine.version",
		"host.cpu_model", "host.cores", "host.memory_mb", "host.kernel", "start_time", "end_time",
	} {
		t.Run(path+" exists", func(t *testing.T) {
			var cur any = m
			for _, k := range strings.Split(path, ".") {
				switch c := cur.(type) {
				case map[string]any:
					cur = c[k]
				case []any:
					if len(c) == 0 {
						cur = nil
					} else {
						cur = c[0]
					}
				}
				if cur == nil {
					t.Fatalf("missing %s", path)
				}
			}
		})
	}
	if strings.Contains(string(b), "secret") {
		t.Error("the password is in the JSON")
	}
}

func TestLatencyPercentilesAreInMilliseconds(t *testing.T) {
	r := sampleRun()
	l := r.Ops[0].LatencyMs
	// 1000 values 10 µs apart: p50 = 5 ms, max = 10 ms, within 1%.
	for k, want := range map[string]float64{"p50": 5, "p99": 9.9, "max": 10} {
		if got := l[k]; got < want*0.99 || got > want*1.01 {
			t.Errorf("%s = %g ms, want %g", k, got, want)
		}
	}
	if r.Summary.TPS != 1000 {
		t.Errorf("tps = %g, want 1000", r.Summary.TPS)
	}
}

// A workload's metrics come back as metrics, and the summary's own
// numeric fields as themselves, never as metrics (the report lists the
// metrics as facts of the run).
func TestSummaryMetricsRoundTrip(t *testing.T) {
	r := sampleRun()
	idle, queue, busy := 12.5, 3.0, 40.0
	r.Summary.HostIdlePct, r.Summary.HostRunQueue, r.Summary.LoopBusyPct = &idle, &queue, &busy
	r.Summary.LoopMoves, r.Summary.AbandonedClients, r.Summary.ClientCPUSeconds = 8, 2, 1.5
	b, _ := json.Marshal(r)
	var back Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Summary.Metrics["nopm"] != 12.5 || back.Summary.TPS != 1000 || back.Summary.LoopMoves != 8 || back.Summary.AbandonedClients != 2 {
		t.Fatalf("summary read back as %+v", back.Summary)
	}
	if len(back.Summary.Metrics) != 1 {
		t.Errorf("the summary's metrics read back as %v; want only the workload's nopm", back.Summary.Metrics)
	}
	if _, err := DecodeHist(back.Ops[0].Histogram); err != nil {
		t.Fatalf("histogram does not decode: %v", err)
	}
}

func TestRedactArgsRemovesPasswords(t *testing.T) {
	got := strings.Join(RedactArgs([]string{"--db", "mysql://root:hunter2@h:3306/db", "--db=postgres://a:b@c/d"}), " ")
	if strings.Contains(got, "hunter2") || strings.Contains(got, ":b@") {
		t.Fatalf("password left in %q", got)
	}
}

func TestLatencyKeysExistAsNullWhenNothingWasMeasured(t *testing.T) {
	b, err := json.Marshal(Op{Name: "delivery", Errors: 3})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	lat, ok := m["latency_ms"].(map[string]any)
	if !ok {
		t.Fatalf("latency_ms = %v", m["latency_ms"])
	}
	for _, k := range []string{"p50", "p90", "p95", "p99", "max"} {
		if v, ok := lat[k]; !ok || v != nil {
			t.Errorf("latency_ms.%s = %v (present %v), want null", k, v, ok)
		}
	}
	var back Op
	if err := json.Unmarshal(b, &back); err != nil || len(back.LatencyMs) != 0 {
		t.Errorf("read back as %v (%v), want no values", back.LatencyMs, err)
	}
}

func TestCollectKeepsEachCollectorsSeriesUnderItsName(t *testing.T) {
	c := &Collect{Enabled: []string{"os", "server", "waits", "netstat"}, PlansNotChecked: "none"}
	c.Set("netstat", &evidence.Series{Source: "/proc/net/snmp", Intervals: []evidence.Point{}})
	c.Set("os", &evidence.Series{Source: "/proc", Intervals: []evidence.Point{}, Layout: evidence.LayoutHost})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"enabled":["os","server","waits","netstat"],"os":{"source":"/proc","layout":"host","intervals":[]},` +
		`"netstat":{"source":"/proc/net/snmp","intervals":[]},"plans_not_checked":"none"}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	var back Collect
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, c) {
		t.Errorf("read back %+v, want %+v", back, *c)
	}
	if back.Get("server") != nil || !slices.Equal(back.Names(), []string{"os", "netstat"}) {
		t.Errorf("names %v", back.Names())
	}
	for _, bad := range []string{`{"enabled":[],"os":3}`, `{"enabled":"os"}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
}
