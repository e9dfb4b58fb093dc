package postgres_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/db/postgres"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestThePostgresCollectorsSeeTheServerWork(t *testing.T) {
	url := testdb.Postgres(t, "dbh_ev_pgstat")
	d, c := testdb.Connect(t, url)
	ctx := context.Background()
	testdb.Exec(t, c, "CREATE TABLE t (id int PRIMARY KEY, pad text)")
	tag := d.(db.Tagger).Tag("dbharness-test-" + time.Now().Format("150405.000"))
	p := &postgres.PgStat{DB: d}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	w := postgres.NewWaits(d, tag, 20*time.Millisecond)
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	a, err := p.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Work on a tagged session; closing it flushes its statistics.
	wc, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if err := wc.Exec(ctx, "INSERT INTO t VALUES ("+strconv.Itoa(i)+", repeat('x', 200))"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Cut(ctx); err != nil {
		t.Fatal(err)
	}
	// The session list is sampled every 20 ms on its own goroutine, which a
	// busy machine can hold back: sleep until the profile has a few samples
	// of the sleep.
	cut := map[string]float64{}
	for deadline := time.Now().Add(time.Minute); cut["Timeout:PgSleep"] < 3 && time.Now().Before(deadline); {
		if err := wc.Exec(ctx, "SELECT pg_sleep(0.3)"); err != nil {
			t.Fatal(err)
		}
		more, err := w.Cut(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for e, n := range more {
			cut[e] += n
		}
	}
	wc.Close()
	// The session publishes its statistics as it ends, a moment after its
	// client has gone: read until they show.
	moved := []string{"pg_stat_database.xact_commit", "pg_stat_database.tup_inserted", "pg_stat_wal.wal_records", "pg_stat_wal.wal_bytes"}
	var pt evidence.Point
	var b *evidence.Snapshot
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if b, err = p.Sample(ctx); err != nil {
			t.Fatal(err)
		}
		pt = evidence.NewPoint(p, a, b)
		if !slices.ContainsFunc(moved, func(k string) bool { return pt.Rates[k] <= 0 }) || time.Now().After(deadline) {
			break
		}
	}
	for _, k := range moved {
		if pt.Rates[k] <= 0 {
			t.Errorf("%s did not move: %+v", k, pt.Rates)
		}
	}
	if _, ok := b.Counters["pg_stat_bgwriter.buffers_alloc"]; !ok {
		t.Errorf("pg_stat_bgwriter is not read: %+v", b.Counters)
	}
	if _, ok := b.Gauges["pg_stat_database.numbackends"]; !ok {
		t.Errorf("numbackends is not a gauge")
	}
	if cut["Timeout:PgSleep"] < 3 {
		t.Errorf("the tagged session's pg_sleep was not sampled: %+v", cut)
	}
	var s evidence.Series
	p.Describe(&s)
	if !strings.Contains(s.Source, "pg_stat_wal") {
		t.Errorf("source: %+v", s)
	}
}

// The server collector's settle ends when the harness's sessions have
// left pg_stat_activity, instead of sleeping a fixed 300 ms after every
// run: by then each session has flushed its statistics (as it exits, ahead
// of clearing its activity slot). A tagged session's commits, which stay
// unpublished while it lives (it flushes at most once a second), are all
// counted once Settled says so.
func TestTheServerCountersHaveSettledOnceTheRunsSessionsHaveGone(t *testing.T) {
	url := testdb.Postgres(t, "dbh_ev_settle")
	d, _ := testdb.Connect(t, url)
	ctx := context.Background()
	tag := d.(db.Tagger).Tag("dbharness-settle-" + time.Now().Format("150405.000"))
	p := &postgres.PgStat{DB: d}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if ok, err := p.Settled(ctx, tag); err != nil || !ok {
		t.Fatalf("Settled with no session of the harness: %v, %v; want true", ok, err)
	}
	a, err := p.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wc, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for range n {
		if err := wc.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := p.Settled(ctx, tag); err != nil || ok {
		t.Fatalf("Settled while a session of the harness is connected: %v, %v; want false", ok, err)
	}
	wc.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ok, err := p.Settled(ctx, tag)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the closed session is still in pg_stat_activity after 30 s")
		}
	}
	b, err := p.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The sampler's own queries commit too; the session's n must all be in.
	if got := b.Counters["pg_stat_database.xact_commit"] - a.Counters["pg_stat_database.xact_commit"]; got < n {
		t.Errorf("%.0f commits counted once the session had gone; want its %d at least", got, n)
	}
	if ok, err := p.Settled(ctx, ""); err != nil || ok {
		t.Errorf("Settled with no name to look for: %v, %v; want false (the collector then waits the whole Settle)", ok, err)
	}
}
