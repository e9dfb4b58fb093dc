// Package null is the harness's floor: transactions that do no work, a
// statement returning one constant and one returning a single row of eight
// constants. Their throughput is the round trip plus the harness's own
// overhead, the ceiling any other workload can reach.
package null

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

func init() {
	workload.Register("null", func() workload.Generator { return &Null{Mix: MixAlternate} })
}

// Mixes.
const (
	MixAlternate   = "alternate"
	MixOneConstant = "one_constant"
	MixOneRow      = "one_row"
)

// The two statements.
const (
	SQLOneConstant = "SELECT 1"
	SQLOneRow      = "SELECT 1, 2, 3, 4, 5, 6, 7, 8"
)

// Null is the workload and its flag.
type Null struct {
	Mix string
}

// Name implements workload.Generator.
func (*Null) Name() string { return "null" }

// Description implements workload.Generator.
func (*Null) Description() string {
	return "no-work transactions (one constant, one row of eight): round trip plus harness overhead"
}

// Flags implements workload.Generator.
func (w *Null) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	if cmd == workload.CmdRun {
		fs.StringVar(&w.Mix, "mix", MixAlternate, "transactions: alternate (one_constant, one_row, ...), one_constant or one_row")
	}
}

// Validate implements workload.Validator: --mix for run.
func (w *Null) Validate(cmd workload.Command) error {
	if cmd != workload.CmdRun {
		return nil
	}
	switch w.Mix {
	case MixAlternate, MixOneConstant, MixOneRow:
		return nil
	}
	return fmt.Errorf("--mix %q is not a null mix; use alternate, one_constant or one_row", w.Mix)
}

// Setup implements workload.Runner; there are no tables.
func (w *Null) Setup(context.Context, *workload.Env, db.Conn) error {
	return w.Validate(workload.CmdRun)
}

// MixName implements workload.Mixer: --mix.
func (w *Null) MixName() string { return w.Mix }

// Ops implements workload.Runner.
func (w *Null) Ops() []string {
	switch w.Mix {
	case MixOneConstant:
		return []string{MixOneConstant}
	case MixOneRow:
		return []string{MixOneRow}
	}
	return []string{MixOneConstant, MixOneRow}
}

// NewWorker implements workload.Runner.
func (w *Null) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	wk := &worker{alternate: w.Mix == MixAlternate, turn: id % 2}
	for _, op := range w.Ops() {
		q := SQLOneConstant
		if op == MixOneRow {
			q = SQLOneRow
		}
		st, err := conn.Prepare(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("prepare %q: %w", q, err)
		}
		wk.stmts = append(wk.stmts, st)
		wk.eight = append(wk.eight, op == MixOneRow)
	}
	for i := range wk.vals {
		wk.dest[i] = &wk.vals[i]
	}
	return wk, nil
}

type worker struct {
	stmts     []db.Stmt
	eight     []bool
	alternate bool
	turn      int
	vals      [8]int64
	dest      [8]any
}

// Next alternates between the two statements (clients start on different
// ones), or always returns the only one.
func (wk *worker) Next() int {
	if !wk.alternate {
		return 0
	}
	wk.turn ^= 1
	return wk.turn
}

// Do runs the statement and verifies the constants came back.
func (wk *worker) Do(ctx context.Context, op int) error {
	n := 1
	if wk.eight[op] {
		n = 8
	}
	if err := wk.stmts[op].QueryRow(ctx, wk.dest[:n]); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if wk.vals[i] != int64(i+1) {
			return fmt.Errorf("column %d of the constant row is %d, not %d", i+1, wk.vals[i], i+1)
		}
	}
	return nil
}

// Check implements workload.Checker: the server returns both constant
// results as they are.
func (w *Null) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	all := &Null{Mix: MixAlternate}
	wk, err := all.NewWorker(ctx, conn, 0)
	if err != nil {
		return nil, err
	}
	var res []workload.CheckResult
	for op, name := range all.Ops() {
		err := wk.Do(ctx, op)
		detail := "returned its constants"
		if err != nil {
			detail = err.Error()
		}
		res = append(res, workload.CheckResult{Name: name, Pass: err == nil, Detail: detail})
	}
	return res, nil
}
