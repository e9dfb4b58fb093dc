package testdb

import (
	"sync"

	"github.com/dbharness/dbharness/internal/measure"
)

// Reconnects is an engine observer for a test of lost connections that
// waits for events rather than for time: at the first interval with
// transactions it calls kill (on a goroutine of its own), which is to end
// the clients' sessions; once the run has counted a reconnect per client,
// it counts the transactions of the intervals after, which ran on the new
// connections, and closes Stop at the first of them. Give the run Stop and
// a duration long enough to be only a deadline.
type Reconnects struct {
	clients int
	kill    func()
	stop    chan struct{}
	killing sync.WaitGroup

	started, back bool
	reconnects    int64
	after         int64
}

// NewReconnects returns the observer of a run of clients clients.
func NewReconnects(clients int, kill func()) *Reconnects {
	return &Reconnects{clients: clients, kill: kill, stop: make(chan struct{})}
}

// OnTick implements the engine's Observer.
func (r *Reconnects) OnTick(tk *measure.Tick) {
	var n int64
	for _, o := range tk.Ops {
		n += o.Hist.TotalCount()
	}
	switch {
	case !r.started && n > 0:
		r.started = true
		r.killing.Add(1)
		go func() {
			defer r.killing.Done()
			r.kill()
		}()
	case r.back:
		if r.after += n; r.after > 0 {
			close(r.stop)
			r.back = false
		}
	case r.started && r.after == 0:
		r.reconnects += tk.Reconnects
		r.back = r.reconnects >= int64(r.clients)
	}
}

// Stop is closed when the clients have worked on their new connections.
func (r *Reconnects) Stop() <-chan struct{} { return r.stop }

// After waits for kill to return, and returns the transactions counted
// after every client had reconnected (0 if they never did).
func (r *Reconnects) After() int64 {
	r.killing.Wait()
	return r.after
}
