package cli

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
	"github.com/dbharness/dbharness/internal/workload/file"
)

type initOpts struct {
	db      string
	seed    uint64
	loaders int
}

func (o *initOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.db, "db", "", "database URL: postgres://..., mysql://user:pass@host:port/db, sqlite://PATH (default: the embedded SQLite database)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the data generators; the same seed loads the same data")
	fs.IntVar(&o.loaders, "loaders", max(2, runtime.NumCPU()), "parallel loaders (engines that serialise writers use one)")
}

// initSpec is a parsed `init` command line.
type initSpec struct {
	wl     workload.Generator
	initer workload.Initer
	opts   initOpts
}

// parseInit parses and validates an `init` command line (without "init").
func (a *app) parseInit(args []string) (*initSpec, error) {
	sp := &initSpec{}
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
	initer, ok := wl.(workload.Initer)
	if !ok {
		return nil, usagef("workload %s has no data to load; run it directly", wl.Name())
	}
	sp.wl, sp.initer = wl, initer
	return sp, nil
}

func (a *app) cmdInit(args []string) error {
	sp, err := a.parseInit(args)
	if err != nil {
		return err
	}
	d, err := a.target(sp.opts.db)
	if err != nil {
		return err
	}
	defer d.Close()
	stop, release := signals()
	defer release()
	ctx, cancel := stopContext(stop)
	defer cancel()
	start := time.Now()
	if err := a.execInit(ctx, sp, d, true); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "init %s done on %s in %.1fs\n", sp.wl.Name(), d.Target(), time.Since(start).Seconds())
	if fw, ok := sp.wl.(*file.Workload); ok {
		p, err := profileOf(ctx, d, fw)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout)
		writeProfile(a.stdout, p)
	}
	return nil
}

// execInit checks that the server answers (failing fast, with one
// sentence), then creates and loads the workload's tables, drawing the
// progress bar on stderr when bar is set.
func (a *app) execInit(ctx context.Context, sp *initSpec, d db.DB, bar bool) error {
	c, err := connect(ctx, d)
	if err != nil {
		return err
	}
	c.Close()
	env := &workload.Env{DB: d, Seed: sp.opts.seed, Loaders: sp.opts.loaders, Progress: workload.NopProgress{}}
	if bar {
		b := newLoadBar(a.stderr)
		env.Progress = b
		defer b.finish()
	}
	err = sp.initer.Init(ctx, env)
	if ctx.Err() != nil {
		return exitError{ExitInterrupted, fmt.Sprintf("init %s interrupted; its tables are incomplete, run init again", sp.wl.Name())}
	}
	if err != nil {
		return fmt.Errorf("init %s on %s: %w", sp.wl.Name(), d.Target(), err)
	}
	return nil
}
