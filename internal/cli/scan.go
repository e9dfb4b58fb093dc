package cli

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/tablescan"
)

type scanOpts struct {
	db, table, parallel, percentiles, results, json string
	repeat                                          int
	noSave                                          bool
}

func (o *scanOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL (postgres:// or mysql://)")
	fs.StringVar(&o.table, "table", "", "table to scan (required)")
	fs.StringVar(&o.parallel, "parallel", "1", "processes per scan to step through, e.g. 1,2,4 (PostgreSQL's parallel workers plus the leader)")
	fs.IntVar(&o.repeat, "repeat", 3, "timed scans per step, after one untimed scan that warms the caches")
	fs.StringVar(&o.percentiles, "percentiles", "50,90,95,99,99.9", "latency percentiles to report (50, 90, 95 and 99 are always included)")
	resultsFlag(fs, &o.results)
	fs.BoolVar(&o.noSave, "no-save", false, "do not save the run")
	fs.StringVar(&o.json, "json", "", "write the run as JSON (- = standard output)")
}

func (a *app) cmdScan(args []string) error {
	var o scanOpts
	fs, err := a.parseSimple("scan", args, o.flags)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("`dbharness scan` takes no arguments (got %q); name the table with --table", fs.Arg(0))
	}
	if o.table == "" {
		return usagef("`dbharness scan` needs --table, the table to scan")
	}
	par, err := intList("parallel", o.parallel, 1024)
	if err != nil {
		return err
	}
	if o.repeat < 1 || o.repeat > 1000 {
		return usagef("--repeat %d: give 1 to 1000", o.repeat)
	}
	ps, err := parsePercentiles(o.percentiles)
	if err != nil {
		return err
	}
	if err := checkOutputFile("--json", o.json); err != nil {
		return err
	}
	t, err := parseTarget(o.db)
	if err != nil {
		return err
	}
	if err := t.CheckExists(); err != nil {
		return err
	}
	out, store, closeStore, err := a.probeOutputs(o.json, o.noSave, o.results)
	if err != nil {
		return err
	}
	defer closeStore()
	d, err := a.target(o.db)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := a.interruptible("\ndbharness: interrupted; the scan stops")
	defer cancel()
	run, err := tablescan.Measure(ctx, d, tablescan.Config{Table: o.table, Parallel: par, Repeat: o.repeat, Percentiles: ps,
		Command: append([]string{"dbharness", "scan"}, args...)})
	if errors.Is(err, tablescan.ErrUnsupported) {
		return usagef("`dbharness scan` measures PostgreSQL, MySQL and MariaDB tables: %v", err)
	}
	if run == nil {
		return err
	}
	if store != nil && len(run.IO.Steps) > 0 {
		if serr := saveWhole(store, run); serr != nil {
			return errors.Join(err, serr)
		}
	}
	if len(run.IO.Steps) > 0 {
		report.Summary(out, run)
	}
	if o.json != "" {
		if jerr := report.WriteJSON(o.json, run); jerr != nil {
			return jerr
		}
	}
	if run.Status == results.StatusInterrupted {
		return exitError{ExitInterrupted, "scan interrupted; what it measured is saved"}
	}
	return err
}
