// Package cli is the command line: one file per command. Flags are bound to
// configuration structs, never to globals. It parses and prints: the
// parsed configurations go to internal/runner, which makes a run or loads
// a workload's data, and to internal/sweep, which makes a sweep's runs.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/workload"
	_ "github.com/dbharness/dbharness/internal/workload/all" // built-in workloads
	"github.com/dbharness/dbharness/internal/workload/script"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFail        = 1 // an error, or a check that does not hold
	ExitUsage       = 2
	ExitInterrupted = 130
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "dev"

// app holds the output streams, so tests can capture them.
type app struct {
	stdout, stderr io.Writer
}

type command struct {
	name, usage, summary string
	run                  func(a *app, args []string) error
	// flags adds the command's own flags (nil: none); the handler binds
	// the same function to its options.
	flags func(fs *pflag.FlagSet)
	// wlCmd is set when the first argument names a workload (or a
	// workload file) whose flags for wlCmd join flags.
	wlCmd workload.Command
	// ids completes saved run and sweep ids as arguments; files too
	// when the command also reads files.
	ids, files bool
}

func commands() []command {
	return []command{
		{name: "init", usage: "init WORKLOAD|FILE.yaml [--db URL] [flags]", summary: "create the workload's tables and load its data", run: (*app).cmdInit,
			flags: (&initOpts{}).flags, wlCmd: workload.CmdInit},
		{name: "run", usage: "run WORKLOAD|FILE.yaml|--script F [--db URL] [flags]", summary: "drive the workload and measure it", run: (*app).cmdRun,
			flags: (&runOpts{}).flags, wlCmd: workload.CmdRun},
		{name: "check", usage: "check WORKLOAD|FILE.yaml [--db URL]", summary: "verify the workload's consistency invariants (exit 1 if violated)", run: (*app).cmdCheck,
			flags: (&checkOpts{}).flags, wlCmd: workload.CmdCheck},
		{name: "profile", usage: "profile FILE.yaml [--db URL] [--json F]", summary: "the data and the engine's statistics of a loaded workload file", run: (*app).cmdProfile,
			flags: (&profileOpts{}).flags, wlCmd: "profile"},
		{name: "workloads", usage: "workloads", summary: "list the built-in workloads and their flags", run: (*app).cmdWorkloads},
		{name: "sweep", usage: "sweep WORKLOAD --clients 1,2,4,8 [flags]", summary: "run an experiment: many runs, one analysis", run: (*app).cmdSweep,
			flags: merged((&sweepOpts{}).flags, (&runOpts{}).flags), wlCmd: workload.CmdRun},
		{name: "io", usage: "io --dir PATH [--pattern LIST] [--size N] [flags]", summary: "measure the storage under a database: sequential and random I/O, log writes with fdatasync", run: (*app).cmdIO,
			flags: (&ioOpts{}).flags},
		{name: "scan", usage: "scan --db URL --table T [--parallel LIST]", summary: "measure a full scan of one table: MiB/s and rows/s", run: (*app).cmdScan,
			flags: (&scanOpts{}).flags},
		{name: "doctor", usage: "doctor [--db URL] [--clients N] [--json]", summary: "pre-flight check of the client host and the server: a line each, OK or a warning with what to change (exit 1 on a warning)", run: (*app).cmdDoctor,
			flags: (&doctorOpts{}).flags},
		{name: "k8s", usage: "k8s job WORKLOAD --shards N --image IMAGE --results-secret NAME [flags]", summary: "print a Kubernetes Job that runs a sharded run: one pod per shard, URLs from a Secret", run: (*app).cmdK8s,
			flags: merged((&k8sOpts{}).flags, (&runOpts{}).flags)},
		{name: "runs", usage: "runs [--json]", summary: "list saved runs", run: (*app).cmdRuns, flags: (&storeOpts{}).listFlags("runs")},
		{name: "sweeps", usage: "sweeps [--json]", summary: "list saved sweeps", run: (*app).cmdSweeps, flags: (&storeOpts{}).listFlags("sweeps")},
		{name: "show", usage: "show RUN|SWEEP [--json] [--verbose]", summary: "print a saved run's summary or a sweep's analysis", run: (*app).cmdShow,
			flags: (&storeOpts{}).showFlags, ids: true},
		{name: "compare", usage: "compare A B [--json]", summary: "compare two runs or two sweeps (B against A)", run: (*app).cmdCompare,
			flags: compareFlags(&storeOpts{}, &reportOuts{}), ids: true},
		{name: "report", usage: "report RUN|SWEEP|A B|FILE" + reportUsage() + " [--hdr-log F]", summary: "write " + reportNouns() + " or (for a run) an HdrHistogram log", run: (*app).cmdReport,
			flags: reportFlags(&storeOpts{}, &reportOuts{}, new(string)), ids: true, files: true},
		{name: "version", usage: "version", summary: "print the version", run: func(a *app, _ []string) error { fmt.Fprintln(a.stdout, "dbharness", Version); return nil }},
	}
}

// merged adds the flags of each function in turn, but a flag whose name
// (or shorthand) is already there only once: sweep's own flags, then the
// run flags it passes on.
func merged(fns ...func(fs *pflag.FlagSet)) func(fs *pflag.FlagSet) {
	return func(fs *pflag.FlagSet) {
		for _, fn := range fns {
			tmp := pflag.NewFlagSet("", pflag.ContinueOnError)
			tmp.SortFlags = false
			fn(tmp)
			tmp.VisitAll(func(f *pflag.Flag) {
				if fs.Lookup(f.Name) == nil && (f.Shorthand == "" || fs.ShorthandLookup(f.Shorthand) == nil) {
					fs.AddFlag(f)
				}
			})
		}
	}
}

// usageError is a mistake on the command line: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// exitError carries a specific exit code with an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// Main runs the command line and returns the exit code. A command that
// succeeded but could not write all its output to standard output fails.
func Main(args []string) int {
	out := &checkedWriter{w: os.Stdout}
	code := (&app{stdout: out, stderr: os.Stderr}).main(args)
	if err := out.failed(); err != nil && code == ExitOK {
		fmt.Fprintf(os.Stderr, "dbharness: cannot write to standard output: %v; the output is incomplete\n", err)
		return ExitFail
	}
	return code
}

func (a *app) main(args []string) int {
	// A flag before the command is not a command (cobra would look past
	// it for one).
	if len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		return a.exit(usagef("unknown command %q; run `dbharness help` for the list", args[0]))
	}
	root := a.rootCommand()
	root.SetArgs(args)
	return a.exit(root.Execute())
}

// rootCommand is the command tree. Each command parses its own flags (the
// flags of init, run, check and sweep depend on the workload named by the
// first argument), so cobra only dispatches, completes and prints nothing
// of its own: errors go back to exit.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:                "dbharness",
		Short:              "database load tests that measure correctly and tell why",
		SilenceErrors:      true,
		SilenceUsage:       true,
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				a.help()
				return nil
			}
			return usagef("unknown command %q%s; run `dbharness help` for the list", args[0], commandSuggestion(args[0]))
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == root {
			a.help()
			return
		}
		defaultHelp(c, args) // completion's own commands
	})
	root.SetHelpCommand(&cobra.Command{Use: "help", Hidden: true, DisableFlagParsing: true,
		Run: func(*cobra.Command, []string) { a.help() }})
	for _, c := range commands() {
		run := c.run
		sub := &cobra.Command{
			Use:                c.usage,
			Short:              c.summary,
			DisableFlagParsing: true,
			RunE: func(_ *cobra.Command, args []string) error {
				err := run(a, args)
				if errors.Is(err, pflag.ErrHelp) {
					// The command printed its help; cobra would print its own.
					return exitError{code: ExitOK}
				}
				return err
			},
		}
		switch {
		case c.wlCmd != "":
			sub.ValidArgsFunction = c.completeWorkload
		case c.ids:
			sub.ValidArgsFunction = c.completeIDs
		default:
			sub.ValidArgsFunction = c.completeNone
		}
		root.AddCommand(sub)
	}
	return root
}

func (a *app) exit(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(a.stderr, "dbharness:", ee.msg)
		}
		return ee.code
	}
	var ie *runner.Interrupted
	if errors.As(err, &ie) {
		fmt.Fprintln(a.stderr, "dbharness:", ie.Msg)
		return ExitInterrupted
	}
	if errors.Is(err, pflag.ErrHelp) {
		return ExitOK
	}
	fmt.Fprintln(a.stderr, "dbharness:", oneLine(err.Error()))
	var ue usageError
	var rue *runner.UsageError
	if errors.As(err, &ue) || errors.As(err, &rue) {
		return ExitUsage
	}
	return ExitFail
}

// oneLine keeps an error to one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func (a *app) help() {
	fmt.Fprintln(a.stdout, "dbharness: database load tests that measure correctly and tell why.")
	fmt.Fprintln(a.stdout, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(a.stdout, "  dbharness %-56s %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(a.stdout, "\nWithout --db the embedded SQLite database is used. `dbharness COMMAND --help` shows a command's flags.")
}

// splitWorkload finds the workload name: the first argument that is not a
// flag or a flag's value. Flags may come before or after it.
func splitWorkload(cmd string, args []string, common func(fs *pflag.FlagSet)) (string, error) {
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	common(fs)
	fs.BoolP("help", "h", false, "")
	if err := fs.Parse(args); err != nil {
		// A bad flag value; the strict parse reports it. Take the usual
		// place of the workload name.
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			return args[0], nil
		}
		return "", nil
	}
	if fs.NArg() == 0 {
		return "", nil
	}
	return fs.Arg(0), nil
}

// parseFlags builds the full flag set (common + the workload's own) and
// parses args strictly.
//
// The flags of set are then set in order, as if given last on the command
// line (a sweep's point).
func (a *app) parseFlags(cmd string, wl workload.Generator, args []string, common func(fs *pflag.FlagSet), set ...flagSet) (*pflag.FlagSet, error) {
	fs, help := newFlagSet(cmd, wl, common)
	if err := fs.Parse(args); err != nil {
		if s := flagSuggestion(err, fs); s != "" {
			return nil, usagef("%s%s", flagError(err), s)
		}
		return nil, usagef("%s (for `%s %s`; see `dbharness %s %s --help`)", flagError(err), cmd, wl.Name(), cmd, wl.Name())
	}
	for _, f := range set {
		err := fs.Set(f.name, f.value)
		if fs.Lookup(f.name) == nil {
			err = fmt.Errorf("unknown flag: --%s", f.name)
		}
		if err != nil {
			return nil, usagef("%s (for `%s %s`; see `dbharness %s %s --help`)", flagError(err), cmd, wl.Name(), cmd, wl.Name())
		}
	}
	if *help {
		fmt.Fprintf(a.stdout, "Usage: dbharness %s %s [flags]\n\n%s", cmd, wl.Name(), fs.FlagUsages())
		return nil, pflag.ErrHelp
	}
	if fs.NArg() > 1 {
		return nil, usagef("unexpected argument %q after the workload name", fs.Arg(1))
	}
	// Bad values are the user's to fix, before anything connects.
	if v, ok := wl.(workload.Validator); ok {
		if err := v.Validate(workload.Command(cmd)); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	return fs, nil
}

func flagError(err error) string {
	s := err.Error()
	s = strings.Replace(s, "unknown flag: ", "unknown flag ", 1)
	s = strings.Replace(s, "unknown shorthand flag: ", "unknown flag ", 1)
	// pflag: invalid argument "abc" for "-c, --clients" flag: strconv.ParseInt: parsing "abc": invalid syntax
	if m := invalidArg.FindStringSubmatch(s); m != nil {
		name := m[2]
		if i := strings.LastIndex(name, ", "); i >= 0 {
			name = name[i+2:]
		}
		want := "valid value"
		switch {
		case strings.Contains(m[3], "ParseUint"):
			want = "whole number, 0 or more"
		case strings.Contains(m[3], "ParseInt"):
			want = "whole number"
		case strings.Contains(m[3], "ParseFloat"):
			want = "number"
		case strings.Contains(m[3], "ParseBool"):
			return fmt.Sprintf("%s %q: give true or false", name, m[1])
		case strings.Contains(m[3], "value out of range"):
			want = "number in range"
		default:
			return fmt.Sprintf("%s: %s", name, m[3])
		}
		return fmt.Sprintf("%s %q is not a %s", name, m[1], want)
	}
	return s
}

var invalidArg = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)

// newFlagSet is the full flag set of cmd with workload wl: the common
// flags, the workload's own and --help. Parsing and completion share it.
func newFlagSet(cmd string, wl workload.Generator, common func(fs *pflag.FlagSet)) (*pflag.FlagSet, *bool) {
	fs := pflag.NewFlagSet(cmd+" "+wl.Name(), pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	common(fs)
	wl.Flags(workload.Command(cmd), fs)
	return fs, fs.BoolP("help", "h", false, "show this help")
}

// workloadFor resolves the workload argument of init, run, check or sweep.
func workloadFor(cmd string, args []string, common func(fs *pflag.FlagSet)) (workload.Generator, error) {
	name, _ := splitWorkload(cmd, args, common)
	if name == "" && (cmd == "run" || cmd == "sweep") && hasScriptFlag(args) {
		name = script.Name
	}
	if name == "" {
		return nil, usagef("`dbharness %s` needs a workload name or a workload file, e.g. `dbharness %s tpcb` or `dbharness %s shop.yaml`; `dbharness workloads` lists them", cmd, cmd, cmd)
	}
	wl, err := workload.New(name)
	if err != nil {
		return nil, unknownWorkload(name, err)
	}
	return wl, nil
}

// workloadHelp prints, for `dbharness CMD --help` without a workload, the
// command's usage, its common flags and the workloads it takes, and
// reports whether it did.
func (a *app) workloadHelp(cmd string, args []string, common func(fs *pflag.FlagSet)) bool {
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	common(fs)
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil || !*help || fs.NArg() > 0 || (cmd == "run" && hasScriptFlag(args)) {
		return false
	}
	for _, c := range commands() {
		if c.name == cmd {
			fmt.Fprintf(a.stdout, "Usage: dbharness %s\n\n%s.\n\n", c.usage, upperFirst(c.summary))
		}
	}
	fmt.Fprintf(a.stdout, "Flags:\n%s\nWorkloads (`dbharness %s WORKLOAD --help` adds the workload's own flags):\n", fs.FlagUsages(), cmd)
	for _, name := range workload.Names() {
		if wl, err := workload.New(name); err == nil && supports(wl, workload.Command(cmd)) {
			fmt.Fprintf(a.stdout, "  %-12s %s\n", name, wl.Description())
		}
	}
	fmt.Fprintf(a.stdout, "  %-12s a workload file (docs/workload-file.md)\n", "FILE.yaml")
	return true
}

// hasScriptFlag reports whether args give pgbench scripts (--script or -f),
// which select the implicit script workload.
func hasScriptFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--script" || a == "-f" || strings.HasPrefix(a, "--script=") || strings.HasPrefix(a, "-f") && len(a) > 2 && a[1] == 'f' {
			return true
		}
	}
	return false
}
