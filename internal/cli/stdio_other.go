//go:build !unix

package cli

// stdoutClosed cannot tell a closed standard output here.
func stdoutClosed() bool { return false }
