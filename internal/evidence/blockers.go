package evidence

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dbharness/dbharness/internal/db"
)

// Blocker is a session that held a lock one of the harness's sessions
// waited for, as one sample of the server's session list saw it. The
// blocking session is often not the harness's: another application's
// transaction left open, a maintenance job.
type Blocker struct {
	// ID is the session's PostgreSQL pid or MySQL connection id.
	ID int64
	// Application names who runs it: PostgreSQL's application_name (or the
	// user when it is empty); on MySQL/MariaDB, which have none,
	// user@host.
	Application string
	Database    string
	// State is what the session was doing: "idle in transaction",
	// "active", or MySQL's command and state ("Query: User sleep").
	State string
	// XactStart is when its transaction began, StateSince when it entered
	// State (zero: unknown).
	XactStart, StateSince time.Time
	// Held is how long its transaction had run at the sample (0 unknown),
	// by the server's clock.
	Held time.Duration
	// Query is its current or last statement, credentials cut out and
	// clipped (ClipQuery); empty when the server does not show it.
	Query string
	// Waiting are the harness's sessions (their ids) it blocked at the
	// sample.
	Waiting []int64
}

// BlockerSeen is what the samples since the previous cut saw of one
// blocking session.
type BlockerSeen struct {
	// Blocker is as the latest sample saw it, with the last query any
	// sample saw.
	Blocker
	// Samples counts the harness's sessions it blocked, summed over the
	// samples: times the sampling period, an estimate of the time they
	// waited on it in all.
	Samples int
	// Sightings is how many samples saw it block: times the period, an
	// estimate of how long it blocked.
	Sightings int
	// Waiting are the distinct sessions it blocked.
	Waiting []int64
}

// BlockerWatcher is a WaitProfiler that also names the sessions blocking
// the harness's sessions when they wait on a lock.
type BlockerWatcher interface {
	// CutBlockers returns what was seen since the previous call, and why
	// blockers could not be read (empty when they could).
	CutBlockers() ([]BlockerSeen, string)
	// SamplePeriod is how often the session list is sampled.
	SamplePeriod() time.Duration
}

// LockWait reports whether a wait event is a wait for a lock the engine
// can name the holder of (the "Lock" type: PostgreSQL's heavyweight locks,
// InnoDB's lock waits), as the wait profilers name them.
func LockWait(event string) bool { return strings.HasPrefix(event, "Lock:") }

// maxQuery is how much of a blocker's statement is kept.
const maxQuery = 200

// ClipQuery makes a blocker's statement one line of at most 200
// characters (whitespace runs become one space; a clipped one ends in
// "…"). Its caller cuts credentials out first (redact).
func ClipQuery(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if utf8.RuneCountInString(q) <= maxQuery {
		return q
	}
	r := []rune(q)
	return strings.TrimSpace(string(r[:maxQuery-1])) + "…"
}

// blockerKey tells one holding of locks from another: the same session in
// a later transaction is another.
type blockerKey struct {
	id    int64
	xact  int64
	noXid bool
}

// blockers accumulates the blockers a SampledWaits sees between cuts.
type blockers struct {
	seen  map[blockerKey]*BlockerSeen
	order []blockerKey
	why   string
}

func (b *blockers) add(list []Blocker) {
	if b.seen == nil {
		b.seen = map[blockerKey]*BlockerSeen{}
	}
	for _, x := range list {
		k := blockerKey{id: x.ID, xact: x.XactStart.UnixMicro(), noXid: x.XactStart.IsZero()}
		s, ok := b.seen[k]
		if !ok {
			s = &BlockerSeen{}
			b.seen[k] = s
			b.order = append(b.order, k)
		}
		last, waiting := s.Query, s.Waiting
		s.Blocker = x
		if x.Query == "" {
			s.Query = last
		}
		s.Samples += len(x.Waiting)
		s.Sightings++
		for _, id := range x.Waiting {
			if !slices.Contains(waiting, id) {
				waiting = append(waiting, id)
			}
		}
		sort.Slice(waiting, func(i, j int) bool { return waiting[i] < waiting[j] })
		s.Waiting = waiting
	}
}

func (b *blockers) cut() ([]BlockerSeen, string) {
	out := make([]BlockerSeen, 0, len(b.order))
	for _, k := range b.order {
		out = append(out, *b.seen[k])
	}
	why := b.why
	b.seen, b.order = nil, nil
	return out, why
}

// BlockerQuery reads the sessions that block the harness's sessions, on
// the profiler's connection.
type BlockerQuery func(ctx context.Context, c db.Conn) ([]Blocker, error)

// ParseIDs reads a comma-separated list of session ids (the blocker
// queries aggregate them so), skipping what is not a number.
func ParseIDs(s string) []int64 {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}
