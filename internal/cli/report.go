package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
)

// reportOuts are the report files asked for on `run` or `report`.
type reportOuts struct {
	html, csv, markdown string
}

func (o *reportOuts) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.html, "html", "", "write a self-contained HTML report (charts inline, no script, works offline) to FILE")
	fs.StringVar(&o.csv, "csv", "", "write the interval series and per-operation summaries as CSV files into DIR")
	fs.StringVar(&o.markdown, "markdown", "", "write a compact Markdown summary to FILE (- for standard output)")
}

func (o *reportOuts) any() bool { return o.html != "" || o.csv != "" || o.markdown != "" }

// validate checks, before any work, that the files can be written where
// asked (checkOutputFile, checkOutputDir).
func (o *reportOuts) validate() error {
	if o.html == "-" {
		return usagef("--html needs a file name")
	}
	for _, err := range []error{checkOutputFile("--html", o.html), checkOutputFile("--markdown", o.markdown), checkOutputDir("--csv", o.csv)} {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeRun writes the asked reports of one run and says where they went.
func (a *app) writeRun(o reportOuts, r *results.Run, msg io.Writer) error {
	return writeReports(o, msg,
		func(w io.Writer, opt report.HTMLOptions) error { return report.RunHTML(w, r, opt) },
		func(dir string) error { return report.WriteRunCSV(dir, r) },
		func(w io.Writer) error { return report.RunMarkdown(w, r) })
}

func reportFlags(so *storeOpts, o *reportOuts, hdrLog *string) func(fs *pflag.FlagSet) {
	return func(fs *pflag.FlagSet) {
		resultsFlag(fs, &so.results)
		o.flags(fs)
		fs.StringVar(hdrLog, "hdr-log", "", "write a saved run's (or a group's merged) per-interval latency histograms to FILE (- for standard output) in HdrHistogram's interval log format, as run --hdr-log does")
	}
}

func (a *app) cmdReport(args []string) error {
	var so storeOpts
	var o reportOuts
	var hdrLog string
	fs, err := a.parseSimple("report", args, reportFlags(&so, &o, &hdrLog))
	if err != nil {
		return err
	}
	if hdrLog != "" {
		if o.any() {
			return usagef("--hdr-log is written alone; give the other outputs in another `dbharness report`")
		}
		if fs.NArg() != 1 {
			return usagef("--hdr-log takes one saved run id or group name, e.g. `dbharness report RUN --hdr-log run.hlog`")
		}
		if err := checkOutputFile("--hdr-log", hdrLog); err != nil {
			return err
		}
		return a.writeHDRLog(fs.Arg(0), so, hdrLog)
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usagef("`dbharness report` takes a run or sweep id, two ids A B to compare, or a run, sweep or comparison JSON file, e.g. `dbharness report RUN --html report.html`; `dbharness runs` and `dbharness sweeps` list them")
	}
	if !o.any() {
		return usagef("`dbharness report` needs an output: --html FILE, --csv DIR, --markdown FILE or --hdr-log FILE")
	}
	if err := o.validate(); err != nil {
		return err
	}
	var d reportable
	if fs.NArg() == 2 {
		d, err = compareReportable(fs.Arg(0), fs.Arg(1), so)
	} else {
		d, err = loadReportable(fs.Arg(0), so)
	}
	if err != nil {
		return err
	}
	msg := a.stdout
	if o.markdown == "-" {
		msg = a.stderr
	}
	switch {
	case d.run != nil:
		return a.writeRun(o, d.run, msg)
	case d.sweep != nil:
		return writeSweepReports(o, msg, d.sweep)
	default:
		return writeCompareReports(o, msg, d.cmp)
	}
}

// writeSweepReports writes the asked reports of a sweep.
func writeSweepReports(o reportOuts, msg io.Writer, sw *results.Sweep) error {
	return writeReports(o, msg,
		func(w io.Writer, opt report.HTMLOptions) error { return report.SweepHTML(w, sw, opt) },
		func(dir string) error { return report.WriteSweepCSV(dir, sw) },
		func(w io.Writer) error { return report.SweepMarkdown(w, sw) })
}

// writeCompareReports writes the asked reports of a comparison.
func writeCompareReports(o reportOuts, msg io.Writer, c *results.Comparison) error {
	return writeReports(o, msg,
		func(w io.Writer, opt report.HTMLOptions) error { return report.CompareHTML(w, c, opt) },
		func(dir string) error { return report.WriteCompareCSV(dir, c) },
		func(w io.Writer) error { return report.CompareMarkdown(w, c) })
}

// writeReports writes the asked outputs with the given generators and says
// where they went.
func writeReports(o reportOuts, msg io.Writer, html func(io.Writer, report.HTMLOptions) error, csvDir func(string) error, md func(io.Writer) error) error {
	opt := report.HTMLOptions{Version: Version, Generated: time.Now()}
	if o.html != "" {
		if err := report.WriteFile(o.html, func(w io.Writer) error { return html(w, opt) }); err != nil {
			return err
		}
		fmt.Fprintf(msg, "HTML report written to %s\n", o.html)
	}
	if o.csv != "" {
		if err := csvDir(o.csv); err != nil {
			return err
		}
		fmt.Fprintf(msg, "CSV files written to %s\n", o.csv)
	}
	if o.markdown != "" {
		if err := report.WriteFile(o.markdown, md); err != nil {
			return err
		}
		if o.markdown != "-" {
			fmt.Fprintf(msg, "Markdown summary written to %s\n", o.markdown)
		}
	}
	return nil
}

// reportable is what `report` can render: a run, a sweep or a comparison.
type reportable struct {
	run   *results.Run
	sweep *results.Sweep
	cmp   *results.Comparison
}

// loadReportable reads a run, sweep or comparison from a JSON file (as
// written by `run --json`, `sweep --json` or `compare --json`) when arg
// names a file, else a run or sweep from the results store by id or unique
// prefix.
func loadReportable(arg string, so storeOpts) (reportable, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return readReportable(arg)
	}
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".json") {
		return reportable{}, fmt.Errorf("file %s does not exist", arg)
	}
	s, err := so.open()
	if err != nil {
		return reportable{}, err
	}
	defer s.Close()
	l, err := loadSide(context.Background(), s, arg)
	if err != nil {
		return reportable{}, err
	}
	return reportable{run: l.run, sweep: l.sweep}, nil
}

// compareReportable compares B against A (two runs or two sweeps) from the
// results store, as `compare A B` does.
func compareReportable(a, b string, so storeOpts) (reportable, error) {
	s, err := so.open()
	if err != nil {
		return reportable{}, err
	}
	defer s.Close()
	c, err := compareIDs(context.Background(), s, a, b)
	if err != nil {
		return reportable{}, err
	}
	return reportable{cmp: c}, nil
}

func readReportable(path string) (reportable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return reportable{}, fmt.Errorf("read %s: %v", path, err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return reportable{}, fmt.Errorf("%s is not a dbharness JSON file: %v", path, err)
	}
	var version int
	_ = json.Unmarshal(keys["schema_version"], &version)
	check := func(kind string, max int) error {
		if version == 0 {
			return fmt.Errorf("%s is not a dbharness %s JSON file (no schema_version)", path, kind)
		}
		if version > max {
			return fmt.Errorf("%s has %s schema version %d; this dbharness reads up to %d", path, kind, version, max)
		}
		return nil
	}
	var d reportable
	switch {
	case keys["run_id"] != nil:
		if err := check("run", results.SchemaVersion); err != nil {
			return d, err
		}
		d.run = new(results.Run)
		err = json.Unmarshal(b, d.run)
	case keys["sweep_id"] != nil:
		if err := check("sweep", results.SweepSchemaVersion); err != nil {
			return d, err
		}
		d.sweep = new(results.Sweep)
		err = json.Unmarshal(b, d.sweep)
	case keys["a"] != nil && keys["b"] != nil:
		if err := check("comparison", results.CompareSchemaVersion); err != nil {
			return d, err
		}
		d.cmp = new(results.Comparison)
		err = json.Unmarshal(b, d.cmp)
	default:
		return d, fmt.Errorf("%s is not a dbharness run, sweep or comparison JSON file (no run_id, sweep_id, or a and b)", path)
	}
	if err != nil {
		return reportable{}, fmt.Errorf("%s cannot be read: %v", path, err)
	}
	return d, nil
}

// writeHDRLog writes the HdrHistogram interval log of a run saved in the
// results store (its interval histograms are kept there, not in the JSON),
// or of a group of shards: their intervals' histograms merged exactly.
func (a *app) writeHDRLog(id string, so storeOpts, path string) error {
	if st, err := os.Stat(id); (err == nil && !st.IsDir()) || strings.ContainsAny(id, `/\`) || strings.HasSuffix(id, ".json") {
		return usagef("--hdr-log needs a run saved in the results store (a run's JSON file has no interval histograms); give its id")
	}
	s, err := so.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	l, err := loadSide(ctx, s, id)
	if err != nil {
		return err
	}
	if l.run == nil {
		return usagef("--hdr-log is written for one run; %s is a sweep (`dbharness show %s` lists its runs)", id, id)
	}
	run := l.run
	var hists map[int]map[string]string
	if run.Group != nil {
		// A group's intervals are its shards' merged, histograms too.
		run, hists, err = s.GetGroup(ctx, run.RunID)
	} else {
		hists, err = s.IntervalHists(ctx, run.RunID)
	}
	if err != nil {
		return err
	}
	if err := report.WriteFile(path, func(w io.Writer) error { return report.WriteHDRLog(w, run, hists) }); err != nil {
		return err
	}
	if path != "-" {
		fmt.Fprintf(a.stdout, "HdrHistogram log written to %s\n", path)
	}
	return nil
}
