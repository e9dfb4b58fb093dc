package collect

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/results"
)

// SQLiteFiles samples an embedded database: the sizes of its file and its
// write-ahead log, and the write-lock waits its connections measured (the
// time spent in BEGIN IMMEDIATE, which sleeps in SQLite's busy handler
// while another connection holds the write lock).
type SQLiteFiles struct {
	DB    db.DB
	locks *db.LockWaits
}

// Name implements Sampler.
func (s *SQLiteFiles) Name() string { return KindServer }

// Start implements Sampler.
func (s *SQLiteFiles) Start(context.Context) error {
	if _, err := os.Stat(s.DB.Target().Path); err != nil {
		return fmt.Errorf("database file: %v", err)
	}
	if lw, ok := s.DB.(db.LockWaiter); ok {
		s.locks = lw.LockWaits()
	}
	return nil
}

// Stop implements Sampler.
func (s *SQLiteFiles) Stop() error { return nil }

// Describe implements Sampler.
func (s *SQLiteFiles) Describe(sr *results.Series) {
	sr.Source = "database and -wal file sizes; write-lock acquisitions (BEGIN IMMEDIATE) timed by the client"
	sr.Describes = "database " + s.DB.Target().String()
	if s.locks == nil {
		sr.Unavailable = append(sr.Unavailable, "write-lock waits: not measured by this engine")
	}
}

// Sample implements Sampler.
func (s *SQLiteFiles) Sample(context.Context) (*Snapshot, error) {
	snap := &Snapshot{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
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
func (s *SQLiteFiles) Derive(prev, cur *Snapshot, values map[string]float64) {
	n := cur.Counters["write_lock.acquired"] - prev.Counters["write_lock.acquired"]
	if n > 0 {
		values["write_lock.avg_wait_ms"] = round3(1000 * (cur.Counters["write_lock.wait_s"] - prev.Counters["write_lock.wait_s"]) / n)
	}
}
