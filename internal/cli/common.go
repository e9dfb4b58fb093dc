package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/workload"
)

// target opens the --db target and says where the default database is.
func (a *app) target(raw string) (db.DB, error) {
	t, err := a.targetURL(raw)
	if err != nil {
		return nil, err
	}
	return db.Open(t)
}

// targetURL parses the --db target and says where the default database
// is.
func (a *app) targetURL(raw string) (*db.Target, error) {
	t, err := parseTarget(raw)
	if err != nil {
		return nil, err
	}
	a.noteDefault(t)
	return t, nil
}

// envDB is --db's default, before the embedded database: a URL that
// should not be on a command line (a Kubernetes Job's, from a Secret).
const envDB = "DBHARNESS_DB"

// parseTarget parses --db, or $DBHARNESS_DB when it is not given, or else
// the engines' own environment variables (libpq's PGHOST, PGDATABASE, ...;
// db.FromEnv); a bad URL is a usage error.
func parseTarget(raw string) (*db.Target, error) {
	from := ""
	if raw == "" {
		raw, from = os.Getenv(envDB), "$"+envDB+": "
	}
	if raw == "" {
		t, err := db.FromEnv()
		if err != nil {
			return nil, usageError{err.Error()}
		}
		return t, nil
	}
	t, err := db.ParseURL(raw)
	if err != nil {
		return nil, usageError{from + err.Error()}
	}
	return t, nil
}

// noteDefault says where the default database is when t is it, and which
// environment variables named t when they did.
func (a *app) noteDefault(t *db.Target) {
	switch {
	case t.Default:
		fmt.Fprintf(a.stderr, "using the embedded SQLite database %s (give --db to use another)\n", t.Path)
	case t.From != "":
		fmt.Fprintf(a.stderr, "target from %s (no --db given): %s\n", t.From, t)
	}
}

// connectTimeout bounds how long a first connection may take.
const connectTimeout = 10 * time.Second

func connect(ctx context.Context, d db.DB) (db.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	return d.Connect(cctx)
}

// randomSeed returns a seed for runs that were not given one.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) >> 1
}

// signals returns a channel closed at the first SIGINT or SIGTERM, SIGHUP
// (the terminal closed; not under nohup, which ignores it) or SIGPIPE on
// standard output or error (`dbharness run ... | head`): the work stops
// as for Ctrl-C. A second SIGINT or SIGTERM exits the process at once
// with status 130; a broken pipe written to again does not.
func signals() (stop <-chan struct{}, release func()) {
	ch := make(chan os.Signal, 2)
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	signal.Notify(ch, sigs...)
	pipe := pipeSignals()
	s := make(chan struct{})
	done := make(chan struct{})
	go func() {
	first:
		for {
			select {
			case sig := <-ch:
				if sig == syscall.SIGHUP {
					fmt.Fprintln(os.Stderr, "\ndbharness: hangup (SIGHUP); stopping as for Ctrl-C")
				}
				break first
			case <-pipe:
				// SIGPIPE also comes from a database connection whose
				// server went away: the run goes on (it reconnects).
				if stdioBroken() {
					fmt.Fprintln(os.Stderr, "\ndbharness: standard output was closed (SIGPIPE); stopping as for Ctrl-C")
					break first
				}
			case <-done:
				return
			}
		}
		close(s)
		for {
			select {
			case sig := <-ch:
				if sig == syscall.SIGHUP {
					continue
				}
				fmt.Fprintln(os.Stderr, "\ndbharness: interrupted again; exiting now")
				os.Exit(ExitInterrupted)
			case <-done:
				return
			}
		}
	}()
	return s, func() { signal.Stop(ch); close(done) }
}

// pipeSignals is where SIGPIPE goes from the first call of signals on. It
// is never handed back to Go's default, which kills the process at a write
// to a broken standard output or error: such a write fails with EPIPE
// instead, and the work that was stopped ends with its own status.
var pipeSignals = sync.OnceValue(func() <-chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGPIPE)
	return ch
})

// stopContext returns a context cancelled when stop closes (or when the
// returned cancel is called).
func stopContext(stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// ownFlags returns the flags a workload registers for cmd, on a fresh
// instance (registering flags resets the bound fields); empty if the
// workload cannot be made again.
func ownFlags(wl workload.Generator, cmd workload.Command) *pflag.FlagSet {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if fresh, err := workload.New(wl.Name()); err == nil {
		fresh.Flags(cmd, fs)
	}
	return fs
}

// workloadFlags returns the values of the workload's own flags, for the
// saved configuration.
func workloadFlags(fs *pflag.FlagSet, wl workload.Generator, cmd workload.Command) map[string]string {
	m := map[string]string{}
	ownFlags(wl, cmd).VisitAll(func(f *pflag.Flag) {
		if v := fs.Lookup(f.Name); v != nil {
			m[f.Name] = redact.String(v.Value.String())
		}
	})
	return m
}

// loadBar is the progress bar shown while loading: rows written and rows/s
// per table, redrawn in place on a terminal and every few seconds otherwise.
type loadBar struct {
	w      io.Writer
	tty    bool
	start  time.Time
	mu     sync.Mutex
	tables []string
	plan   map[string]int64
	done   map[string]*atomic.Int64
	phase  string
	// steps times each step: loading, then each named phase.
	steps     []string
	stepStart time.Time
	stopC     chan struct{}
	wg        sync.WaitGroup
	// lastState is what the last line written to a log (not a terminal)
	// showed: rows done and phase, and lastLine when it was written. A line
	// that would only repeat it is left out, but for one a minute to show
	// that a long step is still going.
	lastState string
	lastLine  time.Time
}

func newLoadBar(w io.Writer) *loadBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	b := &loadBar{w: w, tty: tty, start: time.Now(), plan: map[string]int64{}, done: map[string]*atomic.Int64{}, stopC: make(chan struct{})}
	b.wg.Add(1)
	go b.loop()
	return b
}

func (b *loadBar) Plan(table string, rows int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.plan[table]; !ok {
		b.tables = append(b.tables, table)
		b.done[table] = &atomic.Int64{}
	}
	b.plan[table] += rows
}

func (b *loadBar) Add(table string, rows int64) {
	b.mu.Lock()
	c := b.done[table]
	b.mu.Unlock()
	if c != nil {
		c.Add(rows)
	}
}

func (b *loadBar) Phase(name string) {
	b.mu.Lock()
	b.endStep()
	b.phase = name
	b.mu.Unlock()
	b.draw(false)
}

func (b *loadBar) loop() {
	defer b.wg.Done()
	every := 200 * time.Millisecond
	if !b.tty {
		every = 5 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.draw(false)
		case <-b.stopC:
			return
		}
	}
}

func (b *loadBar) line() (line, state string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var total, done int64
	for _, t := range b.tables {
		total += b.plan[t]
		done += b.done[t].Load()
	}
	el := time.Since(b.start).Seconds()
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	const width = 30
	fill := int(pct / 100 * width)
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el
	}
	s := fmt.Sprintf("loading [%s] %5.1f%%  %d/%d rows  %.0f rows/s  %.1fs", bar, pct, done, total, rate, el)
	if b.phase != "" {
		s += "  now: " + b.phase
	}
	return s, fmt.Sprintf("%d/%d %s", done, total, b.phase)
}

// draw writes the bar: in place on a terminal; on a log, a line when it
// shows something new (rows, a step) and otherwise once a minute.
func (b *loadBar) draw(final bool) {
	l, state := b.line()
	if b.tty {
		fmt.Fprintf(b.w, "\r%-120s", l)
		if final {
			fmt.Fprintln(b.w)
		}
		return
	}
	b.mu.Lock()
	skip := state == b.lastState && time.Since(b.lastLine) < logRepeatEvery
	if !skip {
		b.lastState, b.lastLine = state, time.Now()
	}
	b.mu.Unlock()
	if !skip {
		fmt.Fprintln(b.w, l)
	}
}

// logRepeatEvery is how often a log gets a line that shows nothing new.
const logRepeatEvery = time.Minute

// endStep closes the running step (the load, or the current phase).
func (b *loadBar) endStep() {
	name := b.phase
	if name == "" {
		name = "load"
	}
	if b.stepStart.IsZero() {
		b.stepStart = b.start
	}
	b.steps = append(b.steps, fmt.Sprintf("%s %.2fs", name, time.Since(b.stepStart).Seconds()))
	b.stepStart = time.Now()
}

func (b *loadBar) finish() {
	close(b.stopC)
	b.wg.Wait()
	b.draw(true)
	b.mu.Lock()
	b.endStep()
	fmt.Fprintf(b.w, "steps: %s\n", strings.Join(b.steps, "; "))
	b.mu.Unlock()
}

// tableRows lists tables by name for messages.
func tableRows(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
