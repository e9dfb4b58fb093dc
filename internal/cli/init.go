package cli

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/pflag"

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

func (a *app) cmdInit(args []string) error {
	var o initOpts
	wl, err := workloadFor("init", args, o.flags)
	if err != nil {
		return err
	}
	if _, err := a.parseFlags("init", wl, args, o.flags); err != nil {
		return err
	}
	if o.loaders < 1 {
		return usagef("--loaders %d is invalid; it must be at least 1", o.loaders)
	}
	initer, ok := wl.(workload.Initer)
	if !ok {
		return usagef("workload %s has no data to load; run it directly", wl.Name())
	}
	d, err := a.target(o.db)
	if err != nil {
		return err
	}
	defer d.Close()
	stop, release := signals()
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	// Fail fast, with one sentence, if the server cannot be reached.
	c, err := connect(ctx, d)
	if err != nil {
		return err
	}
	c.Close()
	bar := newLoadBar(a.stderr)
	start := time.Now()
	env := &workload.Env{DB: d, Seed: o.seed, Loaders: o.loaders, Progress: bar}
	err = initer.Init(ctx, env)
	bar.finish()
	if ctx.Err() != nil {
		return exitError{ExitInterrupted, fmt.Sprintf("init %s interrupted; its tables are incomplete, run init again", wl.Name())}
	}
	if err != nil {
		return fmt.Errorf("init %s on %s: %w", wl.Name(), d.Target(), err)
	}
	fmt.Fprintf(a.stdout, "init %s done on %s in %.1fs\n", wl.Name(), d.Target(), time.Since(start).Seconds())
	if fw, ok := wl.(*file.Workload); ok {
		p, err := profileOf(ctx, d, fw)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout)
		writeProfile(a.stdout, p)
	}
	return nil
}
