package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/experiment"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
)

// sweepOpts are the flags of `sweep` itself; every other flag is a run or
// workload flag passed to each run.
type sweepOpts struct {
	clients   string
	repeat    int
	vary      []string
	json      string
	resume    string
	orderSeed uint64
	results   string
	db        string
	verbose   bool
	// The sweep's report files (not each run's).
	reports reportOuts
}

// sweepFlagNames are the flags `sweep` takes out of the command line before
// the rest goes to each run; the bool says whether the flag takes a value.
var sweepFlagNames = map[string]bool{"clients": true, "c": true, "repeat": true, "vary": true, "json": true,
	"resume": true, "order-seed": true, "verbose": false, "html": true, "csv": true, "markdown": true}

func (o *sweepOpts) flags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.clients, "clients", "c", "1,2,4,8,16", "client counts to sweep, e.g. 1,2,4,8,16 (1 is always included)")
	fs.IntVar(&o.repeat, "repeat", 1, "repeat every point this many times (rounds, each in a random order)")
	fs.StringArrayVar(&o.vary, "vary", nil, "sweep a run or workload flag too, e.g. --vary batch=1,10,100 (repeatable; crossed with the clients); a flag of init, e.g. --vary key=serial,uuid-random, runs init before the runs that need other data")
	fs.StringVar(&o.json, "json", "", "write the sweep and its analysis as JSON to FILE (- for standard output)")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted sweep SWEEP with its saved plan")
	fs.Uint64Var(&o.orderSeed, "order-seed", 0, "seed of the random run order (default: random, recorded with the sweep)")
	fs.BoolVar(&o.verbose, "verbose", false, "print each run's progress and summary")
	fs.StringVar(&o.reports.html, "html", "", "write the sweep's self-contained HTML report to FILE at the end")
	fs.StringVar(&o.reports.csv, "csv", "", "write the sweep's points and runs as CSV files into DIR at the end")
	fs.StringVar(&o.reports.markdown, "markdown", "", "write the sweep's Markdown summary to FILE (- for standard output) at the end")
}

// splitSweepArgs separates the sweep's own flags from the run arguments.
func splitSweepArgs(args []string) (own, rest []string, err error) {
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
		case strings.HasPrefix(a, "-c") && a != "-c":
			name, val, hasVal = "c", strings.TrimPrefix(a[2:], "="), true
		case a == "-c":
			name = "c"
		default:
			rest = append(rest, a)
			continue
		}
		takes, ours := sweepFlagNames[name]
		if !ours {
			rest = append(rest, a)
			continue
		}
		flag := "--" + name
		if name == "c" {
			flag = "--clients"
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

// parseClients reads --clients: positive, distinct, sorted, with 1 added.
func parseClients(s string) (clients []int, added bool, err error) {
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, false, usagef("--clients %q: %q is not a positive whole number; give a list such as 1,2,4,8", s, f)
		}
		if !seen[n] {
			seen[n] = true
			clients = append(clients, n)
		}
	}
	if len(clients) == 0 {
		return nil, false, usagef("--clients %q is empty; give a list such as 1,2,4,8", s)
	}
	if !seen[1] {
		clients = append(clients, 1)
		added = true
	}
	sort.Ints(clients)
	return clients, added, nil
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
		case "json", "no-save", "results", "db", "repeat", "vary", "resume":
			return nil, usagef("--vary %q: --%s cannot be swept", v, name)
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

// varyCombos returns every combination of the vary values (one empty map
// when nothing varies).
func varyCombos(vs []results.VaryFlag) []map[string]string {
	combos := []map[string]string{{}}
	for _, v := range vs {
		var next []map[string]string
		for _, c := range combos {
			for _, x := range v.Values {
				m := make(map[string]string, len(c)+1)
				for k, y := range c {
					m[k] = y
				}
				m[v.Flag] = x
				next = append(next, m)
			}
		}
		combos = next
	}
	return combos
}

// buildPlan lays out every run: repeat rounds, each a random permutation
// (seeded by seed and the round) of clients x vary combinations.
func buildPlan(clients []int, vary []results.VaryFlag, repeat int, seed uint64) []results.SweepRun {
	var points []results.SweepRun
	for _, c := range varyCombos(vary) {
		for _, n := range clients {
			var v map[string]string
			if len(c) > 0 {
				v = c
			}
			points = append(points, results.SweepRun{Clients: n, Vary: v})
		}
	}
	var plan []results.SweepRun
	for round := 1; round <= repeat; round++ {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		perm := rng.Perm(len(points))
		for _, i := range perm {
			p := points[i]
			p.Round = round
			p.Seq = len(plan)
			plan = append(plan, p)
		}
	}
	return plan
}

// pointArgs are the run arguments of one planned run.
func pointArgs(base []string, pr results.SweepRun, vary []results.VaryFlag) []string {
	args := append([]string{}, base...)
	args = append(args, "--clients="+strconv.Itoa(pr.Clients))
	for _, v := range vary {
		args = append(args, "--"+v.Flag+"="+pr.Vary[v.Flag])
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
	if o.resume != "" {
		return a.resumeSweep(&o, fs, rest)
	}
	// Name the sweep, not each run, when the workload is missing.
	wl, err := workloadFor("sweep", rest, (&runOpts{}).flags)
	if err != nil {
		return err
	}
	if o.repeat < 1 {
		return usagef("--repeat %d: give at least 1", o.repeat)
	}
	clients, added, err := parseClients(o.clients)
	if err != nil {
		return err
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
		rest = withoutFlag(rest, v.Flag)
	}
	si := newSweepInit(wl, vary)
	if rest, err = si.takeArgs(wl, rest); err != nil {
		return err
	}
	plan := buildPlan(clients, vary, o.repeat, o.orderSeed)
	base, err := a.checkPoints(rest, plan, vary, si)
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
	if base.opts.noSave {
		return usagef("--no-save cannot be used with sweep: its runs are kept in the results store")
	}
	if base.opts.json != "" {
		return usagef("--json is the sweep's output here; each run is saved in the results store")
	}
	t, err := db.ParseURL(base.opts.db)
	if err != nil {
		return usageError{err.Error()}
	}
	if t.Default {
		fmt.Fprintf(a.stderr, "using the embedded SQLite database %s (give --db to use another)\n", t.Path)
	}
	sw := &results.Sweep{
		SchemaVersion: results.SweepSchemaVersion,
		SweepID:       results.NewSweepID(time.Now()),
		Workload:      base.wl.Name(),
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
		sw.Notes = append(sw.Notes, "1 client added: every sweep starts with the single-stream performance unit test")
	}
	sw.Notes = append(sw.Notes, notes...)
	if si != nil {
		sw.InitArgs = si.args
		sw.Notes = append(sw.Notes, si.note())
	}
	o.results = base.opts.results
	return a.execSweep(&o, sw, rest, si)
}

// checkPoints parses every distinct point's run (and init) command line
// before anything runs, and returns the first point's run.
func (a *app) checkPoints(base []string, plan []results.SweepRun, vary []results.VaryFlag, si *sweepInit) (*runSpec, error) {
	var first *runSpec
	checked := map[string]bool{}
	for _, pr := range plan {
		args := pointArgs(base, pr, si.runVary(vary))
		k := strings.Join(args, "\x00")
		if checked[k] {
			continue
		}
		checked[k] = true
		sp, err := a.parseRun(args)
		if err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				return nil, usageError{strings.Replace(ue.msg, "`run ", "`sweep ", 1)}
			}
			return nil, err
		}
		if first == nil {
			first = sp
		}
	}
	return first, si.check(a, plan)
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
	for _, name := range []string{"clients", "repeat", "vary", "order-seed"} {
		if fs.Changed(name) {
			extra = append(extra, "--"+name)
		}
	}
	if len(extra) > 0 {
		return usagef("--resume continues the saved plan; besides it give only --db, --results, --json, --html, --csv, --markdown or --verbose (got %s)", strings.Join(extra, " "))
	}
	store, err := openResults(o.results)
	if err != nil {
		return err
	}
	sw, err := store.GetSweep(context.Background(), o.resume)
	store.Close()
	if err != nil {
		if errors.Is(err, results.ErrNotFound) {
			return fmt.Errorf("%w; `dbharness sweeps` lists them", err)
		}
		return err
	}
	base := append([]string{}, sw.BaseArgs...)
	if o.db != "" {
		base = withoutFlag(base, "db")
		base = append(base, "--db="+o.db)
	} else if strings.Contains(strings.Join(base, " "), ":xxxxx@") {
		return usagef("sweep %s's database URL had a password, which is not stored; give --db URL again with --resume", sw.SweepID)
	}
	if o.results != "" {
		base = withoutFlag(base, "results")
		base = append(base, "--results="+o.results)
	}
	if host, _ := os.Hostname(); sw.Status == results.StatusRunning && sw.Host == host && sw.PID > 0 && sw.PID != os.Getpid() &&
		processAlive(sw.PID) {
		return fmt.Errorf("sweep %s is still running (process %d); stop it first, or wait for it", sw.SweepID, sw.PID)
	}
	var si *sweepInit
	msg := a.stdout
	if o.json == "-" {
		msg = a.stderr // standard output is the JSON's alone
	}
	if sw.Status == results.StatusCompleted {
		fmt.Fprintf(msg, "sweep %s is already complete\n", sw.SweepID)
	} else {
		// Check the command lines still parse (workload flags may have
		// changed between versions).
		wl, err := workloadFor("sweep", base, (&runOpts{}).flags)
		if err != nil {
			return err
		}
		if si = newSweepInit(wl, sw.Vary); si != nil {
			si.args = sw.InitArgs
		}
		if _, err := a.checkPoints(base, sw.Plan, sw.Vary, si); err != nil {
			return err
		}
		fmt.Fprintf(msg, "resuming sweep %s\n", sw.SweepID)
	}
	sw.Status, sw.Error = results.StatusRunning, ""
	return a.execSweep(o, sw, base, si)
}

// processAlive reports whether a process with that id exists (signal 0).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
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

func openResults(path string) (*results.Store, error) {
	if path == "" {
		path = results.DefaultPath()
	}
	return results.Open(path)
}

// execSweep makes every run of the plan that is not completed yet, saving
// the sweep after each, then analyses, prints and saves it.
func (a *app) execSweep(o *sweepOpts, sw *results.Sweep, base []string, si *sweepInit) error {
	store, err := openResults(o.results)
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := context.Background()
	out := a.stdout
	if o.json == "-" {
		out = a.stderr
	}
	sw.PID = os.Getpid()
	sw.Host, _ = os.Hostname()
	if err := store.SaveSweep(sw); err != nil {
		return err
	}
	todo := 0
	for _, pr := range sw.Plan {
		if pr.Status != results.StatusCompleted {
			todo++
		}
	}
	if sw.Status == results.StatusRunning && todo > 0 {
		fmt.Fprintf(out, "sweep %s: %s on %s, clients %s x %d repeat(s)%s: %d runs (%d to do), order seed %d\n",
			sw.SweepID, sw.Workload, sw.Target, joinInts(sw.Clients), sw.Repeat, describeVary(sw.Vary), len(sw.Plan), todo, sw.OrderSeed)
		for _, n := range sw.Notes {
			fmt.Fprintf(out, "note: %s\n", n)
		}
	}
	stop, release := signals()
	defer release()
	interrupted := false
	var failure error
	done := len(sw.Plan) - todo
	for i := range sw.Plan {
		pr := &sw.Plan[i]
		if pr.Status == results.StatusCompleted {
			continue
		}
		select {
		case <-stop:
			interrupted = true
		default:
		}
		if interrupted {
			break
		}
		args := append(pointArgs(base, *pr, si.runVary(sw.Vary)), "--results="+store.Path())
		sp, err := a.parseRun(args)
		if err != nil {
			failure = err
			break
		}
		var run *results.Run
		if err = si.prepare(a, pr, sp.opts.db, stop, out); err == nil {
			var runOut bytes.Buffer
			child := &app{stdout: io.Discard, stderr: &runOut}
			if o.verbose {
				child.stdout = out
			}
			run, err = child.execRun(ctx, sp, stop)
			copyWarnings(a.stderr, &runOut)
		}
		if run != nil {
			pr.RunID, pr.Status = run.RunID, run.Status
			sw.RunIDs = append(sw.RunIDs, run.RunID)
		}
		if run != nil && run.Status == results.StatusCompleted {
			done++
		}
		fmt.Fprintf(out, "[%*d/%d] %s\n", len(strconv.Itoa(len(sw.Plan))), pr.Seq+1, len(sw.Plan), runLine(pr, run, err))
		if err := store.SaveSweep(sw); err != nil {
			return err
		}
		if ee := (exitError{}); errors.As(err, &ee) && ee.code == ExitInterrupted {
			interrupted = true // during an init
			break
		}
		if err != nil {
			failure = err
			break
		}
		if run.Status == results.StatusInterrupted {
			interrupted = true
			break
		}
	}
	sw.EndTime = time.Now()
	switch {
	case failure != nil:
		sw.Status, sw.Error = results.StatusFailed, oneLine(failure.Error())
	case interrupted:
		sw.Status = results.StatusInterrupted
	default:
		sw.Status = results.StatusCompleted
	}
	runs, err := store.SweepRuns(ctx, sw)
	if err != nil {
		return err
	}
	experiment.Analyze(sw, runs)
	if err := store.SaveSweep(sw); err != nil {
		return err
	}
	report.SweepTable(out, sw)
	fmt.Fprintf(out, "saved as sweep %s in %s\n", sw.SweepID, store.Path())
	if o.json != "" {
		if err := report.WriteJSON(o.json, sw); err != nil {
			return err
		}
	}
	if o.reports.any() {
		msg := out
		if o.reports.markdown == "-" {
			msg = a.stderr
		}
		if err := writeSweepReports(o.reports, msg, sw); err != nil {
			return err
		}
	}
	switch {
	case failure != nil:
		return fmt.Errorf("sweep %s stopped after %d of %d runs: %v; fix the cause and continue it with `dbharness sweep --resume %s`",
			sw.SweepID, done, len(sw.Plan), oneLine(failure.Error()), sw.SweepID)
	case interrupted:
		return exitError{ExitInterrupted, fmt.Sprintf("sweep %s interrupted after %d of %d runs; continue it with `dbharness sweep --resume %s`",
			sw.SweepID, done, len(sw.Plan), sw.SweepID)}
	}
	return nil
}

// copyWarnings passes a run's stderr on, without the per-run note about the
// default database.
func copyWarnings(w io.Writer, b *bytes.Buffer) {
	sc := bufio.NewScanner(b)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "using the embedded SQLite database") {
			continue
		}
		fmt.Fprintln(w, sc.Text())
	}
}

func runLine(pr *results.SweepRun, run *results.Run, err error) string {
	s := fmt.Sprintf("round %d  clients %3d", pr.Round, pr.Clients)
	if v := experiment.VaryKey(pr.Vary); v != "" {
		s += "  " + v
	}
	if run == nil {
		return s + "  did not start: " + oneLine(err.Error())
	}
	s += fmt.Sprintf("  run %s  %s  %.1f tps", run.RunID, run.Status, run.Summary.TPS)
	if p99, ok := run.Summary.LatencyMs["p99"]; ok {
		s += fmt.Sprintf("  p99 %.3f ms", p99)
	}
	if run.Summary.Errors > 0 {
		s += fmt.Sprintf("  %d errors", run.Summary.Errors)
	}
	if run.Error != "" {
		s += "  " + run.Error
	}
	return s
}

func describeVary(vs []results.VaryFlag) string {
	var s string
	for _, v := range vs {
		s += fmt.Sprintf(" x %s=%s", v.Flag, strings.Join(v.Values, ","))
	}
	return s
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
