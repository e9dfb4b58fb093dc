package loadgen

import (
	"sync/atomic"
	"time"
)

// abortAfterCancel is how long, after the cancel requests at the end of the
// stop grace, the loops wait for answers before their clients stop
// waiting.
const abortAfterCancel = time.Second

// abandonAfterAbort is how long, after the loops were aborted, the run
// waits for its clients before it ends without them.
const abandonAfterAbort = time.Second

// stopper is a run's stop escalation. Its begin stops the run gracefully:
// clients start no new transaction (stopping, stopC) and the interrupt
// step wakes the event loops. Transactions in flight may take the grace to
// finish; then they are cancelled (hardStop, and the cancel step: the
// clients' context, and cancel requests where the engine cancels by
// request), counted as ClassCancelled. A client whose statement is not
// answered cancelWait later stops waiting (the abort step: the loops abort
// their waits, goroutine clients have their sockets closed), and clients
// that still have not ended abortWait after that are abandoned (abandoned
// is closed): a server that stopped answering cannot hold the run. Once
// done is closed (every client has ended), no further step is taken.
type stopper struct {
	// stopping is set, and stopC closed, when the stop begins; hardStop is
	// set when the grace is over.
	stopping atomic.Bool
	stopC    chan struct{}
	hardStop atomic.Bool
	// abandoned is closed when the run gives up on its clients.
	abandoned chan struct{}
	// at is when the stop began (zero before); only the goroutine that
	// calls begin reads it.
	at time.Time

	grace, cancelWait, abortWait time.Duration
	done                         <-chan struct{}
	interrupt, cancel, abort     func()
	// after is time.After (a test's fake clock stands in for it).
	after func(time.Duration) <-chan time.Time
}

// newStopper returns the stop escalation of a run whose clients close done
// when they have all ended; interrupt, cancel and abort are its steps.
func newStopper(grace time.Duration, done <-chan struct{}, interrupt, cancel, abort func()) *stopper {
	return &stopper{stopC: make(chan struct{}), abandoned: make(chan struct{}),
		grace: grace, cancelWait: abortAfterCancel, abortWait: abandonAfterAbort,
		done: done, interrupt: interrupt, cancel: cancel, abort: abort, after: time.After}
}

// begin begins the stop, and the escalation that follows it unless the
// clients end; calls after the first do nothing.
func (s *stopper) begin() {
	if s.stopping.Swap(true) {
		return
	}
	s.at = time.Now()
	close(s.stopC)
	s.interrupt()
	go s.escalate()
}

// escalate takes the steps after the graceful stop, each when the wait
// before it is over and the clients have not ended.
func (s *stopper) escalate() {
	if !s.wait(s.grace) {
		return
	}
	s.hardStop.Store(true)
	s.cancel()
	if !s.wait(s.cancelWait) {
		return
	}
	s.abort()
	if !s.wait(s.abortWait) {
		return
	}
	close(s.abandoned)
}

// wait waits d for the clients to end; it reports whether they did not.
func (s *stopper) wait(d time.Duration) bool {
	select {
	case <-s.done:
		return false
	case <-s.after(d):
		return true
	}
}
