package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/metrics"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/workload"
)

type runOpts struct {
	db          string
	cfg         loadgen.Config
	progress    time.Duration
	percentiles []float64
	// percentileList is --percentiles as given.
	percentileList string
	json           string
	results        string
	noSave         bool
	// noDoctor is --no-doctor.
	noDoctor bool
	outs     reportOuts
	// collect is --collect as given; collectKinds the parsed set.
	collect      string
	collectKinds map[string]bool
	// physical is --physical.
	physical string
	// createExtensions is --create-extensions; verbose --verbose.
	createExtensions, verbose bool
	stmtTimeout               time.Duration
	// set is --set as given; sets the parsed settings.
	set  []string
	sets []db.Assignment
	// dop is --dop.
	dop  int
	live liveOpts
	// hdrLog is --hdr-log.
	hdrLog string
	// shard, group and groupTimeout are --shard, --group and
	// --group-timeout; shardOf the parsed shard, nil for a run of one
	// process.
	shard, group string
	groupTimeout time.Duration
	shardOf      *results.Shard
	// label is --label.
	label string
	// serverEvidence is --server-evidence.
	serverEvidence string
}

// liveOpts are --metrics-addr and --metrics-linger.
type liveOpts struct {
	addr   string
	linger time.Duration
}

func (o *runOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL: postgres://... (or libpq's 'host=... dbname=...'), mysql://user:pass@host:port/db, sqlite://PATH (default: $DBHARNESS_DB, else PostgreSQL when PGHOST, PGPORT, PGUSER or PGDATABASE is set, else the embedded SQLite database)")
	fs.IntVarP(&o.cfg.Clients, "clients", "c", 1, "concurrent clients, one connection each")
	durationVarP(fs, &o.cfg.Duration, "duration", "T", 0, "measured duration (e.g. 60s, 5m; a bare number is seconds); default 10s unless --transactions is given")
	fs.Int64VarP(&o.cfg.Transactions, "transactions", "t", 0, "transactions per client, instead of --duration")
	durationVarP(fs, &o.cfg.Warmup, "warmup", "", 0, "warm-up before measuring, reported apart and excluded from the summary")
	floatVarP(fs, &o.cfg.Rate, "rate", "R", 0, 0, maxRate, "open loop: target total transactions per second (at most 10 million), Poisson arrivals; latency counts from the intended start")
	millisVarP(fs, &o.cfg.LatencyLimit, "latency-limit", "L", 0, "count transactions slower than this as late (e.g. 10ms, 1.5s; a bare number is milliseconds, as pgbench's -L)")
	fs.IntVar(&o.cfg.Terminals, "terminals", 0, "TPC-C-style terminal mode: this many emulated terminals (goroutines) share the --clients connections; for ch, its TPC-C terminals, each a client with a connection of its own")
	fs.BoolVar(&o.cfg.ThinkTimes, "keying-think", false, "with --terminals: wait the workload's keying and think times (TPC-C clause 5.2.5), so throughput is paced as the specification's")
	fs.BoolVarP(&o.cfg.ReportStatements, "report-per-statement", "r", false, "time each statement of the transactions (pgbench scripts, tpcb): an HdrHistogram per statement, in the summary, the JSON and the HTML report, as pgbench's -r")
	fs.BoolVarP(&o.cfg.ConnectPerTx, "connect", "C", false, "open a new connection for each transaction and close it after, as pgbench's -C (pgbench scripts, tpcb); the time to connect is in the tps, and in the latency only in an open loop (--rate), as in pgbench")
	fs.IntVar(&o.cfg.MaxTries, "max-tries", 1, "tries per transaction on serialization failure or deadlock (1 = no retry)")
	durationVarP(fs, &o.stmtTimeout, "statement-timeout", "", 0, "end statements that run longer than this (the server's statement_timeout or max_statement_time; on SQLite the client interrupts them), counted as errors of class timeout (default: no limit)")
	fs.StringArrayVar(&o.set, "set", nil, "set a session setting on every connection of the run, e.g. --set synchronous_commit=off (repeatable): a startup parameter on PostgreSQL, SET SESSION on MySQL/MariaDB; checked with the server before the run, recorded with it, and swept with sweep's --vary set.NAME=V1,V2")
	fs.IntVar(&o.dop, "dop", 0, "degree of parallelism: the processes each query may use, leader included (1 = serial; PostgreSQL: max_parallel_workers_per_gather = N-1; SQL Server: OPTION (MAXDOP N) on each SELECT; Babelfish: its max_parallel_workers_per_gather = N-1); default the server's setting; refused where the engine has no intra-query parallelism (MySQL/MariaDB, SQLite); swept with sweep's --dop 1,2,4")
	durationVarP(fs, &o.cfg.ReconnectTimeout, "reconnect-timeout", "", 0, "how long a client that lost its connection tries to connect again before the run ends as failed (default: 30s with --transactions; with --duration, until the run's end)")
	durationVarP(fs, &o.cfg.StallTimeout, "stall-timeout", "", 0, "end the run as failed when every client has waited this long for the server to answer its transaction (default: 60s with --transactions; with --duration, the run's end; 0: never)")
	durationVarP(fs, &o.progress, "progress", "P", time.Second, "progress line interval (0 = no progress lines)")
	fs.StringVar(&o.percentileList, "percentiles", "50,90,95,99,99.9", "latency percentiles to report (50, 90, 95 and 99 are always included)")
	fs.StringVar(&o.label, "label", "", "name the run (a sweep: the sweep and its runs) in a few words, e.g. \"sync commit off\"; runs, sweeps, show, compare and the reports show it")
	fs.Uint64Var(&o.cfg.Seed, "seed", 0, "random seed for transaction parameters (default: a random seed, recorded with the run)")
	fs.StringVar(&o.json, "json", "", "write the run as JSON to FILE (- for standard output)")
	resultsFlag(fs, &o.results)
	fs.BoolVar(&o.noSave, "no-save", false, "do not save the run in the results store")
	fs.BoolVar(&o.noDoctor, "no-doctor", false, "skip the client host's pre-flight check (a second of dbharness doctor's host checks, taken as the run sets up, recorded with the run and warned of)")
	o.outs.flagsFor("run")(fs)
	fs.StringVar(&o.collect, "collect", "all", collect.Help())
	fs.StringVar(&o.serverEvidence, "server-evidence", "", "for a SQL Server run on Babelfish (--db sqlserver://...): the postgres:// URL of the same server's PostgreSQL side, from which the server's counters, wait profile and process are read, with the PostgreSQL engine's collectors, and labelled as Babelfish's PostgreSQL side")
	fs.StringVar(&o.physical, "physical", "auto", "with --collect physical: limited (no leaf page read: catalog and b-tree metapage), sampled (a sample of the leaf pages of an index above 10000 pages, all below), detailed (every page), or auto: detailed when the workload's tables and indexes are below 64 MiB, else limited (limited on MySQL/MariaDB, where the leaf modes run ANALYZE TABLE)")
	fs.BoolVar(&o.createExtensions, "create-extensions", false, "let the collectors create the extensions they measure with in the target database (PostgreSQL's pgstattuple and pageinspect, for --collect physical); the run says what it created. Without it the run changes no schema: it measures what it can and says what it would need")
	fs.BoolVar(&o.verbose, "verbose", false, "print the whole summary: every row of the physical table (by default only the tables and indexes that changed notably) and the harness's driver in full")
	fs.StringVar(&o.cfg.Driver, "driver", "", "how clients run: loop (event loops that own every connection, as pgbench's threads do) or goroutine (one goroutine per client); default loop where the engine has it (PostgreSQL, MySQL/MariaDB) and no --terminals")
	fs.BoolVar(&o.cfg.PinLoops, "pin-loops", true, "when there is an event loop for every CPU the process may use (two or more), keep each loop's thread on a CPU of its own (--pin-loops=false leaves them to the system's scheduler)")
	fs.BoolVar(&o.cfg.FollowServer, "follow-server", true, "with the loops pinned, move each connection now and then to the loop on the CPU its server process runs on, so that their wake-ups do not cross CPUs (--follow-server=false keeps every connection on the loop it was dealt)")
	fs.IntVarP(&o.cfg.Loops, "loops", "j", 0, "event loops (OS threads, as pgbench's -j threads) that share the clients with the loop driver (default: one per processor, up to one per client, when the database is on this host; else 1)")
	fs.StringVar(&o.live.addr, "metrics-addr", "", "serve the run's live figures to Prometheus at http://HOST:PORT/metrics (off by default); the address is bound before the run starts")
	durationVarP(fs, &o.live.linger, "metrics-linger", "", 0, "with --metrics-addr: keep /metrics up this long after the run is saved, so that a last scrape sees the final counts")
	fs.StringVar(&o.hdrLog, "hdr-log", "", "write the run's per-interval latency histograms to FILE in HdrHistogram's interval log format, one tag per transaction type")
	fs.StringVar(&o.shard, "shard", "", "run as shard I/N (I from 0 to N-1) of a group of N processes, with --group: its share of --clients (and --terminals) under global client ids, and --rate/N; auto/N takes I from $JOB_COMPLETION_INDEX (a Kubernetes indexed Job)")
	fs.StringVar(&o.group, "group", "", "with --shard: the group's name, the same for its every shard and new for each group run; the shards meet in the results store and start at one instant")
	durationVarP(fs, &o.groupTimeout, "group-timeout", "", time.Minute, "with --shard: how long a shard waits for the group's other shards")
}

// maxLabel is the longest --label, in characters: a name, not a note.
const maxLabel = 100

// checkLabel checks --label: a few words on one line, without a URL's
// password (a label is printed and stored as given).
func checkLabel(label string) error {
	n := utf8.RuneCountInString(label)
	switch {
	case strings.TrimSpace(label) == "":
		return usagef("--label is empty; give the run a name in a few words, e.g. --label \"sync commit off\"")
	case !utf8.ValidString(label):
		return usagef("--label is not valid UTF-8 text")
	case n > maxLabel:
		return usagef("--label is %d characters long; a label is a name of at most %d, not a note", n, maxLabel)
	case strings.IndexFunc(label, unicode.IsControl) >= 0:
		return usagef("--label %q holds a control character (a tab or a line break); give it on one line", label)
	case redact.String(label) != label:
		return usagef("--label holds a password (%s); a label is printed and stored as given, so leave the password out", redact.String(label))
	}
	return nil
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
	if fs.Changed("label") {
		if err := checkLabel(o.label); err != nil {
			return err
		}
	}
	var err error
	if o.stmtTimeout < 0 {
		return usagef("--statement-timeout %s is negative", o.stmtTimeout)
	}
	if o.sets, err = parseSets(o.set); err != nil {
		return err
	}
	if fs.Changed("dop") && (o.dop < 1 || o.dop > db.MaxDOP) {
		return usagef("--dop %d: give the processes each query may use, leader included, from 1 (serial) to %d", o.dop, db.MaxDOP)
	}
	if fs.Changed("reconnect-timeout") && o.cfg.ReconnectTimeout <= 0 {
		return usagef("--reconnect-timeout %s: give a positive duration, e.g. 30s", o.cfg.ReconnectTimeout)
	}
	if fs.Changed("stall-timeout") && o.cfg.StallTimeout == 0 {
		o.cfg.StallTimeout = -1 // never, as the engine says it
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
	if o.percentiles, err = parsePercentiles(o.percentileList); err != nil {
		return err
	}
	if err := o.outs.validate(); err != nil {
		return err
	}
	if err := checkOutputFile("--json", o.json); err != nil {
		return err
	}
	if o.hdrLog == "-" {
		return usagef("--hdr-log takes a file name, not standard output")
	}
	if err := checkOutputFile("--hdr-log", o.hdrLog); err != nil {
		return err
	}
	if o.live.addr != "" {
		if err := metrics.CheckAddr(o.live.addr); err != nil {
			return usageError{err.Error()}
		}
	} else if fs.Changed("metrics-linger") {
		return usagef("--metrics-linger is for --metrics-addr")
	}
	if o.json == "-" {
		if err := oneStdout(append([]string{"--json"}, o.outs.stdout()...)...); err != nil {
			return err
		}
	}
	kinds, err := collect.ParseKinds(o.collect)
	if err != nil {
		return usageError{err.Error()}
	}
	o.collectKinds = kinds
	if _, _, err := collect.PhysicalMode(o.physical, 0, ""); err != nil {
		return usageError{err.Error()}
	}
	if fs.Changed("physical") && !kinds[collect.KindPhysical] {
		return usagef("--physical %s is for --collect physical (or all), which this run leaves out", o.physical)
	}
	if o.cfg.ThinkTimes && o.cfg.Terminals == 0 {
		return usagef("--keying-think needs --terminals N: keying and think times belong to emulated terminals")
	}
	if err := o.cfg.Validate(); err != nil {
		return usageError{err.Error()}
	}
	return o.parseShard(fs)
}

// parseSets reads the --set flags; a setting given twice is refused.
func parseSets(ss []string) ([]db.Assignment, error) {
	var out []db.Assignment
	seen := map[string]bool{}
	for _, s := range ss {
		a, err := db.ParseAssignment(s)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if k := strings.ToLower(a.Name); seen[k] {
			return nil, usagef("--set %s is given twice; give each setting once", a.Name)
		} else {
			seen[k] = true
		}
		out = append(out, a)
	}
	return out, nil
}

// parseShard reads --shard, --group and --group-timeout.
func (o *runOpts) parseShard(fs *pflag.FlagSet) error {
	if o.shard == "" {
		if o.group != "" || fs.Changed("group-timeout") {
			return usagef("--group and --group-timeout are for a run of shards: give --shard I/N")
		}
		return nil
	}
	is, ns, ok := strings.Cut(o.shard, "/")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 {
		return usagef("--shard %q: give I/N, e.g. 0/3 for the first of 3 shards, or auto/N", o.shard)
	}
	if is == "auto" {
		env := os.Getenv("JOB_COMPLETION_INDEX")
		if env == "" {
			return usagef("--shard auto/%d takes the index from $JOB_COMPLETION_INDEX, which is not set (it is, in a Kubernetes Job with completionMode Indexed)", n)
		}
		is = env
	}
	i, err := strconv.Atoi(is)
	switch {
	case err != nil:
		return usagef("--shard %q: the index %q is not a number", o.shard, is)
	case i < 0 || i >= n:
		return usagef("--shard %d/%d: the index runs from 0 to %d", i, n, n-1)
	case o.group == "":
		return usagef("--shard needs --group NAME: the shards of a run meet under it in the results store")
	case o.noSave:
		return usagef("--shard needs the results store, where the shards meet; drop --no-save")
	case o.cfg.Clients < n:
		return usagef("--shard %d/%d: --clients %d is fewer than the shards; each shard runs at least one client", i, n, o.cfg.Clients)
	case o.cfg.Terminals > 0 && o.cfg.Terminals < n:
		return usagef("--shard %d/%d: --terminals %d is fewer than the shards; each shard runs at least one terminal", i, n, o.cfg.Terminals)
	case o.groupTimeout <= 0:
		return usagef("--group-timeout %s: give a positive duration, e.g. 60s", o.groupTimeout)
	}
	o.shardOf = &results.Shard{Group: o.group, Index: i, Count: n}
	return nil
}

// runSpec is a parsed `run` command line.
type runSpec struct {
	args   []string
	wl     workload.Generator
	opts   runOpts
	fs     *pflag.FlagSet
	target *db.Target
	// serverSide is --server-evidence's target, nil without it.
	serverSide *db.Target
}

// BabelfishPostgresSide labels the evidence read from Babelfish's
// PostgreSQL side (--server-evidence).
const BabelfishPostgresSide = "Babelfish's PostgreSQL side"

// parseServerEvidence checks --server-evidence: the postgres:// URL of
// the PostgreSQL side of the Babelfish that target (sqlserver://) names.
func parseServerEvidence(raw string, target *db.Target) (*db.Target, error) {
	if raw == "" {
		return nil, nil
	}
	t, err := db.ParseURL(raw)
	switch {
	case err != nil:
		return nil, usagef("--server-evidence %s", strings.TrimPrefix(err.Error(), "--db "))
	case t.Kind != db.Postgres:
		return nil, usagef("--server-evidence %s is a %s URL; give the postgres:// URL of Babelfish's PostgreSQL side (e.g. postgres://user:pass@host:5432/babelfish_db)", t, t.Kind)
	case target.Kind != db.SQLServer:
		return nil, usagef("--server-evidence is for a run on SQL Server's protocol (--db sqlserver://...) against Babelfish, which also answers PostgreSQL's; --db is a %s URL", target.Kind)
	}
	return t, nil
}

// flagSet is a flag value set after the command line is parsed, as if
// given last on it.
type flagSet struct{ name, value string }

// parseRun parses and validates a `run` command line (without "run"), then
// sets the flags of set on it (a sweep's point).
func (a *app) parseRun(args []string, set ...flagSet) (*runSpec, error) {
	sp := &runSpec{args: args}
	if a.workloadHelp("run", args, sp.opts.flags) {
		return nil, pflag.ErrHelp
	}
	wl, err := workloadFor("run", args, sp.opts.flags)
	if err != nil {
		return nil, err
	}
	sp.wl = wl
	if sp.fs, err = a.parseFlags("run", wl, args, sp.opts.flags, set...); err != nil {
		return nil, err
	}
	if mr, ok := wl.(workload.MixedRunner); ok {
		if err := mixedClients(sp.fs, &sp.opts.cfg, mr); err != nil {
			return nil, err
		}
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
	if df, ok := wl.(workload.DOPFlagger); ok {
		// The workload's own flag is --dop by another name.
		if n, flag := df.DOPFlag(); n != 0 {
			if sp.fs.Changed("dop") && sp.opts.dop != n {
				return nil, usagef("%s %d and --dop %d are one setting, the degree of parallelism; give one of them", flag, n, sp.opts.dop)
			}
			sp.opts.dop = n
		}
	}
	if sc, ok := wl.(workload.Scripted); ok {
		n := sc.Clients()
		if sp.fs.Changed("clients") && sp.opts.cfg.Clients != n {
			return nil, usagef("%s runs %d client(s), one for each of its streams; leave out --clients %d", wl.Name(), n, sp.opts.cfg.Clients)
		}
		// Each stream's script runs once, whole, back to back, in one
		// process: what would cut, space or split it is refused.
		for _, f := range []struct{ flag, why string }{
			{"warmup", "a warm-up would take the first part of each script out of the measured test"},
			{"rate", "a stream runs each query as soon as the one before it ends, which --rate would space out"},
			{"shard", "its streams make one test in one process; --shard would split them among processes"},
		} {
			if sp.fs.Changed(f.flag) {
				return nil, usagef("%s runs each stream's script once, whole: %s; leave out --%s", wl.Name(), f.why, f.flag)
			}
		}
		sp.opts.cfg.Clients = n
	}
	if d, ok := wl.(workload.TriesDefaulter); ok && !sp.fs.Changed("max-tries") {
		sp.opts.cfg.MaxTries = d.DefaultMaxTries()
	}
	if err := sp.opts.validate(sp.fs); err != nil {
		return nil, err
	}
	// Workloads that read files (scripts) report their mistakes before
	// connecting.
	if l, ok := wl.(workload.FileReader); ok {
		if err := l.Load(); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	r, ok := wl.(workload.Runner)
	if !ok {
		return nil, usagef("workload %s cannot be run", wl.Name())
	}
	if _, ok := r.(workload.StatementTimer); sp.opts.cfg.ReportStatements && !ok {
		return nil, usagef("-r (--report-per-statement) times the statements of pgbench scripts and tpcb; %s does not time its statements", wl.Name())
	}
	if _, ok := r.(workload.Rebinder); sp.opts.cfg.ConnectPerTx && !ok {
		return nil, usagef("-C (--connect) opens a connection per transaction for pgbench scripts and tpcb; %s cannot move its clients to new connections", wl.Name())
	}
	if n := sp.opts.cfg.Terminals; n > 0 {
		if _, ok := r.(workload.TerminalRunner); !ok {
			return nil, usagef("--terminals is for workloads with emulated terminals (tpcc, tpcc-ro); %s has none", wl.Name())
		}
		if tc, ok := r.(workload.TerminalChecker); ok {
			if err := tc.CheckTerminals(n); err != nil {
				return nil, usageError{err.Error()}
			}
		}
	}
	if sp.target, err = parseTarget(sp.opts.db); err != nil {
		return nil, err
	}
	if sp.serverSide, err = parseServerEvidence(sp.opts.serverEvidence, sp.target); err != nil {
		return nil, err
	}
	return sp, nil
}

// mixedClients sets the clients of a workload whose clients are of two
// kinds (workload.MixedRunner: ch's TPC-C terminals and query streams):
// --terminals, or else --clients, counts its terminals, each a client of
// its own rather than an emulated terminal sharing the connections, and
// the workload adds its streams.
func mixedClients(fs *pflag.FlagSet, cfg *loadgen.Config, mr workload.MixedRunner) error {
	name := mr.(workload.Generator).Name()
	terminals, flag := cfg.Clients, "clients"
	switch {
	case fs.Changed("terminals") && fs.Changed("clients"):
		return usagef("give --terminals or --clients, not both: both count %s's TPC-C terminals", name)
	case fs.Changed("keying-think"):
		return usagef("--keying-think is for emulated terminals that share connections (tpcc); %s's terminals each have a connection and run back to back", name)
	case cfg.Rate > 0:
		return usagef("--rate paces every client alike, and %s's query streams run their queries back to back; leave --rate out", name)
	case fs.Changed("terminals"):
		terminals, flag = cfg.Terminals, "terminals"
	}
	if terminals < 0 {
		return usagef("--%s %d is negative; give 0 or more %s terminals", flag, terminals, name)
	}
	n, err := mr.Clients(terminals)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg.Clients, cfg.Terminals = n, 0
	return nil
}

// config is the parsed run for the runner; the run's text goes to out,
// its warnings to warn.
func (sp *runSpec) config(out, warn io.Writer) runner.Config {
	o := &sp.opts
	return runner.Config{
		Target:              sp.target,
		Workload:            sp.wl,
		WorkloadFlags:       func() map[string]string { return workloadFlags(sp.fs, sp.wl, workload.CmdRun) },
		Command:             append([]string{"dbharness", "run"}, sp.args...),
		Label:               o.label,
		Engine:              o.cfg,
		StatementTimeout:    o.stmtTimeout,
		Set:                 o.sets,
		DOP:                 o.dop,
		Progress:            o.progress,
		Percentiles:         o.percentiles,
		Collect:             o.collectKinds,
		CollectOptions:      map[string]string{collect.KindPhysical: o.physical},
		CreateExtensions:    o.createExtensions,
		ServerEvidence:      sp.serverSide,
		ServerEvidenceLabel: serverSideLabel(sp.serverSide),
		Verbose:             o.verbose,
		Results:             o.results,
		NoSave:              o.noSave,
		Doctor:              !o.noDoctor,
		Shard:               o.shardOf,
		GroupTimeout:        o.groupTimeout,
		Out:                 out,
		Warn:                warn,
	}
}

func (a *app) cmdRun(args []string) error {
	sp, err := a.parseRun(args)
	if err != nil {
		return err
	}
	// Before the results store is opened: a mistyped path creates nothing.
	if err := sp.target.CheckExists(); err != nil {
		return err
	}
	a.noteDefault(sp.target)
	stop, release := signals()
	defer release()
	o := &sp.opts
	// Text goes to stderr when the JSON goes to stdout.
	out := a.stdout
	if o.json == "-" || len(o.outs.stdout()) > 0 {
		out = a.stderr
	}
	cfg := sp.config(out, a.stderr)
	srv, err := a.serveMetrics(o.live)
	if err != nil {
		return err
	}
	if srv != nil {
		defer a.closeMetrics(srv, o.live.linger, stop)
		cfg.Metrics = srv
	}
	if o.hdrLog != "" {
		f, err := os.Create(o.hdrLog)
		if err != nil {
			return fmt.Errorf("--hdr-log %s: %v", o.hdrLog, reason(err))
		}
		defer f.Close()
		cfg.HDRLog = f
	}
	run, err := runner.Run(context.Background(), cfg, stop)
	// A run measured but not saved still writes its outputs, then exits 1.
	var notSaved *runner.NotSavedError
	if err != nil && !errors.As(err, &notSaved) {
		// A run that started and failed is recorded, and --json says why,
		// for the tools that read it.
		if run != nil && o.json != "" {
			if jerr := report.WriteJSON(o.json, run); jerr != nil {
				fmt.Fprintf(a.stderr, "dbharness: warning: %v\n", jerr)
			}
		}
		// A run that failed after it measured (a client could not
		// reconnect) keeps its reports too.
		if run != nil && len(run.Intervals) > 0 && o.outs.any() {
			if werr := a.writeRun(o.outs, run, out); werr != nil {
				fmt.Fprintf(a.stderr, "dbharness: warning: %v\n", werr)
			}
		}
		return err
	}
	if o.json != "" {
		if err := report.WriteJSON(o.json, run); err != nil {
			return err
		}
	}
	if o.outs.any() {
		if err := a.writeRun(o.outs, run, out); err != nil {
			return err
		}
	}
	if notSaved != nil {
		return notSaved
	}
	if run.Status == results.StatusInterrupted {
		return exitError{ExitInterrupted, "run interrupted; the summary covers what was measured"}
	}
	// Failed transactions are counted and the run goes on, for every
	// workload; but a run in which none succeeded measured nothing, so it
	// must not pass for a successful one in a script that checks $?.
	switch s := run.Summary; {
	case s.Transactions == 0 && s.Errors > 0:
		return exitError{ExitFail, fmt.Sprintf("run %s: every transaction failed (%d errors, none succeeded); the first error of each class is shown above", run.RunID, s.Errors)}
	case s.Transactions == 0:
		return exitError{ExitFail, fmt.Sprintf("run %s measured no transaction: none completed in its measured phase, so there is nothing to report; give a longer --duration or a higher --rate", run.RunID)}
	}
	return nil
}

// serveMetrics binds --metrics-addr, before anything connects: an address
// that cannot be served is a usage error. It returns nil when off.
func (a *app) serveMetrics(o liveOpts) (*metrics.Server, error) {
	if o.addr == "" {
		return nil, nil
	}
	srv, err := metrics.Listen(o.addr)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	fmt.Fprintf(a.stderr, "dbharness: serving metrics on %s\n", srv.URL())
	return srv, nil
}

// closeMetrics keeps /metrics up for linger (cut short by an interrupt),
// then stops serving.
func (a *app) closeMetrics(srv *metrics.Server, linger time.Duration, stop <-chan struct{}) {
	if linger > 0 {
		t := time.NewTimer(linger)
		select {
		case <-t.C:
		case <-stop:
			t.Stop()
		}
	}
	_ = srv.Close()
}

// serverSideLabel labels the evidence of --server-evidence's target t.
func serverSideLabel(t *db.Target) string {
	if t == nil {
		return ""
	}
	return BabelfishPostgresSide
}
