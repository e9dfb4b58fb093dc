package testdb

import (
	"database/sql"
	"io"
	"sync"
)

// SQLiteExec runs stmts on the SQLite file at path on a connection of its
// own, as another program would: to make a file that is not a results
// store, or to break a store while dbharness writes to it.
func SQLiteExec(path string, stmts ...string) error {
	d, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer d.Close()
	for _, q := range stmts {
		if _, err := d.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

// BeforeFirstWrite returns a writer to w that calls f once, before its
// first write: a test acts when a run has printed its first line.
func BeforeFirstWrite(w io.Writer, f func()) io.Writer {
	return &firstWrite{w: w, f: f}
}

type firstWrite struct {
	w    io.Writer
	once sync.Once
	f    func()
}

func (fw *firstWrite) Write(p []byte) (int, error) {
	fw.once.Do(fw.f)
	return fw.w.Write(p)
}
