// Package tpch is a workload derived from TPC-H (TPC Benchmark H): the
// eight tables of clause 1.4 loaded with the data of the reference
// generator dbgen (package dbgen, which reproduces it byte for byte), and
// the row counts of clause 4.2.5 as a check. Its results are not audited
// TPC-H results.
package tpch

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

func init() {
	workload.Register("tpch", func() workload.Generator { return &TPCH{Scale: 1} })
}

// TPCH is the tpch workload and its flags.
type TPCH struct {
	// Scale is the scale factor to load (init): as dbgen's -s, thousandths
	// below 1 and whole numbers from 1.
	Scale float64
	// Streams is the throughput test's query streams (run --streams); 0
	// runs the power test alone.
	Streams streamsFlag
	// Answers is the directory of dbgen's qualification answers (check
	// --answers): q1.out to q22.out, scale factor 1's.
	Answers string
	bench   *bench
}

// Name implements workload.Generator.
func (w *TPCH) Name() string { return "tpch" }

// Description implements workload.Generator.
func (w *TPCH) Description() string {
	return "TPC-H derived (not an audited TPC-H result): the 8 tables of clause 1.4 with dbgen's data, byte for byte, at --scale SF; clause 4.2.5 row-count check"
}

// Flags implements workload.Generator.
func (w *TPCH) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	switch cmd {
	case workload.CmdInit:
		fs.Float64VarP(&w.Scale, "scale", "s", 1, "scale factor as dbgen's -s: SF 1 is about 1 GB (6 million line items); below 1 in thousandths (0.01), from 1 whole numbers")
	case workload.CmdRun:
		runFlags(w, fs)
	case workload.CmdCheck:
		fs.StringVar(&w.Answers, "answers", "", "directory of dbgen's qualification answers (q1.out to q22.out, answers/ in TPC's kit): at SF 1, each query's result with its validation parameters is compared with them (clause 2.1.3.5's rounding)")
	}
}

// Validate implements workload.Validator: --scale for init.
func (w *TPCH) Validate(cmd workload.Command) error {
	if cmd == workload.CmdRun {
		return w.Streams.validate()
	}
	if cmd == workload.CmdCheck && w.Answers != "" {
		return CheckAnswersDir(w.Answers)
	}
	if cmd == workload.CmdInit {
		if err := dbgen.CheckScale(w.Scale); err != nil {
			return fmt.Errorf("--scale %s: %w", strconv.FormatFloat(w.Scale, 'g', -1, 64), err)
		}
	}
	return nil
}

// Init implements workload.Initer: drop, create, load the batches in
// parallel on the engine's bulk path, keys, statistics.
func (w *TPCH) Init(ctx context.Context, env *workload.Env) error {
	caps, conn, err := workload.BeginInit(ctx, env, w)
	if err != nil {
		return err
	}
	defer conn.Close()
	g, err := dbgen.New(w.Scale)
	if err != nil {
		return err
	}
	create := make([]string, len(schema))
	drop := make([]string, len(Tables))
	for i := range schema {
		create[i] = schema[i].createStatement(caps, w.Scale)
	}
	for i, t := range Tables {
		drop[len(Tables)-1-i] = t
	}
	if err := workload.Recreate(ctx, conn, drop, create); err != nil {
		return err
	}
	if err := workload.Load(ctx, env, loadTables(g, caps)); err != nil {
		return err
	}
	if caps.KeysAfterLoad {
		env.Progress.Phase("keys")
		var keys []string
		for i := range schema {
			keys = append(keys, schema[i].addKeyStatement())
		}
		if err := workload.ExecEach(ctx, env, keys); err != nil {
			return err
		}
	}
	if err := createIndexes(ctx, env); err != nil {
		return err
	}
	if workload.Analyzes(caps) {
		env.Progress.Phase(caps.AnalyzeName)
		if err := workload.AnalyzeTables(ctx, env, Tables...); err != nil {
			return err
		}
	}
	return nil
}

// ReadScale returns the scale factor of the data loaded in the database,
// from SUPPLIER's rows (SF x 10,000, a table no refresh function changes).
func ReadScale(ctx context.Context, env *workload.Env, conn db.Conn) (float64, error) {
	if err := workload.RequireTables(ctx, env, conn, "tpch", Tables...); err != nil {
		return 0, err
	}
	n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM supplier")
	if err != nil {
		return 0, fmt.Errorf("count the suppliers: %w", err)
	}
	if n < 10 || n%10 != 0 {
		return 0, fmt.Errorf("table supplier has %d rows, which is no scale factor's (SF x 10,000); run `%s` again", n, workload.InitCommand(env.DB.Target(), "tpch"))
	}
	return float64(n) / 10000, nil
}
