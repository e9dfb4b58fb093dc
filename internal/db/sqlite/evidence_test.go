package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/sqlite"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestTheSQLiteCollectorMeasuresWriteLockWaits(t *testing.T) {
	d, c := testdb.Connect(t, testdb.SQLite(t))
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (id integer PRIMARY KEY, pad text)")
	s := &sqlite.Files{DB: d}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// c holds the write lock; c2 asks for it and waits until c commits,
	// 100 ms after c2 is about to ask.
	first := time.Now()
	testdb.Exec(t, c, d.Caps().BeginWrite)
	tookFirst := time.Since(first)
	testdb.Exec(t, c, "INSERT INTO t VALUES (1, 'x')")
	asking, done := make(chan struct{}), make(chan error)
	c2, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	var took time.Duration
	go func() {
		close(asking)
		start := time.Now()
		err := c2.Exec(ctx, d.Caps().BeginWrite)
		took = time.Since(start)
		if err == nil {
			err = c2.Exec(ctx, "COMMIT")
		}
		done <- err
	}()
	<-asking
	time.Sleep(100 * time.Millisecond)
	testdb.Exec(t, c, "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := b.Counters["write_lock.acquired"] - a.Counters["write_lock.acquired"]; n != 2 {
		t.Errorf("acquisitions: %g, want 2", n)
	}
	// c2 waited; c did not, unless a busy machine held its BEGIN up for as
	// long as a wait (db.LockWaitThreshold).
	if n := b.Counters["write_lock.waited"] - a.Counters["write_lock.waited"]; n != 1 && (n != 2 || tookFirst < db.LockWaitThreshold) {
		t.Errorf("waits: %g, want 1 (c's BEGIN took %s)", n, tookFirst)
	}
	// The time counted is that of both BEGINs: at least the lock threshold
	// (c2 waited), at most what the callers saw them take.
	if w := b.Counters["write_lock.wait_s"] - a.Counters["write_lock.wait_s"]; w < 0.001 || w > (took+tookFirst).Seconds() {
		t.Errorf("time waited: %gs, want between 0.001s and the %s the BEGINs took", w, took+tookFirst)
	}
	if b.Gauges["db_file_mb"] <= 0 {
		t.Errorf("file sizes: %+v", b.Gauges)
	}
	if _, ok := b.Gauges["wal_file_mb"]; !ok {
		t.Errorf("no WAL size: %+v", b.Gauges)
	}
}
