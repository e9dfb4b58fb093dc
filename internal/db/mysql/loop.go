package mysql

import (
	"context"
	"fmt"

	"github.com/dbharness/dbharness/internal/evloop"

	"github.com/dbharness/dbharness/internal/db"
)

// ConnectLoop implements LoopDB. go-sql-driver connects and authenticates
// over an evloop.Sock (the DialFunc wraps the socket it dials), and the
// socket is then taken off Go's network poller. The connection is the same
// myConn as Connect's: the driver does its I/O only through the socket it
// was given, starts no goroutine per statement (it runs under a context
// that is never cancelled, so its watcher goroutine stays parked) and sets
// no deadline, so it runs on a loop task unchanged.
func (d *myDB) ConnectLoop(ctx context.Context) (db.LoopConn, error) {
	c, err := d.connect(ctx, true)
	if err != nil {
		return nil, err
	}
	sock, ok := c.nc.(*evloop.Sock)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("take over the connection to %s: its socket is a %T", d.t, c.nc)
	}
	// The driver has read every reply it asked for (the connection id's
	// was the last), so nothing is left in its buffer or on the way.
	if err := sock.TakeOver(); err != nil {
		c.Close()
		return nil, fmt.Errorf("take over the connection to %s: %w", d.t, err)
	}
	return &myLoopConn{myConn: c, sock: sock}, nil
}

// myLoopConn is a MySQL connection an event loop can drive.
type myLoopConn struct {
	*myConn
	sock *evloop.Sock
}

// Attach implements LoopConn.
func (c *myLoopConn) Attach(t *evloop.Task) error { return c.sock.Attach(t) }

// Detach implements LoopConn.
func (c *myLoopConn) Detach() { c.sock.Detach() }

// ServerCPU implements LoopConn: over TCP the CPU that took in the server's
// last reply (on loopback, the server thread's). Over a Unix socket it is
// unknown: the server's threads are not named by anything the protocol
// gives the client.
func (c *myLoopConn) ServerCPU() int { return c.sock.IncomingCPU() }

// Cancel sends KILL QUERY only: an attached socket may be closed only from
// its task, and the loop's Abort ends the waits of a statement that a
// server which stopped answering cannot end.
func (c *myLoopConn) Cancel(ctx context.Context) error {
	if !c.busy.Load() {
		return nil
	}
	return c.d.kill(ctx, c.id)
}
