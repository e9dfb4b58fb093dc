package results

import (
	"crypto/rand"
	"encoding/hex"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"strconv"
	"strings"
	"time"
)

// ClientList is the sweep's client counts as written on the command line:
// "1,2,4,8".
func (sw *Sweep) ClientList() string {
	s := make([]string, len(sw.Clients))
	for i, c := range sw.Clients {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// NewSweepID returns a sortable, readable, unique sweep id such as
// "sw-20261122-104512-3fa2"; the prefix tells sweeps from runs.
func NewSweepID(t time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return SweepIDPrefix + t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// SweepIDPrefix starts every sweep id.
const SweepIDPrefix = "sw-"

// SweepSchemaVersion is the version of the sweep JSON schema
// (docs/sweep-json.md).
const SweepSchemaVersion = 1

// CompareSchemaVersion is the version of the comparison JSON schema
// (docs/sweep-json.md).
const CompareSchemaVersion = 1

// Sweep is one saved experiment: a plan of runs over client counts and
// swept workload flags, repeated, and the analysis of the runs that
// finished. It is what `sweep --json` writes and what `compare` and the
// reports read. Every run of a sweep is an ordinary saved Run.
type Sweep struct {
	SchemaVersion int    `json:"schema_version"`
	SweepID       string `json:"sweep_id"`
	Workload      string `json:"workload"`
	// Mix is the workload's transaction mix, as its runs record it (Run.Mix);
	// the mixes of a sweep that varies it are joined with " | ".
	Mix string `json:"mix,omitempty"`
	// Label is the user's name for the sweep (--label), which its runs
	// carry too.
	Label string `json:"label,omitempty"`
	// Command is the sweep's command line, passwords removed.
	Command []string `json:"command"`
	// BaseArgs are the `run` arguments shared by every point (everything
	// but --clients and the swept flags), passwords removed; --resume
	// runs them again, with --db given anew when the URL had a password.
	BaseArgs []string `json:"base_args"`
	Target   string   `json:"target"`
	// InitArgs are the init flags of the sweep's command line (such as
	// --pad=200), given to every init of a sweep that varies flags of the
	// workload's init; the swept values come from each point.
	InitArgs []string `json:"init_args,omitempty"`
	// Clients are the client counts swept, ascending; 1 is added unless
	// --no-single-stream.
	Clients []int `json:"clients"`
	// Vary lists the swept workload flags, crossed with each other and with
	// the client counts.
	Vary   []VaryFlag `json:"vary"`
	Repeat int        `json:"repeat"`
	// OrderSeed seeds the random order of the runs within each repeat round.
	OrderSeed uint64 `json:"order_seed"`
	// Status is running, completed, interrupted or failed.
	Status string `json:"status"`
	// PID and Host name the process running the sweep, so that --resume
	// refuses a sweep that is still running.
	PID   int    `json:"pid,omitempty"`
	Host  string `json:"host,omitempty"`
	Error string `json:"error,omitempty"`
	// Notes are remarks about the plan, e.g. that 1 client was added.
	Notes     []string  `json:"notes,omitempty"`
	StartTime time.Time `json:"start_time"`
	EndTime   time.Time `json:"end_time"`
	// Plan is every run of the sweep in execution order; RunID is empty for
	// a run not yet made.
	Plan []SweepRun `json:"plan"`
	// RunIDs are the runs made so far, in execution order.
	RunIDs []string `json:"run_ids"`
	// Engine and ClientHost are the database server and the client host
	// of the sweep's first completed run (nil before it, and for sweeps
	// saved before they were recorded): the report names them.
	Engine     *EngineInfo    `json:"engine,omitempty"`
	ClientHost *hostinfo.Host `json:"client_host,omitempty"`

	// The analysis of the finished runs (completed ones only).

	// Points are the sweep's points: one per (clients, vary values), by
	// series (in the order of the --vary values) then clients.
	Points []SweepPoint `json:"points"`
	// USL is the Universal Scalability Law fit when the sweep has a single
	// series (no --vary); with --vary see Fits. USLError says why there is
	// no fit (e.g. fewer than 4 distinct client counts).
	USL      *USLModel `json:"usl,omitempty"`
	USLError string    `json:"usl_error,omitempty"`
	// Fits is one USL fit per series (per combination of vary values).
	Fits []SweepFit `json:"fits"`
	// Caveats are what the analysis found that limits what it can say: a
	// poor or extrapolated USL fit, efficiency above 1, repeats that
	// disagree beyond their own spread, a systematic round effect. Empty
	// when it found none; nil for sweeps analysed before they existed.
	Caveats []SweepCaveat `json:"caveats"`
	// SeriesComparisons compare the series of a sweep with --vary at each
	// client count, with compare's statistics: each series against the
	// series that differs from it in one swept flag only, which there
	// takes its first value.
	SeriesComparisons []SeriesComparison `json:"series_comparisons,omitempty"`
	// HeadlineMetric is the workload's result figure ("nopm" for TPC-C)
	// when every completed run names the same one: the sweep's table
	// shows its median (SweepPoint.Metrics) beside the tps.
	HeadlineMetric string `json:"headline_metric,omitempty"`
}

// SeriesComparison is series B of a sweep against series A at one client
// count; they differ in the swept flag Flag only.
type SeriesComparison struct {
	Clients int               `json:"clients"`
	Flag    string            `json:"flag"`
	A       map[string]string `json:"a"`
	B       map[string]string `json:"b"`
	// Method, Ops and Note are as a comparison's of two sweeps at one
	// point: Ops has each transaction type, then "total".
	Method string      `json:"method"`
	Ops    []CompareOp `json:"ops"`
	Note   string      `json:"note,omitempty"`
}

// Total is the comparison's "total" row (the last), or nil.
func (c *SeriesComparison) Total() *CompareOp {
	if len(c.Ops) == 0 {
		return nil
	}
	return &c.Ops[len(c.Ops)-1]
}

// The kinds of SweepCaveat.
const (
	CaveatPoorFit          = "poor-fit"           // USL R² under USLMinR2
	CaveatPeakExtrapolated = "peak-extrapolated"  // USL peak beyond the largest client count measured
	CaveatEfficiencyAbove1 = "efficiency-above-1" // more tps per client than at 1 client
	CaveatRepeatsDisagree  = "repeats-disagree"   // a point's repeats fall into separate regimes
	CaveatRoundEffect      = "round-effect"       // one round systematically slower or faster
)

// SweepCaveat is one limit of a sweep's analysis, with the points and the
// runs it comes from.
type SweepCaveat struct {
	Kind string `json:"kind"`
	// Vary is the series (absent for a sweep without --vary, and for a
	// round effect, which is over every series).
	Vary map[string]string `json:"vary,omitempty"`
	// Clients are the client counts concerned.
	Clients []int `json:"clients,omitempty"`
	// Runs are the runs the caveat comes from.
	Runs []string `json:"runs,omitempty"`
	// Text says it in one sentence.
	Text string `json:"text"`
}

// USLMinR2 is the coefficient of determination under which a USL fit is a
// poor fit and its peak is not stated as a finding. In simulated sweeps
// (docs/experiments.md) fits under it placed the peak more than 1.5 times
// off twice as often as fits above it.
const USLMinR2 = 0.9

// VaryFlag is one swept workload (or run) flag and its values.
type VaryFlag struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values"`
}

// SweepRun is one planned run of a sweep.
type SweepRun struct {
	Seq     int               `json:"seq"`   // position in execution order, from 0
	Round   int               `json:"round"` // repeat round, from 1
	Clients int               `json:"clients"`
	Vary    map[string]string `json:"vary,omitempty"`
	RunID   string            `json:"run_id,omitempty"`
	Status  string            `json:"status,omitempty"` // the run's status once made
	// Init is set when the sweep ran init before this run: the point's
	// values of the workload's init flags differed from those loaded last.
	Init bool `json:"init,omitempty"`
}

// SweepPoint is the analysis of one point of a sweep: the runs at one client
// count and one combination of vary values.
type SweepPoint struct {
	Clients int               `json:"clients"`
	Vary    map[string]string `json:"vary,omitempty"`
	// TPSMedian is the median tps over the point's completed runs, with
	// its 95% bootstrap interval: over repeats when there are at least 2,
	// else a moving-block bootstrap of the run's per-interval tps
	// (CIMethod "repeats" or "intervals").
	TPSMedian float64 `json:"tps_median"`
	TPSCILow  float64 `json:"tps_ci_low"`
	TPSCIHigh float64 `json:"tps_ci_high"`
	// TPSCILowClipped is set when the interval reached below zero and its
	// low end was cut to 0: the 0 is a floor, not a measured value.
	TPSCILowClipped bool   `json:"tps_ci_low_clipped,omitempty"`
	CIMethod        string `json:"ci_method"`
	// TPS is each completed run's tps, in the order of Runs.
	TPS []float64 `json:"tps"`
	// Runs are the ids of the point's completed runs.
	Runs []string `json:"runs"`
	// Efficiency is tps(N) / (N * tps(1)) within the same series; null when
	// the series has no 1-client point.
	Efficiency *float64 `json:"efficiency"`
	// Errors are the failed transactions summed over the point's runs.
	Errors int64 `json:"errors"`
	// Interfered are the point's runs whose other processes took more
	// than OthersWarnPct of the host's CPU (HostCPU.Interfered): their
	// figures include that interference.
	Interfered []string      `json:"interfered,omitempty"`
	Ops        []SweepOpStat `json:"ops"`
	// Physical is each index (and b-tree table) of the point's runs after
	// each run (--collect physical), as medians over the runs.
	Physical []SweepPhysical `json:"physical,omitempty"`
	// Metrics are the medians over the point's runs of the workload's own
	// figures (nopm, tpm, ...), each over the runs that have it.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Workers are the parallel workers the point's runs' plans planned
	// and launched (Run.PlanWorkers), medians over the runs that measured
	// them; nil where none did.
	Workers *SweepWorkers `json:"workers,omitempty"`
}

// SweepWorkers are a sweep point's parallel workers: in each run, the
// workers one EXPLAIN ANALYZE of each statement planned and launched,
// summed over the statements; here the medians over the runs.
type SweepWorkers struct {
	Planned  float64 `json:"planned"`
	Launched float64 `json:"launched"`
	// Runs is how many of the point's runs measured them.
	Runs int `json:"runs"`
}

// SweepOpStat is one transaction type at one sweep point. Latencies are
// medians over the point's runs of each run's percentile, in ms.
type SweepOpStat struct {
	Name      string  `json:"name"`
	TPSMedian float64 `json:"tps_median"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	Errors    int64   `json:"errors"`
	// InflationP50 and InflationP99 are the concurrency inflation: this
	// point's latency divided by the latency at 1 client in the same series
	// (1 = no degradation); null when there is no 1-client latency.
	InflationP50 *float64 `json:"inflation_p50"`
	InflationP99 *float64 `json:"inflation_p99"`
}

// SweepFit is the USL fit of one series of a sweep.
type SweepFit struct {
	Vary     map[string]string `json:"vary,omitempty"`
	USL      *USLModel         `json:"usl,omitempty"`
	USLError string            `json:"usl_error,omitempty"`
}

// USLModel is a Universal Scalability Law fit,
// X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)).
type USLModel struct {
	Lambda float64 `json:"lambda"`
	Sigma  float64 `json:"sigma"` // contention
	Kappa  float64 `json:"kappa"` // coherency
	// PeakClients and PeakTPS are the predicted peak; null when the model
	// has no peak (kappa = 0: throughput rises towards lambda/sigma, given
	// in AsymptoteTPS).
	PeakClients  *float64 `json:"peak_clients"`
	PeakTPS      *float64 `json:"peak_tps"`
	AsymptoteTPS *float64 `json:"asymptote_tps,omitempty"`
	R2           float64  `json:"r2"`
	// PoorFit is R2 < USLMinR2: the model does not describe the runs well
	// enough for its peak (or ceiling) to be a finding.
	PoorFit bool `json:"poor_fit"`
	// PeakExtrapolated is set when the peak lies beyond the largest client
	// count measured: the model's extrapolation, not a finding.
	PeakExtrapolated bool `json:"peak_extrapolated"`
	// Points is the number of runs used in the fit, repeats included.
	Points int `json:"points"`
}

// Poor reports whether the fit is a poor fit (R2 under USLMinR2); for
// sweeps saved before PoorFit existed it is decided from R2.
func (m *USLModel) Poor() bool { return m.PoorFit || m.R2 < USLMinR2 }

// PeakFinding reports whether the model's peak can be stated as a finding:
// it has one, the fit is not poor, and the peak is within the client
// counts measured.
func (m *USLModel) PeakFinding() bool {
	return m.PeakClients != nil && !m.Poor() && !m.PeakExtrapolated
}

// Comparison is what `compare A B` reports: B relative to A.
type Comparison struct {
	SchemaVersion int         `json:"schema_version"`
	A             CompareSide `json:"a"`
	B             CompareSide `json:"b"`
	// Method is "intervals" (moving-block bootstrap over each run's
	// per-interval tps) or "repeats" (bootstrap over the runs' tps).
	Method string  `json:"method"`
	Level  float64 `json:"level"`
	// Ops lists each transaction type and "total"; for two sweeps, one set
	// per point they share (Clients and Vary say which).
	Ops []CompareOp `json:"ops"`
	// ConfigDifferences lists every configuration item that differs.
	ConfigDifferences []ConfigDiff `json:"config_differences"`
	// PlanDifferences lists the statements whose plans differ between the
	// two runs (two runs with plan checks only).
	PlanDifferences []PlanDiff `json:"plan_differences,omitempty"`
	// PhysicalDifferences pairs the tables and indexes of two runs that
	// measured them (--collect physical), after each run.
	PhysicalDifferences []PhysicalDiff `json:"physical_differences,omitempty"`
	// ServerCPUDifferences compares the server's CPU profiles of two runs
	// that took one (--collect server-cpu).
	ServerCPUDifferences *ServerCPUDiff `json:"server_cpu_differences,omitempty"`
	// Figures are the workloads' own figures (nopm, power_at_size, ...)
	// of both sides, where either has any.
	Figures []FigureDiff `json:"figures,omitempty"`
	// Notes explain limits, e.g. points present on one side only.
	Notes []string `json:"notes,omitempty"`
	// WorkloadsDiffer is set when A and B ran different workloads, which
	// compare refuses unless --force: their figures measure different work.
	WorkloadsDiffer bool `json:"workloads_differ,omitempty"`
}

// CompareSide names one side of a comparison.
type CompareSide struct {
	Kind     string   `json:"kind"` // "run" or "sweep"
	ID       string   `json:"id"`
	Label    string   `json:"label,omitempty"`
	Workload string   `json:"workload"`
	Mix      string   `json:"mix,omitempty"`
	Runs     []string `json:"runs"`
}

// CompareOp is one transaction type (or "total") compared.
type CompareOp struct {
	Name    string            `json:"name"`
	Clients int               `json:"clients,omitempty"`
	Vary    map[string]string `json:"vary,omitempty"`
	TPSA    float64           `json:"tps_a"`
	TPSB    float64           `json:"tps_b"`
	// TPSDeltaPct is (B-A)/A in percent, null when A is 0; TPSCILowPct and
	// TPSCIHighPct bound it at Level.
	TPSDeltaPct  *float64 `json:"tps_delta_pct"`
	TPSCILowPct  *float64 `json:"tps_ci_low_pct"`
	TPSCIHighPct *float64 `json:"tps_ci_high_pct"`
	// LatencyA and LatencyB are the latency percentiles in ms; LatencyDeltaPct
	// has (B-A)/A in percent for each key both have (p50, p90, p95, p99,
	// p99.9, max, mean); P50DeltaPct and P99DeltaPct repeat two of them.
	LatencyA        Latency            `json:"latency_ms_a"`
	LatencyB        Latency            `json:"latency_ms_b"`
	LatencyDeltaPct map[string]float64 `json:"latency_delta_pct"`
	P50DeltaPct     *float64           `json:"p50_delta_pct"`
	P99DeltaPct     *float64           `json:"p99_delta_pct"`
	// Verdict is about throughput: "faster", "slower", "no significant
	// difference" or "insufficient data"; VerdictOnlyInA or VerdictOnlyInB
	// for a transaction type that only one side ran (its deltas null).
	Verdict string `json:"verdict"`
	// OnlyIn is "A" or "B" for a transaction type that only that side ran.
	OnlyIn string `json:"only_in,omitempty"`
}

// The verdicts of a transaction type that only one side of a comparison
// ran: there is nothing to compare it with.
const (
	VerdictOnlyInA = "only in A"
	VerdictOnlyInB = "only in B"
)

// VerdictSameRun is a CompareOp's verdict when A and B are the same run or
// sweep: there is nothing to compare, and a resampled interval would only
// show the bootstrap's own spread.
const VerdictSameRun = "same run"

// ConfigDiff is one configuration item that differs between A and B.
// Key is dotted: "config.clients", "workload.scale", "engine.version",
// "engine.settings.shared_buffers", "host.cpu", "target".
type ConfigDiff struct {
	Key string `json:"key"`
	A   string `json:"a"`
	B   string `json:"b"`
	// Group is DiffGroupData (the dataset, the engine and its version: the
	// biggest confounders), DiffGroupConfig, or DiffGroupExpected (what
	// differs between any two runs, the seed).
	Group string `json:"group"`
}

// The groups of configuration differences, in the order they are listed.
const (
	DiffGroupData     = "data"
	DiffGroupHost     = "host"
	DiffGroupConfig   = "config"
	DiffGroupExpected = "expected"
)
