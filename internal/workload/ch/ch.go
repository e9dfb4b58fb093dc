// Package ch is CH-benCHmark (Cole et al., "The mixed workload
// CH-benCHmark", DBTest 2011): TPC-C's terminals and TPC-H-like analytic
// query streams at once, on the same tables. The transactional side is
// package tpcc as it is (its schema, loader, transactions, figures and
// checks); this package adds the paper's SUPPLIER, NATION and REGION
// (schema.go), its 22 queries (queries.go), and the query streams, each of
// which runs the queries one after the other, round-robin.
//
// The run's clients are of two kinds (workload.MixedRunner): the first
// --terminals are TPC-C terminals, the other --query-streams are query
// streams. Each query is a transaction type of its own, with its own
// histogram, beside tpcc's five; AfterRun reports tpcc's NOPM beside the
// streams' queries per hour.
package ch

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/tpcc"
)

func init() {
	workload.Register("ch", func() workload.Generator { return New() })
}

// CH is the ch workload and its flags.
type CH struct {
	// TP is the transactional side, whose flags (--warehouses, --mode,
	// --warehouse-affinity) are ch's too.
	TP *tpcc.TPCC
	// QueryStreams is --query-streams: the analytic streams beside the
	// terminals.
	QueryStreams int

	terminals int      // set by Clients: the clients with ids below it are terminals
	queries   []string // the 22 queries in the engine's dialect (Setup)
}

// New returns ch with its defaults: one warehouse, one query stream, and
// tpcc's defaults for the terminals.
func New() *CH {
	return &CH{TP: &tpcc.TPCC{Warehouses: 1, Affinity: true, Mode: tpcc.ModeServer}, QueryStreams: 1}
}

// maxQueryStreams bounds --query-streams.
const maxQueryStreams = 10_000

// Name implements workload.Generator.
func (c *CH) Name() string { return "ch" }

// Description implements workload.Generator.
func (c *CH) Description() string {
	return "CH-benCHmark: tpcc's terminals (--terminals) and streams of the 22 TPC-H-like analytic queries (--query-streams) at once on TPC-C's tables plus SUPPLIER, NATION and REGION; NOPM beside queries per hour"
}

// Flags implements workload.Generator: tpcc's, and --query-streams for run
// (go-tpc's --acThreads is accepted for it).
func (c *CH) Flags(cmd workload.Command, fs *pflag.FlagSet) {
	c.TP.Flags(cmd, fs)
	if cmd == workload.CmdRun {
		fs.IntVar(&c.QueryStreams, "query-streams", 1, "analytic query streams beside the --terminals (or --clients) TPC-C terminals, each on a connection of its own, running the 22 queries in turn (0: TPC-C alone)")
		fs.IntVar(&c.QueryStreams, "acThreads", 1, "go-tpc's name for --query-streams")
		_ = fs.MarkHidden("acThreads")
	}
}

// Validate implements workload.Validator: tpcc's flags, and
// --query-streams for run.
func (c *CH) Validate(cmd workload.Command) error {
	if err := c.TP.Validate(cmd); err != nil {
		return err
	}
	if cmd == workload.CmdRun {
		switch {
		case c.QueryStreams < 0:
			return fmt.Errorf("--query-streams %d is negative; give 0 (TPC-C alone) or more", c.QueryStreams)
		case c.QueryStreams > maxQueryStreams:
			return fmt.Errorf("--query-streams %d is too many; at most %d", c.QueryStreams, maxQueryStreams)
		}
	}
	return nil
}

// Clients implements workload.MixedRunner: the terminals, then the query
// streams.
func (c *CH) Clients(terminals int) (int, error) {
	switch {
	case terminals < 0:
		return 0, fmt.Errorf("--terminals %d is negative; give 0 (query streams alone) or more", terminals)
	case c.QueryStreams < 0:
		return 0, fmt.Errorf("--query-streams %d is negative; give 0 (TPC-C alone) or more", c.QueryStreams)
	case terminals == 0 && c.QueryStreams == 0:
		return 0, fmt.Errorf("ch has nothing to run with 0 terminals and 0 query streams; give --terminals or --query-streams a number above 0")
	}
	c.terminals = terminals
	return terminals + c.QueryStreams, nil
}

// Init implements workload.Initer: tpcc's tables and routines, then
// SUPPLIER, NATION and REGION (with --routines-only, the routines alone).
func (c *CH) Init(ctx context.Context, env *workload.Env) error {
	if err := c.TP.Init(ctx, env); err != nil || c.TP.RoutinesOnly {
		return err
	}
	caps, conn, err := workload.BeginInit(ctx, env, c)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := workload.Recreate(ctx, conn, Tables, createStatements(caps)); err != nil {
		return err
	}
	if err := workload.Load(ctx, env, loadTables(env.Seed)); err != nil {
		return err
	}
	if !workload.Analyzes(caps) {
		return nil
	}
	env.Progress.Phase(caps.AnalyzeName + " (supplier, nation, region)")
	return workload.AnalyzeTables(ctx, env, Tables...)
}

// allTables are tpcc's tables and ch's.
func allTables() []string { return append(slices.Clone(tpcc.Tables), Tables...) }

// Setup implements workload.Runner: the twelve tables must be there; tpcc's
// Setup readies the terminals, and the queries are written in the
// engine's dialect.
func (c *CH) Setup(ctx context.Context, env *workload.Env, conn db.Conn) error {
	if err := workload.RequireTables(ctx, env, conn, "ch", allTables()...); err != nil {
		return err
	}
	n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM supplier")
	if err != nil {
		return fmt.Errorf("count the suppliers: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("table supplier is empty; run `%s` again", workload.InitCommand(env.DB.Target(), "ch"))
	}
	if err := c.TP.Setup(ctx, env, conn); err != nil {
		return err
	}
	c.queries = Queries(env.DB.Caps())
	return nil
}

// QueryName is the transaction type of query q (1-based): "q1" to "q22".
func QueryName(q int) string { return "q" + strconv.Itoa(q) }

// Ops implements workload.Runner: tpcc's five transactions, then q1 to q22.
func (c *CH) Ops() []string {
	ops := slices.Clone(c.TP.Ops())
	for q := 1; q <= QueryCount; q++ {
		ops = append(ops, QueryName(q))
	}
	return ops
}

// NewWorker implements workload.Runner: a tpcc terminal for the ids below
// the terminals, a query stream for the others. Stream s starts at query
// s mod 22 + 1, so that streams started together do not run the same
// query at once.
func (c *CH) NewWorker(ctx context.Context, conn db.Conn, id int) (workload.Worker, error) {
	if id < c.terminals {
		return c.TP.NewWorker(ctx, conn, id)
	}
	return &stream{conn: conn, queries: c.queries, base: len(c.TP.Ops()), next: (id - c.terminals) % QueryCount}, nil
}

// stream is a query stream: the 22 queries in turn on one connection.
type stream struct {
	conn    db.Conn
	queries []string
	// base is the op of q1; next the index of the next query.
	base, next int
}

// Next implements workload.Worker: the next query of the round.
func (s *stream) Next() int {
	op := s.base + s.next
	s.next = (s.next + 1) % len(s.queries)
	return op
}

// Do implements workload.Worker: the query, its every row read.
func (s *stream) Do(ctx context.Context, op int) error {
	rows, err := s.conn.Query(ctx, s.queries[op-s.base])
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// DefaultMaxTries implements workload.TriesDefaulter: tpcc's.
func (c *CH) DefaultMaxTries() int { return c.TP.DefaultMaxTries() }

// MixName implements workload.Mixer: tpcc's mode, and the two kinds of
// clients.
func (c *CH) MixName() string {
	return fmt.Sprintf("%s, %s, %s", c.TP.MixName(), plural(c.terminals, "terminal"), plural(c.QueryStreams, "query stream"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Dataset implements workload.Describer: tpcc's warehouses, and the twelve
// tables.
func (c *CH) Dataset(ctx context.Context, env *workload.Env, conn db.Conn) (map[string]any, []string, error) {
	params, _, err := c.TP.Dataset(ctx, env, conn)
	return params, allTables(), err
}

// Statements implements workload.Statementer: tpcc's statements and the
// 22 queries, for the plan check.
func (c *CH) Statements() []workload.Statement {
	out := c.TP.Statements()
	for i, q := range c.queries {
		out = append(out, workload.Statement{Name: QueryName(i + 1), SQL: q})
	}
	return out
}

// BeforeRun implements workload.RunHooks.
func (c *CH) BeforeRun(ctx context.Context, env *workload.Env, conn db.Conn) error {
	return c.TP.BeforeRun(ctx, env, conn)
}

// MeasureStart implements workload.PhaseReader: tpcc's readings.
func (c *CH) MeasureStart(ctx context.Context, conn db.Conn) error {
	return c.TP.MeasureStart(ctx, conn)
}

// MeasureEnd implements workload.PhaseReader: tpcc's readings.
func (c *CH) MeasureEnd(ctx context.Context, conn db.Conn) error { return c.TP.MeasureEnd(ctx, conn) }

// AfterRun implements workload.RunHooks: tpcc's figures from the
// terminals' transactions alone (NOPM, TPM, tpmC, and HammerDB's from the
// database), and qph, the queries the streams completed per hour (none
// without streams).
func (c *CH) AfterRun(ctx context.Context, env *workload.Env, conn db.Conn, t workload.Totals) (map[string]float64, error) {
	tp := t
	tp.Commits, tp.Errors = map[string]int64{}, map[string]int64{}
	var queries int64
	for _, op := range c.Ops() {
		if slices.Contains(c.TP.Ops(), op) {
			tp.Commits[op], tp.Errors[op] = t.Commits[op], t.Errors[op]
		} else {
			queries += t.Commits[op]
		}
	}
	m, err := c.TP.AfterRun(ctx, env, conn, tp)
	if t.Seconds > 0 && c.QueryStreams > 0 {
		if m == nil {
			m = map[string]float64{}
		}
		m["qph"] = math.Round(float64(queries)*3600/t.Seconds*10) / 10
	}
	return m, err
}

// MetricLabels implements workload.MetricLabeler: tpcc's labels, saying
// which figures count the queries too, and qph's.
func (c *CH) MetricLabels() map[string]string {
	l := c.TP.MetricLabels()
	l["tpm"] = "every TPC-C transaction committed per minute (the analytic queries not included), counted by the harness"
	l["hammerdb_tpm"] += " (the query streams' queries included)"
	l["server_tpm"] += " (the query streams' queries included)"
	l["qph"] = "analytic queries completed per hour by all the query streams, counted by the harness"
	return l
}

// HeadlineMetric implements workload.MetricLabeler: NOPM, or queries per
// hour when no terminal runs.
func (c *CH) HeadlineMetric() string {
	if c.terminals == 0 {
		return "qph"
	}
	return c.TP.HeadlineMetric()
}

// Check implements workload.Checker: tpcc's consistency conditions (clause
// 3.3.2), then the added tables' rows.
func (c *CH) Check(ctx context.Context, env *workload.Env) ([]workload.CheckResult, error) {
	out, err := c.TP.Check(ctx, env)
	if err != nil {
		return out, err
	}
	conn, err := env.DB.Connect(ctx)
	if err != nil {
		return out, err
	}
	defer conn.Close()
	if err := workload.RequireTables(ctx, env, conn, "ch", Tables...); err != nil {
		return out, err
	}
	for _, k := range chChecks {
		got := make([]int64, len(k.sql))
		for i, q := range k.sql {
			if got[i], err = db.QueryInt64(ctx, conn, q); err != nil {
				return out, fmt.Errorf("%s: %w", k.name, err)
			}
		}
		r := workload.CheckResult{Name: k.name, Pass: slices.Equal(got, k.want)}
		r.Detail = fmt.Sprintf("%v, want %v", got, k.want)
		out = append(out, r)
	}
	return out, nil
}

// chChecks are the added tables' conditions: each query's count must be
// its wanted one.
var chChecks = []struct {
	name string
	sql  []string
	want []int64
}{
	{"ch 1: SUPPLIER has keys 0 to 9,999, NATION 62 rows, REGION 5",
		[]string{"SELECT count(*) FROM supplier WHERE su_suppkey BETWEEN 0 AND 9999", "SELECT count(*) FROM supplier",
			"SELECT count(*) FROM nation", "SELECT count(*) FROM region"},
		[]int64{Suppliers, Suppliers, Nations, Regions}},
	{"ch 2: every supplier's nation and every nation's region exist",
		[]string{"SELECT count(*) FROM supplier WHERE NOT EXISTS (SELECT 1 FROM nation WHERE n_nationkey = su_nationkey)",
			"SELECT count(*) FROM nation WHERE NOT EXISTS (SELECT 1 FROM region WHERE r_regionkey = n_regionkey)"},
		[]int64{0, 0}},
}
