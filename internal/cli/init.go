package cli

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/workload"
)

type initOpts struct {
	db      string
	seed    uint64
	loaders int
}

func (o *initOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL: postgres://... (or libpq's 'host=... dbname=...'), mysql://user:pass@host:port/db, sqlite://PATH (default: $DBHARNESS_DB, else PostgreSQL when PGHOST, PGPORT, PGUSER or PGDATABASE is set, else the embedded SQLite database)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the data generators; the same seed loads the same data")
	fs.IntVar(&o.loaders, "loaders", max(2, runtime.NumCPU()), "parallel loaders (engines that serialise writers use one)")
}

// initSpec is a parsed `init` command line.
type initSpec struct {
	wl   workload.Generator
	opts initOpts
}

// parseInit parses and validates an `init` command line (without "init").
func (a *app) parseInit(args []string) (*initSpec, error) {
	sp := &initSpec{}
	if a.workloadHelp("init", args, sp.opts.flags) {
		return nil, pflag.ErrHelp
	}
	wl, err := workloadFor("init", args, sp.opts.flags)
	if err != nil {
		return nil, err
	}
	if _, err := a.parseFlags("init", wl, args, sp.opts.flags); err != nil {
		return nil, err
	}
	if sp.opts.loaders < 1 {
		return nil, usagef("--loaders %d is invalid; it must be at least 1", sp.opts.loaders)
	}
	if _, ok := wl.(workload.Initer); !ok {
		return nil, usagef("workload %s has no data to load; run it directly", wl.Name())
	}
	sp.wl = wl
	return sp, nil
}

func (a *app) cmdInit(args []string) error {
	sp, err := a.parseInit(args)
	if err != nil {
		return err
	}
	t, err := a.targetURL(sp.opts.db)
	if err != nil {
		return err
	}
	stop, release := signals()
	defer release()
	ctx, cancel := stopContext(stop)
	defer cancel()
	start := time.Now()
	cfg := sp.config(t)
	cfg.Progress = func() (workload.LoadProgress, func()) {
		b := newLoadBar(a.stderr)
		return b, b.finish
	}
	if err := runner.Init(ctx, cfg); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "init %s done on %s in %.1fs\n", sp.wl.Name(), t, time.Since(start).Seconds())
	if pf, ok := sp.wl.(workload.Profiler); ok {
		d, err := db.Open(t)
		if err != nil {
			return err
		}
		defer d.Close()
		p, err := profileOf(ctx, d, pf)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout)
		p.WriteText(a.stdout)
	}
	return nil
}

// config is the parsed init for the runner.
func (sp *initSpec) config(t *db.Target) runner.InitConfig {
	return runner.InitConfig{Target: t, Workload: sp.wl, Seed: sp.opts.seed, Loaders: sp.opts.loaders}
}
