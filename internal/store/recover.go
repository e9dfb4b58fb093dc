package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

const evidenceSchema = `
CREATE TABLE IF NOT EXISTS evidence (
	run_id TEXT NOT NULL,
	kind   TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	point  TEXT NOT NULL,
	PRIMARY KEY (run_id, kind, seq)
);
`

// AddEvidence appends one interval of a collector's series (a Point for
// a collector's series, kind its name; a WaitInterval for results.EvidenceWaits) as the
// run goes, so that a harness killed mid-run keeps its evidence up to the
// last interval. The rows are dropped when the finished run is saved with
// its whole series.
func (s *Store) AddEvidence(runID, kind string, seq int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.exec(`INSERT INTO evidence (run_id, kind, seq, point) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, kind, seq) DO UPDATE SET point = excluded.point`, runID, kind, seq, string(b))
	if err != nil {
		return s.writeError(fmt.Sprintf("save %s evidence %d of run %s", kind, seq, runID), err)
	}
	return nil
}

// abandoned says whether a run saved as running was left by a process that
// is gone: it ran on this host, under another process id than ours, and
// that process no longer exists.
func abandoned(r *results.Run, pid int) bool {
	if r.Status != results.StatusRunning || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if host, _ := os.Hostname(); r.Host.Hostname != "" && host != r.Host.Hostname {
		return false
	}
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH)
}

// recoverRun turns the saved intervals of an abandoned run into its result:
// status failed with the reason, the summary and per-operation figures of
// the measured intervals from their histograms.
func (s *Store) recoverRun(ctx context.Context, r *results.Run, pid int) error {
	hists, err := s.IntervalHists(ctx, r.RunID)
	if err != nil {
		return err
	}
	r.Status = results.StatusFailed
	r.Error = fmt.Sprintf("the harness (process %d) ended without finishing the run (killed or crashed); the %d intervals it saved are kept",
		pid, len(r.Intervals))
	results.SummarizeIntervals(r, hists)
	return nil
}

// IntervalHists returns the per-operation histograms saved with a run's
// intervals, encoded (EncodeHist), by seq and then operation name. An
// interval or operation that recorded nothing has none.
func (s *Store) IntervalHists(ctx context.Context, runID string) (map[int]map[string]string, error) {
	rows, err := s.query(ctx, `SELECT seq, hists FROM intervals WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	hists := map[int]map[string]string{}
	for rows.Next() {
		var seq int
		var hb *string
		if err := rows.Scan(&seq, &hb); err != nil {
			return nil, err
		}
		if hb != nil && *hb != "" {
			m := map[string]string{}
			if json.Unmarshal([]byte(*hb), &m) == nil {
				hists[seq] = m
			}
		}
	}
	return hists, rows.Err()
}

// fillEvidence puts the evidence rows of a run that has not been saved
// finished (running, or abandoned) into its collector series.
func (s *Store) fillEvidence(ctx context.Context, r *results.Run) error {
	rows, err := s.query(ctx, `SELECT kind, point FROM evidence WHERE run_id = ? ORDER BY kind, seq`, r.RunID)
	if err != nil {
		return err
	}
	defer rows.Close()
	pts := map[string][]evidence.Point{}
	var waitPts []results.WaitInterval
	for rows.Next() {
		var kind, js string
		if err := rows.Scan(&kind, &js); err != nil {
			return err
		}
		if kind == results.EvidenceWaits {
			var w results.WaitInterval
			if err := json.Unmarshal([]byte(js), &w); err != nil {
				return fmt.Errorf("run %s: damaged wait evidence: %v", r.RunID, err)
			}
			waitPts = append(waitPts, w)
			continue
		}
		var p evidence.Point
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return fmt.Errorf("run %s: damaged %s evidence: %v", r.RunID, kind, err)
		}
		pts[kind] = append(pts[kind], p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.RestoreEvidence(pts, waitPts)
	return nil
}
