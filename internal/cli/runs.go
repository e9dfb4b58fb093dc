package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
)

type storeOpts struct {
	results string
	json    bool
	limit   int
	// force is --force of the commands that compare.
	force bool
	// verbose is show's --verbose.
	verbose bool
}

// resultsFlag adds --results to a command that opens the results store.
// The default is shown without the secrets a URL in $DBHARNESS_RESULTS may
// hold.
func resultsFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "results", "", "results store: an SQLite file or a postgres:// URL (default $DBHARNESS_RESULTS or "+store.Describe(store.DefaultPath())+")")
}

func (o *storeOpts) flags(fs *pflag.FlagSet) {
	resultsFlag(fs, &o.results)
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

// showFlags are the flags of show.
func (o *storeOpts) showFlags(fs *pflag.FlagSet) {
	o.flags(fs)
	fs.BoolVar(&o.verbose, "verbose", false, "print a run's whole summary: every row of the physical table and the harness's driver in full")
}

// listFlags are the flags of runs and sweeps, which list what.
func (o *storeOpts) listFlags(what string) func(fs *pflag.FlagSet) {
	return func(fs *pflag.FlagSet) {
		o.flags(fs)
		fs.IntVarP(&o.limit, "limit", "n", 50, "show at most N "+what+", newest first (0 = all)")
	}
}

// open opens the results store for reading, once --json is known to have
// somewhere to go. The commands that open it only read it, so a store that
// is not there is refused, not created.
func (o *storeOpts) open() (*store.Store, error) {
	if o.json {
		if err := checkOutputFile("--json", "-"); err != nil {
			return nil, err
		}
	}
	s, err := store.OpenReadOnly(o.results)
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("%w: a run saves there first (`dbharness run ...`), or --results names another", err)
	}
	return s, err
}

// parseSimple parses the flags of a command that takes no workload; with
// -h or --help it prints the command's usage and flags (and returns
// pflag.ErrHelp, which exits 0).
func (a *app) parseSimple(name string, args []string, flags func(fs *pflag.FlagSet)) (*pflag.FlagSet, error) {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags(fs)
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return nil, usagef("%s%s (for `%s`)", flagError(err), flagSuggestion(err, fs), name)
	}
	if *help {
		usage := name
		for _, c := range commands() {
			if c.name == name {
				usage = c.usage + "\n\n" + c.summary
			}
		}
		fmt.Fprintf(a.stdout, "Usage: dbharness %s\n\n%s", usage, fs.FlagUsages())
		return nil, pflag.ErrHelp
	}
	return fs, nil
}

func (a *app) cmdRuns(args []string) error {
	var o storeOpts
	fs, err := a.parseSimple("runs", args, o.listFlags("runs"))
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("`dbharness runs` takes no arguments")
	}
	s, err := o.open()
	if err != nil {
		return err
	}
	defer s.Close()
	rows, err := s.List(context.Background(), o.limit)
	if err != nil {
		return err
	}
	if o.json {
		if rows == nil {
			rows = []store.RunRow{}
		}
		return report.WriteJSON("-", rows)
	}
	tw := listWriter(a.stdout)
	fmt.Fprintln(tw, "run\tstarted\tworkload\tdb\tclients\tstatus\ttps\tsweep\tlabel")
	for _, r := range rows {
		sweep := r.Sweep
		switch {
		case r.Shards > 0:
			sweep = fmt.Sprintf("group of %d shards", r.Shards)
		case sweep == "":
			sweep = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%.1f\t%s\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"),
			cell(results.WorkloadMix(r.Workload, r.Mix)), cell(r.DB), r.Clients, r.Status, r.TPS, sweep, orDash(r.Label))
	}
	// A failed write is the standard output's, which the command reports
	// as such.
	_ = tw.Flush()
	return nil
}

// listWriter aligns the columns of a listing (runs, sweeps).
func listWriter(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// maxCell is the widest cell of a listing's workload and database
// columns, in characters.
const maxCell = 40

// cell is a listing's cell: at most maxCell characters, "-" when empty.
func cell(s string) string {
	if r := []rune(s); len(r) > maxCell {
		s = string(r[:maxCell-1]) + "…"
	}
	return orDash(s)
}

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *app) cmdShow(args []string) error {
	var o storeOpts
	fs, err := a.parseSimple("show", args, o.showFlags)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("`dbharness show` takes one run or sweep id; `dbharness runs` and `dbharness sweeps` list them")
	}
	s, err := o.open()
	if err != nil {
		return err
	}
	defer s.Close()
	if strings.HasPrefix(fs.Arg(0), results.SweepIDPrefix) {
		sw, err := s.GetSweep(context.Background(), fs.Arg(0))
		if err != nil {
			return notFound(err)
		}
		if o.json {
			return report.WriteJSON("-", sw)
		}
		report.SweepTable(a.stdout, sw)
		return nil
	}
	r, err := s.GetRunOrGroup(context.Background(), fs.Arg(0))
	if err != nil {
		return notFound(err)
	}
	if o.json {
		return report.WriteJSON("-", r)
	}
	report.SummaryWith(a.stdout, r, report.TextOptions{Verbose: o.verbose})
	report.ShardText(a.stdout, r)
	if sw, err := s.SweepOf(context.Background(), r.RunID); err == nil && sw != "" {
		fmt.Fprintf(a.stdout, "part of sweep %s (`dbharness show %s`)\n", sw, sw)
	}
	return nil
}

// notFound turns an unknown id into a usage error that says where to look.
func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w; `dbharness runs` and `dbharness sweeps` list what is saved", err)
	}
	return err
}

func (a *app) cmdSweeps(args []string) error {
	var o storeOpts
	fs, err := a.parseSimple("sweeps", args, o.listFlags("sweeps"))
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("`dbharness sweeps` takes no arguments")
	}
	s, err := o.open()
	if err != nil {
		return err
	}
	defer s.Close()
	rows, err := s.ListSweeps(context.Background(), o.limit)
	if err != nil {
		return err
	}
	if o.json {
		if rows == nil {
			rows = []store.SweepRow{}
		}
		return report.WriteJSON("-", rows)
	}
	tw := listWriter(a.stdout)
	fmt.Fprintln(tw, "sweep\tstarted\tworkload\tdb\tstatus\truns\tlabel")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"),
			cell(results.WorkloadMix(r.Workload, r.Mix)), cell(r.DB), r.Status, r.Runs, orDash(r.Label))
	}
	// A failed write is the standard output's, which the command reports
	// as such.
	_ = tw.Flush()
	return nil
}
