// Package evidence is the contract between the collectors and the engines:
// the interfaces an engine's package implements on its db.DB to give the
// server's counters, wait profile, plans, storage and server process
// (ServerEvidence, Explainer, PhysicalReader, ServerProcessFinder, ...),
// and the values they return (Snapshot, Series, PhysicalItem, ...). It
// knows no collector, workload or run: internal/collect finds these
// capabilities by type assertion, and internal/results stores the values.
package evidence

import (
	"context"
	"math"
	"strings"
	"time"
)

// The collectors the engines name: the server's counters (a Sampler's
// Name) and the wait profile.
const (
	KindServer = "server"
	KindWaits  = "waits"
)

// Snapshot is one reading of a sampler.
type Snapshot struct {
	Time time.Time
	// Counters only grow; their per-second rates are reported. Names
	// starting with "_" are read for Derive only and not reported.
	Counters map[string]float64
	// Gauges are reported as they are.
	Gauges map[string]float64
}

// Sampler reads one source of counters.
type Sampler interface {
	// Name is the name of the collector (Kind) it samples for.
	Name() string
	// Start prepares the sampler (e.g. opens its connection).
	Start(ctx context.Context) error
	// Sample reads the counters now.
	Sample(ctx context.Context) (*Snapshot, error)
	// Stop releases what Start took.
	Stop() error
	// Describe fills the series' description (source, what it describes,
	// parts that are unavailable).
	Describe(s *Series)
}

// Settler is a Sampler whose source publishes its counters late (e.g.
// PostgreSQL backends flush their statistics at most once a second, and on
// exit): after the run, the collector waits until Settled says every late
// counter has arrived, or Settle at most, and reads it again; the last
// interval absorbs what arrived late.
type Settler interface {
	// Settle is the longest the collector waits.
	Settle() time.Duration
	// Settled reports whether the late counters have all arrived; appName
	// is the name of the harness's sessions (db.Tagger), empty if they
	// carry none. The collector asks every few milliseconds.
	Settled(ctx context.Context, appName string) (bool, error)
}

// Deriver is a Sampler that computes derived figures (percentages,
// averages) from two successive snapshots into values.
type Deriver interface {
	Derive(prev, cur *Snapshot, values map[string]float64)
}

// WaitProfiler measures where the harness's sessions spend their time.
type WaitProfiler interface {
	Start(ctx context.Context) error
	// Cut returns the weight of each event since the previous cut.
	Cut(ctx context.Context) (map[string]float64, error)
	Stop() error
	// Method says how the profile is measured; Unit is the weight's unit.
	Method() string
	Unit() string
}

// WaitPeriod is how often the wait profilers sample the server's session
// list (pg_stat_activity, information_schema.processlist).
const WaitPeriod = 100 * time.Millisecond

// ServerEvidence is a db.DB whose engine can watch its server: the engine's
// package implements it on its DB, and collect.For finds it by type
// assertion.
type ServerEvidence interface {
	// ServerSampler returns a new sampler of the server's counters (kind
	// KindServer), or nil where the engine has none. Its Describe names
	// the counters reports single out (Series.Headlines and Priority).
	ServerSampler() Sampler
	// WaitProfiler returns a new profiler of the waits of the harness's
	// sessions, or nil where the engine has none. appName is the name the
	// harness's sessions carry (db.Tagger), empty if they carry none;
	// server is the sampler collect.For runs beside it (from
	// ServerSampler, nil if none), whose session the profiler may leave
	// out.
	WaitProfiler(appName string, server Sampler) WaitProfiler
}

// NewPoint turns two snapshots of sampler s into one interval's rates and
// values.
func NewPoint(s Sampler, prev, cur *Snapshot) Point {
	secs := cur.Time.Sub(prev.Time).Seconds()
	p := Point{Seconds: Round3(secs), Rates: map[string]float64{}, Values: map[string]float64{}}
	for k, v := range cur.Counters {
		if strings.HasPrefix(k, "_") {
			continue
		}
		pv, ok := prev.Counters[k]
		if !ok || secs <= 0 {
			continue
		}
		d := v - pv
		if d < 0 { // a counter reset (pg_stat_reset, server restart)
			continue
		}
		p.Rates[k] = Round3(d / secs)
	}
	for k, v := range cur.Gauges {
		p.Values[k] = Round3(v)
	}
	if d, ok := s.(Deriver); ok {
		d.Derive(prev, cur, p.Values)
	}
	if len(p.Values) == 0 {
		p.Values = nil
	}
	return p
}

// Round3 rounds f to three decimals, as the collectors store figures.
func Round3(f float64) float64 { return math.Round(f*1000) / 1000 }
