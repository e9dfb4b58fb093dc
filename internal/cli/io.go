package cli

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/iobench"
	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
)

type ioOpts struct {
	dir, patterns, size, block, readBlock, depths  string
	logBlocks, streams, keepFree, percentiles      string
	extend, overwrite, crc, direct, verify, noSave bool
	logWrites                                      int
	stepTime, interval                             time.Duration
	results, json                                  string
}

func (o *ioOpts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dir, "dir", "", "directory to measure (required); the probe works in a new directory under it and removes it at the end")
	fs.StringVar(&o.patterns, "pattern", "seqwrite,seqread,randread,logwrite", "patterns to run, in order: seqwrite, seqread, randread, logwrite")
	fs.StringVar(&o.size, "size", "1GiB", "working set of seqwrite, seqread and randread (bytes, or with KiB, MiB, GiB)")
	fs.StringVar(&o.block, "block", "1MiB", "seqwrite's block")
	fs.StringVar(&o.readBlock, "read-block", "8KiB", "seqread's and randread's block")
	fs.StringVar(&o.depths, "depth", "1,2,4,8,16,32,64", "reads: queue depths to step through (one goroutine per outstanding I/O, pread)")
	fs.BoolVar(&o.extend, "extend", false, "writes extend new files, as a database grows its files (seqwrite's default)")
	fs.BoolVar(&o.overwrite, "overwrite", false, "writes rewrite a file laid out beforehand, as fio does (logwrite's default: log segments are preallocated)")
	fs.BoolVar(&o.crc, "crc", false, "seqwrite: seal each block with its CRC32C, to show what checksumming costs")
	fs.BoolVar(&o.verify, "verify", false, "reads: check every 512-byte sector read against what was written (default: each read's first and last sector), at a CPU cost fio's default does not pay")
	fs.BoolVar(&o.direct, "direct", false, "O_DIRECT where the filesystem allows it (says so where it does not)")
	fs.StringVar(&o.logBlocks, "log-block", "512,8KiB,64KiB", "logwrite: write sizes, each write followed by fdatasync")
	fs.StringVar(&o.streams, "streams", "1", "logwrite: concurrent streams to step through, one file each")
	fs.IntVar(&o.logWrites, "log-writes", 1000, "logwrite: writes per stream in each step")
	durationVarP(fs, &o.stepTime, "step-time", "", 30*time.Second, "end a step after this long even if its work is not done (0 = no limit)")
	durationVarP(fs, &o.interval, "progress", "P", 250*time.Millisecond, "interval of the saved series (the charts over time)")
	fs.StringVar(&o.keepFree, "keep-free", "", "free space to leave on the filesystem (default 5% of it, at least 1GiB)")
	fs.StringVar(&o.percentiles, "percentiles", "50,90,95,99,99.9", "latency percentiles to report (50, 90, 95 and 99 are always included)")
	resultsFlag(fs, &o.results)
	fs.BoolVar(&o.noSave, "no-save", false, "do not save the runs")
	fs.StringVar(&o.json, "json", "", "write the runs as a JSON array (- = standard output)")
}

// parsePercentiles reads --percentiles: numbers in (0, 100), merged with
// the ones always reported.
func parsePercentiles(list string) ([]float64, error) {
	var ps []float64
	for _, f := range strings.Split(list, ",") {
		p, err := parseNumber(f, 0, 100)
		if err != nil || p == 0 || p == 100 {
			return nil, usagef("--percentiles %q is invalid; give numbers between 0 and 100 exclusive, e.g. 50,99,99.9", list)
		}
		ps = append(ps, p)
	}
	return results.NormalizePercentiles(ps), nil
}

// sizeList reads a list of sizes, each a multiple of 512 bytes.
func sizeList(flag, list string, lo, hi int64) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := iobench.ParseSize(f)
		if err != nil {
			return nil, usagef("--%s: %v", flag, err)
		}
		if n < lo || n > hi || n%iobench.Sector != 0 {
			return nil, usagef("--%s %s: give sizes from %s to %s, multiples of 512 bytes", flag, strings.TrimSpace(f), iobench.FormatSize(lo), iobench.FormatSize(hi))
		}
		out = append(out, int(n))
	}
	return out, nil
}

// oneSize reads a flag that takes one size, from lo to 64 MiB.
func oneSize(flag, val string, lo int64) (int, error) {
	v, err := sizeList(flag, val, lo, 64<<20)
	if err == nil && len(v) != 1 {
		err = usagef("--%s takes one size", flag)
	}
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// intList reads a list of counts from 1 to hi.
func intList(flag, list string, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > hi {
			return nil, usagef("--%s %q: give whole numbers from 1 to %d, e.g. 1,2,4", flag, list, hi)
		}
		out = append(out, n)
	}
	return out, nil
}

// config checks the flags and makes the probe's configuration.
func (o *ioOpts) config(fs *pflag.FlagSet) (iobench.Config, []iobench.Pattern, []float64, error) {
	var c iobench.Config
	if o.dir == "" {
		return c, nil, nil, usagef("`dbharness io` needs --dir, the directory to measure, e.g. --dir /var/lib/postgresql")
	}
	if st, err := os.Stat(o.dir); err != nil || !st.IsDir() {
		return c, nil, nil, usagef("--dir %s is not a directory", o.dir)
	}
	var pats []iobench.Pattern
	for _, f := range strings.Split(o.patterns, ",") {
		p := iobench.Pattern(strings.TrimSpace(f))
		ok := false
		for _, q := range iobench.Patterns {
			ok = ok || p == q
		}
		if !ok {
			return c, nil, nil, usagef("--pattern %q: the patterns are seqwrite, seqread, randread and logwrite", f)
		}
		pats = append(pats, p)
	}
	size, err := iobench.ParseSize(o.size)
	if err != nil || size < iobench.Sector || size%iobench.Sector != 0 {
		return c, nil, nil, usagef("--size %q: give a size of at least 512 bytes, a multiple of 512 (e.g. 1GiB)", o.size)
	}
	c = iobench.Config{Dir: o.dir, Size: size, CRC: o.crc, Direct: o.direct, Verify: o.verify, LogWrites: o.logWrites, StepTime: o.stepTime,
		Interval: o.interval, KeepFree: -1}
	if c.Block, err = oneSize("block", o.block, 4096); err != nil {
		return c, nil, nil, err
	}
	if c.ReadBlock, err = oneSize("read-block", o.readBlock, 512); err != nil {
		return c, nil, nil, err
	}
	if c.Depths, err = intList("depth", o.depths, 1024); err != nil {
		return c, nil, nil, err
	}
	if c.LogBlocks, err = sizeList("log-block", o.logBlocks, 512, 64<<20); err != nil {
		return c, nil, nil, err
	}
	if c.Streams, err = intList("streams", o.streams, 1024); err != nil {
		return c, nil, nil, err
	}
	if o.logWrites < 1 {
		return c, nil, nil, usagef("--log-writes %d: give at least 1", o.logWrites)
	}
	switch {
	case o.extend && o.overwrite:
		return c, nil, nil, usagef("--extend and --overwrite exclude each other; give one")
	case o.extend:
		c.Mode = iobench.Extend
	case o.overwrite:
		c.Mode = iobench.Overwrite
	}
	if c.Interval < 10*time.Millisecond {
		return c, nil, nil, usagef("--progress %s is shorter than 10ms", c.Interval)
	}
	if fs.Changed("keep-free") {
		if c.KeepFree, err = iobench.ParseSize(o.keepFree); err != nil {
			return c, nil, nil, usagef("--keep-free: %v", err)
		}
	}
	ps, err := parsePercentiles(o.percentiles)
	if err != nil {
		return c, nil, nil, err
	}
	if err := checkOutputFile("--json", o.json); err != nil {
		return c, nil, nil, err
	}
	return c, pats, ps, nil
}

func (a *app) cmdIO(args []string) error {
	var o ioOpts
	fs, err := a.parseSimple("io", args, o.flags)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("`dbharness io` takes no arguments (got %q); give the directory with --dir", fs.Arg(0))
	}
	cfg, pats, ps, err := o.config(fs)
	if err != nil {
		return err
	}
	out, store, closeStore, err := a.probeOutputs(o.json, o.noSave, o.results)
	if err != nil {
		return err
	}
	defer closeStore()
	probe, err := iobench.Open(cfg, pats)
	var se *iobench.SpaceError
	if errors.As(err, &se) {
		return exitError{ExitFail, err.Error()}
	}
	if err != nil {
		return err
	}
	defer probe.Close()
	ctx, cancel := a.interruptible("\ndbharness: interrupted; removing the probe's files")
	defer cancel()
	fmt.Fprintf(out, "measuring %s (%s", cfg.Dir, probe.FS.Type)
	if probe.FS.Device != "" {
		fmt.Fprintf(out, " on %s", probe.FS.Device)
	}
	fmt.Fprintf(out, ") in %s\n", probe.Work)
	for _, n := range []string{probe.DirectNote, probe.Note()} {
		if n != "" {
			fmt.Fprintf(out, "note: %s\n", n)
		}
	}
	flags := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "results" && f.Name != "json" && f.Name != "no-save" && f.Name != "help" {
			flags[f.Name] = f.Value.String()
		}
	})
	host := hostinfo.Read()
	var runs []*results.Run
	var runErr error
	for _, pat := range pats {
		res, err := probe.Run(ctx, pat)
		if res == nil {
			runErr = err
			break
		}
		run := probe.ToRun(res, results.NewRunID(res.Start), iobench.Describe{Command: results.RedactArgs(append([]string{"dbharness", "io"}, args...)),
			Percentiles: ps, Flags: flags, Host: host})
		if err != nil {
			run.Status, run.Error = results.StatusFailed, err.Error()
			runErr = fmt.Errorf("%s: %v", pat, err)
		}
		if pat == iobench.LogWrite && store != nil && run.IO.CommitCeiling > 0 {
			run.IO.TPCB = tpcbPeer(store, cfg.Dir, run.IO.CommitCeiling)
		}
		runs = append(runs, run)
		if store != nil {
			if err := saveWhole(store, run); err != nil {
				fmt.Fprintf(a.stderr, "dbharness: warning: results store: %v\n", err)
				runErr = errors.Join(runErr, err)
			}
		}
		report.Summary(out, run)
		if run.Status != results.StatusCompleted {
			break
		}
	}
	if o.json != "" {
		if err := report.WriteJSON(o.json, runs); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		if err := probe.Close(); err != nil {
			return fmt.Errorf("interrupted, and the probe's directory %s could not be removed: %v", probe.Work, err)
		}
		return exitError{ExitInterrupted, "io interrupted; its files are removed and what it measured is saved"}
	}
	return runErr
}

// probeOutputs is where io and scan write: their text (standard error
// when the JSON goes to standard output) and the results store (path, or
// the default; nil with --no-save), with the function that closes it.
func (a *app) probeOutputs(json string, noSave bool, path string) (stdio.Writer, *store.Store, func(), error) {
	out := a.stdout
	if json == "-" {
		out = a.stderr
	}
	if noSave {
		return out, nil, func() {}, nil
	}
	s, err := store.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w; %s, or run with --no-save", err, store.OtherStore)
	}
	return out, s, func() { s.Close() }, nil
}

// interruptible returns a context cancelled at the first Ctrl-C (SIGINT,
// SIGTERM, SIGHUP, a broken standard output; see signals), after writing
// msg to standard error; cancel also releases the signals.
func (a *app) interruptible(msg string) (context.Context, context.CancelFunc) {
	stop, release := signals()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			fmt.Fprintln(a.stderr, msg)
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); release() }
}

// saveWhole saves a finished run with its intervals, under an id of its
// own in the store.
func saveWhole(s *store.Store, r *results.Run) error {
	if err := s.Create(r); err != nil {
		return err
	}
	for i := range r.Intervals {
		if err := s.AddInterval(r.RunID, &r.Intervals[i], nil); err != nil {
			return err
		}
	}
	return nil
}

// tpcbPeer finds the newest completed single-client tpcb run whose
// database keeps its data on the device of dir (a local server that said
// where its data is), and sets its commit rate beside the ceiling.
func tpcbPeer(s *store.Store, dir string, ceiling float64) *results.TPCBPeer {
	ctx := context.Background()
	rows, err := s.List(ctx, 0)
	if err != nil {
		return nil
	}
	for _, row := range rows {
		if row.Workload != "tpcb" || row.Clients != 1 || row.Status != results.StatusCompleted {
			continue
		}
		r, err := s.Get(ctx, row.ID)
		if err != nil || r.Engine.DataDir == "" || r.Config.Rate > 0 {
			continue
		}
		t, err := db.ParseURL(r.Target)
		if err != nil || !t.Local() || !iobench.SameDevice(r.Engine.DataDir, dir) {
			continue
		}
		return &results.TPCBPeer{RunID: r.RunID, TPS: r.Summary.TPS, DataDir: r.Engine.DataDir,
			OfCeilingPct: float64(int(1000*r.Summary.TPS/ceiling+0.5)) / 10}
	}
	return nil
}
