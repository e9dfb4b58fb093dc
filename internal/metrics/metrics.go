// Package metrics serves a run's live figures to Prometheus: `/metrics`
// in the Prometheus text format and OpenMetrics (and Prometheus' protobuf
// format, which carries the native histograms), through client_golang.
//
// It is fed from what the run already computes, never from the
// transactions themselves: the engine's merged interval ticks (counters
// and HdrHistograms, once per interval) and the collectors' points. The
// clients pay nothing for it; a scrape reads the figures as of the last
// interval.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/results"
)

// Phases as the phase label gives them.
const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
	// PhaseDone is the phase gauge's value once the run has ended (while
	// /metrics lingers, or a sweep prepares its next run).
	PhaseDone = "done"
)

// NativeSchema is the schema of the native histograms: buckets grow by
// 2^(1/2^3), about 9% (client_golang's default bucket factor of 1.1).
const NativeSchema = 3

// ClassicBuckets are the upper bounds (seconds) of the classic buckets,
// for servers without native histograms.
var ClassicBuckets = []float64{0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
	0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50}

// Names of the exported metrics.
const (
	Transactions      = "dbharness_transactions_total"
	TransactionErrors = "dbharness_transaction_errors_total"
	Errors            = "dbharness_errors_total"
	Retries           = "dbharness_retries_total"
	Late              = "dbharness_late_transactions_total"
	Duration          = "dbharness_transaction_duration_seconds"
	Lag               = "dbharness_schedule_lag_seconds"
	Reconnects        = "dbharness_reconnects_total"
	Phase             = "dbharness_phase"
	ClientsConnected  = "dbharness_clients_connected"
	ClientsDown       = "dbharness_clients_down"
	ClientsWaiting    = "dbharness_clients_waiting"
	ClientCPU         = "dbharness_client_cpu_seconds_total"
	EvidenceRate      = "dbharness_evidence_rate"
	EvidenceValue     = "dbharness_evidence_value"
)

// Names returns the name of every exported series: the metrics above, and
// each histogram's _bucket, _sum and _count series.
func Names() []string {
	names := []string{Transactions, TransactionErrors, Errors, Retries, Late, Reconnects, Phase, ClientsConnected,
		ClientsDown, ClientsWaiting, ClientCPU, EvidenceRate, EvidenceValue}
	for _, h := range []string{Duration, Lag} {
		names = append(names, h, h+"_bucket", h+"_sum", h+"_count")
	}
	return names
}

// runLabels are on every metric of a run; shardLabels follow them on a
// shard's (its group, and its index from 0), so that a group's shards'
// series do not collide and sum over the group. A run of one process has
// no shard labels at all.
var (
	runLabels   = []string{"run_id", "workload", "engine"}
	shardLabels = []string{"group", "shard"}
)

type descs struct {
	tx, txErr, errs, retries, late, dur, lag, reconn, phase, conn, down, waiting, cpu, evRate, evValue *prometheus.Desc
}

// newDescs are the metrics' descriptions, with the run's labels (labels)
// first.
func newDescs(labels []string) *descs {
	d := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string{}, labels...), extra...), nil)
	}
	return &descs{
		tx:      d(Transactions, "Transactions that succeeded, by transaction type and phase.", "type", "phase"),
		txErr:   d(TransactionErrors, "Transactions that failed, by transaction type and phase.", "type", "phase"),
		errs:    d(Errors, "Transactions that failed, by error class (sqlstate:XX, mysql:NNNN, sqlite:N, conn, timeout, cancelled) and phase.", "class", "phase"),
		retries: d(Retries, "Tries repeated after a serialization failure or deadlock, by transaction type and phase.", "type", "phase"),
		late:    d(Late, "Transactions slower than --latency-limit, by transaction type and phase.", "type", "phase"),
		dur:     d(Duration, "Latency of the transactions that succeeded (from the intended start in open loop), by transaction type and phase.", "type", "phase"),
		lag:     d(Lag, "Open loop: how late transactions started after their scheduled time.", "phase"),
		reconn:  d(Reconnects, "Connections re-established after one was lost."),
		phase:   d(Phase, "1 for the run's current phase (warmup, measure, done), 0 for the others.", "phase"),
		conn:    d(ClientsConnected, "Clients with a connection at the last interval."),
		down:    d(ClientsDown, "Clients without a connection at the last interval."),
		waiting: d(ClientsWaiting, "Clients whose transaction in flight began before the last interval did."),
		cpu:     d(ClientCPU, "The harness process's CPU time (user and system) since the run's clock started."),
		evRate:  d(EvidenceRate, "Per-second rate of an evidence collector's counter over its last interval (collector os or server, counter its name).", "collector", "counter"),
		evValue: d(EvidenceValue, "An evidence collector's gauge or derived figure at its last interval (the unit ends the name: _pct, _mb, _ms); collector waits gives each wait event's share.", "collector", "name"),
	}
}

// Server serves /metrics for the runs of one command (one run, or the
// runs of a sweep, each with its run_id).
type Server struct {
	ln   net.Listener
	http *http.Server
	// d describe a run of one process's metrics, shard a shard's, with
	// the shard labels too.
	d, shard *descs
	mu       sync.Mutex
	runs     []*Run
	done     chan struct{}
}

// CheckAddr checks that addr is HOST:PORT with a port of 0 to 65535 (0:
// any free port).
func CheckAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr %q is not HOST:PORT (e.g. 127.0.0.1:9464 or :9464)", addr)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("--metrics-addr %q: the port must be a number from 0 to 65535", addr)
	}
	return nil
}

// Listen binds addr and serves /metrics on it. An address that cannot be
// bound (taken, or not this host's) is an error in one sentence.
func Listen(addr string) (*Server, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var why string
		switch {
		case errors.Is(err, syscall.EADDRINUSE):
			why = "the port is already in use"
		case errors.Is(err, syscall.EADDRNOTAVAIL):
			why = "the address is not one of this host's"
		case errors.Is(err, syscall.EACCES):
			why = "permission denied (ports below 1024 need privileges)"
		default:
			var dnsErr *net.DNSError
			if errors.As(err, &dnsErr) {
				why = "the host name does not resolve"
			} else {
				why = err.Error()
			}
		}
		return nil, fmt.Errorf("--metrics-addr %s cannot be served: %s", addr, why)
	}
	s := &Server{ln: ln, d: newDescs(runLabels), shard: newDescs(append(append([]string{}, runLabels...), shardLabels...)), done: make(chan struct{})}
	reg := prometheus.NewRegistry()
	reg.MustRegister(s)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.ContinueOnError}))
	s.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.http.Serve(ln)
	}()
	return s, nil
}

// Addr is the address served (with the port chosen when it was 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the address of the metrics page.
func (s *Server) URL() string { return "http://" + s.Addr() + "/metrics" }

// Close stops serving, letting a scrape under way finish (at most 5 s).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	<-s.done
	return err
}

// RunInfo names a run and says what it has.
type RunInfo struct {
	RunID, Workload, Engine string
	// Ops are the transaction types, in the engine's order.
	Ops     []string
	Clients int
	// Warmup: the run has a warm-up phase. OpenLoop: it has a schedule.
	Warmup, OpenLoop bool
	// Start is when the run began (the counters' creation time).
	Start time.Time
	// Group and Shard name a shard of a group (--group, and its index
	// from 0 in --shard I/N); nil Shard for a run of one process.
	Group string
	Shard *int
}

// Run is one run's figures as the last interval left them.
type Run struct {
	s *Server
	// d describe the run's metrics: with the shard labels on a shard.
	d      *descs
	info   RunInfo
	labels []string
	phases []string
	// By phase index (phases), then type.
	ops     [][]opState
	classes []map[string]float64
	lag     []*histState
	reconn  float64
	phase   string
	conn    int
	down    int
	waiting int
	cpu     time.Duration
	// evidence: collector -> counter or name -> value.
	rates, values map[string]map[string]float64
}

type opState struct {
	tx, errs, retries, late float64
	dur                     *histState
}

// StartRun adds a run to the page; its series stay until the server
// closes (a sweep's earlier runs keep their final counts).
func (s *Server) StartRun(info RunInfo) *Run {
	r := &Run{s: s, d: s.d, info: info, labels: []string{info.RunID, info.Workload, info.Engine}, phase: PhaseMeasure,
		conn: info.Clients, rates: map[string]map[string]float64{}, values: map[string]map[string]float64{}}
	if info.Shard != nil {
		r.d, r.labels = s.shard, append(r.labels, info.Group, strconv.Itoa(*info.Shard))
	}
	r.phases = []string{PhaseMeasure}
	if info.Warmup {
		r.phases = []string{PhaseWarmup, PhaseMeasure}
		r.phase = PhaseWarmup
	}
	for range r.phases {
		ops := make([]opState, len(info.Ops))
		for i := range ops {
			ops[i].dur = newHistState()
		}
		r.ops = append(r.ops, ops)
		r.classes = append(r.classes, map[string]float64{})
		if info.OpenLoop {
			r.lag = append(r.lag, newHistState())
		}
	}
	s.mu.Lock()
	s.runs = append(s.runs, r)
	s.mu.Unlock()
	return r
}

func (r *Run) phaseIndex(phase string) int {
	for i, p := range r.phases {
		if p == phase {
			return i
		}
	}
	return len(r.phases) - 1
}

// OnTick adds one interval of the engine.
func (r *Run) OnTick(tk *measure.Tick) {
	if r == nil {
		return
	}
	// The histograms' buckets are read outside the lock.
	durs := make([]*histState, len(tk.Ops))
	for i, o := range tk.Ops {
		durs[i] = newHistState()
		durs[i].add(o.Hist)
	}
	var lag *histState
	if tk.Lag != nil {
		lag = newHistState()
		lag.add(tk.Lag)
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	p := r.phaseIndex(tk.Phase)
	r.phase = r.phases[p]
	for i, o := range tk.Ops {
		if i >= len(r.ops[p]) {
			break
		}
		st := &r.ops[p][i]
		st.tx += float64(o.Hist.TotalCount())
		st.errs += float64(o.Errors)
		st.retries += float64(o.Retries)
		st.late += float64(o.Late)
		st.dur.merge(durs[i])
	}
	for k, v := range tk.ErrorClasses {
		r.classes[p][k] += float64(v)
	}
	if lag != nil && r.lag != nil {
		r.lag[p].merge(lag)
	}
	r.reconn += float64(tk.Reconnects)
	r.down, r.waiting = tk.Down, tk.Waiting
	r.conn = max(0, r.info.Clients-tk.Down)
	r.cpu += tk.CPU
}

// OnPoint takes a collector's interval (a evidence.Point, or the wait
// profile's results.WaitInterval) as the collectors hand them out. It
// keeps copies of the interval's maps: the collector goes on owning them
// (its Stop drops the rates that stayed zero) while a scrape may read the
// run's.
func (r *Run) OnPoint(kind string, _ int, v any) {
	if r == nil {
		return
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	switch p := v.(type) {
	case evidence.Point:
		r.rates[kind], r.values[kind] = maps.Clone(p.Rates), maps.Clone(p.Values)
	case *evidence.Point:
		r.rates[kind], r.values[kind] = maps.Clone(p.Rates), maps.Clone(p.Values)
	case results.WaitInterval:
		r.values[kind] = maps.Clone(p.Shares)
	case *results.WaitInterval:
		r.values[kind] = maps.Clone(p.Shares)
	}
}

// End marks the run over: its phase becomes done and no client is
// connected any more.
func (r *Run) End() {
	if r == nil {
		return
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.phase, r.conn, r.waiting = PhaseDone, 0, 0
}

// Describe sends nothing (prometheus.Collector): the server is an
// unchecked collector, because a shard's metrics have the shard labels
// that a run of one process's, under the same names, have not. The
// registry still checks each metric as it gathers it.
func (s *Server) Describe(chan<- *prometheus.Desc) {}

// Collect sends every run's metrics as of its last interval
// (prometheus.Collector).
func (s *Server) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		r.collect(ch)
	}
}

func (r *Run) collect(ch chan<- prometheus.Metric) {
	d := r.d
	lv := func(extra ...string) []string { return append(append([]string{}, r.labels...), extra...) }
	counter := func(desc *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v, lv(extra...)...)
	}
	gauge := func(desc *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, lv(extra...)...)
	}
	for p, phase := range r.phases {
		for i, name := range r.info.Ops {
			st := &r.ops[p][i]
			counter(d.tx, st.tx, name, phase)
			counter(d.txErr, st.errs, name, phase)
			counter(d.retries, st.retries, name, phase)
			counter(d.late, st.late, name, phase)
			if m, err := st.dur.metric(d.dur, r.info.Start, lv(name, phase)); err == nil {
				ch <- m
			} else {
				ch <- prometheus.NewInvalidMetric(d.dur, err)
			}
		}
		for _, class := range sortedKeys(r.classes[p]) {
			counter(d.errs, r.classes[p][class], class, phase)
		}
		if r.lag != nil {
			if m, err := r.lag[p].metric(d.lag, r.info.Start, lv(phase)); err == nil {
				ch <- m
			} else {
				ch <- prometheus.NewInvalidMetric(d.lag, err)
			}
		}
	}
	counter(d.reconn, r.reconn)
	for _, phase := range append(append([]string{}, r.phases...), PhaseDone) {
		v := 0.0
		if phase == r.phase {
			v = 1
		}
		gauge(d.phase, v, phase)
	}
	gauge(d.conn, float64(r.conn))
	gauge(d.down, float64(r.down))
	gauge(d.waiting, float64(r.waiting))
	counter(d.cpu, r.cpu.Seconds())
	for _, kind := range sortedKeys(r.rates) {
		for _, name := range sortedKeys(r.rates[kind]) {
			gauge(d.evRate, r.rates[kind][name], kind, name)
		}
	}
	for _, kind := range sortedKeys(r.values) {
		for _, name := range sortedKeys(r.values[kind]) {
			gauge(d.evValue, r.values[kind][name], kind, name)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// histState is a cumulative histogram in seconds, kept as Prometheus
// exposes it: count, sum, the classic buckets' counts and the native
// buckets' counts by index.
type histState struct {
	count   uint64
	sum     float64
	classic []uint64 // per bucket of ClassicBuckets, not cumulative; the last is +Inf
	native  map[int]int64
}

func newHistState() *histState {
	return &histState{classic: make([]uint64, len(ClassicBuckets)+1), native: map[int]int64{}}
}

// add adds an HdrHistogram of microseconds. Each of its buckets (1% wide)
// goes into the Prometheus buckets by its lowest value, so that a value
// recorded at a bucket's bound (1 ms) counts as at most that bound, and
// adds its middle value to the sum.
func (h *histState) add(hist *hdr.Histogram) {
	if hist == nil || hist.TotalCount() == 0 {
		return
	}
	for _, b := range hist.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.From) / 1e6
		n := uint64(b.Count)
		h.count += n
		h.sum += float64(b.From+b.To) / 2e6 * float64(b.Count)
		h.classic[sort.SearchFloat64s(ClassicBuckets, v)] += n
		h.native[nativeIndex(v)] += b.Count
	}
}

func (h *histState) merge(o *histState) {
	h.count += o.count
	h.sum += o.sum
	for i, n := range o.classic {
		h.classic[i] += n
	}
	for k, n := range o.native {
		h.native[k] += n
	}
}

// nativeIndex is the index of the native bucket of v > 0 at NativeSchema:
// bucket i holds (2^((i-1)/8), 2^(i/8)].
func nativeIndex(v float64) int {
	const perDoubling = 1 << NativeSchema
	i := int(math.Ceil(math.Log2(v) * perDoubling))
	// Guard against rounding at a boundary.
	if math.Pow(2, float64(i-1)/perDoubling) >= v {
		i--
	} else if math.Pow(2, float64(i)/perDoubling) < v {
		i++
	}
	return i
}

// metric is the histogram as one Prometheus histogram with both the
// native buckets and the classic ones.
func (h *histState) metric(desc *prometheus.Desc, created time.Time, lv []string) (prometheus.Metric, error) {
	native, err := prometheus.NewConstNativeHistogram(desc, h.count, h.sum, h.native, nil, 0, NativeSchema,
		math.Ldexp(1, -128), created, lv...)
	if err != nil {
		return nil, err
	}
	buckets := make(map[float64]uint64, len(ClassicBuckets))
	var cum uint64
	for i, le := range ClassicBuckets {
		cum += h.classic[i]
		buckets[le] = cum
	}
	classic, err := prometheus.NewConstHistogram(desc, h.count, h.sum, buckets, lv...)
	if err != nil {
		return nil, err
	}
	var m, c dto.Metric
	if err := native.Write(&m); err != nil {
		return nil, err
	}
	if err := classic.Write(&c); err != nil {
		return nil, err
	}
	m.Histogram.Bucket = c.Histogram.Bucket
	return &written{desc: desc, m: &m}, nil
}

// written is a metric already written to its protobuf form.
type written struct {
	desc *prometheus.Desc
	m    *dto.Metric
}

func (w *written) Desc() *prometheus.Desc { return w.desc }

func (w *written) Write(out *dto.Metric) error {
	out.Label = w.m.Label
	out.Histogram = w.m.Histogram
	return nil
}
