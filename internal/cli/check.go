package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/workload"
)

type checkOpts struct {
	db   string
	json string
}

func (o *checkOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL (default: $DBHARNESS_DB, else PostgreSQL from PGHOST, PGPORT, PGUSER or PGDATABASE, else the embedded SQLite database)")
	fs.StringVar(&o.json, "json", "", "also write the results as JSON to FILE (- for standard output)")
}

func (a *app) cmdCheck(args []string) error {
	var o checkOpts
	if a.workloadHelp("check", args, o.flags) {
		return pflag.ErrHelp
	}
	wl, err := workloadFor("check", args, o.flags)
	if err != nil {
		return err
	}
	if _, err := a.parseFlags("check", wl, args, o.flags); err != nil {
		return err
	}
	if err := checkOutputFile("--json", o.json); err != nil {
		return err
	}
	checker, ok := wl.(workload.Checker)
	if !ok {
		return usagef("workload %s has no invariants to check", wl.Name())
	}
	d, err := a.target(o.db)
	if err != nil {
		return err
	}
	defer d.Close()
	ctx := context.Background()
	c, err := connect(ctx, d)
	if err != nil {
		return err
	}
	c.Close()
	res, err := checker.Check(ctx, &workload.Env{DB: d, Progress: workload.NopProgress{}})
	if err != nil {
		return fmt.Errorf("check %s: %w", wl.Name(), err)
	}
	failed := 0
	for _, r := range res {
		mark := "PASS"
		if r.Skipped {
			mark = "SKIP"
		} else if !r.Pass {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(a.stdout, "%s  %-40s %s\n", mark, r.Name, r.Detail)
	}
	if o.json != "" {
		if err := report.WriteJSON(o.json, map[string]any{"workload": wl.Name(), "target": d.Target().String(), "checks": res, "pass": failed == 0}); err != nil {
			return err
		}
	}
	if failed > 0 {
		return exitError{ExitFail, fmt.Sprintf("check %s: %d of %d invariants do not hold", wl.Name(), failed, len(res))}
	}
	return nil
}
