package db

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// blockingConn is a connection whose reads and writes are plain blocking
// system calls on the socket, bypassing Go's network poller. A load
// generator's client waits on one socket at a time; with the poller each
// response costs a poller wake-up and a hand-off between threads, while a
// blocking read is woken by the kernel directly, as pgbench's threads are.
// The driver runs statements without deadlines (Caps.CancelByRequest), so
// deadlines are accepted and ignored; Close shuts the socket down first so a
// blocked reader returns.
type blockingConn struct {
	fd     int
	local  net.Addr
	remote net.Addr
	closed atomic.Bool
	// A deadline shuts the socket down when it passes (the driver only
	// sets one to interrupt an operation; the connection is then closed).
	mu       sync.Mutex
	timer    *time.Timer
	timedOut atomic.Bool
}

// dialBlocking dials with the standard dialer (timeouts, name resolution)
// and then takes the socket out of the poller into blocking mode.
func dialBlocking(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		sc, ok := c.(syscall.Conn)
		if !ok {
			return c, nil
		}
		raw, err := sc.SyscallConn()
		if err != nil {
			return c, nil
		}
		fd := -1
		var dupErr error
		if err := raw.Control(func(f uintptr) { fd, dupErr = syscall.Dup(int(f)) }); err != nil || dupErr != nil {
			return c, nil
		}
		local, remote := c.LocalAddr(), c.RemoteAddr()
		// Closing the original takes it out of the poller; the duplicate
		// keeps the socket open.
		c.Close()
		if err := syscall.SetNonblock(fd, false); err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("set socket blocking: %w", err)
		}
		if tcp, ok := remote.(*net.TCPAddr); ok && tcp != nil {
			_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		}
		return &blockingConn{fd: fd, local: local, remote: remote}, nil
	}
}

func (c *blockingConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			switch {
			case c.timedOut.Load():
				return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: os.ErrDeadlineExceeded}
			case c.closed.Load():
				return 0, net.ErrClosed
			case err != nil:
				return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: os.NewSyscallError("read", err)}
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, err := syscall.Write(c.fd, b[written:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			if c.timedOut.Load() {
				return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: os.ErrDeadlineExceeded}
			}
			if c.closed.Load() {
				return written, net.ErrClosed
			}
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: os.NewSyscallError("write", err)}
		}
		written += n
	}
	return written, nil
}

func (c *blockingConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.SetDeadline(time.Time{})
	_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	return syscall.Close(c.fd)
}

// SetDeadline arranges for the socket to be shut down when t passes, which
// ends any blocked read or write with a timeout; a zero t cancels that.
func (c *blockingConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() || c.closed.Load() {
		return nil
	}
	c.timer = time.AfterFunc(time.Until(t), func() {
		c.timedOut.Store(true)
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	})
	return nil
}

func (c *blockingConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }
