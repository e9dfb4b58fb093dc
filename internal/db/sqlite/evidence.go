package sqlite

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// Files samples an embedded database: the sizes of its file and its
// write-ahead log, and the write-lock waits its connections measured (the
// time spent in BEGIN IMMEDIATE, which sleeps in SQLite's busy handler
// while another connection holds the write lock).
type Files struct {
	DB    db.DB
	locks *db.LockWaits
}

// Name implements Sampler.
func (s *Files) Name() string { return evidence.KindServer }

// Start implements Sampler.
func (s *Files) Start(context.Context) error {
	if _, err := os.Stat(s.DB.Target().Path); err != nil {
		return fmt.Errorf("database file: %v", err)
	}
	if lw, ok := s.DB.(db.LockWaiter); ok {
		s.locks = lw.LockWaits()
	}
	return nil
}

// Stop implements Sampler.
func (s *Files) Stop() error { return nil }

// Describe implements Sampler.
func (s *Files) Describe(sr *evidence.Series) {
	sr.Source = "database and -wal file sizes; write-lock acquisitions (BEGIN IMMEDIATE) timed by the client"
	sr.Describes = "database " + s.DB.Target().String()
	if s.locks == nil {
		sr.Unavailable = append(sr.Unavailable, "write-lock waits: not measured by this engine")
	}
	sr.Headlines = liteHeadlines
	sr.Priority = []string{"write_lock.acquired", "write_lock.waited", "write_lock.wait_s"}
}

// liteHeadlines are the figures the report's summary singles out.
var liteHeadlines = []evidence.Headline{
	{Label: "write lock: {}", Key: "write_lock", Show: evidence.ShowWaits},
	{Label: "database {} MB", Key: "db_file_mb", Show: evidence.ShowLast},
	{Label: "WAL file {} MB", Key: "wal_file_mb", Show: evidence.ShowLast},
}

// ServerSampler implements evidence.ServerEvidence: the database's files
// and its write lock.
func (d *liteDB) ServerSampler() evidence.Sampler { return &Files{DB: d} }

// WaitProfiler implements evidence.ServerEvidence: an embedded database has
// no session list to sample.
func (d *liteDB) WaitProfiler(string, evidence.Sampler) evidence.WaitProfiler { return nil }

// Sample implements Sampler.
func (s *Files) Sample(context.Context) (*evidence.Snapshot, error) {
	snap := &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	p := s.DB.Target().Path
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	snap.Gauges["db_file_mb"] = float64(st.Size()) / 1e6
	if st, err := os.Stat(p + "-wal"); err == nil {
		snap.Gauges["wal_file_mb"] = float64(st.Size()) / 1e6
	} else {
		snap.Gauges["wal_file_mb"] = 0
	}
	if s.locks != nil {
		snap.Counters["write_lock.acquired"] = float64(s.locks.Acquired.Load())
		snap.Counters["write_lock.waited"] = float64(s.locks.Waited.Load())
		snap.Counters["write_lock.wait_s"] = float64(s.locks.Nanos.Load()) / 1e9
	}
	return snap, nil
}

// Derive implements Deriver: the average acquisition time.
func (s *Files) Derive(prev, cur *evidence.Snapshot, values map[string]float64) {
	n := cur.Counters["write_lock.acquired"] - prev.Counters["write_lock.acquired"]
	if n > 0 {
		values["write_lock.avg_wait_ms"] = evidence.Round3(1000 * (cur.Counters["write_lock.wait_s"] - prev.Counters["write_lock.wait_s"]) / n)
	}
}

// The engine's optional capabilities, checked at compile time.
var (
	_ evidence.ServerEvidence = (*liteDB)(nil)
	_ evidence.Explainer      = (*liteDB)(nil)
	_ db.Cataloger            = (*liteDB)(nil)
	_ db.TableSizer           = (*liteDB)(nil)
	_ evidence.PhysicalReader = (*liteDB)(nil)
)
