package sqlserver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
)

// dmvServer is a database/sql driver that answers the evidence queries
// with result sets shaped as SQL Server's documentation gives the views'
// columns, so that the engine's own code (its queries through
// sqlconn, the scans, the deltas and derived figures) reads them as it
// reads a real SQL Server's. It answers a query by the first of its
// views the query names (FROM sys.dm_...), and SELECT @@SPID and @@VERSION.
type dmvServer struct {
	mu sync.Mutex
	// views maps a view's name to its result, or errs to an error.
	views map[string]*dmvResult
	errs  map[string]error
	// order is the order views are matched in (more specific first).
	order []string
	spid  int64
	seen  []string
}

type dmvResult struct {
	cols []string
	rows [][]driver.Value
}

func newDMVServer() *dmvServer {
	return &dmvServer{views: map[string]*dmvResult{}, errs: map[string]error{}, spid: 51}
}

// set makes view answer with the documented columns cols and rows.
func (s *dmvServer) set(view string, cols []string, rows ...[]driver.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.views[view]; !ok && s.errs[view] == nil {
		s.order = append(s.order, view)
	}
	delete(s.errs, view)
	s.views[view] = &dmvResult{cols: cols, rows: rows}
}

// fail makes a query of view fail as a server without it does.
func (s *dmvServer) fail(view string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.views[view]; !ok && s.errs[view] == nil {
		s.order = append(s.order, view)
	}
	delete(s.views, view)
	s.errs[view] = err
}

func (s *dmvServer) query(q string) (driver.Rows, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, q)
	const version = "Microsoft SQL Server 2022 (RTM) - 16.0.1000.6 (X64)"
	switch strings.TrimSpace(q) {
	case "SELECT @@SPID":
		return &dmvRows{cols: []string{""}, rows: [][]driver.Value{{s.spid}}}, nil
	case "SELECT @@SPID, @@VERSION": // the engine's first connection
		return &dmvRows{cols: []string{"", ""}, rows: [][]driver.Value{{s.spid, version}}}, nil
	case "SELECT @@VERSION":
		return &dmvRows{cols: []string{""}, rows: [][]driver.Value{{version}}}, nil
	}
	for _, v := range s.order {
		if !strings.Contains(q, "FROM "+v) {
			continue
		}
		if err := s.errs[v]; err != nil {
			return nil, err
		}
		r := s.views[v]
		return &dmvRows{cols: r.cols, rows: r.rows}, nil
	}
	return nil, fmt.Errorf("dmvServer: no view for %q", q)
}

// db returns an msDB whose connections are the fake server's.
func (s *dmvServer) db(t *testing.T) *msDB {
	t.Helper()
	target, err := db.ParseURL("sqlserver://u:secret@127.0.0.1:1433?database=bench")
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(dmvConnector{s})
	pool.SetMaxIdleConns(0) // as openPool: every Connect dials
	t.Cleanup(func() { pool.Close() })
	return &msDB{t: target, pool: pool}
}

type dmvConnector struct{ s *dmvServer }

// Connect hands the connect's dialSlot a socket, as the engine's dialer
// does (a pipe: nothing is sent on it), so that Connect's check that the
// driver dialed through dbharness holds.
func (c dmvConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if slot, ok := ctx.Value(dialSlotKey{}).(*dialSlot); ok {
		nc, _ := net.Pipe()
		slot.mu.Lock()
		slot.nc = nc
		slot.mu.Unlock()
	}
	return &dmvConn{c.s}, nil
}
func (c dmvConnector) Driver() driver.Driver { return dmvDriver{} }

type dmvDriver struct{}

func (dmvDriver) Open(string) (driver.Conn, error) {
	return nil, errors.New("dmvServer: use the connector")
}

type dmvConn struct{ s *dmvServer }

func (c *dmvConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("dmvServer: no prepared statements")
}
func (c *dmvConn) Close() error              { return nil }
func (c *dmvConn) Begin() (driver.Tx, error) { return nil, errors.New("dmvServer: no transactions") }
func (c *dmvConn) QueryContext(_ context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	return c.s.query(q)
}
func (c *dmvConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(0), nil
}

type dmvRows struct {
	cols []string
	rows [][]driver.Value
	i    int
}

func (r *dmvRows) Columns() []string { return r.cols }
func (r *dmvRows) Close() error      { return nil }
func (r *dmvRows) Next(dest []driver.Value) error {
	if r.i >= len(r.rows) {
		return io.EOF
	}
	copy(dest, r.rows[r.i])
	r.i++
	return nil
}

// missing is the error Babelfish gives for a view it lacks.
func missing(view string) error {
	return fmt.Errorf("mssql: relation %q does not exist (33557097)", view)
}
