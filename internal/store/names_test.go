package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// The listings' columns a store of an older dbharness lacks.
const dropNames = `ALTER TABLE runs DROP COLUMN label; ALTER TABLE runs DROP COLUMN mix; ALTER TABLE runs DROP COLUMN target;
ALTER TABLE sweeps DROP COLUMN label; ALTER TABLE sweeps DROP COLUMN mix; ALTER TABLE sweeps DROP COLUMN engine; ALTER TABLE sweeps DROP COLUMN target`

// TestTheListsNameEachRunAndSweep saves a labelled run and sweep and
// lists them with their label, mix and database, in both kinds of store.
func TestTheListsNameEachRunAndSweep(t *testing.T) {
	eachStore(t, func(t *testing.T, loc string) {
		s := openStoreT(t, loc)
		r := sampleRun()
		r.Label, r.Mix, r.Target = "sync off", "select-only", "postgres://bench@db1:5433/pgb?sslmode=disable"
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
		sw := &results.Sweep{SweepID: "sw-20260101-000000-abcd", Workload: "tpcb", Mix: "select-only", Label: "sync on",
			Target: "mysql://root@db2:3306/test", Engine: &results.EngineInfo{Engine: "mariadb"}, Status: results.StatusCompleted}
		if err := s.CreateSweep(sw); err != nil {
			t.Fatal(err)
		}
		checkNames(t, s, r.RunID, sw.SweepID)
	})
}

// checkNames checks the names of the run and the sweep that
// TestTheListsNameEachRunAndSweep saves, as the listings give them.
func checkNames(t *testing.T, s *Store, runID, sweepID string) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.List(ctx, 0)
	if err != nil || len(rows) != 1 {
		t.Fatalf("runs %+v, %v", rows, err)
	}
	if r := rows[0]; r.ID != runID || r.Label != "sync off" || r.Mix != "select-only" || r.DB != r.Engine+" db1:5433/pgb" {
		t.Errorf("the run's line: %+v", r)
	}
	sws, err := s.ListSweeps(ctx, 0)
	if err != nil || len(sws) != 1 {
		t.Fatalf("sweeps %+v, %v", sws, err)
	}
	if r := sws[0]; r.ID != sweepID || r.Label != "sync on" || r.Mix != "select-only" || r.DB != "mariadb db2:3306/test" {
		t.Errorf("the sweep's line: %+v", r)
	}
}

// TestAStoreWithoutTheNamesColumnsOpensAndReads opens a store made before
// the listings' columns, with a run and a sweep saved then: for reading
// and for writing, in both kinds of store. Its rows are listed with the
// names their JSON holds, and it takes new runs.
func TestAStoreWithoutTheNamesColumnsOpensAndReads(t *testing.T) {
	eachStore(t, func(t *testing.T, loc string) {
		openStoreT(t, loc).Close()
		drop := dropNames
		if IsServer(loc) {
			drop = "SET search_path = dbharness; " + drop
			serverSQL(t, loc, drop)
		} else {
			execSQL(t, loc, drop)
		}
		r := sampleRun()
		r.Label, r.Mix, r.Target = "sync off", "select-only", "postgres://bench@db1:5433/pgb"
		rj, _ := json.Marshal(r)
		sw := &results.Sweep{SweepID: "sw-20260101-000000-abcd", Workload: "tpcb", Mix: "select-only", Label: "sync on",
			Target: "mysql://root@db2:3306/test", Engine: &results.EngineInfo{Engine: "mariadb"}, Status: results.StatusCompleted}
		sj, _ := json.Marshal(sw)
		// The rows as a dbharness without the columns wrote them.
		driver, dsn, search := "sqlite", "file:"+loc, ""
		if IsServer(loc) {
			driver, dsn, search = "pgx", loc, "dbharness."
		}
		d, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		var k storeKind = sqliteStore{}
		if IsServer(loc) {
			k = pgStore{}
		}
		if _, err := d.Exec(k.bind(`INSERT INTO `+search+`runs (id, started, workload, engine, clients, status, tps, run)
			VALUES (?, '2026-01-01T00:00:00Z', 'tpcb', ?, 1, 'completed', 10, ?)`), r.RunID, r.Engine.Engine, string(rj)); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Exec(k.bind(`INSERT INTO `+search+`sweeps (id, started, workload, status, sweep)
			VALUES (?, '2026-01-01T00:00:00Z', 'tpcb', 'completed', ?)`), sw.SweepID, string(sj)); err != nil {
			t.Fatal(err)
		}
		d.Close()
		ro := readOnlyT(t, loc)
		checkNames(t, ro, r.RunID, sw.SweepID)
		if got, err := ro.Get(context.Background(), r.RunID); err != nil || got.Label != "sync off" {
			t.Errorf("the old run reads back %+v, %v", got, err)
		}
		w := openStoreT(t, loc)
		checkNames(t, w, r.RunID, sw.SweepID)
		n := sampleRun()
		n.RunID, n.Label = "20260102-000000-abcd", "new"
		if err := w.Save(n); err != nil {
			t.Fatal(err)
		}
		rows, err := w.List(context.Background(), 0)
		if err != nil || len(rows) != 2 || rows[0].Label != "new" {
			t.Errorf("after a new run: %+v, %v", rows, err)
		}
	})
}
