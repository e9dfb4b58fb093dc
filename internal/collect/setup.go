package collect

import (
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

// WaitPeriod is how often the wait profilers sample the server's session
// list (pg_stat_activity, information_schema.processlist).
const WaitPeriod = 100 * time.Millisecond

// ServerEvidence is a db.DB whose engine can watch its server: the engine's
// package implements it on its DB, and For finds it by type assertion.
type ServerEvidence interface {
	// ServerSampler returns a new sampler of the server's counters (kind
	// KindServer), or nil where the engine has none. Its Describe names
	// the counters reports single out (results.Series.Headlines and
	// Priority).
	ServerSampler() Sampler
	// WaitProfiler returns a new profiler of the waits of the harness's
	// sessions, or nil where the engine has none. appName is the name the
	// harness's sessions carry (db.Tagger), empty if they carry none;
	// server is the sampler For runs beside it (from ServerSampler, nil if
	// none), whose session the profiler may leave out.
	WaitProfiler(appName string, server Sampler) WaitProfiler
}

func init() {
	Register(Kind{Name: KindServer, Order: 20, InAll: true, Title: "Server counters", Layout: results.LayoutCounters,
		Help: "the database server's own counters on the run's intervals", Needs: "an engine that keeps them",
		Sampler: func(env *Env) Sampler {
			if se, ok := env.DB.(ServerEvidence); ok {
				return se.ServerSampler()
			}
			return nil
		}})
	Register(Kind{Name: KindWaits, Order: 30, InAll: true,
		Help: "what the harness's sessions waited for, sampled on the server", Needs: "an engine with a session list",
		Waits: func(env *Env) WaitProfiler {
			if se, ok := env.DB.(ServerEvidence); ok {
				return se.WaitProfiler(env.AppName, env.Sampler(KindServer))
			}
			return nil
		}})
}
