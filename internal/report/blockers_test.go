package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// lockedInterval makes interval seq of a synthetic run with evidence the
// slowest, its wait profile mostly event (a lock wait), with the blocker
// the profile named there, and the counters that moved with it (an
// active session waiting on a lock counts as active; the WAL of the
// blocked updates comes when the lock is released) standing out.
func lockedInterval(t *testing.T, seq int, event string, counters []string) *results.Run {
	t.Helper()
	r := withEvidence(syntheticRun(30, 5))
	var found bool
	for i := range r.Intervals {
		if iv := &r.Intervals[i]; iv.Seq == seq {
			iv.Ops[0].LatencyMs["max"], found = 8000, true
		}
	}
	if !found {
		t.Fatalf("no interval %d", seq)
	}
	r.Summary.LatencyMs["max"], r.Summary.LatencyMs["p99.9"] = 8000, 40
	since := time.Date(2026, 11, 27, 16, 3, 12, 0, time.Local)
	xact := since.Add(-2 * time.Second)
	seen := []evidence.BlockerSeen{{Blocker: evidence.Blocker{ID: 4711, Application: "lock_holder", Database: "bench",
		State: "idle in transaction", XactStart: xact, StateSince: since, Held: 9100 * time.Millisecond,
		Query: "UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1"},
		Samples: 560, Sightings: 70, Waiting: []int64{11, 12, 13, 14, 15, 16, 17, 18}}}
	for i := range r.Waits.Intervals {
		if wi := &r.Waits.Intervals[i]; wi.Seq == seq {
			wi.Shares = map[string]float64{"CPU": 0.2, event: 0.675, "Client:ClientRead": 0.125}
			r.Waits.AddBlockers(wi, seen, 100*time.Millisecond, true)
		}
	}
	for i := range r.Collect.Get("server").Intervals {
		p := &r.Collect.Get("server").Intervals[i]
		for _, k := range counters {
			p.Rates[k] = 10
			if p.Seq == seq {
				p.Rates[k] = 90000
			}
		}
	}
	return r
}

// An interval whose wait profile was mostly a lock wait is laid to the
// lock and the session that held it, not to the counters that moved with
// it (issue 38: the outlier line blamed active_time and WAL for an
// interval that was 67.5% Lock:tuple; on MariaDB, Innodb_row_lock_time).
func TestAnOutlierInAnIntervalMostlyWaitingOnALockIsLaidToTheLockAndItsHolder(t *testing.T) {
	for _, c := range []struct {
		event    string
		counters []string
	}{
		{"Lock:tuple", []string{"pg_stat_database.active_time", "pg_stat_wal.wal_bytes", "pg_stat_wal.wal_records"}},
		{"Lock:InnoDB lock wait", []string{"Innodb_row_lock_time", "Innodb_row_lock_waits"}},
	} {
		r := lockedInterval(t, 17, c.event, c.counters)
		o := FindOutlier(r)
		if o == nil || o.Seq != 17 || !o.IsOutlier() {
			t.Fatalf("outlier %+v", o)
		}
		s := o.Sentence()
		_, there, _ := strings.Cut(s, "; there: ")
		want := "waited on a lock: " + c.event + " 68% of the interval's wait profile (rest of the run "
		if !strings.HasPrefix(there, want) {
			t.Errorf("%s: the outlier is not laid to the lock first:\n%s", c.event, s)
		}
		for _, w := range []string{"held by pid 4711 (application lock_holder, idle in transaction since 16:03:12, its transaction 9.1 s old): UPDATE pgbench_branches"} {
			if !strings.Contains(there, w) {
				t.Errorf("%s: the lock's holder is not named (%q):\n%s", c.event, w, s)
			}
		}
		// The counters come after, as what else moved there.
		cause, also, ok := strings.Cut(there, "; also there: ")
		if !ok || strings.Contains(cause, c.counters[0]) || !strings.Contains(also, c.counters[0]) {
			t.Errorf("%s: the counters are not listed after the lock:\n%s", c.event, s)
		}
	}
	// An interval that waited on a lock for a small part of its time is
	// not laid to it.
	r := lockedInterval(t, 17, "Lock:tuple", []string{"pg_stat_wal.wal_bytes"})
	for i := range r.Waits.Intervals {
		if wi := &r.Waits.Intervals[i]; wi.Seq == 17 {
			wi.Shares = map[string]float64{"CPU": 0.7, "Lock:tuple": 0.15, "IO:DataFileRead": 0.15}
		}
	}
	if o := FindOutlier(r); o.Cause != "" || strings.Contains(o.Sentence(), "waited on a lock") {
		t.Errorf("an interval mostly on CPU is laid to a lock: %s", o.Sentence())
	}
}

// The summary and the HTML report name the session that held the lock
// the clients waited on, with how many clients waited how long, and say
// how that time is estimated.
func TestTheSummaryAndTheReportNameTheLocksHolder(t *testing.T) {
	r := lockedInterval(t, 17, "Lock:tuple", nil)
	want := "8 clients waited 7.0 s (56.0 s in all) on a lock held by pid 4711 (application lock_holder, idle in transaction since 16:03:12, " +
		"its transaction 9.1 s old): UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1"
	var text bytes.Buffer
	Summary(&text, r)
	if !strings.Contains(text.String(), "    "+want+"\n") || !strings.Contains(text.String(), "lock blockers (estimated from samples every 100ms") {
		t.Errorf("the summary does not name the blocker:\n%s", text.String())
	}
	var html bytes.Buffer
	if err := RunHTML(&html, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), strings.ReplaceAll(want, "+", "&#43;")) {
		t.Errorf("the HTML report does not name the blocker")
	}
}

// A plan that changed during the run is shown as the two plans' shapes:
// node types and the relations and indexes they read.
func TestAPlanChangeShowsTheTwoPlansShapes(t *testing.T) {
	for shape, want := range map[string]string{
		"ModifyTable (Update, on pgbench_accounts) [Seq Scan (on pgbench_accounts, as Outer)]":                                                                                                              "Update on pgbench_accounts > Seq Scan on pgbench_accounts",
		"Hash Join (Inner) [Seq Scan (on a, as Outer); Hash (as Inner) [Index Scan (on b, using b_pkey, Forward, as Outer)]]":                                                                               "Hash Join [Seq Scan on a; Hash > Index Scan using b_pkey on b]",
		`{"query_block":{"select_id":1,"table":{"access_type":"ALL","table_name":"acc"}}}`:                                                                                                                  "ALL on acc",
		`{"query_block":{"filesort":{"nested_loop":[{"table":{"access_type":"ref","key":"acc_v","table_name":"acc"}},{"table":{"access_type":"eq_ref","key":"PRIMARY","table_name":"b"}}]},"select_id":1}}`: "filesort; ref using acc_v on acc; eq_ref using PRIMARY on b",
		"SEARCH acc USING INDEX sqlite_autoindex_acc_1 (aid=?)":                                                                                                                                             "SEARCH acc USING INDEX sqlite_autoindex_acc_1 (aid=?)",
	} {
		if got := planOutline(shape); got != want {
			t.Errorf("planOutline(%s)\n = %s\nwant %s", shape, got, want)
		}
	}
	r := withEvidence(syntheticRun(30, 5))
	var text bytes.Buffer
	Summary(&text, r)
	if !strings.Contains(text.String(), "changed during the run for tid=1: Update on pgbench_tellers > Seq Scan on pgbench_tellers -> "+
		"Update on pgbench_tellers > Index Scan using pgbench_tellers_pkey on pgbench_tellers (c91f -> 4201)") {
		t.Errorf("the summary does not show the plans' shapes:\n%s", text.String())
	}
}
