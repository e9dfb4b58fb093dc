package workload

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// Table is initial data for one table, cut into numbered batches that are
// each deterministic from the seed and the batch number, so any loader can
// produce any batch and loading parallelises trivially.
type Table struct {
	Name    string
	Columns []string
	// Rows is the total row count, for progress.
	Rows    int64
	Batches int
	// Batch appends the rows of batch i (0-based) to dst[:0] and returns it.
	Batch func(i int, dst [][]any) [][]any
	// Frozen asks, where the engine can (db.FreezeLoader), for all batches
	// to be written in one stream in the transaction that empties the
	// table, so the rows are stored frozen and the VACUUM after the load
	// is nearly free (pgbench -i's COPY FREEZE). Other tables still load in
	// parallel beside it. Worth it for a table much bigger than the rest.
	Frozen bool
}

// NextRow extends dst by one row of n values and returns both, reusing the
// row slices left in dst by the previous batch (a Batch function's dst).
func NextRow(dst [][]any, n int) ([][]any, []any) {
	if len(dst) < cap(dst) {
		dst = dst[:len(dst)+1]
		if r := dst[len(dst)-1]; cap(r) >= n {
			r = r[:n]
			dst[len(dst)-1] = r
			return dst, r
		}
		r := make([]any, n)
		dst[len(dst)-1] = r
		return dst, r
	}
	r := make([]any, n)
	return append(dst, r), r
}

// Load writes the tables' batches with up to env.Loaders connections at
// once (fewer where the engine serialises writers), each on the engine's
// bulk path.
func Load(ctx context.Context, env *Env, tables []Table) error {
	type job struct {
		t *Table
		i int
	}
	writers := env.Loaders
	if writers < 1 {
		writers = 1
	}
	if p := env.DB.Caps().ParallelWriters; writers > p {
		writers = p
	}
	total := 0
	for i := range tables {
		env.Progress.Plan(tables[i].Name, tables[i].Rows)
		total += tables[i].Batches
	}
	if writers > total {
		writers = total
	}
	fl, canFreeze := env.DB.(db.FreezeLoader)
	jobs := make(chan job, total)
	for ti := range tables {
		if tables[ti].Frozen && canFreeze {
			jobs <- job{&tables[ti], -1} // the whole table, frozen
			continue
		}
		for b := 0; b < tables[ti].Batches; b++ {
			jobs <- job{&tables[ti], b}
		}
	}
	close(jobs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := env.DB.Connect(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer conn.Close()
			var buf [][]any
			for j := range jobs {
				if ctx.Err() != nil {
					return
				}
				if j.i < 0 {
					b := 0
					next := func() db.RowSource {
						if b == j.t.Batches {
							return nil
						}
						buf = j.t.Batch(b, buf[:0])
						b++
						return &db.SliceSource{Rows: buf}
					}
					t := j.t
					if _, err := fl.CopyInFrozen(ctx, conn, t.Name, t.Columns, next, func(n int64) { env.Progress.Add(t.Name, n) }); err != nil {
						fail(fmt.Errorf("load %s: %w", t.Name, err))
						return
					}
					continue
				}
				buf = j.t.Batch(j.i, buf[:0])
				n, err := copyInRetrying(ctx, env.DB, conn, j.t, buf)
				if err != nil {
					fail(fmt.Errorf("load %s: %w", j.t.Name, err))
					return
				}
				env.Progress.Add(j.t.Name, n)
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// loadTries is how often a batch is tried when its first statement fails
// with a retryable error.
const loadTries = 5

// copyInRetrying loads one batch, trying it again when it failed with a
// retryable error (a deadlock, a serialization failure) before any of it
// was committed. Parallel loaders can deadlock on a table's first rows:
// MariaDB's bulk insert into an empty table locks the table.
func copyInRetrying(ctx context.Context, d db.DB, conn db.Conn, t *Table, rows [][]any) (int64, error) {
	for try := 1; ; try++ {
		n, err := d.CopyIn(ctx, conn, t.Name, t.Columns, &db.SliceSource{Rows: rows})
		if err == nil || n > 0 || try == loadTries || !d.Classify(err).Retryable || ctx.Err() != nil {
			return n, err
		}
		time.Sleep(time.Duration(try*try) * 10 * time.Millisecond)
	}
}

// ExecAll runs statements in order on one connection, wrapping the first
// failure with the statement that caused it.
func ExecAll(ctx context.Context, conn db.Conn, stmts ...string) error {
	for _, s := range stmts {
		if err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	return nil
}

// Analyzes says whether the engine refreshes statistics after a load
// (Analyze per table, or AnalyzeAll once).
func Analyzes(caps db.Caps) bool { return caps.Analyze != "" || caps.AnalyzeAll != "" }

// AnalyzeTables refreshes the statistics of the tables after a load: the
// engine's Analyze for each, on parallel connections, or its AnalyzeAll
// once. A statement the server chose as a deadlock victim is run again
// (ExecRetrying).
func AnalyzeTables(ctx context.Context, env *Env, tables ...string) error {
	caps := env.DB.Caps()
	if caps.Analyze == "" {
		if caps.AnalyzeAll == "" {
			return nil
		}
		return ExecEach(ctx, env, []string{caps.AnalyzeAll})
	}
	stmts := make([]string, len(tables))
	for i, t := range tables {
		stmts[i] = fmt.Sprintf(caps.Analyze, t)
	}
	return ExecEach(ctx, env, stmts)
}

// ExecEach runs independent statements at once, each on its own
// connection, as ExecParallel runs groups of one.
func ExecEach(ctx context.Context, env *Env, stmts []string) error {
	groups := make([][]string, len(stmts))
	for i, s := range stmts {
		groups[i] = []string{s}
	}
	return ExecParallel(ctx, env, groups)
}

// ExecRetrying runs one statement of a load's maintenance (keys, indexes,
// statistics) in autocommit and runs it again, up to five times in all,
// when the server chose it as a deadlock victim or refused it for a
// serialization failure: the statement was rolled back whole, and such
// statements meet other sessions' DDL on a shared server (Babelfish's
// sp_updatestats analyzes every table of the instance).
func ExecRetrying(ctx context.Context, d db.DB, conn db.Conn, stmt string) error {
	for try := 1; ; try++ {
		err := conn.Exec(ctx, stmt)
		if err == nil || try == 5 || !d.Classify(err).Retryable {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(try*try) * 50 * time.Millisecond):
		}
	}
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i] + " ..."
		}
	}
	return s
}

// RequireTables returns an error naming the init command to run when any of
// the tables is missing.
func RequireTables(ctx context.Context, env *Env, conn db.Conn, workload string, tables ...string) error {
	for _, t := range tables {
		ok, err := env.DB.TableExists(ctx, conn, t)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("table %s does not exist in %s; run `dbharness init %s%s` first", t, env.DB.Target(), workload, dbFlag(env.DB.Target()))
		}
	}
	return nil
}

// InitCommand is the init command line that prepares workload on target,
// with flags, for error messages that name the command to run.
func InitCommand(t *db.Target, workload string, flags ...string) string {
	s := "dbharness init " + workload
	for _, f := range flags {
		s += " " + f
	}
	return s + dbFlag(t)
}

func dbFlag(t *db.Target) string {
	if t.Default {
		return ""
	}
	return " --db " + t.String()
}

// ExecParallel runs groups of statements at once, each group in order on
// its own connection, on at most env.Loaders connections (fewer where the
// engine serialises writers). Post-load steps of independent tables (keys,
// indexes, statistics) use it.
func ExecParallel(ctx context.Context, env *Env, groups [][]string) error {
	n := min(max(env.Loaders, 1), env.DB.Caps().ParallelWriters, len(groups))
	if n == 0 {
		return nil
	}
	jobs := make(chan []string, len(groups))
	for _, g := range groups {
		jobs <- g
	}
	close(jobs)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			conn, err := env.DB.Connect(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for g := range jobs {
				for _, st := range g {
					if err := ExecRetrying(ctx, env.DB, conn, st); err != nil {
						errs <- fmt.Errorf("%s: %w", firstLine(st), err)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	var first error
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// BeginInit is the start of a workload's Init: it validates the flags for
// init and opens the connection the schema is built on, which the caller
// closes. It returns the engine's capabilities with it.
func BeginInit(ctx context.Context, env *Env, v Validator) (db.Caps, db.Conn, error) {
	if err := v.Validate(CmdInit); err != nil {
		return db.Caps{}, nil, err
	}
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return db.Caps{}, nil, err
	}
	return env.DB.Caps(), conn, nil
}

// Recreate drops the tables (in the order given) if they exist and runs the
// CREATE statements, as `init` replaces a workload's tables. Where the
// engine's loads stage their rows in tables of their own, it drops what a
// killed load into one of the tables left (db.LoadSweeper).
func Recreate(ctx context.Context, conn db.Conn, drop []string, create []string) error {
	for _, t := range drop {
		if err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("drop %s: %w", t, err)
		}
		if sw, ok := conn.(db.LoadSweeper); ok {
			if err := sw.SweepLoads(ctx, t); err != nil {
				return fmt.Errorf("drop what an earlier load into %s left: %w", t, err)
			}
		}
	}
	if err := ExecAll(ctx, conn, create...); err != nil {
		return fmt.Errorf("create tables: %w", err)
	}
	return nil
}

// PreRunSkipped is what PgbenchPreRun did with --no-vacuum.
const PreRunSkipped = "none (--no-vacuum)"

// PgbenchPreRun does what pgbench does before a run unless -n: VACUUM
// pgbench_branches and pgbench_tellers where the engine has VACUUM
// (PostgreSQL), and empty pgbench_history everywhere, so that the history
// of earlier runs neither slows this one nor shows as a difference of
// data between runs. It returns what it did, for the run's record.
func PgbenchPreRun(ctx context.Context, env *Env, conn db.Conn) (string, error) {
	caps := env.DB.Caps()
	var did []string
	if caps.Vacuum != "" {
		for _, t := range []string{"pgbench_branches", "pgbench_tellers"} {
			if err := conn.Exec(ctx, fmt.Sprintf(caps.Vacuum, t)); err != nil {
				return "", fmt.Errorf("vacuum %s before the run (--no-vacuum skips it): %w", t, err)
			}
		}
		did = append(did, "vacuum pgbench_branches, pgbench_tellers")
	}
	if err := conn.Exec(ctx, fmt.Sprintf(caps.Truncate, "pgbench_history")); err != nil {
		return "", fmt.Errorf("empty pgbench_history before the run (--no-vacuum skips it): %w", err)
	}
	return strings.Join(append(did, "truncate pgbench_history"), "; "), nil
}

// ParseWeighted reads NAME[@WEIGHT] (a built-in script and its weight in
// a mix, as pgbench's -b): the weight is 1 when not given, and must be a
// number 0 or more. flag names the flag in the error.
func ParseWeighted(flag, spec string) (string, float64, error) {
	name, ws, hasW := strings.Cut(spec, "@")
	if !hasW {
		return name, 1, nil
	}
	wt, err := strconv.ParseFloat(ws, 64)
	if err != nil || wt < 0 || math.IsInf(wt, 0) || math.IsNaN(wt) {
		return "", 0, fmt.Errorf("%s %s: the weight %q is not a number 0 or more; write NAME@WEIGHT, e.g. %s@5", flag, spec, ws, name)
	}
	return name, wt, nil
}
