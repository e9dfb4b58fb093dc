//go:build linux

package procfs

import (
	"os"

	"golang.org/x/sys/unix"
)

// readProc reads a small /proc file into buf's storage (grown only when
// the file does not fit) with three system calls: open, read and close.
// os.ReadFile costs about ten on a /proc file (an fstat for its size, and
// a registration with Go's network poller, which refuses the file, with an
// fcntl on either side), and ProcessCPU runs on the event loops' threads
// every few transactions while the host account reads every process each
// interval. A read shorter than the room it was given has returned the
// whole file: /proc's files are generated whole on the first read (a
// seq_file fills the room it is given), so no second read looks for the
// end.
func readProc(path string, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, max(512, cap(buf)))...)[:len(buf)]
		}
		room := cap(buf) - len(buf)
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		buf = buf[:len(buf)+n]
		if n < room {
			return buf, nil
		}
	}
}
