package report

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// CSV file names written by WriteRunCSV.
const (
	CSVIntervals   = "intervals.csv"    // one row per interval, all operations together
	CSVIntervalOps = "interval_ops.csv" // one row per interval and operation
	CSVOps         = "ops.csv"          // one row per operation (measured and warm-up totals)
	CSVErrors      = "errors.csv"       // one row per error class, with its first message
	CSVOS          = "os.csv"           // with --collect os: one row per interval and counter
	CSVServer      = "server.csv"       // with --collect server: one row per interval and counter (any other collector's series: NAME.csv)
	CSVWaits       = "waits.csv"        // with --collect waits: the profile, then each interval's shares
)

// WriteRunCSV writes a run's full interval series and per-operation
// summaries as CSV files into dir (created if needed). Latencies are in
// milliseconds; an empty cell means no value (no transaction completed).
func WriteRunCSV(dir string, r *results.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create CSV directory %s: %v", dir, err)
	}
	files := []csvFile{
		{CSVIntervals, func(w *csvWriter) error { return intervalsCSV(w, r) }},
		{CSVIntervalOps, func(w *csvWriter) error { return intervalOpsCSV(w, r) }},
		{CSVOps, func(w *csvWriter) error { return opsCSV(w, r) }},
		{CSVErrors, func(w *csvWriter) error { return errorsCSV(w, r) }},
	}
	for _, n := range r.Collect.Names() {
		s, name := r.Collect.Get(n), n+".csv"
		if slices.ContainsFunc(files, func(f csvFile) bool { return f.name == name }) || name == CSVWaits {
			name = "collect-" + name
		}
		files = append(files, csvFile{name, func(w *csvWriter) error { return seriesCSV(w, r.RunID, s) }})
	}
	if r.Waits != nil && len(r.Waits.Events) > 0 {
		files = append(files, csvFile{CSVWaits, func(w *csvWriter) error { return waitsCSV(w, r.RunID, r.Waits) }})
	}
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeCSVFile(path, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// csvFile is one CSV file to write and what writes its rows.
type csvFile struct {
	name string
	fn   func(*csvWriter) error
}

func writeCSVFile(path string, fn func(*csvWriter) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %v", path, err)
	}
	w := csv.NewWriter(fh)
	err = fn(&csvWriter{w})
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %v", path, err)
	}
	return nil
}

// csvWriter is the writer of every CSV file: it neutralises each cell a
// spreadsheet would take for a formula (OWASP's advice on CSV injection): a
// cell that starts with =, +, -, @, a tab or a carriage return gets a
// leading single quote, unless it is a number (-1.5), which is how the
// numeric cells start with a sign. Names from the database or the command
// line (a script file called =HYPERLINK(...).sql) are text, and stay text.
type csvWriter struct{ w *csv.Writer }

func (c *csvWriter) Write(row []string) error {
	out := row
	for i, s := range row {
		if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 && !csvNumber.MatchString(s) {
			if &out[0] == &row[0] {
				out = slices.Clone(row) // the caller's row stays as it was
			}
			out[i] = "'" + s
		}
	}
	return c.w.Write(out)
}

// csvNumber is a number as the CSV files write them (ff, fi).
var csvNumber = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// latencyCols are the latency keys written as columns: the run's
// percentiles, then min, mean and max.
func latencyCols(r *results.Run) []string {
	ps := r.Config.Percentiles
	if len(ps) == 0 {
		ps = results.NormalizePercentiles(nil)
	}
	var cols []string
	for _, p := range ps {
		cols = append(cols, results.PercentileKey(p))
	}
	return append(cols, "min", "mean", "max")
}

func latencyHead(prefix string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = prefix + c + "_ms"
	}
	return out
}

func latencyCells(l results.Latency, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		if v, ok := l[c]; ok {
			out[i] = ff(v)
		}
	}
	return out
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
func fi(v int64) string   { return strconv.FormatInt(v, 10) }
func fint(v int) string   { return strconv.Itoa(v) }
func cat(a ...[]string) []string {
	var out []string
	for _, s := range a {
		out = append(out, s...)
	}
	return out
}

func intervalsCSV(w *csvWriter, r *results.Run) error {
	cols := latencyCols(r)
	lag := r.Config.Rate > 0
	head := cat([]string{"run_id", "seq", "phase", "t_s", "seconds", "tps", "cumulative_tps", "count", "errors", "retries",
		"late", "reconnects", "clients_down", "clients_waiting"}, latencyHead("", cols))
	if lag {
		head = append(head, latencyHead("lag_", cols)...)
	}
	head = append(head, "error_classes")
	if err := w.Write(head); err != nil {
		return err
	}
	for _, iv := range r.Intervals {
		row := cat([]string{r.RunID, fint(iv.Seq), iv.Phase, ff(iv.T), ff(iv.Seconds), ff(iv.TPS), ff(iv.CumulativeTPS),
			fi(iv.Count), fi(iv.Errors), fi(iv.Retries), fi(iv.Late), fi(iv.Reconnects), fint(iv.Down), fint(iv.Waiting)}, latencyCells(iv.LatencyMs, cols))
		if lag {
			row = append(row, latencyCells(iv.LagMs, cols)...)
		}
		row = append(row, classList(iv.ErrorClasses))
		if err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// classList writes error classes as "class=n;class=n".
func classList(m map[string]int64) string {
	s := ""
	for _, k := range results.SortedClasses(m) {
		if s != "" {
			s += ";"
		}
		s += k + "=" + fi(m[k])
	}
	return s
}

func intervalOpsCSV(w *csvWriter, r *results.Run) error {
	cols := latencyCols(r)
	if err := w.Write(cat([]string{"run_id", "seq", "phase", "t_s", "op", "count", "errors", "retries", "tps"}, latencyHead("", cols))); err != nil {
		return err
	}
	for _, iv := range r.Intervals {
		for _, o := range iv.Ops {
			row := cat([]string{r.RunID, fint(iv.Seq), iv.Phase, ff(iv.T), o.Name, fi(o.Count), fi(o.Errors), fi(o.Retries), ff(o.TPS)},
				latencyCells(o.LatencyMs, cols))
			if err := w.Write(row); err != nil {
				return err
			}
		}
	}
	return nil
}

func opsCSV(w *csvWriter, r *results.Run) error {
	cols := latencyCols(r)
	if err := w.Write(cat([]string{"run_id", "phase", "op", "count", "tps", "errors", "retries", "late"}, latencyHead("", cols), []string{"label"})); err != nil {
		return err
	}
	write := func(phase string, o results.Op) error {
		return w.Write(cat([]string{r.RunID, phase, o.Name, fi(o.Count), ff(o.TPS), fi(o.Errors), fi(o.Retries), fi(o.Late)},
			latencyCells(o.LatencyMs, cols), []string{r.Label}))
	}
	for _, o := range r.Warmup {
		if err := write(runphase.Warmup, o); err != nil {
			return err
		}
	}
	for _, o := range r.Ops {
		if err := write(runphase.Measure, o); err != nil {
			return err
		}
	}
	s := r.Summary
	return write(runphase.Measure, results.Op{Name: "total", Count: s.Transactions, TPS: s.TPS, Errors: s.Errors,
		Retries: s.Retries, Late: s.Late, LatencyMs: s.LatencyMs})
}

func errorsCSV(w *csvWriter, r *results.Run) error {
	if err := w.Write([]string{"run_id", "class", "count", "first_message"}); err != nil {
		return err
	}
	for _, k := range results.SortedClasses(r.ErrorClasses) {
		if err := w.Write([]string{r.RunID, k, fi(r.ErrorClasses[k]), r.ErrorSamples[k]}); err != nil {
			return err
		}
	}
	return nil
}

// seriesCSV writes a collector's series in long form: one row per interval
// and counter, kind "rate" (per second) or "value" (gauge or derived).
func seriesCSV(w *csvWriter, runID string, s *evidence.Series) error {
	if err := w.Write([]string{"run_id", "seq", "phase", "t_s", "seconds", "kind", "name", "value"}); err != nil {
		return err
	}
	for _, p := range s.Intervals {
		for _, kind := range []string{"rate", "value"} {
			m := p.Rates
			if kind == "value" {
				m = p.Values
			}
			for _, k := range sortedKeys(m) {
				if err := w.Write([]string{runID, fint(p.Seq), p.Phase, ff(p.T), ff(p.Seconds), kind, k, ff(m[k])}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// waitsCSV writes the wait profile: the measured phase's shares (seq
// empty), then each interval's.
func waitsCSV(w *csvWriter, runID string, ws *results.Waits) error {
	if err := w.Write([]string{"run_id", "seq", "phase", "t_s", "event", "share", "weight", "unit"}); err != nil {
		return err
	}
	for _, e := range ws.Events {
		if err := w.Write([]string{runID, "", "measure", "", e.Event, ff(e.Share), ff(e.Weight), ws.Unit}); err != nil {
			return err
		}
	}
	for _, iv := range ws.Intervals {
		for _, k := range sortedKeys(iv.Shares) {
			if err := w.Write([]string{runID, fint(iv.Seq), iv.Phase, ff(iv.T), k, ff(iv.Shares[k]), "", ws.Unit}); err != nil {
				return err
			}
		}
	}
	return nil
}

func init() {
	Register(Format{
		Name:      "csv",
		Order:     20,
		Dir:       true,
		Help:      "write the interval series and per-operation summaries as CSV files into DIR",
		SweepHelp: "write the sweep's points and runs as CSV files into DIR at the end",
		Noun:      "CSV files",
		Written:   "CSV files",
		Run:       func(dir string, r *results.Run, _ HTMLOptions) error { return WriteRunCSV(dir, r) },
		Sweep:     func(dir string, sw *results.Sweep, _ HTMLOptions) error { return WriteSweepCSV(dir, sw) },
		Compare:   func(dir string, c *results.Comparison, _ HTMLOptions) error { return WriteCompareCSV(dir, c) },
	})
}
