// Package results is the run model: its types and the pure functions on
// them, knowing no database (package store keeps the runs). A Run is what
// `run --json` writes and what `show`, `compare` and `report` read; its
// JSON schema is versioned (SchemaVersion) and documented in
// docs/results-json.md.
package results

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/selfcost"
)

// SchemaVersion is the version of the run JSON schema.
const SchemaVersion = 1

// Run statuses.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// Run is one saved run.
type Run struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	Status        string `json:"status"`
	Error         string `json:"error,omitempty"`
	Workload      string `json:"workload"`
	// Mix is the workload's transaction mix in a few words, as the
	// workload names it after its setup ("select-only", a script's file
	// names); empty for workloads with nothing to say beyond their name
	// and for runs saved before it was recorded.
	Mix string `json:"mix,omitempty"`
	// Label is the user's name for the run (--label), as given.
	Label   string     `json:"label,omitempty"`
	Command []string   `json:"command"`
	Target  string     `json:"target"`
	Config  Config     `json:"config"`
	Engine  EngineInfo `json:"engine"`
	// Dataset is the data the run ran on, read as it started; nil for runs
	// saved before it was recorded, and for workloads with no data.
	Dataset *Dataset      `json:"dataset,omitempty"`
	Host    hostinfo.Host `json:"host"`
	// Doctor is the client host's pre-flight check, taken over a second
	// as the run set up (the CPU, load, governor, huge pages, swap and
	// clock source); nil when it was skipped (--no-doctor) and for runs
	// saved before it was recorded.
	Doctor []evidence.Check `json:"doctor,omitempty"`
	// Shard is the run's part of a group run by several processes
	// (--shard I/N --group NAME); nil for a run of one process.
	Shard *Shard `json:"shard,omitempty"`
	// Group and Shards are set in a run merged from a group's shards
	// (store.Store.GetGroup): the group, and a line per shard.
	Group     *Group        `json:"group,omitempty"`
	Shards    []ShardResult `json:"shards,omitempty"`
	StartTime time.Time     `json:"start_time"`
	EndTime   time.Time     `json:"end_time"`
	Summary   Summary       `json:"summary"`
	Ops       []Op          `json:"ops"`
	Warmup    []Op          `json:"warmup,omitempty"`
	// Statements are the latencies of each statement of each transaction
	// type (run -r), over the measured phase.
	Statements   []Statement      `json:"statements,omitempty"`
	ErrorClasses map[string]int64 `json:"error_classes"`
	// ErrorSamples holds the first message of each error class.
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	// ClientSeconds is each client's time to finish its fixed work
	// (--transactions runs only).
	ClientSeconds []float64  `json:"client_seconds,omitempty"`
	Intervals     []Interval `json:"intervals"`
	// Collect, Waits and Plans are the run's evidence (--collect): OS and
	// server counters per interval, the wait profile of the harness's
	// sessions and the plans of the workload's statements.
	Collect *Collect         `json:"collect,omitempty"`
	Waits   *Waits           `json:"waits,omitempty"`
	Plans   []StatementPlans `json:"plans,omitempty"`
	// ServerCPU is the server's CPU profile of the measured phase
	// (--collect server-cpu).
	ServerCPU *ServerCPU `json:"server_cpu,omitempty"`
	// Physical is the storage of the workload's tables and indexes before
	// and after the measured phase (--collect physical).
	Physical *Physical `json:"physical,omitempty"`
	// IO is the storage figures of a `dbharness io` or `scan` run.
	IO *IO `json:"io,omitempty"`
}

// Config is the run's configuration, passwords removed.
type Config struct {
	Clients         int               `json:"clients"`
	Terminals       int               `json:"terminals,omitempty"`
	KeyingThink     bool              `json:"keying_think,omitempty"`
	DurationSeconds float64           `json:"duration_s"`
	Transactions    int64             `json:"transactions_per_client"`
	WarmupSeconds   float64           `json:"warmup_s"`
	Rate            float64           `json:"rate"`
	LatencyLimitMs  float64           `json:"latency_limit_ms"`
	MaxTries        int               `json:"max_tries"`
	IntervalSeconds float64           `json:"interval_s"`
	Seed            uint64            `json:"seed"`
	Percentiles     []float64         `json:"percentiles"`
	WorkloadFlags   map[string]string `json:"workload_flags"`
	// Driver is how the clients ran: "loop" (event loops, Loops of them)
	// or "goroutine".
	Driver string `json:"driver,omitempty"`
	Loops  int    `json:"loops,omitempty"`
	// LoopCPUs are the CPUs the loops' threads were pinned to (--pin-loops),
	// one a loop; absent when they were not pinned.
	LoopCPUs []int `json:"loop_cpus,omitempty"`
	// FollowServer is set when the pinned loops' connections followed
	// their server processes' CPUs (--follow-server).
	FollowServer bool `json:"follow_server,omitempty"`
	// StatementTimeoutMs is --statement-timeout and
	// ReconnectTimeoutSeconds --reconnect-timeout as given (0: not given).
	StatementTimeoutMs      float64 `json:"statement_timeout_ms,omitempty"`
	ReconnectTimeoutSeconds float64 `json:"reconnect_timeout_s,omitempty"`
	// StallTimeoutSeconds is --stall-timeout as given (0: not given; -1:
	// 0, never).
	StallTimeoutSeconds float64 `json:"stall_timeout_s,omitempty"`
	// Set are the session settings --set asked for, by name, as given;
	// engine.settings has what the server then reported for them.
	Set map[string]string `json:"set,omitempty"`
	// DOP is --dop: the processes each query could use, leader included
	// (0: the server's setting).
	DOP int `json:"dop,omitempty"`
	// ReportStatements is run -r: each statement was timed (Statements).
	ReportStatements bool `json:"report_per_statement,omitempty"`
	// ConnectPerTx is run -C: a new connection for each transaction.
	ConnectPerTx bool `json:"connect_per_transaction,omitempty"`
}

// EngineInfo describes the database server of a run: its name, version
// and key settings, as the target reported them.
type EngineInfo struct {
	Engine  string `json:"name"`
	Version string `json:"version"`
	// Settings are shown as the server shows them ("128MB").
	Settings map[string]string `json:"settings,omitempty"`
	// DataDir is the server's data directory on its host (empty where
	// unknown); `dbharness io` uses it to find runs whose data lives on
	// the device it measures.
	DataDir string `json:"data_dir,omitempty"`
	// Normalized are the numeric settings in bytes, ms or plain numbers;
	// compare compares these.
	Normalized map[string]Setting `json:"settings_normalized,omitempty"`
	// TLS is whether the harness's sessions used TLS, as the server saw
	// the session that read this: "off", or the protocol and cipher
	// ("TLSv1.3 TLS_AES_256_GCM_SHA384"); empty for an engine without a
	// network (SQLite) and for runs saved before it was recorded.
	TLS string `json:"tls,omitempty"`
}

// TLSLine says how the harness's sessions reached the server, for the
// summary; "" when unknown.
func (e EngineInfo) TLSLine() string {
	switch e.TLS {
	case "":
		return ""
	case "off":
		return "connection: without TLS"
	}
	return "connection: TLS (" + e.TLS + ")"
}

// Setting is a numeric setting normalised: Value in Unit ("bytes", "ms",
// or "" for a plain number).
type Setting struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// pgLegacyPages are the settings that runs saved before settings were
// normalised glued to PostgreSQL's unit of 8kB pages ("163848kB" for
// 16384 pages, 128MB).
var pgLegacyPages = []string{"shared_buffers", "effective_cache_size", "wal_buffers"}

// UnmarshalJSON reads engine information, and repairs the page-count
// settings of PostgreSQL runs saved before settings were normalised.
func (e *EngineInfo) UnmarshalJSON(b []byte) error {
	type plain EngineInfo
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	if e.Engine != "postgresql" || e.Normalized != nil {
		return nil
	}
	for _, k := range pgLegacyPages {
		v, ok := strings.CutSuffix(e.Settings[k], "8kB")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			continue
		}
		if e.Normalized == nil {
			e.Normalized = map[string]Setting{}
		}
		e.Normalized[k] = Setting{Value: float64(n * 8192), Unit: "bytes"}
		e.Settings[k] = evidence.FormatBytes(n * 8192)
	}
	return nil
}

// Latency maps "p50", "p90", "p95", "p99", "p99.9", "max", "mean" and
// "min" to milliseconds.
type Latency map[string]float64

// requiredLatencyKeys are the keys other tools read; with no transaction to
// measure they are written as null rather than left out.
var requiredLatencyKeys = []string{"p50", "p90", "p95", "p99", "max"}

// MarshalJSON writes the percentiles; an empty Latency (nothing measured)
// is written with the required keys set to null.
func (l Latency) MarshalJSON() ([]byte, error) {
	if len(l) > 0 {
		return json.Marshal(map[string]float64(l))
	}
	m := make(map[string]*float64, len(requiredLatencyKeys))
	for _, k := range requiredLatencyKeys {
		m[k] = nil
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON wrote; null values are left out.
func (l *Latency) UnmarshalJSON(b []byte) error {
	var m map[string]*float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*l = nil
		return nil
	}
	out := make(Latency, len(m))
	for k, v := range m {
		if v != nil {
			out[k] = *v
		}
	}
	*l = out
	return nil
}

// Summary is the run's totals over the measured phase.
type Summary struct {
	TPS          float64 `json:"tps"`
	Transactions int64   `json:"transactions"`
	Errors       int64   `json:"errors"`
	Retries      int64   `json:"retries"`
	Late         int64   `json:"late"`
	Reconnects   int64   `json:"reconnects"`
	Seconds      float64 `json:"seconds"`
	LatencyMs    Latency `json:"latency_ms"`
	LagMs        Latency `json:"lag_ms,omitempty"`
	// ClientCPUSeconds is the harness process's CPU time (user + system,
	// getrusage) over the measured phase, collectors included, and
	// ClientCPUUsPerTx that time per successful transaction.
	ClientCPUSeconds float64 `json:"client_cpu_s"`
	ClientCPUUsPerTx float64 `json:"client_cpu_us_per_tx"`
	// HostIdlePct is the client host's idle CPU share over the measured
	// phase and HostRunQueue its mean runnable tasks (nil when unknown);
	// LoopBusyPct the busiest event loop's busy share (loop driver only).
	HostIdlePct  *float64 `json:"host_idle_pct,omitempty"`
	HostRunQueue *float64 `json:"host_run_queue,omitempty"`
	LoopBusyPct  *float64 `json:"loop_busy_pct,omitempty"`
	// LoopMoves is how many times a connection moved to the loop on its
	// server process's CPU (with config.follow_server).
	LoopMoves int64 `json:"loop_moves,omitempty"`
	// HostSaturated is true when the client host was saturated over the
	// measured phase (idle under 5%, or a run queue above twice its cores):
	// the harness may have been the bottleneck.
	HostSaturated bool `json:"client_host_saturated,omitempty"`
	// HostCPU is how the client host's CPU was shared over the measured
	// phase between the harness, the server and other processes; nil for
	// runs saved before it was measured, and in a group's run.
	HostCPU *HostCPU `json:"host_cpu,omitempty"`
	// Outages are the spans during which clients had lost their
	// connections (the throughput above includes them).
	Outages []Outage `json:"outages,omitempty"`
	// AbandonedClients is the number of clients still stuck in a
	// statement that could not be cancelled when the run ended.
	AbandonedClients int `json:"abandoned_clients,omitempty"`
	// Connections and ConnectMs are, with run -C, the connections opened
	// in the measured phase and the time they took.
	Connections int64   `json:"connections,omitempty"`
	ConnectMs   Latency `json:"connect_ms,omitempty"`
	// Metrics are workload-specific figures (e.g. nopm), written as keys of
	// the summary object itself.
	Metrics map[string]float64 `json:"-"`
	// MetricLabels say what each of Metrics is, where the workload says
	// (workload.MetricLabeler), by the same keys.
	MetricLabels map[string]string `json:"metric_labels,omitempty"`
	// HeadlineMetric names the one of Metrics that is the workload's
	// result ("nopm"), which a sweep tabulates beside tps.
	HeadlineMetric string `json:"headline_metric,omitempty"`
}

// Outage is a span of the run during which clients had no connection to
// the server: from StartS (seconds since the start of the run, as the
// intervals' T) for Seconds, with at most Clients down at once; ToEnd says
// that some had still none when the run ended.
type Outage struct {
	StartS  float64 `json:"start_s"`
	Seconds float64 `json:"seconds"`
	Clients int     `json:"clients"`
	ToEnd   bool    `json:"to_end,omitempty"`
}

// String says what happened in one sentence fragment.
func (o Outage) String() string {
	who := fmt.Sprintf("%d clients", o.Clients)
	if o.Clients == 1 {
		who = "1 client"
	}
	if o.ToEnd {
		return fmt.Sprintf("%s without a connection from %.1fs to the end of the run (%.1fs)", who, o.StartS, o.Seconds)
	}
	return fmt.Sprintf("%s without a connection from %.1fs for %.1fs", who, o.StartS, o.Seconds)
}

type summaryJSON Summary

// MarshalJSON flattens Metrics into the summary object.
func (s Summary) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(summaryJSON(s))
	if err != nil || len(s.Metrics) == 0 {
		return b, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range s.Metrics {
		m[k] = v
	}
	return json.Marshal(m)
}

// summaryKeys are the JSON keys of Summary's own fields, read from their
// tags, so that a field added to Summary is never taken for a workload's
// metric.
var summaryKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[summaryJSON]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// UnmarshalJSON reads Metrics back from unknown numeric keys.
func (s *Summary) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*summaryJSON)(s)); err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range m {
		if f, ok := v.(float64); ok && !summaryKeys[k] {
			if s.Metrics == nil {
				s.Metrics = map[string]float64{}
			}
			s.Metrics[k] = f
		}
	}
	return nil
}

// Op is one transaction type's totals.
type Op struct {
	Name      string  `json:"name"`
	Count     int64   `json:"count"`
	Errors    int64   `json:"errors"`
	Retries   int64   `json:"retries"`
	Late      int64   `json:"late"`
	TPS       float64 `json:"tps"`
	LatencyMs Latency `json:"latency_ms"`
	// Histogram is the HdrHistogram of latencies in µs, compressed and
	// base64-encoded as in HdrHistogram logs.
	Histogram string `json:"histogram,omitempty"`
}

// Statement is one statement's latencies over the measured phase (run
// -r): Op is its transaction type, Name the statement (a workload's name
// for it, or a script's SCRIPT:LINE and text). Count is the times it
// succeeded.
type Statement struct {
	Op        string  `json:"op"`
	Name      string  `json:"name"`
	Count     int64   `json:"count"`
	LatencyMs Latency `json:"latency_ms"`
	// Histogram is the HdrHistogram of latencies in µs, as Op's.
	Histogram string `json:"histogram,omitempty"`
}

// Interval is one tick of the run.
type Interval struct {
	Seq           int              `json:"seq"`
	Phase         string           `json:"phase"`
	T             float64          `json:"t"` // seconds since the start, at the end of the interval
	Seconds       float64          `json:"seconds"`
	TPS           float64          `json:"tps"`
	CumulativeTPS float64          `json:"cumulative_tps"`
	Count         int64            `json:"count"`
	Errors        int64            `json:"errors"`
	Retries       int64            `json:"retries"`
	Late          int64            `json:"late,omitempty"`
	Reconnects    int64            `json:"reconnects,omitempty"`
	Down          int              `json:"clients_down,omitempty"`
	Waiting       int              `json:"clients_waiting,omitempty"`
	LatencyMs     Latency          `json:"latency_ms"`
	LagMs         Latency          `json:"lag_ms,omitempty"`
	ErrorClasses  map[string]int64 `json:"error_classes,omitempty"`
	// ClientCPUPct is the harness process's CPU time in the interval as a
	// share of one core; HostIdlePct the client host's idle share and
	// LoopBusyPct the busiest event loop's busy share (nil when unknown).
	ClientCPUPct float64      `json:"client_cpu_pct"`
	HostIdlePct  *float64     `json:"host_idle_pct,omitempty"`
	LoopBusyPct  *float64     `json:"loop_busy_pct,omitempty"`
	Ops          []IntervalOp `json:"ops"`
}

// IntervalOp is one transaction type's share of an interval.
type IntervalOp struct {
	Name      string  `json:"name"`
	Count     int64   `json:"count"`
	Errors    int64   `json:"errors"`
	Retries   int64   `json:"retries"`
	TPS       float64 `json:"tps"`
	LatencyMs Latency `json:"latency_ms"`
}

// NewRunID returns a sortable, readable, unique run id such as
// "20261122-104512-3fa2".
func NewRunID(t time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// DefaultPercentiles are reported unless --percentiles says otherwise.
var DefaultPercentiles = []float64{50, 90, 95, 99, 99.9}

// requiredPercentiles are always reported: other tools read them.
var requiredPercentiles = []float64{50, 90, 95, 99}

// PercentileKey names a percentile as a JSON key: 99.9 -> "p99.9".
func PercentileKey(p float64) string {
	return "p" + strconv.FormatFloat(p, 'f', -1, 64)
}

// NormalizePercentiles merges the required percentiles into ps, sorted and
// without duplicates.
func NormalizePercentiles(ps []float64) []float64 {
	seen := map[float64]bool{}
	var out []float64
	for _, p := range append(append([]float64{}, requiredPercentiles...), ps...) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Float64s(out)
	return out
}

// LatencyOf reads percentiles, max, min and mean of a µs histogram, in ms.
func LatencyOf(h *hdr.Histogram, ps []float64) Latency {
	l := Latency{}
	if h == nil || h.TotalCount() == 0 {
		return l
	}
	for _, p := range ps {
		l[PercentileKey(p)] = ms(h.ValueAtQuantile(p))
	}
	l["max"] = ms(h.Max())
	l["min"] = ms(h.Min())
	l["mean"] = round3(h.Mean() / 1000)
	return l
}

func ms(us int64) float64 { return round3(float64(us) / 1000) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// EncodeHist encodes a histogram as HdrHistogram's compressed base64 form.
func EncodeHist(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// DecodeHist decodes EncodeHist's output.
func DecodeHist(s string) (*hdr.Histogram, error) {
	return hdr.Decode([]byte(s))
}

// IntervalFromTick converts one of the load generator's ticks.
func IntervalFromTick(tk *measure.Tick, ops []string, ps []float64) Interval {
	secs := tk.End.Sub(tk.Start).Seconds()
	iv := Interval{Seq: tk.Seq, Phase: tk.Phase, T: round3(tk.Elapsed.Seconds()), Seconds: round3(secs),
		Reconnects: tk.Reconnects, Down: tk.Down, Waiting: tk.Waiting, ErrorClasses: tk.ErrorClasses}
	if len(iv.ErrorClasses) == 0 {
		iv.ErrorClasses = nil
	}
	all := histogram.New()
	for i, o := range tk.Ops {
		all.Merge(o.Hist)
		n := o.Hist.TotalCount()
		iv.Count += n
		iv.Errors += o.Errors
		iv.Retries += o.Retries
		iv.Late += o.Late
		io := IntervalOp{Name: ops[i], Count: n, Errors: o.Errors, Retries: o.Retries, LatencyMs: LatencyOf(o.Hist, ps)}
		if secs > 0 {
			io.TPS = round2(float64(n) / secs)
		}
		iv.Ops = append(iv.Ops, io)
	}
	if secs > 0 {
		iv.TPS = round2(float64(iv.Count) / secs)
	}
	if tk.PhaseSeconds > 0 {
		iv.CumulativeTPS = round2(float64(tk.PhaseCount) / tk.PhaseSeconds)
	}
	iv.LatencyMs = LatencyOf(all, ps)
	if tk.Lag != nil {
		iv.LagMs = LatencyOf(tk.Lag, ps)
	}
	if secs > 0 {
		iv.ClientCPUPct = round2(100 * tk.CPU.Seconds() / secs)
	}
	iv.HostIdlePct, iv.LoopBusyPct = pct(tk.HostIdle), pct(tk.LoopBusy)
	return iv
}

// pct turns a share (0 to 1; negative for unknown) into a percentage, or
// nil.
func pct(share float64) *float64 {
	if share < 0 {
		return nil
	}
	v := round2(100 * share)
	return &v
}

// Fill sets the summary and per-operation totals of r from an engine result.
func (r *Run) Fill(res *measure.Result, metrics map[string]float64) {
	ps := r.Config.Percentiles
	secs := res.Seconds()
	r.StartTime, r.EndTime = res.Start, res.End
	r.ErrorClasses = res.ErrorClasses
	r.ErrorSamples = res.ErrorSamples
	all := histogram.New()
	r.Ops = r.Ops[:0]
	conv := func(o measure.OpResult) Op {
		op := Op{Name: o.Name, Count: o.Hist.TotalCount(), Errors: o.Errors, Retries: o.Retries, Late: o.Late,
			LatencyMs: LatencyOf(o.Hist, ps), Histogram: EncodeHist(o.Hist)}
		if secs > 0 {
			op.TPS = round2(float64(op.Count) / secs)
		}
		return op
	}
	for _, o := range res.Ops {
		all.Merge(o.Hist)
		op := conv(o)
		r.Ops = append(r.Ops, op)
		r.Summary.Transactions += op.Count
		r.Summary.Errors += op.Errors
		r.Summary.Retries += op.Retries
		r.Summary.Late += op.Late
	}
	r.Warmup = nil
	for _, o := range res.Warmup {
		if o.Hist.TotalCount() > 0 || o.Errors > 0 {
			w := conv(o)
			w.TPS, w.Histogram = 0, ""
			r.Warmup = append(r.Warmup, w)
		}
	}
	r.Summary.Seconds = round3(secs)
	if secs > 0 {
		r.Summary.TPS = round2(float64(r.Summary.Transactions) / secs)
	}
	r.Summary.Reconnects = res.Reconnects
	r.Summary.Outages = nil
	for _, o := range res.Outages {
		r.Summary.Outages = append(r.Summary.Outages, Outage{StartS: round3(o.Start.Sub(res.Start).Seconds()),
			Seconds: round3(o.End.Sub(o.Start).Seconds()), Clients: o.Clients, ToEnd: o.Open})
	}
	r.Summary.AbandonedClients = res.Abandoned
	r.Statements = nil
	for _, st := range res.Statements {
		r.Statements = append(r.Statements, Statement{Op: st.Op, Name: st.Name, Count: st.Hist.TotalCount(),
			LatencyMs: LatencyOf(st.Hist, ps), Histogram: EncodeHist(st.Hist)})
	}
	if res.Connects != nil {
		r.Summary.Connections, r.Summary.ConnectMs = res.Connects.TotalCount(), LatencyOf(res.Connects, ps)
	}
	r.Summary.LatencyMs = LatencyOf(all, ps)
	if res.Lag != nil {
		r.Summary.LagMs = LatencyOf(res.Lag, ps)
	}
	r.Summary.Metrics = metrics
	r.Config.Driver, r.Config.Loops, r.Config.LoopCPUs = res.Driver, res.Loops, res.LoopCPUs
	r.Config.FollowServer, r.Summary.LoopMoves = res.FollowServer, res.LoopMoves
	r.Summary.ClientCPUSeconds = round3(res.CPU.Seconds())
	if r.Summary.Transactions > 0 {
		r.Summary.ClientCPUUsPerTx = round2(float64(res.CPU.Microseconds()) / float64(r.Summary.Transactions))
	}
	r.Summary.HostIdlePct, r.Summary.LoopBusyPct = pct(res.HostIdle), pct(res.LoopBusy)
	if res.RunQueue >= 0 {
		q := round2(res.RunQueue)
		r.Summary.HostRunQueue = &q
	}
	r.Summary.HostSaturated = selfcost.Saturated(res.HostIdle, res.RunQueue)
}

// OpErrors returns failed transactions per operation.
func (r *Run) OpErrors() map[string]int64 {
	m := make(map[string]int64, len(r.Ops))
	for _, o := range r.Ops {
		m[o.Name] = o.Errors
	}
	return m
}

// Commits returns committed transactions per operation, for Summarizers.
func (r *Run) Commits() map[string]int64 {
	m := make(map[string]int64, len(r.Ops))
	for _, o := range r.Ops {
		m[o.Name] = o.Count
	}
	return m
}

// RedactArgs removes the secrets from a command line (redact.Args).
func RedactArgs(args []string) []string { return redact.Args(args) }
