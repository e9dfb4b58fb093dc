// Package runner makes one run, or loads one workload's data, from a typed
// configuration: it opens the target, starts the collectors, drives the
// load generator, fills the run and saves it in the results store as it goes. It
// parses no command line; `run`, `init` and `sweep` build its
// configurations.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/doctor"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/metrics"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/workload"
)

// Config is one run, parsed and validated.
type Config struct {
	// Target is the database to run against.
	Target *db.Target
	// Workload is the workload instance, its flags already set; it must be
	// a workload.Runner.
	Workload workload.Generator
	// WorkloadFlags returns the workload's own flag values, saved with the
	// run; it is called after the workload's Setup, whose choices they
	// show (tpcc on SQLite runs --mode client). Nil saves none.
	WorkloadFlags func() map[string]string
	// Command is the command line saved with the run (passwords are
	// removed here).
	Command []string
	// Label is the user's name for the run (--label), checked by the
	// caller; "" for none.
	Label string
	// Engine drives the clients; Engine.Driver is resolved for the target
	// and a zero Engine.Interval is a second.
	Engine loadgen.Config
	// StatementTimeout, when above 0, bounds every statement of the run's
	// clients (db.StatementTimeouter); the target's engine must have it.
	StatementTimeout time.Duration
	// Set are session settings set on every connection of the run's
	// clients and collectors (--set; db.SetSession); the server reports
	// them in the run's engine settings.
	Set []db.Assignment
	// DOP bounds the processes of each query of the run's connections,
	// leader included (--dop; db.SetDOP); 0 leaves the server's setting.
	// An engine without intra-query parallelism refuses it.
	DOP int
	// Progress is the interval of the progress lines; 0 prints none (the
	// run is still measured in Engine.Interval intervals).
	Progress time.Duration
	// Percentiles are the latency percentiles to report (normalised).
	Percentiles []float64
	// Collect is the set of evidence kinds to gather (collect.ParseKinds);
	// empty gathers none.
	Collect map[string]bool
	// CollectOptions are the collectors' own options, by collector name
	// (collect.PhaseEnv.Option; --physical is physical's), checked by the
	// caller.
	CollectOptions map[string]string
	// ServerEvidence, when set, is another endpoint of the target's server,
	// in another protocol, that the server's own evidence (its counters,
	// wait profile and process) is read from, labelled
	// ServerEvidenceLabel: Babelfish's PostgreSQL side for a run over TDS
	// (--server-evidence).
	ServerEvidence      *db.Target
	ServerEvidenceLabel string
	// CreateExtensions lets the collectors create what they measure with
	// in the target database (--create-extensions); without it the run
	// changes no schema, and says what it would need.
	CreateExtensions bool
	// Verbose prints the whole of the summary: every row of the physical
	// table and the harness's driver in full (--verbose).
	Verbose bool
	// Results is the results store file ("" is store.DefaultPath());
	// NoSave keeps the run out of it.
	Results string
	NoSave  bool
	// Shard, when set, makes the run one shard of a group (--shard I/N
	// --group NAME): it runs its share of Engine.Clients and
	// Engine.Terminals under global ids, and its share of Engine.Rate,
	// and starts with the group's other shards at one instant chosen
	// through the results store, waiting at most GroupTimeout for them.
	Shard        *results.Shard
	GroupTimeout time.Duration
	// Metrics, when set, serves the run's figures to Prometheus as the
	// intervals come (--metrics-addr); the caller closes it.
	Metrics *metrics.Server
	// HDRLog, when set, takes the run's per-interval latency histograms
	// in HdrHistogram's interval log format (--hdr-log).
	HDRLog io.Writer
	// Doctor takes the client host's pre-flight check (doctor.StartHost)
	// over the second in which the run sets up, records it with the run
	// and warns of what it found (--no-doctor clears it).
	Doctor bool
	// Out takes the run's text: its first line, the progress lines, the
	// summary and where it was saved. Warn takes warnings and the
	// workload's notes. Nil discards.
	Out, Warn io.Writer
}

// UsageError is a configuration the target cannot run (a driver it does
// not have): the user's to fix.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Interrupted is work stopped by the user before its end.
type Interrupted struct{ Msg string }

func (e *Interrupted) Error() string { return e.Msg }

// postRunBudget bounds the work after a run that talks to the server (the
// plan check, the workload's AfterRun); postRunBudgetUnhealthy is the
// bound when the server left transactions unanswered at the end.
const (
	postRunBudget          = 30 * time.Second
	postRunBudgetUnhealthy = 3 * time.Second
)

// connectTimeout bounds how long a first connection may take.
const connectTimeout = 10 * time.Second

func connect(ctx context.Context, d db.DB) (db.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	return d.Connect(cctx)
}

// oneLine keeps an error to one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// Run performs one run: it prints its first line, the progress and the
// summary to c.Out, saves the run as it goes and returns it. The run is
// returned whenever it started, also when it failed (with the error), was
// interrupted (Status says so) or was not wholly saved (with a
// *NotSavedError). The results store is checked before anything connects.
// Closing stop ends the run early.
func Run(ctx context.Context, c Config, stop <-chan struct{}) (*results.Run, error) {
	// The stop watcher below, the collectors and the run itself write
	// warnings from their own goroutines: Warn need not be safe for that.
	warn := &lockedWriter{w: orDiscard(c.Warn)}
	c.Warn = warn
	// Until the clients start, an interrupt cancels what the setup is
	// waiting for; then the load generator stops the run, and says so at once.
	setup, endSetup := context.WithCancel(ctx)
	var running atomic.Bool
	watched := make(chan struct{})
	// The watcher has ended before Run returns: it writes nothing after.
	defer func() { endSetup(); <-watched }()
	go func() {
		defer close(watched)
		select {
		case <-stop:
			if running.Load() {
				fmt.Fprintf(warn, "dbharness: stopping: transactions in flight have %s to finish, then are cancelled; interrupt again to exit at once\n",
					c.Engine.Grace())
			} else {
				endSetup()
			}
		case <-setup.Done():
		}
	}()
	run, err := runOnce(setup, c, stop, &running)
	if err != nil && run == nil && setup.Err() != nil && ctx.Err() == nil {
		return nil, &Interrupted{"interrupted before the run started"}
	}
	return run, err
}

// runOnce makes one run in four steps: open the store, the target and the
// run's record; start the evidence; drive the load; save the outcome.
func runOnce(ctx context.Context, c Config, stop <-chan struct{}, running *atomic.Bool) (*results.Run, error) {
	r := &oneRun{c: c}
	defer r.close()
	if err := r.open(ctx); err != nil {
		return nil, err
	}
	r.evidence(ctx)
	res, err := r.drive(ctx, stop, running)
	return r.save(res, err)
}

// oneRun is one run on its way through runOnce's steps: what each step
// opens or makes for the next.
type oneRun struct {
	c         Config
	cfg       loadgen.Config
	out, warn io.Writer
	warnf     func(format string, args ...any)
	wl        workload.Generator
	runner    workload.Runner
	store     *runStore // nil when the run is not saved
	d         db.DB
	env       *workload.Env
	run       *results.Run
	ops       []string
	live      *metrics.Run
	ev        *evidence
	host      *collect.HostAccount
	// side is the other endpoint of the server its evidence is read from
	// (Config.ServerEvidence), nil without one.
	side    *collect.ServerSide
	hostCPU *results.HostCPU
	hl      *hdrLog
	// probe is the host's pre-flight check under way (Config.Doctor).
	probe *doctor.Probe
	// post bounds the work after the run, which endPost ends.
	post    context.Context
	endPost context.CancelFunc
}

// close releases what the steps opened, the last first.
func (r *oneRun) close() {
	if r.endPost != nil {
		r.endPost()
	}
	if r.live != nil {
		r.live.End()
	}
	if r.d != nil {
		r.d.Close()
	}
	if r.side != nil {
		r.side.DB.Close()
	}
	if r.store != nil {
		r.store.Close()
	}
}

// open checks the configuration, opens the results store and then the
// target, sets the workload up and makes the run's record, saved and
// announced by its first line.
func (r *oneRun) open(ctx context.Context) error {
	c := r.c
	r.out, r.warn = orDiscard(c.Out), orDiscard(c.Warn)
	r.warnf = func(format string, args ...any) { fmt.Fprintf(r.warn, "dbharness: warning: "+format+"\n", args...) }
	if c.Doctor {
		// Its second overlaps the set-up; record waits for what is left.
		r.probe = doctor.StartHost(time.Second)
	}
	r.wl = c.Workload
	var ok bool
	if r.runner, ok = r.wl.(workload.Runner); !ok {
		return &UsageError{fmt.Sprintf("workload %s cannot be run", r.wl.Name())}
	}
	r.cfg = c.Engine
	if r.cfg.Interval <= 0 {
		r.cfg.Interval = time.Second // as run without --progress
	}
	var shard *results.Shard
	if c.Shard != nil {
		if c.NoSave {
			return &UsageError{"a shard needs the results store, where the shards of its group meet"}
		}
		shard = shareOf(c.Shard, &r.cfg)
	}
	// The store is checked before anything connects.
	var err error
	if r.store, err = openStore(c, r.warn); err != nil {
		return err
	}
	if r.d, err = db.Open(c.Target); err != nil {
		return err
	}
	if err := loadgen.ResolveDriver(r.d, &r.cfg); err != nil {
		return &UsageError{err.Error()}
	}
	// An engine without intra-query parallelism refuses --dop before the
	// workload sets up.
	if _, ok := r.d.(db.DOPSetter); c.DOP != 0 && !ok {
		msg := db.SetDOP(ctx, r.d, c.DOP).Error()
		if df, ok := r.wl.(workload.DOPFlagger); ok {
			if n, flag := df.DOPFlag(); n == c.DOP {
				msg = fmt.Sprintf("%s %d is %s", flag, n, msg)
			}
		}
		return &UsageError{msg}
	}
	if t := c.ServerEvidence; t != nil {
		sd, err := db.Open(t)
		if err != nil {
			return err
		}
		r.side = &collect.ServerSide{DB: sd, Label: c.ServerEvidenceLabel}
	}
	dataset, err := r.setUp(ctx)
	if err != nil {
		return err
	}
	// The statement timeout bounds what the clients and the collectors
	// run, not the workload's setup.
	if c.StatementTimeout > 0 {
		st, ok := r.d.(db.StatementTimeouter)
		if !ok {
			return &UsageError{fmt.Sprintf("--statement-timeout: the %s engine cannot bound its statements", r.d.Target().Kind)}
		}
		st.SetStatementTimeout(c.StatementTimeout)
	}
	if err := db.SetSession(ctx, r.d, c.Set); err != nil {
		if se := (*db.SettingError)(nil); errors.As(err, &se) {
			return &UsageError{err.Error()}
		}
		return err
	}
	if err := db.SetDOP(ctx, r.d, c.DOP); err != nil {
		if de := (*db.DOPError)(nil); errors.As(err, &de) {
			return &UsageError{err.Error()}
		}
		return err
	}
	info, err := r.d.Info(ctx)
	if err != nil {
		return fmt.Errorf("read the server's version and settings: %w", err)
	}
	r.record(info, dataset, shard, r.preflight(ctx))
	return nil
}

// setMap is the --set settings by name, as the run records them; nil for
// none.
func setMap(set []db.Assignment) map[string]string {
	if len(set) == 0 {
		return nil
	}
	m := make(map[string]string, len(set))
	for _, a := range set {
		m[a.Name] = a.Value
	}
	return m
}

// preflight ends the host's pre-flight check, not counting the server's
// processes (busy with the set-up) as others, and warns of what it found.
func (r *oneRun) preflight(ctx context.Context) []doctor.Check {
	if r.probe == nil {
		return nil
	}
	skip, _ := doctor.ServerProcesses(ctx, r.d)
	checks := r.probe.Finish(ctx, skip)
	for _, w := range doctor.Warnings(checks) {
		r.warnf("%s: %s: %s", w.Name, w.Value, w.Advice)
	}
	return checks
}

// setUp runs the workload's Setup and BeforeRun, and reads its dataset in
// between, on one connection.
func (r *oneRun) setUp(ctx context.Context) (*results.Dataset, error) {
	wl := r.wl
	r.env = &workload.Env{DB: r.d, Seed: r.cfg.Seed, Progress: workload.NopProgress{}, DOP: r.c.DOP,
		Note: func(msg string) { fmt.Fprintf(r.warn, "dbharness: note: %s: %s\n", wl.Name(), msg) }}
	conn, err := connect(ctx, r.d)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	err = r.runner.Setup(ctx, r.env, conn)
	if wr := (*workload.Refused)(nil); errors.As(err, &wr) {
		err = &UsageError{wr.Msg}
	}
	var dataset *results.Dataset
	if err == nil {
		var derr error
		if dataset, derr = readDataset(ctx, wl, r.env, conn); derr != nil {
			if ctx.Err() != nil {
				err = derr
			} else {
				r.warnf("the run's dataset is not recorded: %s", oneLine(derr.Error()))
			}
		}
	}
	if err == nil {
		if h, ok := wl.(workload.RunHooks); ok {
			err = h.BeforeRun(ctx, r.env, conn)
		}
	}
	return dataset, err
}

// record makes the run's record, creates it in the store, prints its
// first line and starts serving its figures.
func (r *oneRun) record(info db.Info, dataset *results.Dataset, shard *results.Shard, checks []doctor.Check) {
	c, cfg, wl, store := r.c, &r.cfg, r.wl, r.store
	wlFlags := map[string]string{}
	if c.WorkloadFlags != nil {
		wlFlags = c.WorkloadFlags()
	}
	run := &results.Run{
		SchemaVersion: results.SchemaVersion,
		RunID:         results.NewRunID(time.Now()),
		Status:        results.StatusRunning,
		Workload:      wl.Name(),
		Label:         c.Label,
		Command:       results.RedactArgs(c.Command),
		Target:        r.d.Target().String(),
		Engine:        EngineInfo(info),
		Dataset:       dataset,
		Host:          hostinfo.Read(),
		Doctor:        checks,
		StartTime:     time.Now(),
		Config: results.Config{
			Clients: cfg.Clients, Terminals: cfg.Terminals, KeyingThink: cfg.ThinkTimes, DurationSeconds: cfg.Duration.Seconds(),
			Transactions: cfg.Transactions, WarmupSeconds: cfg.Warmup.Seconds(), Rate: cfg.Rate,
			LatencyLimitMs: float64(cfg.LatencyLimit) / 1e6, MaxTries: cfg.MaxTries,
			IntervalSeconds: cfg.Interval.Seconds(), Seed: cfg.Seed,
			Percentiles: c.Percentiles, WorkloadFlags: wlFlags,
			Driver: cfg.Driver, Loops: cfg.Loops, ReportStatements: cfg.ReportStatements, ConnectPerTx: cfg.ConnectPerTx,
			StatementTimeoutMs: float64(c.StatementTimeout) / 1e6, ReconnectTimeoutSeconds: cfg.ReconnectTimeout.Seconds(),
			StallTimeoutSeconds: max(cfg.StallTimeout.Seconds(), -1),
			Set:                 setMap(c.Set),
			DOP:                 c.DOP,
		},
		ErrorClasses: map[string]int64{},
		Intervals:    []results.Interval{},
	}
	if m, ok := wl.(workload.Mixer); ok {
		run.Mix = m.MixName()
	}
	run.Shard = shard
	r.run = run
	if store != nil {
		// The run's id is its own in the store, which other harnesses
		// may write to at once, before it is printed.
		store.fail(store.Create(run))
	}
	if shard != nil {
		cfg.Begin = func(ctx context.Context) (time.Time, error) {
			at, err := startShard(ctx, store.Store, shard, run, c.GroupTimeout, r.out)
			if err == nil {
				store.save(run) // with the group's start, should the shard be killed
			}
			return at, err
		}
	}
	fmt.Fprintf(r.out, "run %s%s: %s on %s %s (%s), %d clients, %s\n", run.RunID, results.Quoted(run.Label), wl.Name(), info.Engine, info.Version,
		r.d.Target(), cfg.Clients, DescribeEnd(cfg))

	r.ops = r.runner.Ops()
	if c.Metrics != nil {
		info := metrics.RunInfo{RunID: run.RunID, Workload: run.Workload, Engine: run.Engine.Engine,
			Ops: r.ops, Clients: cfg.Clients, Warmup: cfg.Warmup > 0, OpenLoop: cfg.Rate > 0, Start: run.StartTime}
		if shard != nil {
			idx := shard.Index
			info.Group, info.Shard = shard.Group, &idx
		}
		r.live = c.Metrics.StartRun(info)
	}
}

// evidence starts the collectors, whose points go to the store and the
// live figures as they come, and saves their headers before the clients
// start.
func (r *oneRun) evidence(ctx context.Context) {
	store, live, run := r.store, r.live, r.run
	var onPoint func(kind string, seq int, v any)
	if store != nil || live != nil {
		onPoint = func(kind string, seq int, v any) {
			live.OnPoint(kind, seq, v)
			if store != nil {
				store.addEvidence(run.RunID, kind, seq, v)
			}
		}
	}
	// Every run accounts for the host's CPU, --collect none included.
	server := r.d
	if r.side != nil {
		server = r.side.DB
	}
	r.host = collect.StartHostAccount(ctx, server, r.cfg.Interval, r.cfg.Warmup)
	base := collect.PhaseEnv{Warnf: r.warnf, CreateExtensions: r.c.CreateExtensions,
		Notef: func(format string, args ...any) { fmt.Fprintf(r.warn, "dbharness: note: "+format+"\n", args...) }}
	r.ev = startEvidence(ctx, base, r.c.Collect, r.c.CollectOptions, r.d, r.side, r.runner, run, onPoint)
	if store != nil && r.ev != nil {
		store.save(run) // the evidence headers and plans, before the clients start
	}
}

// drive runs the load, recording each interval as it ends, then stops the
// collectors within the time left after the run (r.post).
func (r *oneRun) drive(ctx context.Context, stop <-chan struct{}, running *atomic.Bool) (*loadgen.Result, error) {
	c, cfg, run, ops, store := r.c, r.cfg, r.run, r.ops, r.store
	prog := &report.Progress{W: r.out, Rate: cfg.Rate > 0}
	r.hl = newHDRLog(c.HDRLog, run.RunID, ops)
	obs := r.ev.observer(func(tk *loadgen.Tick) {
		iv := results.IntervalFromTick(tk, ops, c.Percentiles)
		run.Intervals = append(run.Intervals, iv)
		r.live.OnTick(tk)
		r.hl.interval(tk, &iv)
		if c.Progress > 0 {
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
	if pr, ok := r.wl.(workload.PhaseReader); ok {
		if phases = startPhaseReads(ctx, r.warnf, r.d, pr, cfg.Warmup, obs); phases != nil {
			obs = phases
		}
	}
	obs = &hostObserver{Observer: obs, host: r.host}
	running.Store(true)
	res, err := loadgen.Run(context.WithoutCancel(ctx), r.d, r.runner, cfg, obs, stop)
	r.hostCPU = r.host.End()
	phases.end()
	// What follows the run (the plan check, the workload's own figures)
	// talks to the server again: bounded, and briefly when the server
	// did not answer at the end, so that it cannot hold the run's end.
	budget := postRunBudget
	if res != nil && (res.Abandoned > 0 || res.DownAtEnd > 0 || res.ErrorClasses[loadgen.ClassCancelled] > 0) {
		budget = postRunBudgetUnhealthy
	}
	if r.ev != nil {
		r.ev.unhealthy = budget != postRunBudget
	}
	r.post, r.endPost = context.WithTimeout(context.WithoutCancel(ctx), budget)
	r.ev.finish(r.post, run)
	return res, err
}

// save settles the run's status from the load's result (res, err), adds
// the workload's own figures, saves the run and prints its summary.
func (r *oneRun) save(res *loadgen.Result, err error) (*results.Run, error) {
	run, store := r.run, r.store
	if errors.Is(err, loadgen.ErrStopped) {
		when := "before the run's clock started"
		var w interface{ When() string }
		if errors.As(err, &w) {
			when = w.When()
		}
		run.Status, run.Error = results.StatusInterrupted, "interrupted "+when
		run.EndTime = time.Now()
		if store != nil {
			store.save(run)
		}
		return run, &Interrupted{run.Error}
	}
	if err != nil {
		// The load generator fails only before its clock starts (clients that
		// cannot connect): nothing was measured, but the run is recorded.
		run.Status, run.Error = results.StatusFailed, oneLine(err.Error())
		run.EndTime = time.Now()
		if store != nil {
			store.save(run)
		}
		return run, fmt.Errorf("run %s failed: %w", run.RunID, err)
	}
	failed := r.settle(res)
	run.Summary.HostCPU = r.hostCPU
	if h, ok := r.wl.(workload.RunHooks); ok {
		run.Summary.Metrics, err = afterRun(r.post, h, r.env, run, res)
		if err != nil {
			fmt.Fprintf(r.warn, "dbharness: warning: %s: %v\n", r.wl.Name(), err)
		}
		if ml, ok := r.wl.(workload.MetricLabeler); ok {
			run.Summary.MetricLabels = metricLabels(run.Summary.Metrics, ml.MetricLabels())
			if _, ok := run.Summary.Metrics[ml.HeadlineMetric()]; ok {
				run.Summary.HeadlineMetric = ml.HeadlineMetric()
			}
		}
	}
	var saveErr error
	if store != nil {
		saveErr = store.save(run)
	}
	report.SummaryWith(r.out, run, report.TextOptions{Verbose: r.c.Verbose})
	if err := r.hl.close(); err != nil && failed == nil {
		failed = err
	}
	if store != nil {
		if err := store.notSaved(run.RunID, saveErr); err != nil {
			return run, err
		}
		fmt.Fprintf(r.out, "saved as run %s in %s\n", run.RunID, store.Path())
	}
	return run, failed
}

// settle fills the run from the load's result and sets its status; it
// returns the run's error when it failed.
func (r *oneRun) settle(res *loadgen.Result) error {
	run := r.run
	run.Fill(res, nil)
	if run.Shard != nil {
		run.Shard.StartLateMs = math.Round(float64(res.StartLate)/1e3) / 1e3
		if res.FirstTx {
			v := math.Round(float64(res.FirstTxLate)/1e3) / 1e3
			run.Shard.FirstTxLateMs = &v
		}
	}
	if r.cfg.Transactions > 0 {
		run.ClientSeconds = res.ClientSeconds
	}
	run.Status = results.StatusCompleted
	if res.Interrupted {
		run.Status = results.StatusInterrupted
	}
	// A client that could not reconnect in time, or a run that reached
	// its end with every client cut off, failed: what it measured until
	// then is kept. (One interrupted stays interrupted: its outage says
	// the rest.)
	switch {
	case res.Failure != "":
		run.Status, run.Error = results.StatusFailed, oneLine(res.Failure)
	case !res.Interrupted && res.DownAtEnd > 0 && res.DownAtEnd >= r.cfg.Clients && len(run.Summary.Outages) > 0:
		last := run.Summary.Outages[len(run.Summary.Outages)-1]
		run.Status = results.StatusFailed
		run.Error = fmt.Sprintf("every client had lost its connection when the run ended (the first from %.1fs)", last.StartS)
	}
	if run.Status == results.StatusFailed {
		return fmt.Errorf("run %s failed: %s", run.RunID, run.Error)
	}
	return nil
}

// hostObserver gives the host's account the start of the clock before
// the run's own observer.
type hostObserver struct {
	loadgen.Observer
	host *collect.HostAccount
}

func (o *hostObserver) OnStart(t time.Time) {
	o.host.ClockStarted(t)
	if so, ok := o.Observer.(loadgen.StartObserver); ok {
		so.OnStart(t)
	}
}

// afterRun gives a workload's RunHooks the run's totals, on a fresh
// connection, and returns its figures.
func afterRun(ctx context.Context, h workload.RunHooks, env *workload.Env, run *results.Run, res *loadgen.Result) (map[string]float64, error) {
	conn, err := connect(ctx, env.DB)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return h.AfterRun(ctx, env, conn, workload.Totals{Commits: run.Commits(), Errors: run.OpErrors(),
		Seconds: res.Seconds(), MeasureStart: res.MeasureStart, End: res.End, ClientSeconds: res.ClientSeconds})
}

// metricLabels keeps the labels of the figures in m; nil when none.
func metricLabels(m map[string]float64, labels map[string]string) map[string]string {
	var out map[string]string
	for k := range m {
		if l := labels[k]; l != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = l
		}
	}
	return out
}

// DescribeEnd says when a run ends, for its first line.
func DescribeEnd(c *loadgen.Config) string {
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

// NotSavedError is a run measured to its end but not wholly saved in the
// results store, because a write to it failed; Run returns the run with it.
type NotSavedError struct {
	RunID, Path string
	// Saved is set when the run's final record was saved but an earlier
	// write (an interval, evidence) failed.
	Saved bool
	// Err is the first write that failed.
	Err error
}

func (e *NotSavedError) Error() string {
	if e.Saved {
		return fmt.Sprintf("run %s was saved in %s without part of what it measured: %v", e.RunID, e.Path, e.Err)
	}
	return fmt.Sprintf("the run was not saved: %v", e.Err)
}

func (e *NotSavedError) Unwrap() error { return e.Err }

// runStore wraps the results store so that a failing write warns once and
// never stops a run; the run reports it at its end. The intervals and the
// evidence points are written in order by a goroutine of their own, so that
// a slow or stalled store never holds the load generator's tick or a collector;
// after a write has failed the rest of them are not tried (each could wait
// the store's timeout), and the run's final record is.
type runStore struct {
	*store.Store
	warn io.Writer
	mu   sync.Mutex // the collector's goroutine writes evidence too
	err  error      // the first write that failed
	// pending are the writes queued for the writer goroutine, which wake
	// wakes; queued counts those not done yet, closed ends the goroutine
	// and done says it ended.
	pending []func() error
	queued  sync.WaitGroup
	wake    chan struct{}
	closed  bool
	done    chan struct{}
}

// openStore opens the results store unless the run is not saved; a store
// that cannot be used stops the run before it starts.
func openStore(c Config, warn io.Writer) (*runStore, error) {
	if c.NoSave {
		return nil, nil
	}
	s, err := store.Open(c.Results)
	if err != nil {
		return nil, fmt.Errorf("%w; %s, or run with --no-save", err, store.OtherStore)
	}
	rs := &runStore{Store: s, warn: warn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go rs.writer()
	return rs, nil
}

// later queues a write for the writer goroutine.
func (s *runStore) later(w func() error) {
	s.mu.Lock()
	s.pending = append(s.pending, w)
	s.queued.Add(1)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// writer makes the queued writes in order until the store is closed.
func (s *runStore) writer() {
	defer close(s.done)
	for {
		s.mu.Lock()
		batch, closed, failed := s.pending, s.closed, s.err != nil
		s.pending = nil
		s.mu.Unlock()
		for _, w := range batch {
			if !failed {
				err := w()
				s.fail(err)
				failed = err != nil
			}
			s.queued.Done()
		}
		if len(batch) == 0 {
			if closed {
				return
			}
			<-s.wake
		}
	}
}

// flush waits until the queued writes are done.
func (s *runStore) flush() { s.queued.Wait() }

// Close makes the queued writes and closes the store.
func (s *runStore) Close() error {
	s.flush()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
	return s.Store.Close()
}

func (s *runStore) fail(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
		fmt.Fprintf(s.warn, "dbharness: warning: results store: %v\n", err)
	}
}

// notSaved returns the *NotSavedError of a run whose writes did not all
// succeed (final is the error of its last save), or nil.
func (s *runStore) notSaved(runID string, final error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return nil
	}
	return &NotSavedError{RunID: runID, Path: s.Path(), Saved: final == nil, Err: s.err}
}

// save writes the run's record once the writes queued before it are done.
func (s *runStore) save(r *results.Run) error {
	s.flush()
	err := s.Save(r)
	s.fail(err)
	return err
}

func (s *runStore) addInterval(id string, iv *results.Interval, h map[string]string) {
	s.later(func() error { return s.AddInterval(id, iv, h) })
}

// addEvidence queues an evidence point, encoded now: the collector may
// reuse what it handed over.
func (s *runStore) addEvidence(id, kind string, seq int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.fail(err)
		return
	}
	s.later(func() error { return s.AddEvidence(id, kind, seq, json.RawMessage(b)) })
}

// EngineInfo is the server's description as a run records it.
func EngineInfo(info db.Info) results.EngineInfo {
	e := results.EngineInfo{Engine: info.Engine, Version: info.Version, Settings: info.Settings, DataDir: info.DataDir, TLS: info.TLS}
	if len(info.Normalized) > 0 {
		e.Normalized = make(map[string]results.Setting, len(info.Normalized))
		for k, v := range info.Normalized {
			e.Normalized[k] = results.Setting(v)
		}
	}
	return e
}

// readDataset reads what a workload says of its data (workload.Describer)
// and the rows and bytes of each of its tables.
func readDataset(ctx context.Context, wl workload.Generator, env *workload.Env, conn db.Conn) (*results.Dataset, error) {
	desc, ok := wl.(workload.Describer)
	if !ok {
		return nil, nil
	}
	params, tables, err := desc.Dataset(ctx, env, conn)
	if err != nil {
		return nil, err
	}
	ds := &results.Dataset{Params: params, Tables: []results.DatasetTable{}}
	if ds.Params == nil {
		ds.Params = map[string]any{}
	}
	sizer, ok := env.DB.(db.TableSizer)
	if !ok {
		return ds, nil
	}
	known := func(n int64) *int64 {
		if n < 0 {
			return nil
		}
		return &n
	}
	for _, t := range tables {
		ts, err := sizer.TableSize(ctx, conn, t)
		if err != nil {
			return nil, fmt.Errorf("size of table %s: %w", t, err)
		}
		ds.Tables = append(ds.Tables, results.DatasetTable{Name: t, Rows: ts.Rows, RowsExact: ts.RowsExact,
			Bytes: known(ts.Bytes), IndexBytes: known(ts.IndexBytes)})
	}
	return ds, nil
}
