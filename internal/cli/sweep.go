package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/sweep"
)

// sweepOpts are the flags of `sweep` itself; every other flag is a run or
// workload flag passed to each run.
type sweepOpts struct {
	clients string
	// dop is --dop, sugar for --vary dop=LIST.
	dop       string
	repeat    int
	vary      []string
	json      string
	resume    string
	orderSeed uint64
	results   string
	db        string
	verbose   bool
	// noSingle is --no-single-stream: no 1-client point is added.
	noSingle bool
	// The sweep's report files (not each run's).
	reports reportOuts
	// live is the runs' --metrics-addr and --metrics-linger: one server
	// for the whole sweep.
	live liveOpts
}

func (o *sweepOpts) flags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.clients, "clients", "c", "1,2,4,8,16", "client counts to sweep, e.g. 1,2,4,8,16 (1 is added unless --no-single-stream)")
	fs.StringVar(&o.dop, "dop", "", "degrees of parallelism to sweep, e.g. 1,2,4,8: each run's --dop (the processes a query may use, leader included), crossed with the clients as --vary dop=1,2,4,8 is")
	fs.BoolVar(&o.noSingle, "no-single-stream", false, "do not add the 1-client point (the single-stream baseline of efficiency, inflation and the USL fit), e.g. for an A/B at one client count")
	fs.IntVar(&o.repeat, "repeat", 1, "repeat every point this many times (rounds, each in a random order)")
	fs.StringArrayVar(&o.vary, "vary", nil, "sweep a run or workload flag too, e.g. --vary batch=1,10,100 (repeatable; crossed with the clients); a flag of init, e.g. --vary key=serial,uuid-random, runs init before the runs that need other data; a session setting with set.NAME, e.g. --vary set.synchronous_commit=on,off")
	fs.StringVar(&o.json, "json", "", "write the sweep and its analysis as JSON to FILE (- for standard output)")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted sweep SWEEP with its saved plan")
	fs.Uint64Var(&o.orderSeed, "order-seed", 0, "seed of the random run order (default: random, recorded with the sweep)")
	fs.BoolVar(&o.verbose, "verbose", false, "print each run's progress and summary")
	o.reports.flagsFor("sweep")(fs)
}

// splitSweepArgs separates the sweep's own flags from the run arguments.
func splitSweepArgs(args []string) (own, rest []string, err error) {
	names, short := splitNames((&sweepOpts{}).flags)
	return splitFlags(args, names, short)
}

// splitNames are the flags that flags defines, for splitFlags: each name's
// and shorthand's bool says whether it takes a value (a bool flag does
// not), and short maps the shorthands to their names.
func splitNames(flags func(fs *pflag.FlagSet)) (names map[string]bool, short map[string]string) {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	flags(fs)
	names, short = map[string]bool{}, map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		names[f.Name] = f.NoOptDefVal == ""
		if f.Shorthand != "" {
			names[f.Shorthand] = names[f.Name]
			short[f.Shorthand] = f.Name
		}
	})
	return names, short
}

// splitFlags separates a command's own flags (names: each name's bool says
// whether it takes a value; short: its one-letter shorthands) from the
// arguments it passes on to the runs, keeping their order. The own flags
// come back as --name=value.
func splitFlags(args []string, names map[string]bool, short map[string]string) (own, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		var name, val string
		hasVal := false
		switch {
		case strings.HasPrefix(a, "--"):
			name, val, hasVal = strings.Cut(a[2:], "=")
		case len(a) >= 2 && a[0] == '-' && short[a[1:2]] != "":
			name = a[1:2]
			if len(a) > 2 {
				val, hasVal = strings.TrimPrefix(a[2:], "="), true
			}
		default:
			rest = append(rest, a)
			continue
		}
		takes, ours := names[name]
		if !ours {
			rest = append(rest, a)
			continue
		}
		flag := "--" + name
		if long := short[name]; long != "" {
			flag = "--" + long
		}
		if !takes {
			own = append(own, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, usagef("%s needs a value", flag)
			}
			i++
			val = args[i]
		}
		own = append(own, flag+"="+val)
	}
	return own, rest, nil
}

// parseClients reads --clients: positive, distinct, sorted, with 1 added
// unless noSingle.
func parseClients(s string, noSingle bool) (clients []int, added bool, err error) {
	clients, err = parseCounts("--clients", s, maxInt, "a positive whole number")
	if err != nil {
		return nil, false, err
	}
	if !slices.Contains(clients, 1) && !noSingle {
		clients = append(clients, 1)
		added = true
	}
	sort.Ints(clients)
	return clients, added, nil
}

const maxInt = int(^uint(0) >> 1)

// parseCounts reads a flag's comma-separated list of whole numbers from 1
// to hi, distinct, in the order given; what says what each must be, in the
// error.
func parseCounts(flag, s string, hi int, what string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > hi {
			return nil, usagef("%s %q: %q is not %s; give a list such as 1,2,4,8", flag, s, f, what)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, usagef("%s %q is empty; give a list such as 1,2,4,8", flag, s)
	}
	return out, nil
}

// parseDOPs reads sweep's --dop (parseCounts, up to db.MaxDOP) as a
// --vary list.
func parseDOPs(s string) (string, error) {
	dops, err := parseCounts("--dop", s, db.MaxDOP, fmt.Sprintf("a degree of parallelism (a whole number from 1, serial, to %d)", db.MaxDOP))
	if err != nil {
		return "", err
	}
	out := make([]string, len(dops))
	for i, n := range dops {
		out[i] = strconv.Itoa(n)
	}
	return strings.Join(out, ","), nil
}

// parseVary reads the --vary flags.
func parseVary(vs []string) ([]results.VaryFlag, error) {
	var out []results.VaryFlag
	seen := map[string]bool{}
	for _, v := range vs {
		name, vals, ok := strings.Cut(v, "=")
		name = strings.TrimLeft(strings.TrimSpace(name), "-")
		if !ok || name == "" {
			return nil, usagef("--vary %q: give FLAG=VALUE1,VALUE2,..., e.g. --vary batch=1,10,100", v)
		}
		switch name {
		case "clients", "c":
			return nil, usagef("--vary %q: sweep clients with --clients", v)
		case "json", "no-save", "results", "db", "repeat", "vary", "resume", "label":
			return nil, usagef("--vary %q: --%s cannot be swept", v, name)
		}
		if set, ok := strings.CutPrefix(name, setPrefix); ok && !db.ValidSettingName(set) {
			return nil, usagef("--vary %q: give set.NAME=V1,V2,... with a setting's name (letters, digits, _ and .), e.g. --vary set.synchronous_commit=on,off", v)
		}
		if seen[name] {
			return nil, usagef("--vary %s is given twice; list all its values in one --vary", name)
		}
		seen[name] = true
		f := results.VaryFlag{Flag: name}
		dup := map[string]bool{}
		for _, x := range strings.Split(vals, ",") {
			x = strings.TrimSpace(x)
			if x == "" || dup[x] {
				continue
			}
			dup[x] = true
			f.Values = append(f.Values, x)
		}
		if len(f.Values) == 0 {
			return nil, usagef("--vary %q has no values", v)
		}
		out = append(out, f)
	}
	return out, nil
}

// setPrefix starts a swept session setting's name in --vary
// (set.synchronous_commit): each run gets --set NAME=VALUE.
const setPrefix = "set."

// varyFlag is the run flag and value that give a swept flag's value: the
// flag itself, or --set NAME=VALUE for set.NAME.
func varyFlag(flag, value string) flagSet {
	if name, ok := strings.CutPrefix(flag, setPrefix); ok {
		return flagSet{"set", name + "=" + value}
	}
	return flagSet{flag, value}
}

// withoutVaried removes a swept flag given as a plain flag too from args:
// the flag, or for set.NAME the --set of that setting.
func withoutVaried(args []string, flag string) []string {
	name, ok := strings.CutPrefix(flag, setPrefix)
	if !ok {
		return withoutFlag(args, flag)
	}
	var out []string
	for i := 0; i < len(args); i++ {
		val, isSet := strings.CutPrefix(args[i], "--set=")
		if args[i] == "--set" && i+1 < len(args) {
			val, isSet = args[i+1], true
		}
		if n, _, _ := strings.Cut(val, "="); isSet && strings.EqualFold(strings.TrimSpace(n), name) {
			if args[i] == "--set" {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// pointArgs are the run arguments of one planned run, as the run records
// its command line.
func pointArgs(base []string, pr results.SweepRun, vary []results.VaryFlag) []string {
	args := append([]string{}, base...)
	args = append(args, "--clients="+strconv.Itoa(pr.Clients))
	for _, v := range vary {
		f := varyFlag(v.Flag, pr.Vary[v.Flag])
		args = append(args, "--"+f.name+"="+f.value)
	}
	return args
}

func (a *app) cmdSweep(args []string) error {
	own, rest, err := splitSweepArgs(args)
	if err != nil {
		return err
	}
	var o sweepOpts
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.flags(fs)
	if err := fs.Parse(own); err != nil {
		return usagef("%s (for `dbharness sweep`)", flagError(err))
	}
	for _, r := range rest {
		if r == "-h" || r == "--help" {
			return a.sweepHelp(fs, rest)
		}
	}
	if err := o.reports.validate(); err != nil {
		return err
	}
	if err := checkOutputFile("--json", o.json); err != nil {
		return err
	}
	if o.resume != "" {
		return a.resumeSweep(&o, fs, rest)
	}
	for _, a := range rest {
		if name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); a != name && (name == "shard" || name == "group" || name == "group-timeout") {
			return usagef("--%s is for `run`: a sweep's runs are not shards", name)
		}
	}
	// Name the sweep, not each run, when the workload is missing.
	wl, err := workloadFor("sweep", rest, (&runOpts{}).flags)
	if err != nil {
		return err
	}
	if o.repeat < 1 {
		return usagef("--repeat %d: give at least 1", o.repeat)
	}
	clients, added, err := parseClients(o.clients, o.noSingle)
	if err != nil {
		return err
	}
	if fs.Changed("dop") {
		dops, err := parseDOPs(o.dop)
		if err != nil {
			return err
		}
		for _, v := range o.vary {
			if name, _, _ := strings.Cut(strings.TrimLeft(strings.TrimSpace(v), "-"), "="); strings.TrimSpace(name) == "dop" {
				return usagef("--dop %s and --vary %s sweep the same flag; give one of them", o.dop, v)
			}
		}
		o.vary = append(o.vary, "dop="+dops)
	}
	vary, err := parseVary(o.vary)
	if err != nil {
		return err
	}
	if !fs.Changed("order-seed") {
		o.orderSeed = randomSeed()
	}
	// A swept flag given as a plain flag too takes the swept values.
	for _, v := range vary {
		rest = withoutVaried(rest, v.Flag)
	}
	si := newSweepInit(wl, vary)
	if rest, err = si.takeArgs(wl, rest); err != nil {
		return err
	}
	plan := sweep.Plan(clients, vary, o.repeat, o.orderSeed)
	// Check the first point alone, then fix the base arguments before
	// parsing every point.
	base, err := a.parsePoint(rest, plan[0], si.runVary(vary))
	if err != nil {
		return err
	}
	var notes []string
	if !base.fs.Changed("progress") && base.opts.cfg.Transactions == 0 && base.opts.cfg.Duration < 10*time.Second {
		// Short runs: measure in tenths of the duration (at least 100ms),
		// so that a single run still has intervals to bootstrap.
		iv := max(base.opts.cfg.Duration/10, 100*time.Millisecond).Round(time.Millisecond)
		rest = append(rest, "--progress="+iv.String())
		notes = append(notes, fmt.Sprintf("runs shorter than 10s are measured in %s intervals", iv))
	}
	o.results = base.opts.results
	points, live, err := a.sweepPoints(rest, plan, vary, si, o.results)
	if err != nil {
		return err
	}
	o.live = live
	if base.opts.noSave {
		return usagef("--no-save cannot be used with sweep: its runs are kept in the results store")
	}
	if base.opts.json != "" {
		return usagef("--json is the sweep's output here; each run is saved in the results store")
	}
	t := base.target
	a.noteDefault(t)
	sw := &results.Sweep{
		SchemaVersion: results.SweepSchemaVersion,
		SweepID:       results.NewSweepID(time.Now()),
		Workload:      base.wl.Name(),
		Label:         base.opts.label,
		Command:       results.RedactArgs(append([]string{"dbharness", "sweep"}, args...)),
		BaseArgs:      results.RedactArgs(rest),
		Target:        t.String(),
		Clients:       clients,
		Vary:          vary,
		Repeat:        o.repeat,
		OrderSeed:     o.orderSeed,
		Status:        results.StatusRunning,
		StartTime:     time.Now(),
		Plan:          plan,
		RunIDs:        []string{},
	}
	if sw.Vary == nil {
		sw.Vary = []results.VaryFlag{}
	}
	if added {
		sw.Notes = append(sw.Notes, "1 client added: every sweep starts with the single-stream performance unit test (--no-single-stream leaves it out)")
	}
	sw.Notes = append(sw.Notes, notes...)
	if si != nil {
		sw.InitArgs = si.args
		sw.Notes = append(sw.Notes, si.note())
	}
	return a.execSweep(&o, sw, points)
}

// parsePoint parses the run of one planned run: the base arguments with
// the point's clients and swept values set on them.
func (a *app) parsePoint(base []string, pr results.SweepRun, vary []results.VaryFlag) (*runSpec, error) {
	set := []flagSet{{"clients", strconv.Itoa(pr.Clients)}}
	for _, v := range vary {
		set = append(set, varyFlag(v.Flag, pr.Vary[v.Flag]))
	}
	sp, err := a.parseRun(base, set...)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return nil, usageError{strings.Replace(ue.msg, "`run ", "`sweep ", 1)}
		}
		return nil, err
	}
	return sp, nil
}

// sweepPoints parses the run (and the init) of every planned run before
// anything runs, and returns their configurations; the runs are saved in
// the results store storePath, with the --metrics-addr and
// --metrics-linger they share.
func (a *app) sweepPoints(base []string, plan []results.SweepRun, vary []results.VaryFlag, si *sweepInit, storePath string) ([]sweep.Point, liveOpts, error) {
	if storePath == "" {
		storePath = store.DefaultPath()
	}
	runVary := si.runVary(vary)
	points := make([]sweep.Point, len(plan))
	var live liveOpts
	for i, pr := range plan {
		sp, err := a.parsePoint(base, pr, runVary)
		if err != nil {
			return nil, liveOpts{}, err
		}
		if sp.opts.hdrLog != "" {
			return nil, liveOpts{}, usagef("--hdr-log is for run; `dbharness report RUN --hdr-log FILE` writes the log of each of a sweep's runs")
		}
		live = sp.opts.live
		points[i].Run = sp.config(nil, nil)
		points[i].Run.Command = append([]string{"dbharness", "run"}, append(pointArgs(base, pr, runVary), "--results="+storePath)...)
	}
	if si == nil {
		return points, live, nil
	}
	for i, pr := range plan {
		args := si.argsFor(pr)
		isp, err := a.parseInit(args)
		if err != nil {
			return nil, liveOpts{}, err
		}
		ic := isp.config(points[i].Run.Target)
		points[i].Init, points[i].InitKey = &ic, strings.Join(args, " ")
	}
	return points, live, nil
}

func (a *app) sweepHelp(fs *pflag.FlagSet, rest []string) error {
	fmt.Fprintf(a.stdout, "Usage: dbharness sweep WORKLOAD --clients 1,2,4,8 [--repeat N] [--vary FLAG=V1,V2]... [run and workload flags]\n"+
		"       dbharness sweep --resume SWEEP [--db URL]\n\nSweep flags:\n%s\nEvery other flag is given to each run; see `dbharness run WORKLOAD --help`.\n", fs.FlagUsages())
	return pflag.ErrHelp
}

// resumeSweep continues an interrupted or failed sweep.
func (a *app) resumeSweep(o *sweepOpts, fs *pflag.FlagSet, rest []string) error {
	var extra []string
	for i := 0; i < len(rest); i++ {
		r := rest[i]
		switch {
		case r == "--db" && i+1 < len(rest):
			o.db = rest[i+1]
			i++
		case strings.HasPrefix(r, "--db="):
			o.db = strings.TrimPrefix(r, "--db=")
		case r == "--results" && i+1 < len(rest):
			o.results = rest[i+1]
			i++
		case strings.HasPrefix(r, "--results="):
			o.results = strings.TrimPrefix(r, "--results=")
		default:
			extra = append(extra, r)
		}
	}
	for _, name := range []string{"clients", "repeat", "vary", "order-seed", "no-single-stream"} {
		if fs.Changed(name) {
			extra = append(extra, "--"+name)
		}
	}
	if len(extra) > 0 {
		return usagef("--resume continues the saved plan; besides it give only --db, --results, --json, %s or --verbose (got %s)", o.reports.flagList(false), strings.Join(extra, " "))
	}
	st, err := store.Open(o.results)
	if err != nil {
		return err
	}
	sw, err := st.GetSweep(context.Background(), o.resume)
	st.Close()
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w; `dbharness sweeps` lists them", err)
		}
		return err
	}
	base := append([]string{}, sw.BaseArgs...)
	if o.db != "" {
		base = withoutFlag(base, "db")
		base = append(base, "--db="+o.db)
	} else if redact.Hidden(strings.Join(base, " ")) {
		return usagef("sweep %s's database URL had a password, which is not stored; give --db URL again with --resume", sw.SweepID)
	}
	if o.results != "" {
		base = withoutFlag(base, "results")
		base = append(base, "--results="+o.results)
	}
	if err := sweep.CheckResumable(sw); err != nil {
		return err
	}
	points := make([]sweep.Point, len(sw.Plan))
	msg := a.stdout
	if o.json == "-" {
		msg = a.stderr // standard output is the JSON's alone
	}
	if sw.Status == results.StatusCompleted {
		fmt.Fprintf(msg, "sweep %s is already complete\n", sw.SweepID)
	} else {
		// Parse the command lines again (workload flags may have changed
		// between versions).
		wl, err := workloadFor("sweep", base, (&runOpts{}).flags)
		if err != nil {
			return err
		}
		si := newSweepInit(wl, sw.Vary)
		if si != nil {
			si.args = sw.InitArgs
		}
		if points, o.live, err = a.sweepPoints(base, sw.Plan, sw.Vary, si, o.results); err != nil {
			return err
		}
		fmt.Fprintf(msg, "resuming sweep %s\n", sw.SweepID)
	}
	sw.Status, sw.Error = results.StatusRunning, ""
	return a.execSweep(o, sw, points)
}

// checkSettings checks every point's --set settings and --dop with the
// server before any run (each distinct list once): a setting the server
// refuses, or a --dop the engine has none of, is the user's to fix.
func checkSettings(points []sweep.Point) error {
	checked := map[string]bool{}
	for _, p := range points {
		if (len(p.Run.Set) == 0 && p.Run.DOP == 0) || p.Run.Target == nil {
			continue
		}
		key := fmt.Sprint(p.Run.Set, p.Run.DOP)
		if checked[key] {
			continue
		}
		checked[key] = true
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := db.CheckDOP(ctx, p.Run.Target, p.Run.Set, p.Run.DOP)
		if p.Run.DOP == 0 {
			err = db.CheckSession(ctx, p.Run.Target, p.Run.Set)
		}
		cancel()
		se, de := (*db.SettingError)(nil), (*db.DOPError)(nil)
		if errors.As(err, &se) || errors.As(err, &de) {
			return usageError{err.Error()}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// withoutFlag removes --name and --name=value (and its value) from args.
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--"+name {
			i++
			continue
		}
		if strings.HasPrefix(args[i], "--"+name+"=") {
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// execSweep makes the sweep's runs not completed yet (points[i] is the
// configuration of sw.Plan[i]), then prints, writes and saves its analysis.
func (a *app) execSweep(o *sweepOpts, sw *results.Sweep, points []sweep.Point) error {
	// A database file that does not exist fails the sweep before it is
	// saved, unless the sweep runs init, which creates it.
	for _, p := range points {
		if p.Init == nil && p.Run.Target != nil {
			if err := p.Run.Target.CheckExists(); err != nil {
				return err
			}
		}
	}
	if err := checkSettings(points); err != nil {
		return err
	}
	out := a.stdout
	if o.json == "-" {
		out = a.stderr
	}
	stop, release := signals()
	defer release()
	srv, err := a.serveMetrics(o.live)
	if err != nil {
		return err
	}
	if srv != nil {
		defer a.closeMetrics(srv, o.live.linger, stop)
		for i := range points {
			points[i].Run.Metrics = srv
		}
	}
	oc, err := sweep.Run(context.Background(), sw, points, sweep.Options{Results: o.results, Out: out, Warn: a.stderr, Verbose: o.verbose, Stop: stop,
		Resumed: o.resume != ""})
	if err != nil {
		return err
	}
	report.SweepTable(out, sw)
	fmt.Fprintf(out, "saved as sweep %s in %s\n", sw.SweepID, oc.Store)
	if o.json != "" {
		if err := report.WriteJSON(o.json, sw); err != nil {
			return err
		}
	}
	if o.reports.any() {
		msg := out
		if len(o.reports.stdout()) > 0 {
			msg = a.stderr
		}
		if err := writeSweepReports(o.reports, msg, sw); err != nil {
			return err
		}
	}
	switch {
	case oc.Failure != nil:
		return fmt.Errorf("sweep %s stopped after %d of %d runs: %v; fix the cause and continue it with `dbharness sweep --resume %s`",
			sw.SweepID, oc.Done, len(sw.Plan), oneLine(oc.Failure.Error()), sw.SweepID)
	case oc.Interrupted:
		return exitError{ExitInterrupted, fmt.Sprintf("sweep %s interrupted after %d of %d runs; continue it with `dbharness sweep --resume %s`",
			sw.SweepID, oc.Done, len(sw.Plan), sw.SweepID)}
	}
	return nil
}
