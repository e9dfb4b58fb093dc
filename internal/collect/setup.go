package collect

import (
	"context"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// WaitPeriod is how often the wait profilers sample the server's session
// list (pg_stat_activity, information_schema.processlist).
const WaitPeriod = 100 * time.Millisecond

// For returns the collectors of kinds (os, server, waits) for database d.
// appName is the name the harness's sessions carry (db.Tagger), used to
// find them in pg_stat_activity. The server collector is chosen by the
// engine's db.Caps.ServerStats.
func For(d db.DB, kinds map[string]bool, appName string) *Collector {
	var samplers []Sampler
	var status *GlobalStatus
	if kinds[KindOS] {
		samplers = append(samplers, &OS{Src: LocalSource{}, DBLocal: d.Target().Local()})
	}
	stats := d.Caps().ServerStats
	if kinds[KindServer] {
		switch stats {
		case db.StatsPgStat:
			samplers = append(samplers, &PgStat{DB: d})
		case db.StatsGlobalStatus:
			status = &GlobalStatus{DB: d}
			samplers = append(samplers, status)
		case db.StatsFiles:
			samplers = append(samplers, &SQLiteFiles{DB: d})
		}
	}
	var waits WaitProfiler
	if kinds[KindWaits] {
		switch stats {
		case db.StatsPgStat:
			if appName != "" {
				waits = NewPgWaits(d, appName, WaitPeriod)
			}
		case db.StatsGlobalStatus:
			mw := &MySQLWaits{DB: d, Period: WaitPeriod}
			if status != nil {
				mw.Exclude = func(ctx context.Context) []int64 { return []int64{status.BackendID(ctx)} }
			}
			waits = mw
		}
	}
	return New(samplers, waits)
}
