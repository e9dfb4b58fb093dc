//go:build !linux

package evloop

import (
	"errors"
	"net"
	"runtime"
	"time"
)

// errNoLoop says why there is no event loop here.
var errNoLoop = errors.New("the event-loop driver needs Linux (epoll); use --driver goroutine")

// Available reports whether event loops run on this system.
func Available() bool { return false }

// Loop is unavailable on this system; New says so.
type Loop struct{}

// New fails: event loops need Linux.
func New() (*Loop, error) { return nil, errNoLoop }

// Go is never reached: New fails.
func (l *Loop) Go(func(*Task)) {}

// Run is never reached: New fails.
func (l *Loop) Run() {}

// Interrupt is never reached: New fails.
func (l *Loop) Interrupt() {}

// Abort is never reached: New fails.
func (l *Loop) Abort() {}

// Close is never reached: New fails.
func (l *Loop) Close() error { return nil }

// Stats is never reached: New fails.
func (l *Loop) Stats() Stats { return Stats{CPU: -1} }

// Hold is never reached: New fails.
func (l *Loop) Hold() {}

// Release is never reached: New fails.
func (l *Loop) Release() {}

// Pin is never reached: New fails.
func (l *Loop) Pin(int) {}

// AllowedCPUs returns nil: no loop runs here to be pinned.
func AllowedCPUs() []int { return nil }

// Task is unavailable on this system.
type Task struct{}

// Sleep is never reached: no task exists.
func (t *Task) Sleep(time.Duration) bool { return false }

// Sock passes every call to the net.Conn it wraps; it cannot be taken
// over on this system.
type Sock struct{ net.Conn }

// Wrap returns c wrapped.
func Wrap(c net.Conn) *Sock { return &Sock{c} }

// TakeOver fails: event loops need Linux.
func (s *Sock) TakeOver() error { return errNoLoop }

// Attach fails: event loops need Linux.
func (s *Sock) Attach(*Task) error { return errNoLoop }

// Detach is never reached: Attach fails.
func (s *Sock) Detach() {}

// IncomingCPU returns -1: nothing is known here.
func (s *Sock) IncomingCPU() int { return -1 }

// Processors is GOMAXPROCS: no loop runs here to have raised it.
func Processors() int { return runtime.GOMAXPROCS(0) }
