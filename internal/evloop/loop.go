// Package evloop runs many clients on one OS thread, as pgbench does: one
// thread owns many connections and waits for all of them at once.
//
// Each client is a Task, a coroutine (iter.Pull) whose code is written
// synchronously. Its socket is a Sock, a net.Conn taken off Go's network
// poller: when a read or write would block, the Sock yields the task to its
// Loop instead of parking a goroutine. The Loop, one goroutine that runs on
// one OS thread at a time, waits on its own epoll instance and resumes the task whose socket is
// ready, reading only when the kernel said there is something to read. A
// coroutine switch costs no system call and no scheduler round, so a
// transaction costs one write and one read (and a share of one epoll wait)
// rather than the netpoller's failed read, epoll wait and futex wake-ups.
//
// Any protocol code that does its I/O only through the net.Conn it is
// given, starts no goroutine and blocks on nothing else runs on a loop
// unchanged. Blocking work (opening a connection) goes through
// Task.Offload, which runs it on an ordinary goroutine while the loop goes
// on with the other tasks.
//
// The package knows no SQL and no database.
package evloop

import (
	"context"
	"errors"
	"time"
)

// ErrAborted is returned by a Sock's Read or Write, and by Task waits, once
// the loop has been aborted: the run is over and nothing may wait longer.
var ErrAborted = errors.New("evloop: aborted")

// Stats are a loop's counters, read from any goroutine.
type Stats struct {
	// Busy is the time the loop's thread spent running tasks rather than
	// waiting in epoll; Elapsed the time since the loop started.
	Busy, Elapsed time.Duration
	// Waits is the number of epoll waits that could block (nothing was
	// ready to run) and ended with an event or the timer (not a signal);
	// Resumes the number of times a task was resumed.
	Waits, Resumes int64
	// CPU is the CPU the loop's thread was pinned to (Pin), or -1 when it
	// was not.
	CPU int
	// Moves is the number of times a pinned loop found its goroutine on
	// another OS thread than the one it had pinned, and pinned that one.
	Moves int64
}

type ctxKey struct{}

// WithTask returns a context that carries t, so that code running on the
// task can sleep on its loop (see Sleep).
func WithTask(ctx context.Context, t *Task) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// TaskFrom returns the task ctx carries, or nil.
func TaskFrom(ctx context.Context) *Task {
	t, _ := ctx.Value(ctxKey{}).(*Task)
	return t
}

// Sleep waits d. On a task (a context from WithTask) it sleeps on the
// task's loop and returns context.Canceled when the loop is interrupted or
// aborted before d has passed; elsewhere it waits on a timer and returns
// ctx's error when ctx ends first. Code that may run on a loop must sleep
// through Sleep: a goroutine sleep would stall every task of the loop.
func Sleep(ctx context.Context, d time.Duration) error {
	if t := TaskFrom(ctx); t != nil {
		if !t.Sleep(d) {
			return context.Canceled
		}
		return nil
	}
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
