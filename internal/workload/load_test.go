package workload_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
)

// errDeadlock stands for a deadlock the engine reports on a batch.
var errDeadlock = errors.New("deadlock found when trying to get lock")

// flakyDB is a real database whose CopyIn fails with a retryable error on
// its first calls, as parallel loaders meet on a table's first rows; with
// partial set, the failure comes after some rows were written.
type flakyDB struct {
	db.DB
	fails   atomic.Int64
	partial bool
}

func (f *flakyDB) CopyIn(ctx context.Context, c db.Conn, table string, cols []string, src db.RowSource) (int64, error) {
	if f.fails.Add(-1) >= 0 {
		if f.partial {
			n, err := f.DB.CopyIn(ctx, c, table, cols, &db.SliceSource{Rows: [][]any{{int64(1), "x"}}})
			if err != nil {
				return n, err
			}
			return n, errDeadlock
		}
		return 0, errDeadlock
	}
	return f.DB.CopyIn(ctx, c, table, cols, src)
}

func (f *flakyDB) Classify(err error) db.ErrorClass {
	if errors.Is(err, errDeadlock) {
		return db.ErrorClass{Code: "deadlock", Retryable: true}
	}
	return f.DB.Classify(err)
}

func TestALoadBatchThatDeadlocksBeforeWritingIsTriedAgain(t *testing.T) {
	ctx := context.Background()
	real := testdb.Open(t, testdb.SQLite(t))
	table := func() workload.Table {
		return workload.Table{Name: "t", Columns: []string{"id", "v"}, Rows: 100, Batches: 10,
			Batch: func(i int, dst [][]any) [][]any {
				for k := 0; k < 10; k++ {
					dst = append(dst, []any{int64(i*10 + k + 100), "v"})
				}
				return dst
			}}
	}
	for _, tc := range []struct {
		name    string
		fails   int64
		partial bool
		ok      bool
	}{
		{"two deadlocks before any row", 2, false, true},
		{"a deadlock after rows were written", 1, true, false},
		{"more deadlocks than tries", workload.LoadTries, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := real.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := workload.ExecAll(ctx, c, "DROP TABLE IF EXISTS t", "CREATE TABLE t (id integer PRIMARY KEY, v text)"); err != nil {
				t.Fatal(err)
			}
			f := &flakyDB{DB: real, partial: tc.partial}
			f.fails.Store(tc.fails)
			err = workload.Load(ctx, &workload.Env{DB: f, Loaders: 1, Progress: workload.NopProgress{}}, []workload.Table{table()})
			if tc.ok != (err == nil) {
				t.Fatalf("load: %v", err)
			}
			n, qerr := db.QueryInt64(ctx, c, "SELECT count(*) FROM t WHERE id >= 100")
			if qerr != nil {
				t.Fatal(qerr)
			}
			if tc.ok && n != 100 {
				t.Errorf("%d rows loaded, want 100", n)
			}
			if !tc.ok && !errors.Is(err, errDeadlock) {
				t.Errorf("the error does not carry the deadlock: %v", err)
			}
		})
	}
}

// badFlags is a workload whose flags never validate.
type badFlags struct{ cmd workload.Command }

func (b *badFlags) Validate(cmd workload.Command) error {
	b.cmd = cmd
	return errors.New("--scale 0 is not a positive number")
}

func TestBeginInitReportsBadFlagsBeforeConnecting(t *testing.T) {
	v := &badFlags{}
	// env.DB is nil: BeginInit must not reach it when the flags are wrong.
	_, conn, err := workload.BeginInit(context.Background(), &workload.Env{}, v)
	if err == nil || conn != nil {
		t.Fatalf("BeginInit = %v, %v; want the flag error and no connection", conn, err)
	}
	if v.cmd != workload.CmdInit {
		t.Errorf("flags validated for %q, want %q", v.cmd, workload.CmdInit)
	}
}
