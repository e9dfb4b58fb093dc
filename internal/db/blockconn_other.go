//go:build !linux

package db

import (
	"context"
	"net"
)

// dialBlocking is the standard dialer where blocking sockets are not
// implemented (see blockconn_linux.go).
func dialBlocking(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.DialContext
}
