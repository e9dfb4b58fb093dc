//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dbharness/dbharness/internal/cli"
	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// dutyCycle starts the collectors for d, stops them for d, and so on until
// total has passed, appending each on-window to the file windows as a line
// "START_UNIX_NS END_UNIX_NS". Each on-window opens the collectors'
// connections and closes them at its end, which a run does once: the cost
// measured is, if anything, a little more than a run's.
func dutyCycle(url, app, windows string, d, total time.Duration) error {
	if app == "" || windows == "" {
		return fmt.Errorf("-duty needs -app (the load's application_name) and -windows")
	}
	t, err := db.ParseURL(url)
	if err != nil {
		return err
	}
	f, err := os.Create(windows)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx := context.Background()
	kinds := map[string]bool{collect.KindOS: true, evidence.KindServer: true, evidence.KindWaits: true}
	end := time.Now().Add(total)
	on := 0
	for time.Until(end) >= 2*d {
		dbh, err := db.Open(t)
		if err != nil {
			return err
		}
		from := time.Now()
		col := collect.For(dbh, kinds, app, nil)
		if w := col.Start(ctx); len(w) > 0 {
			dbh.Close()
			return fmt.Errorf("%v", w)
		}
		col.Begin(from)
		for i := 1; ; i++ {
			next := from.Add(time.Duration(i) * time.Second)
			if next.After(from.Add(d)) {
				break
			}
			time.Sleep(time.Until(next))
			col.Boundary(i-1, "measure", time.Now())
		}
		time.Sleep(time.Until(from.Add(d)))
		res := col.Stop(-1, "", time.Time{})
		to := time.Now()
		dbh.Close()
		if res.Waits.Total == 0 {
			return fmt.Errorf("the collectors sampled no session named %q: is the load running with that application_name?", app)
		}
		if _, err := fmt.Fprintf(f, "%d %d\n", from.UnixNano(), to.UnixNano()); err != nil {
			return err
		}
		on++
		time.Sleep(time.Until(to.Add(d)))
	}
	fmt.Printf("collectors on for %d windows of %s, off as long between them\n", on, d)
	return f.Sync()
}

// dutyBeside runs the load (a dbharness command line) in this process and
// the duty cycle beside it, so that the collectors share the load's
// process, its Go runtime and its threads, as they do in a run: a separate
// process adds a runtime of its own (its system monitor wakes between
// samples), which a run does not pay for. The load starts 5 s before the
// first on-window, so that its clients have connected.
func dutyBeside(load []string, url, app, windows string, d, total time.Duration) error {
	done := make(chan int, 1)
	go func() { done <- cli.Main(load) }()
	select {
	case code := <-done:
		return fmt.Errorf("the load ended before the collectors started (exit %d)", code)
	case <-time.After(5 * time.Second):
	}
	if err := dutyCycle(url, app, windows, d, total); err != nil {
		return err
	}
	if code := <-done; code != 0 {
		return fmt.Errorf("the load failed (exit %d)", code)
	}
	return nil
}
