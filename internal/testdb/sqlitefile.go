package testdb

import "database/sql"

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
