package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

func TestEveryRunGathersEvidenceOnTheRunsIntervals(t *testing.T) {
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_ev_cli")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	// A measured phase four times the warm-up keeps the statistics lag
	// (up to a second of warm-up work) well inside the bound below.
	r := dbh(t, home, "run", "tpcb", "--db", url, "-c", "2", "-T", "4", "--warmup", "1", "--json", "-")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	var run results.Run
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.stderr, "evidence:") || !strings.Contains(r.stderr, "cpu (client host, database on this host)") ||
		!strings.Contains(r.stderr, "WAL ") || !strings.Contains(r.stderr, "plans: 5 statements") {
		t.Errorf("the summary lacks the evidence block:\n%s", r.stderr)
	}
	c := run.Collect
	if c == nil || c.OS == nil || c.Server == nil || run.Waits == nil || len(run.Plans) != 5 {
		t.Fatalf("evidence missing from the JSON: collect %+v waits %+v plans %d", c, run.Waits, len(run.Plans))
	}
	// One point per interval, with the same seq and phase.
	for _, s := range []*results.Series{c.OS, c.Server} {
		if len(s.Intervals) != len(run.Intervals) {
			t.Fatalf("%s: %d points for %d intervals", s.Source, len(s.Intervals), len(run.Intervals))
		}
		for i, p := range s.Intervals {
			iv := run.Intervals[i]
			if p.Seq != iv.Seq || p.Phase != iv.Phase || p.T < iv.T-0.2 || p.T > iv.T+0.2 {
				t.Errorf("%s point %d (seq %d %s t=%g) is not on interval %d (%s t=%g)", s.Source, i, p.Seq, p.Phase, p.T, iv.Seq, iv.Phase, iv.T)
			}
		}
	}
	// Each transaction inserts one history row. Backends publish their
	// statistics at most once a second (the end of the run waits for the
	// rest), so up to a second of the warm-up can land in the measured
	// phase.
	if n, tx := c.Server.Totals["pg_stat_database.tup_inserted"], float64(run.Summary.Transactions); n < 0.9*tx || n > 1.6*tx+50 {
		t.Errorf("the server saw %g rows inserted in the measured phase, the run committed %g transactions", n, tx)
	}
	if len(run.Waits.Events) == 0 || run.Waits.Total < 20 {
		t.Errorf("wait profile: %+v", run.Waits)
	}
	for _, p := range run.Plans {
		if len(p.Plans) != 1 || len(p.Flags) != 0 || p.Error != "" {
			t.Errorf("tpcb's %s should have one stable plan: %+v", p.Statement, p)
		}
	}
	// The store holds the evidence.
	s := dbh(t, home, "show", run.RunID, "--json")
	var saved results.Run
	if err := json.Unmarshal([]byte(s.stdout), &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Collect == nil || saved.Collect.OS == nil || len(saved.Plans) != 5 || saved.Waits == nil {
		t.Errorf("the stored run lacks its evidence")
	}

	r = dbh(t, home, "run", "tpcb", "--db", url, "-T", "1", "--collect", "none", "--json", "-")
	if r.code != 0 {
		t.Fatalf("run --collect none: %s", r.all())
	}
	if strings.Contains(r.stdout, `"collect"`) || strings.Contains(r.stdout, `"plans"`) || strings.Contains(r.stderr, "evidence:") {
		t.Errorf("--collect none still collects:\n%s", r.stderr)
	}
	r = dbh(t, home, "run", "tpcb", "--db", url, "-T", "1", "--collect", "plans", "--json", "-")
	var only results.Run
	if err := json.Unmarshal([]byte(r.stdout), &only); err != nil {
		t.Fatal(err)
	}
	if only.Collect == nil || only.Collect.OS != nil || only.Waits != nil || len(only.Plans) != 5 {
		t.Errorf("--collect plans gathers something else: %+v", only.Collect)
	}
	r = dbh(t, home, "run", "tpcb", "--db", url, "--collect", "cpu")
	if r.code != 2 || !strings.Contains(r.stderr, `--collect "cpu"`) {
		t.Errorf("a bad --collect is not refused clearly: exit %d\n%s", r.code, r.stderr)
	}
}
