package collect

import (
	"time"

	"github.com/dbharness/dbharness/internal/db"
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

// For returns the collectors of kinds (os, server, waits) for database d.
// appName is the name the harness's sessions carry (db.Tagger), used to
// find them in the server's session list. The server collectors come from
// the engine (ServerEvidence).
func For(d db.DB, kinds map[string]bool, appName string) *Collector {
	var samplers []Sampler
	if kinds[KindOS] {
		samplers = append(samplers, &OS{Src: LocalSource{}, DBLocal: d.Target().Local()})
	}
	se, _ := d.(ServerEvidence)
	var server Sampler
	if kinds[KindServer] && se != nil {
		if server = se.ServerSampler(); server != nil {
			samplers = append(samplers, server)
		}
	}
	var waits WaitProfiler
	if kinds[KindWaits] && se != nil {
		waits = se.WaitProfiler(appName, server)
	}
	return New(samplers, waits)
}
