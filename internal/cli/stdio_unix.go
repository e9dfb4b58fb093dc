//go:build unix

package cli

import "golang.org/x/sys/unix"

// stdoutClosed reports whether standard output was closed when dbharness
// started (`dbharness ... >&-`): the Go runtime then opens /dev/null on it,
// read-write where a shell's >/dev/null opens it write-only, and what is
// written there is lost without an error.
func stdoutClosed() bool {
	var st, null unix.Stat_t
	if unix.Fstat(1, &st) != nil || unix.Stat("/dev/null", &null) != nil ||
		st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != null.Rdev {
		return false
	}
	fl, err := unix.FcntlInt(1, unix.F_GETFL, 0)
	return err == nil && fl&unix.O_ACCMODE == unix.O_RDWR
}

// stdioBroken reports whether standard output or error is broken: a pipe
// whose reader has gone, or a terminal that hung up.
func stdioBroken() bool {
	fds := []unix.PollFd{{Fd: 1}, {Fd: 2}}
	if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
		return false
	}
	for _, f := range fds {
		if f.Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
	return false
}
