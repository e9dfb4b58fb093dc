package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/experiment"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
)

func compareFlags(o *storeOpts, ro *reportOuts) func(fs *pflag.FlagSet) {
	return func(fs *pflag.FlagSet) {
		o.flags(fs)
		o.forceFlag(fs)
		ro.flagsFor("comparison")(fs)
	}
}

// forceFlag adds --force to the commands that compare.
func (o *storeOpts) forceFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&o.force, "force", false, "compare runs (or sweeps) of different workloads, which is otherwise refused: their figures measure different work")
}

func (a *app) cmdCompare(args []string) error {
	var o storeOpts
	var ro reportOuts
	fs, err := a.parseSimple("compare", args, compareFlags(&o, &ro))
	if err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("`dbharness compare` takes two ids, A and B (runs or sweeps); `dbharness runs` and `dbharness sweeps` list them")
	}
	if err := ro.validate(); err != nil {
		return err
	}
	s, err := o.open()
	if err != nil {
		return err
	}
	defer s.Close()
	c, err := compareIDs(context.Background(), s, fs.Arg(0), fs.Arg(1), o.force)
	if err != nil {
		return err
	}
	msg := a.stdout
	if o.json || len(ro.stdout()) > 0 {
		msg = a.stderr
	}
	if o.json {
		if err := report.WriteJSON("-", c); err != nil {
			return err
		}
	} else if len(ro.stdout()) == 0 {
		report.ComparisonTable(a.stdout, c)
	}
	return writeCompareReports(ro, msg, c)
}

// loaded is one side of a comparison: a run or a sweep.
type loaded struct {
	run   *results.Run
	sweep *results.Sweep
}

// workload is the side's workload.
func (l loaded) workload() string {
	if l.run != nil {
		return l.run.Workload
	}
	return l.sweep.Workload
}

func loadSide(ctx context.Context, s *store.Store, id string) (loaded, error) {
	if strings.HasPrefix(id, results.SweepIDPrefix) {
		sw, err := s.GetSweep(ctx, id)
		return loaded{sweep: sw}, notFound(err)
	}
	r, err := s.GetRunOrGroup(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		if sw, serr := s.GetSweep(ctx, id); serr == nil {
			return loaded{sweep: sw}, nil
		}
		return loaded{}, fmt.Errorf("no run or sweep %q in %s; `dbharness runs` and `dbharness sweeps` list them", id, s.Path())
	}
	return loaded{run: r}, err
}

func compareIDs(ctx context.Context, s *store.Store, ida, idb string, force bool) (*results.Comparison, error) {
	a, err := loadSide(ctx, s, ida)
	if err != nil {
		return nil, err
	}
	b, err := loadSide(ctx, s, idb)
	if err != nil {
		return nil, err
	}
	if wa, wb := a.workload(), b.workload(); wa != wb && !force && (a.run != nil) == (b.run != nil) {
		return nil, usagef("A (%s) ran %s and B (%s) ran %s: compare refuses different workloads, whose figures measure different work; give --force to compare them anyway",
			ida, wa, idb, wb)
	}
	switch {
	case a.run != nil && b.run != nil:
		return experiment.CompareRuns(a.run, b.run), nil
	case a.sweep != nil && b.sweep != nil:
		runs := map[string]*results.Run{}
		for _, sw := range []*results.Sweep{a.sweep, b.sweep} {
			m, err := s.SweepRuns(ctx, sw)
			if err != nil {
				return nil, err
			}
			for k, v := range m {
				runs[k] = v
			}
		}
		return experiment.CompareSweeps(a.sweep, b.sweep, runs), nil
	}
	return nil, usagef("compare two runs or two sweeps, not a run with a sweep (%s, %s); `dbharness show SWEEP` lists a sweep's runs", ida, idb)
}
