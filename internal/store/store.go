// Package store is the results store: the runs, sweeps and groups of
// shards that harnesses save as they go, in an SQLite file or a PostgreSQL
// database, and the recovery of runs a killed harness left running.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/datadir"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/results"
)

// DefaultPath is the results store used unless --results or
// DBHARNESS_RESULTS says otherwise.
func DefaultPath() string {
	if p := os.Getenv("DBHARNESS_RESULTS"); p != "" {
		return p
	}
	return filepath.Join(datadir.Default(), "results.db")
}

// Describe is a store's location as it may be printed: a server's URL
// without its secrets.
func Describe(loc string) string {
	if IsServer(loc) {
		return redact.String(loc)
	}
	return loc
}

// IsServer says whether a store's location is a server's URL (postgres://
// or postgresql://) rather than an SQLite file.
func IsServer(loc string) bool {
	l := strings.ToLower(loc)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Store keeps every run: a row per run (its JSON without intervals) and a
// row per interval, written as the run goes. The same tables and
// statements serve both kinds of store, an SQLite file and a PostgreSQL
// database; the kind says only how they are opened, bound and explained.
type Store struct {
	db   *sql.DB
	kind storeKind
	// path is the location as printed (a URL without its secrets); loc as
	// given.
	path, loc string
	// timeout bounds each write.
	timeout time.Duration
}

// storeKind is what differs between an SQLite store and a PostgreSQL one.
type storeKind interface {
	// setUp checks, under a lock that other harnesses opening the store
	// wait for, that the store is a dbharness store of a known version (or
	// empty), creates the tables it lacks and stamps it.
	setUp(ctx context.Context, s *Store) error
	// bind rewrites a statement's ? placeholders for the driver.
	bind(q string) string
	// explain says in one sentence why the store could not be opened.
	explain(s *Store, err error) error
	// cause is the part of a driver's error that says why a read or a
	// write failed, on one line and without secrets.
	cause(err error) error
	// nowQuery reads the store's clock, as RFC 3339 text in UTC.
	nowQuery() string
	// checkRead checks, writing nothing, that the store is a dbharness
	// store of a known version with its tables (readTables).
	checkRead(ctx context.Context, s *Store) error
}

// storeTimeout bounds each write of an SQLite store (whose own busy
// timeout is shorter); a server's store waits writeTimeouts times its
// connect timeout, so that a store server that stops answering cannot hold
// a run: the write fails and the run reports that it was not saved.
const (
	storeTimeout  = 30 * time.Second
	writeTimeouts = 3
)

const storeSchema = `
CREATE TABLE IF NOT EXISTS runs (
	id       TEXT PRIMARY KEY,
	started  TEXT NOT NULL,
	workload TEXT NOT NULL,
	engine   TEXT NOT NULL,
	clients  INTEGER NOT NULL,
	status   TEXT NOT NULL,
	tps      DOUBLE PRECISION NOT NULL DEFAULT 0,
	pid      INTEGER NOT NULL DEFAULT 0,
	run      TEXT NOT NULL,
	label    TEXT NOT NULL DEFAULT '',
	mix      TEXT NOT NULL DEFAULT '',
	target   TEXT NOT NULL DEFAULT ''
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

// storeVersion is the version of the store's tables, stamped in every
// store (store_sqlite.go, store_postgres.go).
const storeVersion = 1

// storeTables are the tables a results store may hold.
var storeTables = map[string]bool{"runs": true, "intervals": true, "sweeps": true, "sweep_runs": true, "evidence": true,
	"run_groups": true, "run_group_shards": true}

// allSchema is every table of a store.
const allSchema = storeSchema + sweepSchema + evidenceSchema + groupSchema

// addedColumns are the columns added to a table of the store after its
// first version, which a store made before them gets when it is opened
// (addColumn): the listings read them (List, ListSweeps), and take them
// from the row's JSON where they are empty, in the rows that a dbharness
// without them saved. They leave the store's version as it was, so that
// an older dbharness still opens it.
var addedColumns = []struct{ table, column string }{
	{"runs", "label"}, {"runs", "mix"}, {"runs", "target"},
	{"sweeps", "label"}, {"sweeps", "mix"}, {"sweeps", "engine"}, {"sweeps", "target"},
}

// addColumns are the statements that add to a store's tables, whose
// columns are cols (by table), those of addedColumns they lack; a table
// the store lacks is made whole by allSchema.
func addColumns(cols map[string]map[string]bool) string {
	var b strings.Builder
	for _, c := range addedColumns {
		if have := cols[c.table]; have != nil && !have[c.column] {
			b.WriteString("ALTER TABLE " + c.table + " ADD COLUMN " + c.column + " TEXT NOT NULL DEFAULT '';\n")
		}
	}
	return b.String()
}

// readColumns reads the columns of a store's tables from rows of a query
// that gives (table, column).
func readColumns(rows *sql.Rows) (map[string]map[string]bool, error) {
	defer rows.Close()
	cols := map[string]map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, err
		}
		if cols[t] == nil {
			cols[t] = map[string]bool{}
		}
		cols[t][c] = true
	}
	return cols, rows.Err()
}

// OtherStore is what a user can do about a store that cannot be opened.
const OtherStore = "give another store (a file or a postgres:// URL) with --results"

// Open opens the results store at loc (DefaultPath when loc is "") for
// writing, creating it if needed: an SQLite file (openFile; a path, or
// sqlite://PATH as --db takes it), or, for a postgres:// URL, the schema
// dbharness in that database (openServer). It refuses in one sentence a
// store it cannot use or that is not a dbharness store of a version it
// knows.
func Open(loc string) (*Store, error) {
	if loc == "" {
		loc = DefaultPath()
	}
	if IsServer(loc) {
		return openServer(loc, false)
	}
	path, err := filePath(loc)
	if err != nil {
		return nil, err
	}
	return openFile(path)
}

// ErrNoStore is wrapped by the error of OpenReadOnly when nothing is saved
// at the location: no file there, or no store's tables in it.
var ErrNoStore = errors.New("no results store")

// errOlderStore is what a read-only check says of a store of an older
// dbharness that lacks some of today's tables.
var errOlderStore = errors.New("the store lacks some of its tables")

// OpenReadOnly opens an existing store (at DefaultPath when loc is "") for
// the commands that only read it: it creates nothing, neither the file,
// its directory, a server's schema nor their tables, and refuses a store
// that is not there with an error that wraps ErrNoStore. A store of an
// older dbharness that lacks some of today's tables is brought up to date
// as Open does, so that its runs can be read.
func OpenReadOnly(loc string) (*Store, error) {
	if loc == "" {
		loc = DefaultPath()
	}
	var s *Store
	var err error
	if IsServer(loc) {
		s, err = openServer(loc, true)
	} else {
		var path string
		if path, err = filePath(loc); err != nil {
			return nil, err
		}
		s, err = openFileReadOnly(path)
	}
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	switch err := s.kind.checkRead(ctx, s); {
	case errors.Is(err, errOlderStore):
		s.Close()
		return Open(loc)
	case err != nil:
		s.Close()
		return nil, err
	}
	return s, nil
}

// readTables says, of the tables a store's database holds, whether it is
// a store whose tables can all be read: ErrNoStore without its runs table,
// errOlderStore without another of its tables.
func readTables(s *Store, names []string) error {
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	if !have["runs"] {
		return fmt.Errorf("%w at %s", ErrNoStore, s.path)
	}
	for n := range storeTables {
		if !have[n] {
			return errOlderStore
		}
	}
	return nil
}

// filePath is the SQLite file a store's location names: the path, or
// the PATH of sqlite://PATH. It refuses a URL of another scheme, which
// would otherwise name a file in a directory called "mysql:".
func filePath(loc string) (string, error) {
	if p, ok := strings.CutPrefix(loc, "sqlite://"); ok && p != "" {
		return p, nil
	}
	if scheme, _, ok := strings.Cut(loc, "://"); ok && scheme != "" && !strings.ContainsAny(scheme, "/.") {
		return "", fmt.Errorf("results store %s: a store is an SQLite file (a path, or sqlite://PATH) or a postgres:// URL, not a %s:// URL", redact.String(loc), scheme)
	}
	return loc, nil
}

// Location is the store's location as it was given, with any password:
// for a harness that opens the same store again (a sweep's runs), never
// for printing.
func (s *Store) Location() string { return s.loc }

// exec runs a statement, bound for the store's driver, within the store's
// timeout.
func (s *Store) exec(q string, args ...any) (sql.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	return s.db.ExecContext(ctx, s.kind.bind(q), args...)
}

// query runs a query, bound for the store's driver.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := s.db.QueryContext(ctx, s.kind.bind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("read results store %s: %v", s.path, s.kind.cause(err))
	}
	return rows, nil
}

// queryRow runs a query of one row, bound for the store's driver.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.kind.bind(q), args...)
}

// Path is the store's file, or its server's URL without secrets, for
// printing.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Create saves a new run's first row under an id no other run of the
// store has: when r's id is taken (another harness started a run in the
// same second and drew the same suffix), it draws another and sets it in
// r. Runs saved at once by several harnesses so never share an id.
func (s *Store) Create(r *results.Run) error {
	for range 20 {
		ok, err := s.upsert(r, true)
		if err != nil || ok {
			return err
		}
		r.RunID = results.NewRunID(time.Now())
	}
	return fmt.Errorf("save run %s to %s: no free run id after 20 draws", r.RunID, s.path)
}

// Save inserts or replaces the run's row (everything but its intervals):
// a run's first row is Create's, which gives it an id of its own.
func (s *Store) Save(r *results.Run) error {
	if _, err := s.upsert(r, false); err != nil || r.Status == results.StatusRunning {
		return err
	}
	// The finished run holds its whole evidence series.
	if _, err := s.exec(`DELETE FROM evidence WHERE run_id = ?`, r.RunID); err != nil {
		return s.writeError("save run "+r.RunID, err)
	}
	return nil
}

// upsert writes the run's row, a new one only when onlyNew, and says
// whether it wrote it.
func (s *Store) upsert(r *results.Run, onlyNew bool) (bool, error) {
	cp := *r
	cp.Intervals = nil
	b, err := json.Marshal(&cp)
	if err != nil {
		return false, err
	}
	conflict := `DO UPDATE SET status = excluded.status, tps = excluded.tps, run = excluded.run, engine = excluded.engine,
		label = excluded.label, mix = excluded.mix, target = excluded.target`
	if onlyNew {
		conflict = `DO NOTHING`
	}
	res, err := s.exec(`INSERT INTO runs (id, started, workload, engine, clients, status, tps, pid, run, label, mix, target)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) `+conflict,
		r.RunID, r.StartTime.UTC().Format(time.RFC3339Nano), r.Workload, r.Engine.Engine, r.Config.Clients, r.Status,
		r.Summary.TPS, os.Getpid(), string(b), r.Label, r.Mix, r.Target)
	if err != nil {
		return false, s.writeError("save run "+r.RunID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, s.writeError("save run "+r.RunID, err)
	}
	return n > 0, nil
}

// writeError says which write failed, to which store, and why.
func (s *Store) writeError(what string, err error) error {
	return fmt.Errorf("%s to %s: %v", what, s.path, s.kind.cause(err))
}

// AddInterval appends one interval of a run, with its per-operation
// histograms (encoded) keyed by operation name.
func (s *Store) AddInterval(runID string, iv *results.Interval, hists map[string]string) error {
	b, err := json.Marshal(iv)
	if err != nil {
		return err
	}
	var hb []byte
	if len(hists) > 0 {
		hb, _ = json.Marshal(hists)
	}
	_, err = s.exec(`INSERT INTO intervals (run_id, seq, interval, hists) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, seq) DO UPDATE SET interval = excluded.interval, hists = excluded.hists`,
		runID, iv.Seq, string(b), string(hb))
	if err != nil {
		return s.writeError(fmt.Sprintf("save interval %d of run %s", iv.Seq, runID), err)
	}
	return nil
}

// ErrNotFound is returned for an unknown run id.
var ErrNotFound = errors.New("not found")

// Get loads a run with its intervals. id may be a unique prefix.
func (s *Store) Get(ctx context.Context, id string) (*results.Run, error) {
	rows, err := s.query(ctx, `SELECT id, status, pid, run FROM runs WHERE id = ? OR id LIKE ? ORDER BY id LIMIT 2`, id, id+"%")
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
	var r results.Run
	if err := json.Unmarshal([]byte(hits[0].js), &r); err != nil {
		return nil, fmt.Errorf("run %s is damaged in %s: %v", hits[0].id, s.path, err)
	}
	ivs, err := s.query(ctx, `SELECT interval FROM intervals WHERE run_id = ? ORDER BY seq`, r.RunID)
	if err != nil {
		return nil, err
	}
	defer ivs.Close()
	for ivs.Next() {
		var js string
		if err := ivs.Scan(&js); err != nil {
			return nil, err
		}
		var iv results.Interval
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
		r.Intervals = []results.Interval{}
	}
	// A run still running, or left running by a harness that was killed,
	// has its evidence in rows; an abandoned run is summarized from the
	// intervals it saved.
	if r.Status == results.StatusRunning {
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
	Label    string    `json:"label,omitempty"`
	Started  time.Time `json:"start_time"`
	Workload string    `json:"workload"`
	// Mix is the workload's mix (results.Run's Mix).
	Mix    string `json:"mix,omitempty"`
	Engine string `json:"engine"`
	// DB is the database in a few words (results.ShortDB).
	DB      string  `json:"db"`
	Clients int     `json:"clients"`
	Status  string  `json:"status"`
	TPS     float64 `json:"tps"`
	// Sweep is the sweep the run belongs to, if any.
	Sweep string `json:"sweep_id,omitempty"`
	// Shards is set on a group's line, which stands for its shards' runs:
	// the shards that registered. The line's id is the group's name, its
	// figures the merged run's (GetGroup).
	Shards int `json:"shards,omitempty"`
}

// List returns the runs, newest first, at most limit (0 = all).
func (s *Store) List(ctx context.Context, limit int) ([]RunRow, error) {
	q := `SELECT id, started, workload, engine, clients, status, tps, label, mix, target,
		COALESCE((SELECT sweep_id FROM sweep_runs s WHERE s.run_id = runs.id LIMIT 1), ''),
		COALESCE((SELECT group_name FROM run_group_shards g WHERE g.run_id = runs.id LIMIT 1), '')
		FROM runs ORDER BY started DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunRow
	groups := map[string]bool{}
	groupAt := map[int]string{} // the lines that stand for a group
	unnamed := map[int]bool{}   // the lines without the names' columns
	for rows.Next() {
		var r RunRow
		var started, group, target string
		if err := rows.Scan(&r.ID, &started, &r.Workload, &r.Engine, &r.Clients, &r.Status, &r.TPS, &r.Label, &r.Mix, &target, &r.Sweep, &group); err != nil {
			return nil, err
		}
		r.DB = results.ShortDB(r.Engine, target)
		r.Started, _ = time.Parse(time.RFC3339Nano, started)
		r.Status = strings.TrimSpace(r.Status)
		// A group's shards are one line, where its newest shard is.
		if group != "" {
			if groups[group] {
				continue
			}
			groups[group] = true
			groupAt[len(out)] = group
		}
		if target == "" {
			unnamed[len(out)] = true
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// A run saved as running may have been abandoned by a killed harness:
	// list it as Get reads it. A group is listed as its merged run.
	for i := range out {
		if name, ok := groupAt[i]; ok {
			// A group that cannot be merged is listed as the shard's run.
			if g, _, err := s.GetGroup(ctx, name); err == nil {
				out[i] = RunRow{ID: name, Label: g.Label, Started: out[i].Started, Workload: g.Workload, Mix: g.Mix, Engine: g.Engine.Engine,
					DB: g.DB(), Clients: g.Config.Clients, Status: g.Status, TPS: g.Summary.TPS, Shards: len(g.Shards)}
				if !g.Group.Start.IsZero() {
					out[i].Started = g.Group.Start
				}
				continue
			}
		}
		if out[i].Status == results.StatusRunning {
			if full, err := s.Get(ctx, out[i].ID); err == nil {
				out[i].Status, out[i].TPS = full.Status, full.Summary.TPS
			}
		}
	}
	// A run saved by a dbharness without the listing's columns has its
	// names in its JSON only.
	for i := range out {
		if !unnamed[i] || out[i].Shards > 0 {
			continue
		}
		var r results.Run
		if s.rowJSON(ctx, `SELECT run FROM runs WHERE id = ?`, out[i].ID, &r) {
			out[i].Label, out[i].Mix, out[i].DB = r.Label, r.Mix, r.DB()
		}
	}
	return out, nil
}

// rowJSON reads the JSON document of one row into v, and says whether it
// could.
func (s *Store) rowJSON(ctx context.Context, q, id string, v any) bool {
	var js string
	if err := s.queryRow(ctx, q, id).Scan(&js); err != nil {
		return false
	}
	return json.Unmarshal([]byte(js), v) == nil
}

const sweepSchema = `
CREATE TABLE IF NOT EXISTS sweeps (
	id       TEXT PRIMARY KEY,
	started  TEXT NOT NULL,
	workload TEXT NOT NULL,
	status   TEXT NOT NULL,
	sweep    TEXT NOT NULL,
	label    TEXT NOT NULL DEFAULT '',
	mix      TEXT NOT NULL DEFAULT '',
	engine   TEXT NOT NULL DEFAULT '',
	target   TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS sweep_runs (
	sweep_id TEXT NOT NULL,
	run_id   TEXT NOT NULL,
	seq      INTEGER NOT NULL,
	PRIMARY KEY (sweep_id, run_id)
);
CREATE INDEX IF NOT EXISTS sweep_runs_run ON sweep_runs (run_id);
`

// CreateSweep saves a new sweep under an id no other sweep of the store
// has: when sw's id is taken (another sweep started in the same second
// and drew the same suffix), it draws another and sets it in sw, as
// Create does for runs. Later saves of the sweep are SaveSweep's.
func (s *Store) CreateSweep(sw *results.Sweep) error {
	for range 20 {
		b, err := json.Marshal(sw)
		if err != nil {
			return err
		}
		res, err := s.exec(`INSERT INTO sweeps (id, started, workload, status, sweep) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			sw.SweepID, sw.StartTime.UTC().Format(time.RFC3339Nano), sw.Workload, sw.Status, string(b))
		if err != nil {
			return s.writeError("save sweep "+sw.SweepID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return s.writeError("save sweep "+sw.SweepID, err)
		}
		if n > 0 {
			return s.SaveSweep(sw)
		}
		sw.SweepID = results.NewSweepID(time.Now())
	}
	return fmt.Errorf("save sweep %s to %s: no free sweep id after 20 draws", sw.SweepID, s.path)
}

// SaveSweep inserts or replaces the sweep and links each of its runs.
func (s *Store) SaveSweep(sw *results.Sweep) error {
	b, err := json.Marshal(sw)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.writeError("save sweep "+sw.SweepID, err)
	}
	defer tx.Rollback()
	engine := ""
	if sw.Engine != nil {
		engine = sw.Engine.Engine
	}
	if _, err := tx.ExecContext(ctx, s.kind.bind(`INSERT INTO sweeps (id, started, workload, status, sweep, label, mix, engine, target)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET status = excluded.status, sweep = excluded.sweep,
			label = excluded.label, mix = excluded.mix, engine = excluded.engine, target = excluded.target`),
		sw.SweepID, sw.StartTime.UTC().Format(time.RFC3339Nano), sw.Workload, sw.Status, string(b),
		sw.Label, sw.Mix, engine, sw.Target); err != nil {
		return s.writeError("save sweep "+sw.SweepID, err)
	}
	for i, id := range sw.RunIDs {
		if _, err := tx.ExecContext(ctx, s.kind.bind(`INSERT INTO sweep_runs (sweep_id, run_id, seq) VALUES (?, ?, ?)
			ON CONFLICT (sweep_id, run_id) DO UPDATE SET seq = excluded.seq`), sw.SweepID, id, i); err != nil {
			return s.writeError("save sweep "+sw.SweepID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.writeError("save sweep "+sw.SweepID, err)
	}
	return nil
}

// GetSweep loads a sweep. id may be a unique prefix.
func (s *Store) GetSweep(ctx context.Context, id string) (*results.Sweep, error) {
	rows, err := s.query(ctx, `SELECT id, sweep FROM sweeps WHERE id = ? OR id LIKE ? ORDER BY id LIMIT 2`, id, id+"%")
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
	var sw results.Sweep
	if err := json.Unmarshal([]byte(docs[0]), &sw); err != nil {
		return nil, fmt.Errorf("sweep %s is damaged in %s: %v", ids[0], s.path, err)
	}
	return &sw, nil
}

// SweepRow is one line of the sweep list.
type SweepRow struct {
	ID       string    `json:"sweep_id"`
	Label    string    `json:"label,omitempty"`
	Started  time.Time `json:"start_time"`
	Workload string    `json:"workload"`
	// Mix is the workload's mix (results.Sweep's Mix).
	Mix string `json:"mix,omitempty"`
	// DB is the database in a few words (results.ShortDB).
	DB     string `json:"db"`
	Status string `json:"status"`
	Runs   int    `json:"runs"`
}

// ListSweeps returns the sweeps, newest first, at most limit (0 = all).
func (s *Store) ListSweeps(ctx context.Context, limit int) ([]SweepRow, error) {
	q := `SELECT s.id, s.started, s.workload, s.status, (SELECT count(*) FROM sweep_runs r WHERE r.sweep_id = s.id),
		s.label, s.mix, s.engine, s.target
		FROM sweeps s ORDER BY s.started DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SweepRow
	for rows.Next() {
		var r SweepRow
		var started, engine, target string
		if err := rows.Scan(&r.ID, &started, &r.Workload, &r.Status, &r.Runs, &r.Label, &r.Mix, &engine, &target); err != nil {
			return nil, err
		}
		r.Started, _ = time.Parse(time.RFC3339Nano, started)
		r.DB = results.ShortDB(engine, target)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// A sweep saved by a dbharness without the listing's columns has its
	// names in its JSON only.
	for i := range out {
		if out[i].DB != "" {
			continue
		}
		var sw results.Sweep
		if s.rowJSON(ctx, `SELECT sweep FROM sweeps WHERE id = ?`, out[i].ID, &sw) {
			out[i].Label, out[i].Mix, out[i].DB = sw.Label, sw.Mix, sw.DB()
		}
	}
	return out, nil
}

// SweepOf returns the id of the sweep a run belongs to, or "".
func (s *Store) SweepOf(ctx context.Context, runID string) (string, error) {
	var id string
	err := s.queryRow(ctx, `SELECT sweep_id FROM sweep_runs WHERE run_id = ? LIMIT 1`, runID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// SweepRuns loads every run of the sweep's plan, with its intervals, keyed
// by run id; runs missing from the store are left out.
func (s *Store) SweepRuns(ctx context.Context, sw *results.Sweep) (map[string]*results.Run, error) {
	runs := map[string]*results.Run{}
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
