package sqlserver

import (
	"context"
	"database/sql/driver"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
)

// The columns of each view as SQL Server's documentation gives them (the
// queries select these, in this order).
var (
	perfCols     = []string{"object_name", "counter_name", "instance_name", "cntr_value", "cntr_type"}
	spinlockCols = []string{"name", "collisions", "spins", "sleep_time", "backoffs"}
	fileCols     = []string{"type_desc", "num_of_reads", "num_of_bytes_read", "io_stall_read_ms", "num_of_writes", "num_of_bytes_written", "io_stall_write_ms"}
	waitCols     = []string{"wait_type", "wait_time_ms"}
)

func perf(object, counter, instance string, v, typ int64) []driver.Value {
	return []driver.Value{object, counter, instance, v, typ}
}

// setCounters answers sys.dm_os_performance_counters for the target
// database "bench" with the given cumulative values (batches, log bytes,
// log flushes, page splits), a level (Page life expectancy) and a ratio
// that is not read.
func setCounters(s *dmvServer, batches, logBytes, flushes, splits int64) {
	s.set("sys.dm_os_performance_counters", perfCols,
		perf("MSSQL$INST:SQL Statistics", "Batch Requests/sec", "", batches, perfCounterBulkCount),
		perf("SQLServer:Databases", "Log Bytes Flushed/sec", "bench", logBytes, perfCounterBulkCount),
		perf("SQLServer:Databases", "Log Bytes Flushed/sec", "_Total", 10*logBytes, perfCounterBulkCount),
		perf("SQLServer:Databases", "Log Flushes/sec", "bench", flushes, perfCounterBulkCount),
		perf("SQLServer:Databases", "Log Flushes/sec", "_Total", 10*flushes, perfCounterBulkCount),
		perf("SQLServer:Access Methods", "Page Splits/sec", "", splits, perfCounterBulkCount),
		perf("SQLServer:Buffer Manager", "Page life expectancy", "", 300, perfLargeRawCount),
		perf("SQLServer:Buffer Manager", "Buffer cache hit ratio", "", 99, 537003264))
}

func TestPerformanceCountersGiveRatesOfTheirDeltasAndLevels(t *testing.T) {
	s := newDMVServer()
	s.set("sys.dm_os_spinlock_stats", spinlockCols)
	s.set("sys.dm_io_virtual_file_stats", fileCols)
	setCounters(s, 1000, 1<<20, 100, 7)
	smp := &DMVs{DB: s.db(t)}
	ctx := context.Background()
	if err := smp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer smp.Stop()
	a, err := smp.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	setCounters(s, 3000, 3<<20, 300, 17)
	b, err := smp.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Time = a.Time.Add(2 * time.Second)
	p := evidence.NewPoint(smp, a, b)
	want := map[string]float64{
		"SQL Statistics:Batch Requests/sec": 1000, // (3000-1000)/2 s
		"Databases:Log Bytes Flushed/sec":   1 << 20,
		"Databases:Log Flushes/sec":         100,
		"Access Methods:Page Splits/sec":    5,
	}
	for k, v := range want {
		if p.Rates[k] != v {
			t.Errorf("rate %s = %v, want %v (rates %v)", k, p.Rates[k], v, p.Rates)
		}
	}
	if len(p.Rates) != len(want) {
		t.Errorf("rates %v: want only the per-second counters, the target database's alone", p.Rates)
	}
	if p.Values["Buffer Manager:Page life expectancy"] != 300 {
		t.Errorf("values %v: want the level Page life expectancy as it is", p.Values)
	}
	if _, ok := p.Values["Buffer Manager:Buffer cache hit ratio"]; ok {
		t.Errorf("values %v: a ratio without its base was read", p.Values)
	}
	// 2 MiB over 200 flushes.
	if got := p.Values["Databases:log_flush_kb"]; got != 10.24 {
		t.Errorf("log_flush_kb = %v, want 10.24", got)
	}
}

func TestSpinlocksAndFileStatsAreCountersWithAveragesPerIO(t *testing.T) {
	s := newDMVServer()
	setCounters(s, 0, 0, 0, 0)
	ctx := context.Background()
	files := func(logWrites, logStall, rowsReads, rowsStall int64) {
		s.set("sys.dm_io_virtual_file_stats", fileCols,
			[]driver.Value{"ROWS", rowsReads, rowsReads * 8192, rowsStall, int64(10), int64(81920), int64(5)},
			[]driver.Value{"ROWS", int64(0), int64(0), int64(0), int64(0), int64(0), int64(0)}, // a second data file
			[]driver.Value{"LOG", int64(2), int64(4096), int64(1), logWrites, logWrites * 4096, logStall})
	}
	spins := func(collisions, spins int64) {
		s.set("sys.dm_os_spinlock_stats", spinlockCols,
			[]driver.Value{"LOGCACHE_ACCESS", collisions, spins, int64(3), int64(1)},
			[]driver.Value{"SOS_CACHESTORE", int64(5), int64(50), int64(0), int64(0)})
	}
	files(100, 50, 10, 20)
	spins(10, 1000)
	smp := &DMVs{DB: s.db(t)}
	if err := smp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer smp.Stop()
	a, err := smp.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	files(300, 250, 30, 60)
	spins(30, 5000)
	b, err := smp.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Time = a.Time.Add(time.Second)
	p := evidence.NewPoint(smp, a, b)
	for k, v := range map[string]float64{
		"spinlock.LOGCACHE_ACCESS.collisions": 20, "spinlock.LOGCACHE_ACCESS.spins": 4000,
		"spinlock.SOS_CACHESTORE.spins": 0, "file.LOG.writes": 200, "file.LOG.bytes_written": 200 * 4096,
		"file.ROWS.reads": 20, "file.ROWS.bytes_read": 20 * 8192,
	} {
		if got, ok := p.Rates[k]; !ok || got != v {
			t.Errorf("rate %s = %v (%v), want %v", k, got, ok, v)
		}
	}
	if p.Values["file.LOG.write_ms"] != 1 || p.Values["file.ROWS.read_ms"] != 2 {
		t.Errorf("values %v: want 200 ms over 200 log writes (1 ms) and 40 ms over 20 data reads (2 ms)", p.Values)
	}
	if _, ok := p.Values["file.ROWS.write_ms"]; ok {
		t.Errorf("values %v: no data file was written in the interval, so no average", p.Values)
	}
	for k := range p.Rates {
		if strings.HasPrefix(k, "_") {
			t.Errorf("rate %s: the stall counters are read for Derive only", k)
		}
	}
}

func TestStartProbesEachSourceAndNamesTheMissingOnes(t *testing.T) {
	s := newDMVServer()
	setCounters(s, 1, 1, 1, 1)
	s.fail("sys.dm_os_spinlock_stats", errors.New("mssql: The user does not have permission to perform this action. (300)\nsecond line"))
	s.fail("sys.dm_io_virtual_file_stats", missing("sys.dm_io_virtual_file_stats"))
	smp := &DMVs{DB: s.db(t)}
	ctx := context.Background()
	if err := smp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer smp.Stop()
	var sr evidence.Series
	smp.Describe(&sr)
	if sr.Source != "sys.dm_os_performance_counters" {
		t.Errorf("source %q: want only the view that answered", sr.Source)
	}
	want := []string{
		"sys.dm_os_spinlock_stats: The user does not have permission to perform this action. (300)",
		`sys.dm_io_virtual_file_stats: relation "sys.dm_io_virtual_file_stats" does not exist (33557097)`,
	}
	if !slices.Equal(sr.Unavailable, want) {
		t.Errorf("unavailable %q, want %q", sr.Unavailable, want)
	}
	n := len(s.seen)
	if _, err := smp.Sample(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range s.seen[n:] {
		if strings.Contains(q, "spinlock") || strings.Contains(q, "virtual_file") {
			t.Errorf("a sample read a source the probe found missing: %s", q)
		}
	}
}

func waits(rows ...[]driver.Value) [][]driver.Value { return rows }

func TestWaitStatsDeltasAreTheProfileWithoutTheBenignWaits(t *testing.T) {
	s := newDMVServer()
	w := func(typ string, ms int64) []driver.Value { return []driver.Value{typ, ms} }
	s.set("sys.dm_os_wait_stats", waitCols, waits(w("WRITELOG", 1000), w("LCK_M_X", 500), w("LAZYWRITER_SLEEP", 9000),
		w("SLEEP_TASK", 100), w("PAGELATCH_EX", 10))...)
	s.fail("sys.dm_exec_requests r", missing("sys.dm_exec_requests"))
	p := &Waits{DB: s.db(t), AppName: "dbharness-x", Period: 10 * time.Millisecond}
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if p.Unit() != "seconds" || !strings.HasPrefix(p.Method(), "sys.dm_os_wait_stats") {
		t.Errorf("unit %q, method %q: want wait_stats in seconds", p.Unit(), p.Method())
	}
	s.set("sys.dm_os_wait_stats", waitCols, waits(w("WRITELOG", 3500), w("LCK_M_X", 1500), w("LAZYWRITER_SLEEP", 19000),
		w("SLEEP_TASK", 900), w("PAGELATCH_EX", 10), w("PAGEIOLATCH_SH", 250))...)
	got, err := p.Cut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"WRITELOG": 2.5, "Lock:LCK_M_X": 1, "PAGEIOLATCH_SH": 0.25}
	if len(got) != len(want) {
		t.Errorf("profile %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("profile %v, want %v", got, want)
			break
		}
	}
	if _, why := p.CutBlockers(); !strings.Contains(why, "sys.dm_exec_requests") {
		t.Errorf("blockers unavailable %q: want it to name sys.dm_exec_requests", why)
	}
}

func TestWithoutWaitStatsTheSampledSessionsAreTheProfile(t *testing.T) {
	s := newDMVServer()
	s.fail("sys.dm_os_wait_stats", missing("sys.dm_os_wait_stats"))
	s.set("sys.dm_exec_sessions s", []string{""}, []driver.Value{"CPU"}, []driver.Value{"Lock:LCK_M_U"}, []driver.Value{"Client:sleeping"})
	s.set("chain c", blockerCols)
	s.set("sys.dm_exec_requests r", []string{"session_id"})
	p := &Waits{DB: s.db(t), AppName: "dbharness-x", Period: 5 * time.Millisecond}
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if p.Unit() != "samples" || !strings.Contains(p.Method(), "sys.dm_exec_requests") {
		t.Errorf("unit %q, method %q: want the sampled sessions", p.Unit(), p.Method())
	}
	time.Sleep(50 * time.Millisecond)
	got, err := p.Cut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got["CPU"] == 0 || got["CPU"] != got["Lock:LCK_M_U"] || got["CPU"] != got["Client:sleeping"] {
		t.Errorf("profile %v: want each session counted once a sample", got)
	}
}

func TestWithNeitherSourceTheProfileSaysWhy(t *testing.T) {
	s := newDMVServer()
	s.fail("sys.dm_os_wait_stats", missing("sys.dm_os_wait_stats"))
	s.fail("sys.dm_exec_requests r", missing("sys.dm_exec_requests"))
	p := &Waits{DB: s.db(t), AppName: "dbharness-x"}
	err := p.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "sys.dm_os_wait_stats: relation") || !strings.Contains(err.Error(), "sys.dm_exec_requests: relation") {
		t.Errorf("error %v: want both sources named with the server's errors", err)
	}
}

var blockerCols = []string{"waiter", "session_id", "program_name", "login_name", "host_name", "database", "status", "command",
	"transaction_begin_time", "start_time", "now", "text"}

func TestBlockersAreGroupedByTheHeadOfTheChain(t *testing.T) {
	s := newDMVServer()
	now := time.Date(2026, 11, 27, 12, 0, 10, 0, time.UTC)
	begun := now.Add(-4 * time.Second)
	s.set("chain c", blockerCols,
		[]driver.Value{int64(60), int64(70), "", "sa", "app01", "bench", "sleeping", "", begun, now.Add(-3 * time.Second), now,
			"UPDATE t SET v = 1 WHERE id = 1 -- password='hunter2'"},
		[]driver.Value{int64(55), int64(70), "", "sa", "app01", "bench", "sleeping", "", begun, now.Add(-3 * time.Second), now,
			"UPDATE t SET v = 1 WHERE id = 1 -- password='hunter2'"},
		[]driver.Value{int64(61), int64(80), "report", "rep", "h", "bench", "running", "SELECT", nil, nil, now, ""})
	c, err := s.db(t).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := msBlockers(context.Background(), c, "dbharness-x")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("blockers %+v: want two heads", got)
	}
	a, b := got[0], got[1]
	if a.ID != 70 || a.Application != "sa@app01" || a.State != "idle in transaction" || a.Held != 4*time.Second ||
		!a.XactStart.Equal(begun) || !slices.Equal(a.Waiting, []int64{55, 60}) || a.Database != "bench" {
		t.Errorf("first blocker %+v", a)
	}
	if strings.Contains(a.Query, "hunter2") || !strings.HasPrefix(a.Query, "UPDATE t SET v = 1") {
		t.Errorf("query %q: want the statement without its credentials", a.Query)
	}
	if b.ID != 80 || b.Application != "report" || b.State != "running: SELECT" || !b.XactStart.IsZero() || b.Held != 0 ||
		!slices.Equal(b.Waiting, []int64{61}) {
		t.Errorf("second blocker %+v", b)
	}
}

var physCols = []string{"index_id", "name", "is_primary_key", "index_level", "index_depth", "page_count",
	"avg_page_space_used_in_percent", "avg_fragmentation_in_percent"}

func TestIndexPhysicalStatsAreTheTableAndEachIndex(t *testing.T) {
	s := newDMVServer()
	s.set("sys.dm_db_index_physical_stats(DB_ID(), NULL", []string{"index_id"})
	// DETAILED: a clustered primary key in two partitions, two levels; a
	// nonclustered index; a LOB allocation unit is filtered by the query.
	s.set("sys.dm_db_index_physical_stats(DB_ID(), OBJECT_ID", physCols,
		[]driver.Value{int64(1), "pk_t", int64(1), int64(0), int64(2), int64(100), 90.0, 10.0},
		[]driver.Value{int64(1), "pk_t", int64(1), int64(0), int64(2), int64(300), 70.0, 30.0},
		[]driver.Value{int64(1), "pk_t", int64(1), int64(1), int64(2), int64(2), 50.0, 0.0},
		[]driver.Value{int64(2), "ix_b", int64(0), int64(0), int64(1), int64(50), 99.5, 0.0})
	d := s.db(t)
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if src, _, _ := d.PreparePhysical(ctx, c, false); src != "sys.dm_db_index_physical_stats" {
		t.Fatalf("source %q", src)
	}
	items, err := d.Physical(ctx, c, "t", "detailed")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Index != nil || items[1].Name() != "pk_t" || !items[1].Primary || items[2].Name() != "ix_b" {
		t.Fatalf("items %+v: want the table, its primary key, its index", items)
	}
	pk := items[1]
	if *pk.LeafPages != 400 || *pk.Pages != 402 || *pk.SizeBytes != 402*8192 || *pk.Depth != 2 ||
		*pk.LeafDensityPct != 75 || *pk.LeafFragmentationPct != 25 || *pk.PagesRead != 402 {
		t.Errorf("primary key: leaf %d pages %d size %d depth %d density %v frag %v: want 400, 402, 402 pages, 2, 75 and 25 (page-weighted)",
			*pk.LeafPages, *pk.Pages, *pk.SizeBytes, *pk.Depth, *pk.LeafDensityPct, *pk.LeafFragmentationPct)
	}
	if items[0].LeafPages == nil || *items[0].LeafPages != 400 || items[0].Method != "sys.dm_db_index_physical_stats DETAILED" {
		t.Errorf("table %+v: want it measured by its clustered primary key", items[0])
	}
	// LIMITED: no leaf is read, so no density, and what was read is unknown.
	s.set("sys.dm_db_index_physical_stats(DB_ID(), OBJECT_ID", physCols,
		[]driver.Value{int64(0), "", int64(0), int64(0), int64(1), int64(40), nil, 12.5})
	items, err = d.Physical(ctx, c, "h", "limited")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Index != nil || *items[0].LeafPages != 40 || items[0].LeafDensityPct != nil ||
		*items[0].LeafFragmentationPct != 12.5 || items[0].Pages != nil || items[0].PagesRead != nil {
		t.Errorf("heap in limited mode %+v", items)
	}
	s.fail("sys.dm_db_index_physical_stats(DB_ID(), NULL", errors.New("mssql: function sys.dm_db_index_physical_stats(smallint, unknown, unknown, unknown, unknown) does not exist (33557097)"))
	if src, notes, _ := d.PreparePhysical(ctx, c, false); src != "" || len(notes) != 1 || !strings.HasPrefix(notes[0], "sys.dm_db_index_physical_stats: function") {
		t.Errorf("source %q, notes %q: want none, and the server's error", src, notes)
	}
}
