package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/engine"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

type runOpts struct {
	db          string
	cfg         engine.Config
	progress    time.Duration
	percentiles []float64
	// percentileList is --percentiles as given.
	percentileList string
	json           string
	results        string
	noSave         bool
	outs           reportOuts
	// collect is --collect as given; collectKinds the parsed set.
	collect      string
	collectKinds map[string]bool
}

func (o *runOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL: postgres://..., mysql://user:pass@host:port/db, sqlite://PATH (default: the embedded SQLite database)")
	fs.IntVarP(&o.cfg.Clients, "clients", "c", 1, "concurrent clients, one connection each")
	durationVarP(fs, &o.cfg.Duration, "duration", "T", 0, "measured duration (e.g. 60s, 5m; a bare number is seconds); default 10s unless --transactions is given")
	fs.Int64VarP(&o.cfg.Transactions, "transactions", "t", 0, "transactions per client, instead of --duration")
	durationVarP(fs, &o.cfg.Warmup, "warmup", "", 0, "warm-up before measuring, reported apart and excluded from the summary")
	fs.Float64VarP(&o.cfg.Rate, "rate", "R", 0, "open loop: target total transactions per second, Poisson arrivals; latency counts from the intended start")
	durationVarP(fs, &o.cfg.LatencyLimit, "latency-limit", "L", 0, "count transactions slower than this as late")
	fs.IntVar(&o.cfg.Terminals, "terminals", 0, "TPC-C-style terminal mode: this many emulated terminals (goroutines) share the --clients connections")
	fs.BoolVar(&o.cfg.ThinkTimes, "keying-think", false, "with --terminals: wait the workload's keying and think times (TPC-C clause 5.2.5), so throughput is paced as the specification's")
	fs.IntVar(&o.cfg.MaxTries, "max-tries", 1, "tries per transaction on serialization failure or deadlock (1 = no retry)")
	durationVarP(fs, &o.progress, "progress", "P", time.Second, "progress line interval (0 = no progress lines)")
	fs.StringVar(&o.percentileList, "percentiles", "50,90,95,99,99.9", "latency percentiles to report (50, 90, 95 and 99 are always included)")
	fs.Uint64Var(&o.cfg.Seed, "seed", 0, "random seed for transaction parameters (default: a random seed, recorded with the run)")
	fs.StringVar(&o.json, "json", "", "write the run as JSON to FILE (- for standard output)")
	fs.StringVar(&o.results, "results", "", "results store file (default $DBHARNESS_RESULTS or "+results.DefaultPath()+")")
	fs.BoolVar(&o.noSave, "no-save", false, "do not save the run in the results store")
	o.outs.flags(fs)
	fs.StringVar(&o.collect, "collect", "all", collect.Help())
	fs.StringVar(&o.cfg.Driver, "driver", "", "how clients run: loop (event loops that own every connection, as pgbench's threads do) or goroutine (one goroutine per client); default loop where the engine has it (PostgreSQL, MySQL/MariaDB) and no --terminals")
	fs.IntVar(&o.cfg.Loops, "loops", 0, "event loops (OS threads) that share the clients with the loop driver (default 1)")
}

// minProgress is the shortest --progress interval: every interval is a
// line, a JSON object, a row of the results store and a sample of every
// collector.
const minProgress = 10 * time.Millisecond

func (o *runOpts) validate(fs *pflag.FlagSet) error {
	if fs.Changed("duration") && o.cfg.Duration <= 0 {
		return usagef("--duration %s: give a positive duration, e.g. 60s (or --transactions N)", o.cfg.Duration)
	}
	if fs.Changed("transactions") && o.cfg.Transactions <= 0 {
		return usagef("--transactions %d: give a positive number per client (or --duration D)", o.cfg.Transactions)
	}
	if o.cfg.Duration == 0 && o.cfg.Transactions == 0 {
		o.cfg.Duration = 10 * time.Second
	}
	if fs.Changed("duration") && fs.Changed("transactions") {
		return usagef("give --duration or --transactions, not both")
	}
	if !fs.Changed("seed") {
		o.cfg.Seed = randomSeed()
	}
	if o.progress < 0 {
		return usagef("--progress %s is negative", o.progress)
	}
	if o.progress > 0 && o.progress < minProgress {
		return usagef("--progress %s is shorter than %s; each interval is a line, a saved row and a sample of every collector", o.progress, minProgress)
	}
	o.cfg.Interval = o.progress
	if o.cfg.Interval == 0 {
		o.cfg.Interval = time.Second
	}
	o.percentiles = nil
	for _, f := range strings.Split(o.percentileList, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || p <= 0 || p >= 100 {
			return usagef("--percentiles %q is invalid; give numbers between 0 and 100 exclusive, e.g. 50,99,99.9", o.percentileList)
		}
		o.percentiles = append(o.percentiles, p)
	}
	o.percentiles = results.NormalizePercentiles(o.percentiles)
	if err := o.outs.validate(); err != nil {
		return err
	}
	if o.json == "-" && o.outs.markdown == "-" {
		return usagef("--json - and --markdown - both want standard output; send one of them to a file")
	}
	kinds, err := collect.ParseKinds(o.collect)
	if err != nil {
		return usageError{err.Error()}
	}
	o.collectKinds = kinds
	if o.cfg.ThinkTimes && o.cfg.Terminals == 0 {
		return usagef("--keying-think needs --terminals N: keying and think times belong to emulated terminals")
	}
	if err := o.cfg.Validate(); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// runSpec is a parsed `run` command line.
type runSpec struct {
	args   []string
	wl     workload.Generator
	runner workload.Runner
	opts   runOpts
	fs     *pflag.FlagSet
}

// parseRun parses and validates a `run` command line (without "run").
func (a *app) parseRun(args []string) (*runSpec, error) {
	sp := &runSpec{args: args}
	wl, err := workloadFor("run", args, sp.opts.flags)
	if err != nil {
		return nil, err
	}
	sp.wl = wl
	if sp.fs, err = a.parseFlags("run", wl, args, sp.opts.flags); err != nil {
		return nil, err
	}
	if fw, ok := wl.(workload.FixedWorker); ok {
		n, flag, err := fw.FixedWork()
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if n > 0 {
			if sp.fs.Changed("duration") || sp.fs.Changed("transactions") {
				return nil, usagef("%s sets the work of each client; give it without --duration or --transactions", flag)
			}
			sp.opts.cfg.Transactions = n
		}
	}
	if d, ok := wl.(workload.TriesDefaulter); ok && !sp.fs.Changed("max-tries") {
		sp.opts.cfg.MaxTries = d.DefaultMaxTries()
	}
	if err := sp.opts.validate(sp.fs); err != nil {
		return nil, err
	}
	// Workloads that read files (scripts) report their mistakes before
	// connecting.
	if l, ok := wl.(interface{ Load() error }); ok {
		if err := l.Load(); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	var ok bool
	if sp.runner, ok = wl.(workload.Runner); !ok {
		return nil, usagef("workload %s cannot be run", wl.Name())
	}
	if n := sp.opts.cfg.Terminals; n > 0 {
		if _, ok := sp.runner.(workload.TerminalRunner); !ok {
			return nil, usagef("--terminals is for workloads with emulated terminals (tpcc, tpcc-ro); %s has none", wl.Name())
		}
		if tc, ok := sp.runner.(workload.TerminalChecker); ok {
			if err := tc.CheckTerminals(n); err != nil {
				return nil, usageError{err.Error()}
			}
		}
	}
	return sp, nil
}

func (a *app) cmdRun(args []string) error {
	sp, err := a.parseRun(args)
	if err != nil {
		return err
	}
	stop, release := signals()
	defer release()
	run, err := a.execRun(context.Background(), sp, stop)
	if err != nil {
		return err
	}
	if run.Status == results.StatusInterrupted {
		return exitError{ExitInterrupted, "run interrupted; the summary covers what was measured"}
	}
	// Failed transactions are counted and the run goes on, for every
	// workload; but a run in which none succeeded measured nothing, so it
	// must not pass for a successful one in a script that checks $?.
	if s := run.Summary; s.Transactions == 0 && s.Errors > 0 {
		return exitError{ExitFail, fmt.Sprintf("run %s: every transaction failed (%d errors, none succeeded); the first error of each class is shown above", run.RunID, s.Errors)}
	}
	return nil
}

// execRun performs one run: it prints progress and the summary, saves the
// run as it goes and writes --json. The run is returned whenever it started,
// also when it failed or was interrupted.
func (a *app) execRun(ctx context.Context, sp *runSpec, stop <-chan struct{}) (*results.Run, error) {
	o, wl, runner := &sp.opts, sp.wl, sp.runner
	d, err := a.target(o.db)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := engine.ResolveDriver(d, &o.cfg); err != nil {
		return nil, usageError{err.Error()}
	}
	env := &workload.Env{DB: d, Seed: o.cfg.Seed, Progress: workload.NopProgress{},
		Note: func(msg string) { fmt.Fprintf(a.stderr, "dbharness: note: %s: %s\n", wl.Name(), msg) }}
	conn, err := connect(ctx, d)
	if err != nil {
		return nil, err
	}
	err = runner.Setup(ctx, env, conn)
	if err == nil {
		if h, ok := wl.(workload.RunHooks); ok {
			err = h.BeforeRun(ctx, env, conn)
		}
	}
	conn.Close()
	if err != nil {
		return nil, err
	}
	info, err := d.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the server's version and settings: %w", err)
	}

	// Text goes to stderr when the JSON goes to stdout.
	out := a.stdout
	if o.json == "-" || o.outs.markdown == "-" {
		out = a.stderr
	}
	run := &results.Run{
		SchemaVersion: results.SchemaVersion,
		RunID:         results.NewRunID(time.Now()),
		Status:        results.StatusRunning,
		Workload:      wl.Name(),
		Command:       results.RedactArgs(append([]string{"dbharness", "run"}, sp.args...)),
		Target:        d.Target().String(),
		Engine:        results.EngineInfo(info),
		Host:          hostinfo.Read(),
		StartTime:     time.Now(),
		Config: results.Config{
			Clients: o.cfg.Clients, Terminals: o.cfg.Terminals, KeyingThink: o.cfg.ThinkTimes, DurationSeconds: o.cfg.Duration.Seconds(),
			Transactions: o.cfg.Transactions, WarmupSeconds: o.cfg.Warmup.Seconds(), Rate: o.cfg.Rate,
			LatencyLimitMs: float64(o.cfg.LatencyLimit) / 1e6, MaxTries: o.cfg.MaxTries,
			IntervalSeconds: o.cfg.Interval.Seconds(), Seed: o.cfg.Seed,
			Percentiles: o.percentiles, WorkloadFlags: workloadFlags(sp.fs, wl, workload.CmdRun),
			Driver: o.cfg.Driver, Loops: o.cfg.Loops,
		},
		ErrorClasses: map[string]int64{},
		Intervals:    []results.Interval{},
	}
	store := a.openStore(*o)
	if store != nil {
		defer store.Close()
		store.save(run)
	}
	fmt.Fprintf(out, "run %s: %s on %s %s (%s), %d clients, %s\n", run.RunID, wl.Name(), info.Engine, info.Version,
		d.Target(), o.cfg.Clients, describeEnd(&o.cfg))

	var onPoint func(kind string, seq int, v any)
	if store != nil {
		onPoint = func(kind string, seq int, v any) { store.fail(store.AddEvidence(run.RunID, kind, seq, v)) }
	}
	ev := a.startEvidence(ctx, o.collectKinds, d, runner, run, onPoint)
	if store != nil && ev != nil {
		store.save(run) // the evidence headers and plans, before the clients start
	}
	ops := runner.Ops()
	prog := &report.Progress{W: out, Rate: o.cfg.Rate > 0}
	obs := ev.observer(func(tk *engine.Tick) {
		iv := results.IntervalFromTick(tk, ops, o.percentiles)
		run.Intervals = append(run.Intervals, iv)
		if o.progress > 0 {
			prog.Line(&iv)
		}
		if store != nil {
			hists := make(map[string]string, len(tk.Ops))
			for i, op := range tk.Ops {
				if h := results.EncodeHist(op.Hist); h != "" {
					hists[ops[i]] = h
				}
			}
			store.addInterval(run.RunID, &iv, hists)
		}
	})
	var phases *phaseReads
	if pr, ok := wl.(workload.PhaseReader); ok {
		if phases = a.startPhaseReads(ctx, d, pr, o.cfg.Warmup, obs); phases != nil {
			obs = phases
		}
	}
	res, err := engine.Run(ctx, d, runner, o.cfg, obs, stop)
	phases.end()
	ev.finish(ctx, run)
	if err != nil {
		// The engine fails only before its clock starts (clients that
		// cannot connect): nothing was measured, but the run is recorded,
		// and --json says why, for the tools that read it.
		run.Status, run.Error = results.StatusFailed, oneLine(err.Error())
		run.EndTime = time.Now()
		if store != nil {
			store.save(run)
		}
		if o.json != "" {
			if jerr := report.WriteJSON(o.json, run); jerr != nil {
				fmt.Fprintf(a.stderr, "dbharness: warning: %v\n", jerr)
			}
		}
		return run, fmt.Errorf("run %s failed: %w", run.RunID, err)
	}
	run.Fill(res, nil)
	if o.cfg.Transactions > 0 {
		run.ClientSeconds = res.ClientSeconds
	}
	run.Status = results.StatusCompleted
	if res.Interrupted {
		run.Status = results.StatusInterrupted
	}
	if h, ok := wl.(workload.RunHooks); ok {
		run.Summary.Metrics, err = a.afterRun(ctx, h, env, run, res)
		if err != nil {
			fmt.Fprintf(a.stderr, "dbharness: warning: %s: %v\n", wl.Name(), err)
		}
	}
	if store != nil {
		store.save(run)
	}
	report.Summary(out, run)
	if store != nil {
		fmt.Fprintf(out, "saved as run %s in %s\n", run.RunID, store.Path())
	}
	if o.json != "" {
		if err := report.WriteJSON(o.json, run); err != nil {
			return run, err
		}
	}
	if o.outs.any() {
		if err := a.writeRun(o.outs, run, out); err != nil {
			return run, err
		}
	}
	return run, nil
}

// afterRun gives a workload's RunHooks the run's totals, on a fresh
// connection, and returns its figures.
func (a *app) afterRun(ctx context.Context, h workload.RunHooks, env *workload.Env, run *results.Run, res *engine.Result) (map[string]float64, error) {
	conn, err := connect(ctx, env.DB)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return h.AfterRun(ctx, env, conn, workload.Totals{Commits: run.Commits(), Errors: run.OpErrors(),
		Seconds: res.Seconds(), MeasureStart: res.MeasureStart, End: res.End, ClientSeconds: res.ClientSeconds})
}

func describeEnd(c *engine.Config) string {
	var parts []string
	if c.Transactions > 0 {
		parts = append(parts, fmt.Sprintf("%d transactions per client", c.Transactions))
	} else {
		parts = append(parts, fmt.Sprintf("%s measured", c.Duration))
	}
	if c.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("after %s warm-up", c.Warmup))
	}
	if c.Rate > 0 {
		parts = append(parts, fmt.Sprintf("open loop at %g tps", c.Rate))
	}
	if c.Terminals > 0 {
		t := fmt.Sprintf("%d terminals", c.Terminals)
		if c.ThinkTimes {
			t += " with keying and think times"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// runStore wraps the results store so that a failing store warns once and
// never stops a run.
type runStore struct {
	*results.Store
	warn   io.Writer
	warned atomic.Bool // the collector's goroutine writes evidence too
}

func (a *app) openStore(o runOpts) *runStore {
	if o.noSave {
		return nil
	}
	path := o.results
	if path == "" {
		path = results.DefaultPath()
	}
	s, err := results.Open(path)
	if err != nil {
		fmt.Fprintf(a.stderr, "dbharness: warning: %v; the run will not be saved\n", err)
		return nil
	}
	return &runStore{Store: s, warn: a.stderr}
}

func (s *runStore) fail(err error) {
	if err != nil && s.warned.CompareAndSwap(false, true) {
		fmt.Fprintf(s.warn, "dbharness: warning: results store: %v\n", err)
	}
}

func (s *runStore) save(r *results.Run) { s.fail(s.Save(r)) }
func (s *runStore) addInterval(id string, iv *results.Interval, h map[string]string) {
	s.fail(s.AddInterval(id, iv, h))
}
