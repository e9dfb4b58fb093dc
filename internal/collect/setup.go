package collect

import (
	"github.com/dbharness/dbharness/internal/evidence"
)

func init() {
	Register(Kind{Name: evidence.KindServer, Order: 20, InAll: true, ServerSide: true, Title: "Server counters", Layout: evidence.LayoutCounters,
		Help: "the database server's own counters on the run's intervals", Needs: "an engine that keeps them",
		Sampler: func(env *Env) evidence.Sampler {
			if se, ok := env.Server().(evidence.ServerEvidence); ok {
				return se.ServerSampler()
			}
			return nil
		}})
	Register(Kind{Name: evidence.KindWaits, Order: 30, InAll: true, ServerSide: true,
		Help: "what the harness's sessions waited for, sampled on the server", Needs: "an engine with a session list",
		Waits: func(env *Env) evidence.WaitProfiler {
			if se, ok := env.Server().(evidence.ServerEvidence); ok {
				return se.WaitProfiler(env.AppName, env.Sampler(evidence.KindServer))
			}
			return nil
		}})
}
