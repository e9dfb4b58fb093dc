package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // the store is an embedded SQLite file
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dbharness/dbharness/internal/datadir"
)

// DefaultPath is the results store used unless --results or
// DBHARNESS_RESULTS says otherwise.
func DefaultPath() string {
	if p := os.Getenv("DBHARNESS_RESULTS"); p != "" {
		return p
	}
	return filepath.Join(datadir.Default(), "results.db")
}

// Store keeps every run: a row per run (its JSON without intervals) and a
// row per interval, written as the run goes.
type Store struct {
	db   *sql.DB
	path string
}

const storeSchema = `
CREATE TABLE IF NOT EXISTS runs (
	id       TEXT PRIMARY KEY,
	started  TEXT NOT NULL,
	workload TEXT NOT NULL,
	engine   TEXT NOT NULL,
	clients  INTEGER NOT NULL,
	status   TEXT NOT NULL,
	tps      REAL NOT NULL DEFAULT 0,
	pid      INTEGER NOT NULL DEFAULT 0,
	run      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS intervals (
	run_id   TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	interval TEXT NOT NULL,
	hists    TEXT,
	PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started);
`

// The results store is marked as dbharness's in its SQLite header: PRAGMA
// application_id holds storeApplicationID ("dbhr") and PRAGMA user_version
// the store's schema version. A store made before the mark (version 0) is
// recognised by its tables and stamped when it is opened.
const (
	storeApplicationID = 0x64626872
	storeVersion       = 1
)

// storeTables are the tables a results store may hold.
var storeTables = map[string]bool{"runs": true, "intervals": true, "sweeps": true, "sweep_runs": true, "evidence": true}

// Open opens the results store at path for writing, creating it if needed:
// the file 0600 and the directories it creates 0700, for it keeps host
// names, settings and plans. It refuses, in one sentence, a directory, a
// file it cannot create or write, and a file that is not a dbharness store
// of a version it knows; it never adds its tables to another SQLite file.
func Open(path string) (*Store, error) {
	created, err := createStoreFile(path)
	if err != nil {
		return nil, err
	}
	// journal_mode(WAL) is set once the file is known to be a store: it
	// rewrites the file's header.
	s, err := openStore(path, url.Values{"_pragma": {"busy_timeout(10000)", "synchronous(NORMAL)"}})
	if err == nil {
		if err = s.setUp(context.Background()); err != nil {
			s.Close()
		}
	}
	if err != nil {
		if created {
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				os.Remove(f)
			}
		}
		return nil, err
	}
	return s, nil
}

// createStoreFile creates the store's file, and the directories above it,
// when it does not exist, and says whether it did.
func createStoreFile(path string) (bool, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("results store %s is a directory", path)
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("results store %s cannot be opened: %v", path, pathCause(err))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("results store %s cannot be created: %v", path, pathCause(err))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil // another dbharness created it meanwhile
	}
	if err != nil {
		return false, fmt.Errorf("results store %s cannot be created: %v", path, pathCause(err))
	}
	return true, f.Close()
}

// pathCause is an error without the path that the message names already.
func pathCause(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// setUp checks, under the write lock, that the store's file is writable
// and is a dbharness store of a known version (or an empty file), creates
// the tables it lacks and stamps it.
func (s *Store) setUp(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.sqlError(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return s.sqlError(err)
	}
	done := false
	defer func() {
		if !done {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	if err := s.checkKind(ctx, conn); err != nil {
		return err
	}
	stamp := fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d;", storeApplicationID, storeVersion)
	if _, err := conn.ExecContext(ctx, storeSchema+sweepSchema+evidenceSchema+stamp); err != nil {
		return s.sqlError(err)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return s.sqlError(err)
	}
	done = true
	if _, err := conn.ExecContext(ctx, "PRAGMA journal_mode = WAL"); err != nil {
		return s.sqlError(err)
	}
	return nil
}

// checkKind says whether the open file is a dbharness store of a known
// version, an old one without the mark, or an empty database; otherwise
// it says what the file is.
func (s *Store) checkKind(ctx context.Context, conn *sql.Conn) error {
	var app, version int64
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return s.sqlError(err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return s.sqlError(err)
	}
	switch {
	case app == storeApplicationID && version > storeVersion:
		return fmt.Errorf("results store %s was made by a newer dbharness (store version %d; this one knows up to %d)", s.path, version, storeVersion)
	case app == storeApplicationID:
		return nil
	case app != 0:
		return fmt.Errorf("%s is not a dbharness results store: it is another application's SQLite database (application_id %#x)", s.path, app)
	}
	rows, err := conn.QueryContext(ctx, "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return s.sqlError(err)
	}
	var foreign []string
	objects, hasRuns := 0, false
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			rows.Close()
			return s.sqlError(err)
		}
		objects++
		if typ == "table" && !storeTables[name] {
			foreign = append(foreign, name)
		}
		hasRuns = hasRuns || (typ == "table" && name == "runs")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.sqlError(err)
	}
	if objects == 0 {
		return nil // a new store
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s is not a dbharness results store: it is an SQLite database with other tables (%s)", s.path, strings.Join(foreign, ", "))
	}
	// A store made before the mark has the runs table with its columns.
	cols := map[string]bool{}
	if hasRuns {
		rows, err := conn.QueryContext(ctx, "SELECT name FROM pragma_table_info('runs')")
		if err != nil {
			return s.sqlError(err)
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return s.sqlError(err)
			}
			cols[c] = true
		}
		rows.Close()
	}
	for _, c := range []string{"id", "started", "workload", "status", "run"} {
		if !cols[c] {
			return fmt.Errorf("%s is not a dbharness results store: it is an SQLite database whose tables are not a store's", s.path)
		}
	}
	return nil
}

// sqlError says in one sentence why SQLite refused the store's file.
func (s *Store) sqlError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%s is not a dbharness results store: it is not an SQLite database", s.path)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("results store %s is damaged: %v", s.path, err)
		case sqlite3.SQLITE_READONLY:
			return fmt.Errorf("results store %s is not writable: %v", s.path, err)
		}
	}
	return fmt.Errorf("results store %s cannot be opened: %v", s.path, err)
}

// OpenReadOnly opens an existing store for reading: it creates nothing,
// neither the file nor its tables (shell completion looks for ids).
func OpenReadOnly(path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("results store %s: %v", path, err)
	}
	return openStore(path, url.Values{"mode": {"ro"}, "_pragma": {"busy_timeout(1000)"}})
}

// openStore opens the SQLite file at path, with the URI parameters q, on
// one connection.
func openStore(path string, q url.Values) (*Store, error) {
	d, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("results store %s: %v", path, err)
	}
	d.SetMaxOpenConns(1)
	return &Store{db: d, path: path}, nil
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Save inserts or replaces the run's row (everything but its intervals).
func (s *Store) Save(r *Run) error {
	cp := *r
	cp.Intervals = nil
	b, err := json.Marshal(&cp)
	if err != nil {
		return err
	}
	_, err = s.db.Exec(`INSERT INTO runs (id, started, workload, engine, clients, status, tps, pid, run)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, tps = excluded.tps, run = excluded.run, engine = excluded.engine`,
		r.RunID, r.StartTime.UTC().Format(time.RFC3339Nano), r.Workload, r.Engine.Engine, r.Config.Clients, r.Status,
		r.Summary.TPS, os.Getpid(), string(b))
	if err != nil {
		return fmt.Errorf("save run %s to %s: %v", r.RunID, s.path, err)
	}
	if r.Status != StatusRunning {
		// The finished run holds its whole evidence series.
		if _, err := s.db.Exec(`DELETE FROM evidence WHERE run_id = ?`, r.RunID); err != nil {
			return fmt.Errorf("save run %s to %s: %v", r.RunID, s.path, err)
		}
	}
	return nil
}

// AddInterval appends one interval of a run, with its per-operation
// histograms (encoded) keyed by operation name.
func (s *Store) AddInterval(runID string, iv *Interval, hists map[string]string) error {
	b, err := json.Marshal(iv)
	if err != nil {
		return err
	}
	var hb []byte
	if len(hists) > 0 {
		hb, _ = json.Marshal(hists)
	}
	_, err = s.db.Exec(`INSERT OR REPLACE INTO intervals (run_id, seq, interval, hists) VALUES (?, ?, ?, ?)`,
		runID, iv.Seq, string(b), string(hb))
	return err
}

// ErrNotFound is returned for an unknown run id.
var ErrNotFound = errors.New("not found")

// Get loads a run with its intervals. id may be a unique prefix.
func (s *Store) Get(ctx context.Context, id string) (*Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, status, pid, run FROM runs WHERE id = ? OR id LIKE ? ORDER BY id LIMIT 2`, id, id+"%")
	if err != nil {
		return nil, err
	}
	type hit struct {
		id, status, js string
		pid            int
	}
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.status, &h.pid, &h.js); err != nil {
			rows.Close()
			return nil, err
		}
		hits = append(hits, h)
	}
	rows.Close()
	if len(hits) == 0 {
		return nil, fmt.Errorf("run %q: %w in %s", id, ErrNotFound, s.path)
	}
	if len(hits) > 1 && hits[0].id != id {
		return nil, fmt.Errorf("run id %q is ambiguous; give more of it", id)
	}
	var r Run
	if err := json.Unmarshal([]byte(hits[0].js), &r); err != nil {
		return nil, fmt.Errorf("run %s is damaged in %s: %v", hits[0].id, s.path, err)
	}
	ivs, err := s.db.QueryContext(ctx, `SELECT interval FROM intervals WHERE run_id = ? ORDER BY seq`, r.RunID)
	if err != nil {
		return nil, err
	}
	defer ivs.Close()
	for ivs.Next() {
		var js string
		if err := ivs.Scan(&js); err != nil {
			return nil, err
		}
		var iv Interval
		if err := json.Unmarshal([]byte(js), &iv); err != nil {
			return nil, err
		}
		r.Intervals = append(r.Intervals, iv)
	}
	if err := ivs.Err(); err != nil {
		return nil, err
	}
	ivs.Close()
	if r.Intervals == nil {
		r.Intervals = []Interval{}
	}
	// A run still running, or left running by a harness that was killed,
	// has its evidence in rows; an abandoned run is summarized from the
	// intervals it saved.
	if r.Status == StatusRunning {
		if abandoned(&r, hits[0].pid) {
			if err := s.recoverRun(ctx, &r, hits[0].pid); err != nil {
				return nil, err
			}
		}
		if err := s.fillEvidence(ctx, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// RunRow is one line of the run list.
type RunRow struct {
	ID       string    `json:"run_id"`
	Started  time.Time `json:"start_time"`
	Workload string    `json:"workload"`
	Engine   string    `json:"engine"`
	Clients  int       `json:"clients"`
	Status   string    `json:"status"`
	TPS      float64   `json:"tps"`
	// Sweep is the sweep the run belongs to, if any.
	Sweep string `json:"sweep_id,omitempty"`
}

// List returns the runs, newest first, at most limit (0 = all).
func (s *Store) List(ctx context.Context, limit int) ([]RunRow, error) {
	q := `SELECT id, started, workload, engine, clients, status, tps,
		COALESCE((SELECT sweep_id FROM sweep_runs s WHERE s.run_id = runs.id LIMIT 1), '')
		FROM runs ORDER BY started DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunRow
	for rows.Next() {
		var r RunRow
		var started string
		if err := rows.Scan(&r.ID, &started, &r.Workload, &r.Engine, &r.Clients, &r.Status, &r.TPS, &r.Sweep); err != nil {
			return nil, err
		}
		r.Started, _ = time.Parse(time.RFC3339Nano, started)
		r.Status = strings.TrimSpace(r.Status)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// A run saved as running may have been abandoned by a killed harness:
	// list it as Get reads it.
	for i := range out {
		if out[i].Status == StatusRunning {
			if full, err := s.Get(ctx, out[i].ID); err == nil {
				out[i].Status, out[i].TPS = full.Status, full.Summary.TPS
			}
		}
	}
	return out, nil
}

const sweepSchema = `
CREATE TABLE IF NOT EXISTS sweeps (
	id       TEXT PRIMARY KEY,
	started  TEXT NOT NULL,
	workload TEXT NOT NULL,
	status   TEXT NOT NULL,
	sweep    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_runs (
	sweep_id TEXT NOT NULL,
	run_id   TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	PRIMARY KEY (sweep_id, run_id)
);
CREATE INDEX IF NOT EXISTS sweep_runs_run ON sweep_runs (run_id);
`

// SaveSweep inserts or replaces the sweep and links each of its runs.
func (s *Store) SaveSweep(sw *Sweep) error {
	b, err := json.Marshal(sw)
	if err != nil {
		return err
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("save sweep %s to %s: %v", sw.SweepID, s.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO sweeps (id, started, workload, status, sweep) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, sweep = excluded.sweep`,
		sw.SweepID, sw.StartTime.UTC().Format(time.RFC3339Nano), sw.Workload, sw.Status, string(b)); err != nil {
		return fmt.Errorf("save sweep %s to %s: %v", sw.SweepID, s.path, err)
	}
	for i, id := range sw.RunIDs {
		if _, err := tx.Exec(`INSERT OR REPLACE INTO sweep_runs (sweep_id, run_id, seq) VALUES (?, ?, ?)`, sw.SweepID, id, i); err != nil {
			return fmt.Errorf("save sweep %s to %s: %v", sw.SweepID, s.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save sweep %s to %s: %v", sw.SweepID, s.path, err)
	}
	return nil
}

// GetSweep loads a sweep. id may be a unique prefix.
func (s *Store) GetSweep(ctx context.Context, id string) (*Sweep, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, sweep FROM sweeps WHERE id = ? OR id LIKE ? ORDER BY id LIMIT 2`, id, id+"%")
	if err != nil {
		return nil, err
	}
	var ids, docs []string
	for rows.Next() {
		var i, d string
		if err := rows.Scan(&i, &d); err != nil {
			rows.Close()
			return nil, err
		}
		ids, docs = append(ids, i), append(docs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("sweep %q: %w in %s", id, ErrNotFound, s.path)
	}
	if len(ids) > 1 && ids[0] != id {
		return nil, fmt.Errorf("sweep id %q is ambiguous; give more of it", id)
	}
	var sw Sweep
	if err := json.Unmarshal([]byte(docs[0]), &sw); err != nil {
		return nil, fmt.Errorf("sweep %s is damaged in %s: %v", ids[0], s.path, err)
	}
	return &sw, nil
}

// SweepRow is one line of the sweep list.
type SweepRow struct {
	ID       string    `json:"sweep_id"`
	Started  time.Time `json:"start_time"`
	Workload string    `json:"workload"`
	Status   string    `json:"status"`
	Runs     int       `json:"runs"`
}

// ListSweeps returns the sweeps, newest first, at most limit (0 = all).
func (s *Store) ListSweeps(ctx context.Context, limit int) ([]SweepRow, error) {
	q := `SELECT s.id, s.started, s.workload, s.status, (SELECT count(*) FROM sweep_runs r WHERE r.sweep_id = s.id)
		FROM sweeps s ORDER BY s.started DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SweepRow
	for rows.Next() {
		var r SweepRow
		var started string
		if err := rows.Scan(&r.ID, &started, &r.Workload, &r.Status, &r.Runs); err != nil {
			return nil, err
		}
		r.Started, _ = time.Parse(time.RFC3339Nano, started)
		out = append(out, r)
	}
	return out, rows.Err()
}

// SweepOf returns the id of the sweep a run belongs to, or "".
func (s *Store) SweepOf(ctx context.Context, runID string) (string, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT sweep_id FROM sweep_runs WHERE run_id = ? LIMIT 1`, runID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// SweepRuns loads every run of the sweep's plan, with its intervals, keyed
// by run id; runs missing from the store are left out.
func (s *Store) SweepRuns(ctx context.Context, sw *Sweep) (map[string]*Run, error) {
	runs := map[string]*Run{}
	for _, pr := range sw.Plan {
		if pr.RunID == "" {
			continue
		}
		r, err := s.Get(ctx, pr.RunID)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return nil, err
		}
		runs[pr.RunID] = r
	}
	return runs, nil
}
