package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/results"
)

// A group is a run made by several harness processes at once, its shards,
// which meet in the results store: each registers under the group's name,
// waits until every shard has, and all start at one instant that the
// first of them to see the group complete chooses, by the store server's
// clock. Each shard's run records its part (results.Shard).
const groupSchema = `
CREATE TABLE IF NOT EXISTS run_groups (
	name   TEXT PRIMARY KEY,
	shards INTEGER NOT NULL,
	start  TEXT
);
CREATE TABLE IF NOT EXISTS run_group_shards (
	group_name TEXT NOT NULL,
	shard      INTEGER NOT NULL,
	run_id     TEXT NOT NULL,
	host       TEXT NOT NULL,
	offset_ms  DOUBLE PRECISION NOT NULL DEFAULT 0,
	PRIMARY KEY (group_name, shard)
);
`

// ServerNow is the store server's clock (for an SQLite store, this host's)
// and this host's clock minus it: the round trip with the shortest of a
// few tries, its middle taken as the server's instant.
func (s *Store) ServerNow(ctx context.Context) (time.Time, time.Duration, error) {
	var best, offset time.Duration
	var now time.Time
	for i := range 5 {
		t0 := time.Now()
		var v string
		if err := s.queryRow(ctx, s.kind.nowQuery()).Scan(&v); err != nil {
			return time.Time{}, 0, fmt.Errorf("read the clock of results store %s: %v", s.path, s.kind.cause(err))
		}
		t1 := time.Now()
		server, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return time.Time{}, 0, fmt.Errorf("read the clock of results store %s: %v", s.path, err)
		}
		if rtt := t1.Sub(t0); i == 0 || rtt < best {
			best, now = rtt, server
			offset = t0.Add(rtt / 2).Sub(server)
		}
	}
	return now, offset, nil
}

// JoinGroup registers shard sh of a run under its group. It refuses a
// shard that is taken (by another run), and a shard count other than the
// group's.
func (s *Store) JoinGroup(ctx context.Context, sh *results.Shard, runID, host string) error {
	fail := func(err error) error {
		return fmt.Errorf("join group %s in results store %s: %v", sh.Group, s.path, s.kind.cause(err))
	}
	if _, err := s.exec(`INSERT INTO run_groups (name, shards) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, sh.Group, sh.Count); err != nil {
		return fail(err)
	}
	var count int
	if err := s.queryRow(ctx, `SELECT shards FROM run_groups WHERE name = ?`, sh.Group).Scan(&count); err != nil {
		return fail(err)
	}
	if count != sh.Count {
		return fmt.Errorf("group %s has %d shards, not %d: give every shard the same --shard I/N, or another --group", sh.Group, count, sh.Count)
	}
	res, err := s.exec(`INSERT INTO run_group_shards (group_name, shard, run_id, host, offset_ms) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (group_name, shard) DO NOTHING`, sh.Group, sh.Index, runID, host, sh.ClockOffsetMs)
	if err != nil {
		return fail(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fail(err)
	} else if n == 0 {
		var other, otherHost string
		if err := s.queryRow(ctx, `SELECT run_id, host FROM run_group_shards WHERE group_name = ? AND shard = ?`, sh.Group, sh.Index).Scan(&other, &otherHost); err != nil {
			return fail(err)
		}
		return fmt.Errorf("shard %d/%d of group %s is taken by run %s on %s: give each shard its own index, and each group run a new --group", sh.Index, sh.Count, sh.Group, other, otherHost)
	}
	return nil
}

// groupPoll is how often a shard looks whether its group is complete.
const groupPoll = 50 * time.Millisecond

// groupLead is how long after the group is complete its shards start: time
// for the others to see it.
const groupLead = time.Second

// StartGroup waits until every shard of sh's group has registered, at most
// timeout, and returns the instant they all start at, by the store
// server's clock: the first shard to see the group complete sets it,
// groupLead ahead. It names, in one sentence, the shards that did not
// come.
func (s *Store) StartGroup(ctx context.Context, sh *results.Shard, timeout time.Duration) (time.Time, error) {
	fail := func(err error) (time.Time, error) {
		return time.Time{}, fmt.Errorf("group %s in results store %s: %v", sh.Group, s.path, s.kind.cause(err))
	}
	deadline := time.Now().Add(timeout)
	var here map[int]bool
	for {
		rows, err := s.query(ctx, `SELECT shard FROM run_group_shards WHERE group_name = ?`, sh.Group)
		if err != nil {
			return time.Time{}, err
		}
		here = map[int]bool{}
		for rows.Next() {
			var i int
			if err := rows.Scan(&i); err != nil {
				rows.Close()
				return fail(err)
			}
			here[i] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fail(err)
		}
		if len(here) >= sh.Count || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(groupPoll):
		}
	}
	if len(here) < sh.Count {
		var missing []string
		for i := range sh.Count {
			if !here[i] {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		what := "shard " + missing[0] + " has"
		if len(missing) > 1 {
			what = "shards " + strings.Join(missing, ", ") + " have"
		}
		return time.Time{}, fmt.Errorf("group %s: %s not come within --group-timeout %s (%d of %d shards registered)", sh.Group, what, timeout, len(here), sh.Count)
	}
	now, _, err := s.ServerNow(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if _, err := s.exec(`UPDATE run_groups SET start = ? WHERE name = ? AND start IS NULL`,
		now.Add(groupLead).UTC().Format(time.RFC3339Nano), sh.Group); err != nil {
		return fail(err)
	}
	var start sql.NullString
	if err := s.queryRow(ctx, `SELECT start FROM run_groups WHERE name = ?`, sh.Group).Scan(&start); err != nil {
		return fail(err)
	}
	t, err := time.Parse(time.RFC3339Nano, start.String)
	if err != nil {
		return fail(errors.New("the group's start is not a time: " + start.String))
	}
	return t, nil
}

// GetRunOrGroup loads the run id (a unique prefix), or else the group of
// shards named id, merged into one run.
func (s *Store) GetRunOrGroup(ctx context.Context, id string) (*results.Run, error) {
	r, err := s.Get(ctx, id)
	if !errors.Is(err, ErrNotFound) {
		return r, err
	}
	g, _, gerr := s.GetGroup(ctx, id)
	if errors.Is(gerr, ErrNotFound) {
		return nil, err
	}
	return g, gerr
}

// GetGroup loads a group's shards' runs, with their intervals' histograms,
// and merges them into one run (MergeShards); it returns the merged
// intervals' histograms too, as IntervalHists does a run's.
func (s *Store) GetGroup(ctx context.Context, name string) (*results.Run, map[int]map[string]string, error) {
	var count int
	var start sql.NullString
	err := s.queryRow(ctx, `SELECT shards, start FROM run_groups WHERE name = ?`, name).Scan(&count, &start)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("group %q: %w in %s", name, ErrNotFound, s.path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read group %s from %s: %v", name, s.path, s.kind.cause(err))
	}
	rows, err := s.query(ctx, `SELECT shard, run_id FROM run_group_shards WHERE group_name = ? ORDER BY shard`, name)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	var index []int
	for rows.Next() {
		var id string
		var i int
		if err := rows.Scan(&i, &id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		ids, index = append(ids, id), append(index, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	var runs []*results.Run
	var hists []map[int]map[string]string
	for k, id := range ids {
		r, err := s.Get(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		if r.Shard == nil {
			// A run saved only before it joined (its harness killed
			// then) is the shard it registered as.
			r.Shard = &results.Shard{Group: name, Index: index[k], Count: count}
		}
		h, err := s.IntervalHists(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		runs, hists = append(runs, r), append(hists, h)
	}
	g := &results.Group{Name: name, Shards: count}
	if start.Valid {
		g.Start, _ = time.Parse(time.RFC3339Nano, start.String)
	}
	return results.MergeShards(g, runs, hists)
}
