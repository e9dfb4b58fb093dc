// Package sweep runs an experiment: the plan of a sweep's runs (client
// counts crossed with varied flags, repeated in rounds of random order),
// each run made by the runner from a typed configuration, with the data
// loaded again before the points that need other data, saved after every
// run so that an interrupted sweep resumes where it stopped, then analysed.
// It parses no command line: the caller gives one configuration per run.
package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbharness/dbharness/internal/experiment"
	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
	"github.com/dbharness/dbharness/internal/store"
)

// Plan lays out every run: repeat rounds, each a random permutation (seeded
// by seed and the round) of clients x the combinations of vary's values.
func Plan(clients []int, vary []results.VaryFlag, repeat int, seed uint64) []results.SweepRun {
	var points []results.SweepRun
	for _, c := range combos(vary) {
		for _, n := range clients {
			var v map[string]string
			if len(c) > 0 {
				v = c
			}
			points = append(points, results.SweepRun{Clients: n, Vary: v})
		}
	}
	var plan []results.SweepRun
	for round := 1; round <= repeat; round++ {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		perm := rng.Perm(len(points))
		for _, i := range perm {
			p := points[i]
			p.Round = round
			p.Seq = len(plan)
			plan = append(plan, p)
		}
	}
	return plan
}

// combos returns every combination of the vary values (one empty map when
// nothing varies).
func combos(vs []results.VaryFlag) []map[string]string {
	out := []map[string]string{{}}
	for _, v := range vs {
		var next []map[string]string
		for _, c := range out {
			for _, x := range v.Values {
				m := make(map[string]string, len(c)+1)
				for k, y := range c {
					m[k] = y
				}
				m[v.Flag] = x
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

// CheckResumable refuses a saved sweep that a live process on this host is
// still running.
func CheckResumable(sw *results.Sweep) error {
	if host, _ := os.Hostname(); sw.Status == results.StatusRunning && sw.Host == host && sw.PID > 0 && sw.PID != os.Getpid() &&
		processAlive(sw.PID) {
		return fmt.Errorf("sweep %s is still running (process %d); stop it first, or wait for it", sw.SweepID, sw.PID)
	}
	return nil
}

// processAlive reports whether a process with that id exists (signal 0).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// Point is how to make one run of the plan.
type Point struct {
	// Run is the run's configuration; Run sets its Results, Out and Warn.
	Run runner.Config
	// Init, when set, loads the point's data before the run (a sweep that
	// varies a flag of the workload's init). It runs unless InitKey, which
	// names the data it loads, is the key of the last load of this
	// session.
	Init    *runner.InitConfig
	InitKey string
}

// Options are a sweep's outputs.
type Options struct {
	// Results is the results store file ("" is store.DefaultPath()); the
	// sweep and its runs are saved there.
	Results string
	// Out takes the sweep's lines (its first line, notes, a line per run,
	// a line per init); Warn the runs' warnings. Nil discards.
	Out, Warn io.Writer
	// Verbose sends each run's progress and summary to Out too.
	Verbose bool
	// Stop, when closed, interrupts the sweep: the run under way ends
	// early and no other starts.
	Stop <-chan struct{}
	// Resumed says sw is a saved sweep that goes on (--resume); a new
	// one is saved under an id no other sweep has.
	Resumed bool
}

// Outcome is how a sweep ended.
type Outcome struct {
	// Done counts the completed runs of the plan.
	Done int
	// Failure stopped the sweep (a run or an init that failed); nil
	// otherwise.
	Failure error
	// Interrupted is set when Stop ended the sweep.
	Interrupted bool
	// Store is the results store file.
	Store string
}

// Run makes every run of sw's plan that is not completed yet, points[i]
// giving the configuration of sw.Plan[i], and saves the sweep after each;
// then it analyses the runs and saves the sweep again. A run or init that
// fails stops the sweep (Outcome.Failure); the error is for the results
// store only.
func Run(ctx context.Context, sw *results.Sweep, points []Point, o Options) (*Outcome, error) {
	if len(points) != len(sw.Plan) {
		return nil, fmt.Errorf("sweep %s: %d configurations for %d planned runs", sw.SweepID, len(points), len(sw.Plan))
	}
	out, warn := o.Out, o.Warn
	if out == nil {
		out = io.Discard
	}
	if warn == nil {
		warn = io.Discard
	}
	st, err := store.Open(o.Results)
	if err != nil {
		return nil, fmt.Errorf("%w; %s", err, store.OtherStore)
	}
	defer st.Close()
	oc := &Outcome{Store: st.Path()}
	sw.PID = os.Getpid()
	sw.Host, _ = os.Hostname()
	save := st.CreateSweep
	if o.Resumed {
		save = st.SaveSweep
	}
	if err := save(sw); err != nil {
		return nil, err
	}
	todo := 0
	for _, pr := range sw.Plan {
		if pr.Status != results.StatusCompleted {
			todo++
		}
	}
	if sw.Status == results.StatusRunning && todo > 0 {
		fmt.Fprintf(out, "sweep %s: %s on %s, clients %s x %d repeat(s)%s: %d runs (%d to do), order seed %d\n",
			sw.SweepID, sw.Workload, sw.Target, sw.ClientList(), sw.Repeat, describeVary(sw.Vary), len(sw.Plan), todo, sw.OrderSeed)
		for _, n := range sw.Notes {
			fmt.Fprintf(out, "note: %s\n", n)
		}
	}
	loaded := "" // the InitKey loaded last; unknown at the start of a session
	oc.Done = len(sw.Plan) - todo
	for i := range sw.Plan {
		pr := &sw.Plan[i]
		if pr.Status == results.StatusCompleted {
			continue
		}
		select {
		case <-o.Stop:
			oc.Interrupted = true
		default:
		}
		if oc.Interrupted {
			break
		}
		pt := points[i]
		var run *results.Run
		var err error
		if pt.Run.Workload == nil {
			err = fmt.Errorf("planned run %d has no configuration", pr.Seq+1)
		} else {
			err = prepare(ctx, pr, &pt, &loaded, o.Stop, out)
		}
		if err == nil {
			var runWarn bytes.Buffer
			cfg := pt.Run
			cfg.Results, cfg.Out, cfg.Warn = st.Location(), io.Discard, &runWarn
			if o.Verbose {
				cfg.Out, cfg.Verbose = out, true
			}
			run, err = runner.Run(ctx, cfg, o.Stop)
			_, _ = warn.Write(runWarn.Bytes())
		}
		if run != nil {
			pr.RunID, pr.Status = run.RunID, run.Status
			if ns := (*runner.NotSavedError)(nil); errors.As(err, &ns) {
				pr.Status = results.StatusFailed // --resume makes it again
			}
			sw.RunIDs = append(sw.RunIDs, run.RunID)
			sw.AddMix(run.Mix)
		}
		if run != nil && pr.Status == results.StatusCompleted {
			oc.Done++
			if sw.Engine == nil {
				e, h := run.Engine, run.Host
				sw.Engine, sw.ClientHost = &e, &h
			}
		}
		fmt.Fprintf(out, "[%*d/%d] %s\n", len(strconv.Itoa(len(sw.Plan))), pr.Seq+1, len(sw.Plan), runLine(pr, run, err))
		if err := st.SaveSweep(sw); err != nil {
			return nil, err
		}
		if ie := (*runner.Interrupted)(nil); errors.As(err, &ie) {
			oc.Interrupted = true // during an init
			break
		}
		if err != nil {
			oc.Failure = err
			break
		}
		if run.Status == results.StatusInterrupted {
			oc.Interrupted = true
			break
		}
	}
	sw.EndTime = time.Now()
	switch {
	case oc.Failure != nil:
		sw.Status, sw.Error = results.StatusFailed, oneLine(oc.Failure.Error())
	case oc.Interrupted:
		sw.Status = results.StatusInterrupted
	default:
		sw.Status = results.StatusCompleted
	}
	runs, err := st.SweepRuns(ctx, sw)
	if err != nil {
		return nil, err
	}
	experiment.Analyze(sw, runs)
	if err := st.SaveSweep(sw); err != nil {
		return nil, err
	}
	return oc, nil
}

// prepare loads the data of pr before its run when the point has an init
// whose key differs from the one loaded last, and prints a line saying so.
// pr.Init records whether it did.
func prepare(ctx context.Context, pr *results.SweepRun, pt *Point, loaded *string, stop <-chan struct{}, out io.Writer) error {
	pr.Init = false
	if pt.Init == nil || pt.InitKey == *loaded {
		return nil
	}
	*loaded = ""
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	if err := runner.Init(ctx, *pt.Init); err != nil {
		return err
	}
	pr.Init, *loaded = true, pt.InitKey
	fmt.Fprintf(out, "init %s: done in %.2fs\n", pt.InitKey, time.Since(start).Seconds())
	return nil
}

func runLine(pr *results.SweepRun, run *results.Run, err error) string {
	s := fmt.Sprintf("round %d  clients %3d", pr.Round, pr.Clients)
	if v := experiment.VaryKey(pr.Vary); v != "" {
		s += "  " + v
	}
	if run == nil {
		return s + "  did not start: " + oneLine(err.Error())
	}
	s += fmt.Sprintf("  run %s  %s  %s tps", run.RunID, run.Status, numfmt.Figure(run.Summary.TPS))
	if p99, ok := run.Summary.LatencyMs["p99"]; ok {
		s += fmt.Sprintf("  p99 %.3f ms", p99)
	}
	if run.Summary.Errors > 0 {
		s += fmt.Sprintf("  %d errors", run.Summary.Errors)
	}
	if run.Error != "" {
		s += "  " + run.Error
	}
	return s
}

func describeVary(vs []results.VaryFlag) string {
	var s string
	for _, v := range vs {
		s += fmt.Sprintf(" x %s=%s", v.Flag, strings.Join(v.Values, ","))
	}
	return s
}

// oneLine keeps an error to one line.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
