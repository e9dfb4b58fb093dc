package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
)

// maxBlockers is how many blocking sessions the summary names.
const maxBlockers = 3

// BlockerSentence says who blocked the harness's sessions, how many and
// for how long: "8 clients waited 7.0 s (56.0 s in all) on a lock held by
// pid 4711 (application lock_holder, idle in transaction since 16:03:12,
// its transaction 9.1 s old): UPDATE pgbench_branches …".
func BlockerSentence(b *results.Blocker) string {
	n := len(b.Waiting)
	s := fmt.Sprintf("%s waited %.1f s", plural(n, "client"), b.BlockingSeconds)
	if n > 1 && b.WaitedSeconds > b.BlockingSeconds {
		s += fmt.Sprintf(" (%.1f s in all)", b.WaitedSeconds)
	}
	return s + " on a lock held by " + blockerWho(b)
}

// blockerWho names a blocking session: "pid 4711 (application
// lock_holder, idle in transaction since 16:03:12, its transaction 9.1 s
// old): UPDATE …".
func blockerWho(b *results.Blocker) string {
	var parts []string
	if b.Application != "" {
		parts = append(parts, "application "+b.Application)
	}
	if b.State != "" {
		st := b.State
		if b.StateSince != nil {
			st += " since " + b.StateSince.Format("15:04:05")
		}
		parts = append(parts, st)
	}
	if b.HeldSeconds > 0 {
		parts = append(parts, fmt.Sprintf("its transaction %.1f s old", b.HeldSeconds))
	}
	s := "pid " + strconv.FormatInt(b.PID, 10)
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if b.Query != "" {
		s += ": " + b.Query
	}
	return s
}

// blockerLines prints who blocked the harness's sessions, under the wait
// profile.
func blockerLines(w io.Writer, ws *results.Waits) {
	if len(ws.Blockers) == 0 {
		if ws.BlockersUnavailable != "" {
			fmt.Fprintf(w, "  lock blockers: unavailable: %s\n", ws.BlockersUnavailable)
		}
		return
	}
	fmt.Fprintf(w, "  lock blockers (%s):\n", ws.BlockersEstimate)
	for i := range ws.Blockers {
		if i == maxBlockers {
			fmt.Fprintf(w, "    ... %d more (in the JSON)\n", len(ws.Blockers)-maxBlockers)
			break
		}
		fmt.Fprintf(w, "    %s\n", BlockerSentence(&ws.Blockers[i]))
	}
}

// blockerFacts adds the blockers to the wait profile's section of the
// HTML report.
func blockerFacts(facts []kv, ws *results.Waits) []kv {
	if len(ws.Blockers) == 0 {
		if ws.BlockersUnavailable != "" {
			facts = append(facts, kv{"lock blockers", "unavailable: " + ws.BlockersUnavailable})
		}
		return facts
	}
	for i := range ws.Blockers {
		if i == maxBlockers {
			facts = append(facts, kv{"", fmt.Sprintf("%d more in the run's JSON", len(ws.Blockers)-maxBlockers)})
			break
		}
		facts = append(facts, kv{"blocked by", BlockerSentence(&ws.Blockers[i])})
	}
	return append(facts, kv{"blocked time", ws.BlockersEstimate})
}

// lockCause says, when the wait profile of interval seq was mostly lock
// waits (their shares together at least a fifth of the interval's samples
// and more than any other event's, CPU included), that the interval waited
// on a lock, and who held it when the profile named the blocker: "waited
// on a lock: Lock:tuple 67% of the interval's wait profile (rest of the
// run 4%), held by pid 4711 (...)". Empty otherwise.
func lockCause(w *results.Waits, seq int) string {
	at, restBy, restTotal := splitWaits(w, seq)
	if at == nil {
		return ""
	}
	rest := 0.0
	for e, v := range restBy {
		if evidence.LockWait(e) {
			rest += v
		}
	}
	lock, other := 0.0, 0.0
	var events []string
	for e, share := range at.Shares {
		if evidence.LockWait(e) {
			lock += share
			events = append(events, e)
		} else {
			other = math.Max(other, share)
		}
	}
	if lock < 0.2 || lock <= other {
		return ""
	}
	sort.Slice(events, func(i, j int) bool {
		return at.Shares[events[i]] > at.Shares[events[j]] || at.Shares[events[i]] == at.Shares[events[j]] && events[i] < events[j]
	})
	s := fmt.Sprintf("waited on a lock: %s %.0f%% of the interval's wait profile", strings.Join(events, ", "), 100*lock)
	if restTotal > 0 {
		s += fmt.Sprintf(" (rest of the run %.0f%%)", 100*rest/restTotal)
	}
	if b, _ := w.IntervalBlocker(seq); b != nil {
		s += ", held by " + blockerWho(b)
	}
	return s
}
