package cli

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// checkOutputFile checks, before any work, that the file an output flag
// names (--json, --html, --markdown) can be written: its directory exists
// and takes a new file, or the file exists and opens for writing, and it
// is not a directory. "" passes, and "-" (standard output) unless standard
// output is closed. The check leaves
// nothing behind: a file it creates to try is removed at once. A path
// that cannot be written is a usage error.
func checkOutputFile(flag, path string) error {
	switch {
	case path == "-" && stdoutClosed():
		return usagef("%s -: standard output is closed, so the output would be lost; give a file name", flag)
	case path == "" || path == "-":
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return usagef("%s %s is a directory; give a file name", flag, path)
	case err == nil && st.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0) // no truncation: the file stays as it is
		if err != nil {
			return usagef("%s %s cannot be written: %v", flag, path, reason(err))
		}
		return f.Close()
	case err == nil:
		return nil // a device or a pipe (/dev/stderr, a FIFO): opening it could block
	case !errors.Is(err, fs.ErrNotExist):
		return usagef("%s %s cannot be written: %v", flag, path, reason(err))
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("%s %s: directory %s does not exist", flag, path, dir)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return usagef("%s %s cannot be written: %v", flag, path, reason(err))
	}
	f.Close()
	return os.Remove(path)
}

// checkOutputDir is checkOutputFile for a directory that output files go
// into (--csv): it exists and takes new files, or its nearest existing
// parent does, so that it can be created. Nothing is created.
func checkOutputDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return usagef("%s %s is a file; give a directory (it is created if missing)", flag, dir)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return usagef("%s %s cannot be written: %v", flag, dir, reason(err))
	}
	parent := dir
	for err != nil { // the nearest existing parent, in which dir would be made
		next := filepath.Dir(parent)
		if next == parent {
			break
		}
		parent = next
		st, err = os.Stat(parent)
		if err == nil && !st.IsDir() {
			return usagef("%s %s cannot be created: %s is a file", flag, dir, parent)
		}
	}
	f, err := os.CreateTemp(parent, ".dbharness-check-*")
	if err != nil {
		if parent == dir {
			return usagef("%s %s cannot be written: %v", flag, dir, reason(err))
		}
		return usagef("%s %s cannot be created in %s: %v", flag, dir, parent, reason(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// reason is an operating system error without the path it repeats
// ("permission denied", "read-only file system").
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkedWriter keeps the first error of the writes to w: what is printed
// is not lost without a word.
type checkedWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (c *checkedWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = reason(err)
		}
		c.mu.Unlock()
	}
	return n, err
}

// failed returns the first write error, if any.
func (c *checkedWriter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
