package sqlserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
)

// SetDOP implements db.DOPSetter. T-SQL has no session option for the
// degree of parallelism (MAXDOP is the server's, the database's or a
// query's), so on SQL Server each query the connections prepare or run
// that is one SELECT ends with OPTION (MAXDOP n) (withMaxDOP); others
// (writes, batches, procedure calls) keep the server's degree.
//
// Babelfish accepts that hint and, without pg_hint_plan, ignores it; with
// it, it maps MAXDOP n to max_parallel_workers_per_gather n, one worker
// more than n processes. There the session's
// max_parallel_workers_per_gather is set to n-1 instead, with set_config,
// which Babelfish's T-SQL has, and read back.
func (d *msDB) SetDOP(ctx context.Context, n int) error {
	c, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	bf, err := d.babelfish(ctx, c)
	if err != nil {
		return err
	}
	if !bf {
		d.maxdop = n
		return nil
	}
	s := fmt.Sprintf("SELECT set_config('%s', '%d', false)", bfDOPSetting, n-1)
	if err := c.Exec(ctx, s); err != nil {
		return &db.DOPError{N: n, Why: "Babelfish refused " + s + ": " + oneLine(err.Error())}
	}
	got, err := db.QueryString(ctx, c, "SELECT current_setting('"+bfDOPSetting+"')")
	if err != nil {
		return err
	}
	if got != strconv.Itoa(n-1) {
		return &db.DOPError{N: n, Why: fmt.Sprintf("Babelfish accepted %s but the session reads %s = %s", s, bfDOPSetting, got)}
	}
	d.sessionSQL = append(d.sessionSQL, s)
	d.bfDOP = true
	return nil
}

// bfDOPSetting is the PostgreSQL setting under Babelfish that bounds a
// query's workers beside the leader.
const bfDOPSetting = "max_parallel_workers_per_gather"

// dopValues reads into m how the sessions' queries are bounded (for Info).
func (d *msDB) dopValues(ctx context.Context, c db.Conn, m map[string]string) error {
	switch {
	case d.bfDOP:
		v, err := db.QueryString(ctx, c, "SELECT current_setting('"+bfDOPSetting+"')")
		if err != nil {
			return err
		}
		m[bfDOPSetting] = v
	case d.maxdop > 0:
		m["query hint"] = fmt.Sprintf("OPTION (MAXDOP %d) on every SELECT", d.maxdop)
	}
	return nil
}

// withMaxDOP appends OPTION (MAXDOP n) to s when s is one SELECT (or a
// WITH ... SELECT) without an OPTION clause of its own, the statements a
// query hint may end; any other statement is returned as it is. A
// semicolon or OPTION anywhere but at the end leaves s alone: the test is
// on the text, not a parse, and errs on the side of no hint.
func withMaxDOP(s string, n int) string {
	if n <= 0 {
		return s
	}
	t := strings.TrimRight(strings.TrimSpace(s), ";")
	u := strings.ToUpper(t)
	first, _, _ := strings.Cut(strings.TrimSpace(u), " ")
	if (first != "SELECT" && first != "WITH") || strings.Contains(t, ";") || strings.Contains(u, "OPTION") {
		return s
	}
	return t + " OPTION (MAXDOP " + strconv.Itoa(n) + ")"
}
