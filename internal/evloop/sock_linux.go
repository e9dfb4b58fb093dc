//go:build linux

package evloop

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	waitNone = iota
	waitRead
	waitWrite
)

// Sock is a stream socket that a loop can drive. It is a net.Conn, and
// lives in three modes:
//
//   - wrapped (from Wrap): it passes every call to the net.Conn it wraps,
//     which Go's network poller drives; a driver opens a connection (and
//     negotiates TLS over the Sock) in this mode;
//   - taken over (after TakeOver): it owns a duplicate of the socket's file
//     descriptor, off Go's poller, and a Read or Write that would block
//     waits in poll(2) on the calling goroutine;
//   - attached to a task (after Attach): a Read or Write that would block
//     yields the task to its loop until epoll says the socket is ready.
//
// Deadlines work in every mode. A Sock is used by one goroutine or task at
// a time.
type Sock struct {
	inner net.Conn
	fd    int
	task  *Task

	network      string
	laddr, raddr net.Addr
	rdl, wdl     time.Time
	readable     bool
	writable     bool
	// hup: the peer closed (or the socket failed); reads never wait
	// again, they return what is left and then EOF or the error.
	hup bool
	// outArmed: the socket's epoll registration asks for EPOLLOUT, which
	// it does only while a write waits for room (see armOut).
	outArmed      bool
	waitDir       int
	closed        bool
	reads, writes int64
}

// Wrap returns a Sock that passes every call to c until TakeOver.
func Wrap(c net.Conn) *Sock {
	return &Sock{inner: c, fd: -1, network: c.RemoteAddr().Network(), laddr: c.LocalAddr(), raddr: c.RemoteAddr()}
}

// TakeOver takes the socket off Go's network poller: the Sock keeps a
// duplicate of its file descriptor, in non-blocking mode, and closes the
// net.Conn it wrapped. Data the net.Conn had read ahead is not lost, since
// a net.Conn reads nothing ahead.
func (s *Sock) TakeOver() error {
	if s.inner == nil {
		return nil
	}
	sc, ok := s.inner.(syscall.Conn)
	if !ok {
		return errors.New("evloop: the connection has no file descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var dupErr error
	fd := -1
	if err := rc.Control(func(f uintptr) { fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return err
	}
	if dupErr != nil {
		return os.NewSyscallError("fcntl", dupErr)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return os.NewSyscallError("fcntl", err)
	}
	s.inner.Close()
	s.inner, s.fd = nil, fd
	return nil
}

// Attach hands the socket to task t: from now on its waits yield t to t's
// loop. It must be called from t.
func (s *Sock) Attach(t *Task) error {
	if s.inner != nil {
		if err := s.TakeOver(); err != nil {
			return err
		}
	}
	if s.closed {
		return net.ErrClosed
	}
	if s.task == t {
		return nil
	}
	if s.task != nil {
		s.Detach()
	}
	ev := unix.EpollEvent{Events: sockEvents, Fd: int32(s.fd)}
	if err := unix.EpollCtl(t.l.epfd, unix.EPOLL_CTL_ADD, s.fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	if s.fd >= len(t.l.socks) {
		t.l.socks = append(t.l.socks, make([]*Sock, s.fd+1-len(t.l.socks))...)
	}
	t.l.socks[s.fd] = s
	s.task = t
	s.outArmed = false
	// What the socket holds already is not known: look once.
	s.readable, s.writable = true, true
	return nil
}

// sockEvents is what a socket's epoll registration asks for while no write
// waits. Not EPOLLOUT: the kernel signals room to write each time the peer
// reads (a Unix socket on every message the server takes in), and each
// signal would wake a sleeping loop for nothing, at the peer's expense as
// well as the loop's.
const sockEvents = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET

// armOut asks epoll for EPOLLOUT (on) or stops asking (off). Arming
// re-reads the socket's state, so room that came before it is signalled.
func (s *Sock) armOut(on bool) error {
	if s.outArmed == on {
		return nil
	}
	ev := unix.EpollEvent{Events: sockEvents, Fd: int32(s.fd)}
	if on {
		ev.Events |= unix.EPOLLOUT
	}
	if err := unix.EpollCtl(s.task.l.epfd, unix.EPOLL_CTL_MOD, s.fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	s.outArmed = on
	return nil
}

// Detach takes the socket back from its task; it then waits in poll(2).
// It must be called from the task.
func (s *Sock) Detach() {
	if s.task == nil {
		return
	}
	_ = unix.EpollCtl(s.task.l.epfd, unix.EPOLL_CTL_DEL, s.fd, nil)
	s.task.l.socks[s.fd] = nil
	s.task = nil
}

// IncomingCPU returns the CPU that took in what last arrived on the socket
// (SO_INCOMING_CPU), or -1 when the system does not say: over a Unix
// socket, before anything arrived, or before TakeOver. On loopback TCP it is
// the CPU the peer sent from, the peer's own; from a network card, the CPU
// that took the card's receive work.
func (s *Sock) IncomingCPU() int {
	if s.inner != nil || s.closed {
		return -1
	}
	cpu, err := unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_INCOMING_CPU)
	if err != nil || cpu < 0 {
		return -1
	}
	return cpu
}

// Counts returns the read and write system calls made since TakeOver.
func (s *Sock) Counts() (reads, writes int64) { return s.reads, s.writes }

func (s *Sock) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: s.network, Source: s.laddr, Addr: s.raddr, Err: err}
}

// Read reads what the socket holds, waiting until it holds something.
func (s *Sock) Read(p []byte) (int, error) {
	if s.inner != nil {
		return s.inner.Read(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if s.closed {
			return 0, s.opError("read", net.ErrClosed)
		}
		if s.task != nil && !s.readable {
			if err := s.await(waitRead, &s.readable, s.rdl); err != nil {
				return 0, s.opError("read", err)
			}
		}
		r, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(s.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		s.reads++
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			s.readable = false
			if s.task == nil {
				if err := s.pollWait(unix.POLLIN, s.rdl); err != nil {
					return 0, s.opError("read", err)
				}
			}
			continue
		default:
			return 0, s.opError("read", os.NewSyscallError("read", errno))
		}
		n := int(r)
		if n == 0 {
			return 0, io.EOF
		}
		if n < len(p) && !s.hup {
			// A short read emptied the socket; epoll signals the next
			// arrival (edge-triggered). Not the end of the stream: its
			// edge may have come with the data's, and the next read
			// returns it at once.
			s.readable = false
		}
		return n, nil
	}
}

// Write writes all of p, waiting while the socket's buffer is full.
func (s *Sock) Write(p []byte) (int, error) {
	if s.inner != nil {
		return s.inner.Write(p)
	}
	done := 0
	for done < len(p) {
		if s.closed {
			return done, s.opError("write", net.ErrClosed)
		}
		if s.task != nil && !s.writable {
			err := s.armOut(true)
			if err == nil {
				err = s.await(waitWrite, &s.writable, s.wdl)
			}
			if err != nil {
				return done, s.opError("write", err)
			}
		}
		// send with MSG_NOSIGNAL: a peer that went away is an EPIPE error,
		// never a SIGPIPE.
		r, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(s.fd), uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done),
			unix.MSG_NOSIGNAL, 0, 0)
		s.writes++
		switch errno {
		case 0:
			done += int(r)
		case unix.EINTR:
		case unix.EAGAIN:
			s.writable = false
			if s.task == nil {
				if err := s.pollWait(unix.POLLOUT, s.wdl); err != nil {
					return done, s.opError("write", err)
				}
			}
		default:
			return done, s.opError("write", os.NewSyscallError("write", errno))
		}
	}
	if s.outArmed {
		if err := s.armOut(false); err != nil {
			return done, s.opError("write", err)
		}
	}
	return done, nil
}

// await yields the task until *flag is set by an epoll event, the deadline
// passes or the loop is aborted.
func (s *Sock) await(dir int, flag *bool, deadline time.Time) error {
	t := s.task
	for !*flag {
		switch {
		case t.l.aborted:
			return ErrAborted
		case s.closed:
			return net.ErrClosed
		case !deadline.IsZero() && !time.Now().Before(deadline):
			return os.ErrDeadlineExceeded
		}
		if !deadline.IsZero() {
			t.setTimer(deadline)
		}
		s.waitDir = dir
		t.park()
		s.waitDir = waitNone
		t.clearTimer()
	}
	return nil
}

// pollWait waits in poll(2) for events on the socket, up to deadline.
func (s *Sock) pollWait(events int16, deadline time.Time) error {
	for {
		ms := -1
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			ms = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: events}}
		_, err := unix.Poll(fds, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return os.NewSyscallError("poll", err)
		}
		if fds[0].Revents != 0 {
			return nil
		}
	}
}

// Close closes the socket. Once attached, it must be called from the
// task (or after the loop has ended).
func (s *Sock) Close() error {
	if s.inner != nil {
		return s.inner.Close()
	}
	if s.closed {
		return nil
	}
	s.Detach()
	s.closed = true
	return unix.Close(s.fd)
}

// LocalAddr returns the local address.
func (s *Sock) LocalAddr() net.Addr { return s.laddr }

// RemoteAddr returns the peer's address.
func (s *Sock) RemoteAddr() net.Addr { return s.raddr }

// SetDeadline sets the read and write deadlines.
func (s *Sock) SetDeadline(t time.Time) error {
	if s.inner != nil {
		// The wrapping driver may set it from another goroutine.
		return s.inner.SetDeadline(t)
	}
	s.rdl, s.wdl = t, t
	return nil
}

// SetReadDeadline sets the read deadline.
func (s *Sock) SetReadDeadline(t time.Time) error {
	if s.inner != nil {
		// The wrapping driver may set it from another goroutine.
		return s.inner.SetReadDeadline(t)
	}
	s.rdl = t
	return nil
}

// SetWriteDeadline sets the write deadline.
func (s *Sock) SetWriteDeadline(t time.Time) error {
	if s.inner != nil {
		// The wrapping driver may set it from another goroutine.
		return s.inner.SetWriteDeadline(t)
	}
	s.wdl = t
	return nil
}
