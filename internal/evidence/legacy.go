package evidence

import "cmp"

// Runs saved before the collectors stored their Headlines and Priority
// (see Series) carry counter names only; these are the figures the report
// singled out for them then, so that such runs render as they did. New
// engines store their own and never need adding here.

// legacyServerHeadlines are the server figures of old runs, every engine's
// in one list: a figure whose counter is missing is left out.
var legacyServerHeadlines = []Headline{
	{Label: "WAL {}/transaction (server-wide)", Key: "pg_stat_wal.wal_bytes", Show: ShowBytesPerTx},
	{Label: "buffer hits {}", Key: "pg_stat_database.hit_pct", Show: ShowMeanPct},
	{Label: "temp {}/transaction", Key: "pg_stat_database.temp_bytes", Show: ShowBytesPerTx},
	{Label: "{} deadlocks", Key: "pg_stat_database.deadlocks", Show: ShowCount},
	{Label: "redo log {}/transaction (server-wide)", Key: "Innodb_os_log_written", Show: ShowBytesPerTx},
	{Label: "buffer pool hits {}", Key: "Innodb_buffer_pool_hit_pct", Show: ShowMeanPct},
	{Label: "threads running {}", Key: "Threads_running", Show: ShowMean},
	{Label: "write lock: {}", Key: "write_lock", Show: ShowWaits},
	{Label: "database {} MB", Key: "db_file_mb", Show: ShowLast},
	{Label: "WAL file {} MB", Key: "wal_file_mb", Show: ShowLast},
}

// legacyServerPriority is the counter ranking of old runs.
var legacyServerPriority = []string{
	"xact_commit", "xact_rollback", "blks_read", "blks_hit", "wal_bytes", "wal_records", "wal_sync", "buffers_backend",
	"buffers_checkpoint", "deadlocks", "temp_bytes",
	"Com_commit", "Com_rollback", "Innodb_buffer_pool_reads", "Innodb_buffer_pool_read_requests", "Innodb_data_fsyncs",
	"Innodb_os_log_written", "Innodb_row_lock_waits", "Innodb_rows_updated", "Innodb_rows_read",
	"write_lock.acquired", "write_lock.waited", "write_lock.wait_s",
}

// legacyLooks are the titles and layouts of the series of runs saved
// before the collectors stored their own.
var legacyLooks = map[string][2]string{
	"os":     {"Operating system", LayoutHost},
	"server": {"Server counters", LayoutCounters},
}

// HeadlinesOf returns the headline figures of the series of collector
// name: its own, or for the server series of a run saved before they were
// stored, those the report showed then.
func (s *Series) HeadlinesOf(name string) []Headline {
	if s.Headlines != nil || name != "server" {
		return s.Headlines
	}
	return legacyServerHeadlines
}

// PriorityOf returns the counters the series of collector name ranks
// first: its own, or for the server series of a run saved before they were
// stored, the ranking of then.
func (s *Series) PriorityOf(name string) []string {
	if s.Priority != nil || name != "server" {
		return s.Priority
	}
	return legacyServerPriority
}

// TitleAndLayout returns how reports head and draw the series of
// collector name: its own Title and Layout, or those of then for a run
// saved without them, or the collector's name and LayoutCounters.
func (s *Series) TitleAndLayout(name string) (title, layout string) {
	title, layout = s.Title, s.Layout
	if l, ok := legacyLooks[name]; ok {
		title = cmp.Or(title, l[0])
		layout = cmp.Or(layout, l[1])
	}
	return cmp.Or(title, name), cmp.Or(layout, LayoutCounters)
}
