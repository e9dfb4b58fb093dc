package sqlite_test

import (
	"context"
	"testing"
	"time"

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
	// c holds the write lock for 100 ms; c2 waits for it.
	testdb.Exec(t, c, d.Caps().BeginWrite, "INSERT INTO t VALUES (1, 'x')")
	done := make(chan error)
	c2, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	go func() {
		err := c2.Exec(ctx, d.Caps().BeginWrite)
		if err == nil {
			err = c2.Exec(ctx, "COMMIT")
		}
		done <- err
	}()
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
	if n := b.Counters["write_lock.waited"] - a.Counters["write_lock.waited"]; n != 1 {
		t.Errorf("waits: %g, want 1", n)
	}
	if w := b.Counters["write_lock.wait_s"] - a.Counters["write_lock.wait_s"]; w < 0.05 || w > 2 {
		t.Errorf("time waited: %gs, want about 0.1s", w)
	}
	if b.Gauges["db_file_mb"] <= 0 {
		t.Errorf("file sizes: %+v", b.Gauges)
	}
	if _, ok := b.Gauges["wal_file_mb"]; !ok {
		t.Errorf("no WAL size: %+v", b.Gauges)
	}
}
