//go:build !unix

package cli

// stdoutClosed cannot tell a closed standard output here.
func stdoutClosed() bool { return false }

// stdioBroken cannot tell a broken standard output here.
func stdioBroken() bool { return false }
