package results

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
)

// Blocker is a session that held a lock the harness's sessions waited for,
// over the samples of the wait profile that saw it block them. One entry
// is one transaction of that session.
type Blocker struct {
	// PID is the session's PostgreSQL pid or MySQL connection id.
	PID int64 `json:"pid"`
	// Application is PostgreSQL's application_name (the user when it is
	// empty), or MySQL's user@host.
	Application string `json:"application,omitempty"`
	Database    string `json:"database,omitempty"`
	// State, StateSince, HeldSeconds and Query are as the last sample that
	// saw it block found it (Query: the last statement any sample saw).
	State string `json:"state,omitempty"`
	// XactStart is when its transaction began; StateSince when it entered
	// State.
	XactStart  *time.Time `json:"xact_start,omitempty"`
	StateSince *time.Time `json:"state_since,omitempty"`
	// HeldSeconds is how long its transaction had run then.
	HeldSeconds float64 `json:"held_s,omitempty"`
	// Query is its current or last statement, credentials cut out, at most
	// 200 characters.
	Query string `json:"query,omitempty"`
	// Waiting are the harness's sessions it blocked.
	Waiting []int64 `json:"waiting"`
	// Samples counts the harness's sessions seen waiting on it, summed
	// over the samples; Sightings the samples that saw it block.
	Samples   int `json:"samples"`
	Sightings int `json:"sightings"`
	// WaitedSeconds is Samples times the sampling period: an estimate of
	// the time the harness's sessions waited on it, summed over them.
	// BlockingSeconds is Sightings times the period: how long it blocked.
	WaitedSeconds   float64 `json:"waited_s"`
	BlockingSeconds float64 `json:"blocking_s"`
}

// AddBlockers counts the blockers one cut of the wait profile saw
// (sampled every period) into interval wi, and, when measured, into the
// run's list.
func (w *Waits) AddBlockers(wi *WaitInterval, seen []evidence.BlockerSeen, period time.Duration, measured bool) {
	if len(seen) == 0 {
		return
	}
	if wi.Blockers == nil {
		wi.Blockers = map[string]int{}
	}
	for _, s := range seen {
		wi.Blockers[strconv.FormatInt(s.ID, 10)] += s.Samples
	}
	if !measured {
		return
	}
	w.BlockersEstimate = fmt.Sprintf("estimated from samples every %s: the time one blocked = the samples that saw it block x %s, "+
		"in all = the samples of the sessions waiting on it x %s", period, period, period)
	for _, s := range seen {
		b := w.blocker(s)
		b.State, b.HeldSeconds = s.State, round3(s.Held.Seconds())
		if s.Query != "" {
			b.Query = s.Query
		}
		if !s.StateSince.IsZero() {
			t := s.StateSince
			b.StateSince = &t
		}
		for _, id := range s.Waiting {
			if !slices.Contains(b.Waiting, id) {
				b.Waiting = append(b.Waiting, id)
			}
		}
		sort.Slice(b.Waiting, func(i, j int) bool { return b.Waiting[i] < b.Waiting[j] })
		b.Samples += s.Samples
		b.Sightings += s.Sightings
		b.WaitedSeconds = round3(float64(b.Samples) * period.Seconds())
		b.BlockingSeconds = round3(float64(b.Sightings) * period.Seconds())
	}
	sort.SliceStable(w.Blockers, func(i, j int) bool { return w.Blockers[i].Samples > w.Blockers[j].Samples })
}

// blocker is the run's entry for the session and transaction of s, added
// when new.
func (w *Waits) blocker(s evidence.BlockerSeen) *Blocker {
	for i := range w.Blockers {
		b := &w.Blockers[i]
		if b.PID == s.ID && (b.XactStart == nil && s.XactStart.IsZero() || b.XactStart != nil && b.XactStart.Equal(s.XactStart)) {
			return b
		}
	}
	b := Blocker{PID: s.ID, Application: s.Application, Database: s.Database, Waiting: []int64{}}
	if !s.XactStart.IsZero() {
		t := s.XactStart
		b.XactStart = &t
	}
	w.Blockers = append(w.Blockers, b)
	return &w.Blockers[len(w.Blockers)-1]
}

// IntervalBlocker is the blocker most waited on in interval seq, with its
// samples there and the interval's samples of the harness's sessions
// (nil when none was seen there).
func (w *Waits) IntervalBlocker(seq int) (*Blocker, int) {
	if w == nil {
		return nil, 0
	}
	for _, wi := range w.Intervals {
		if !Covers(wi.Seq, wi.Span, seq) || len(wi.Blockers) == 0 {
			continue
		}
		best, n := "", 0
		for id, c := range wi.Blockers {
			if c > n || c == n && id < best {
				best, n = id, c
			}
		}
		pid, err := strconv.ParseInt(best, 10, 64)
		if err != nil {
			return nil, 0
		}
		// The run's entry: its latest transaction seen.
		for i := len(w.Blockers) - 1; i >= 0; i-- {
			if w.Blockers[i].PID == pid {
				return &w.Blockers[i], n
			}
		}
		return &Blocker{PID: pid}, n
	}
	return nil, 0
}

// Covers says whether a point ending at interval end and spanning span
// intervals (0: one) covers interval seq.
func Covers(end, span, seq int) bool {
	return seq <= end && seq > end-max(span, 1)
}
