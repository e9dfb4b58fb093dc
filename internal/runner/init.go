package runner

import (
	"context"
	"fmt"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// InitConfig is one load of a workload's data, parsed and validated.
type InitConfig struct {
	// Target is the database to load.
	Target *db.Target
	// Workload is the workload instance, its init flags already set; it
	// must be a workload.Initer.
	Workload workload.Generator
	// Seed seeds the data generators; Loaders is the number of parallel
	// loaders.
	Seed    uint64
	Loaders int
	// Progress, when set, is called once the server answers; it returns
	// the load's progress and a function called when the load ends.
	Progress func() (p workload.LoadProgress, done func())
}

// Init checks that the server answers (failing fast, with one sentence),
// then creates and loads the workload's tables. Cancelling ctx stops the
// load with an *Interrupted error.
func Init(ctx context.Context, c InitConfig) error {
	wl := c.Workload
	initer, ok := wl.(workload.Initer)
	if !ok {
		return &UsageError{fmt.Sprintf("workload %s has no data to load; run it directly", wl.Name())}
	}
	d, err := db.Open(c.Target.Creating())
	if err != nil {
		return err
	}
	defer d.Close()
	conn, err := connect(ctx, d)
	if err != nil {
		if ctx.Err() != nil {
			// Stopped while it connected (a sweep's interrupt that came
			// between its runs): not a server that refused.
			return &Interrupted{fmt.Sprintf("init %s interrupted before it connected; nothing was loaded", wl.Name())}
		}
		return err
	}
	conn.Close()
	env := &workload.Env{DB: d, Seed: c.Seed, Loaders: c.Loaders, Progress: workload.NopProgress{}}
	if c.Progress != nil {
		p, done := c.Progress()
		env.Progress = p
		defer done()
	}
	err = initer.Init(ctx, env)
	if ctx.Err() != nil {
		return &Interrupted{fmt.Sprintf("init %s interrupted; its tables are incomplete, run init again", wl.Name())}
	}
	if err != nil {
		return fmt.Errorf("init %s on %s: %w", wl.Name(), d.Target(), err)
	}
	return nil
}
