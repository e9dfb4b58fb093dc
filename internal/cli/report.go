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

// reportOuts are the report files asked for on `run`, `sweep`, `compare`
// or `report`: one flag for each registered report format that applies.
type reportOuts struct {
	outs []reportOut
}

// reportOut is one report format's flag and the path it was given.
type reportOut struct {
	f    report.Format
	path string
}

// flagsFor adds the flags of the formats that write what: "run", "sweep"
// (with their help for sweep), "comparison", or "" for any (report).
func (o *reportOuts) flagsFor(what string) func(fs *pflag.FlagSet) {
	return func(fs *pflag.FlagSet) {
		o.outs = nil
		for _, f := range report.Formats() {
			if (what == "run" && f.Run == nil) || (what == "sweep" && f.Sweep == nil) || (what == "comparison" && f.Compare == nil) {
				continue
			}
			o.outs = append(o.outs, reportOut{f: f})
		}
		for i := range o.outs {
			help := o.outs[i].f.Help
			if what == "sweep" {
				help = o.outs[i].f.SweepHelp
			}
			fs.StringVar(&o.outs[i].path, o.outs[i].f.Name, "", help)
		}
	}
}

// any says whether a report is asked for.
func (o *reportOuts) any() bool {
	for _, x := range o.outs {
		if x.path != "" {
			return true
		}
	}
	return false
}

// stdout lists the flags given - (standard output), as --flag.
func (o *reportOuts) stdout() []string {
	var out []string
	for _, x := range o.outs {
		if x.path == "-" && x.f.Stdout {
			out = append(out, "--"+x.f.Name)
		}
	}
	return out
}

// oneStdout checks that at most one output (flags, as --flag) takes
// standard output.
func oneStdout(flags ...string) error {
	if len(flags) > 1 {
		return usagef("%s - and %s - both want standard output; send one of them to a file", flags[0], flags[1])
	}
	return nil
}

// validate checks, before any work, that the files can be written where
// asked (checkOutputFile, checkOutputDir), and that one output at most
// takes standard output.
func (o *reportOuts) validate() error {
	for _, x := range o.outs {
		if x.path == "-" && !x.f.Stdout && !x.f.Dir {
			return usagef("--%s needs a file name", x.f.Name)
		}
	}
	for _, x := range o.outs {
		check := checkOutputFile
		if x.f.Dir {
			check = checkOutputDir
		}
		if err := check("--"+x.f.Name, x.path); err != nil {
			return err
		}
	}
	return oneStdout(o.stdout()...)
}

// writeRun writes the asked reports of one run and says where they went.
func (a *app) writeRun(o reportOuts, r *results.Run, msg io.Writer) error {
	return writeReports(o, msg, reportable{run: r})
}

// reportUsage is the report formats' flags for a usage line, as
// " [--html F] [--csv D]...".
func reportUsage() string {
	var b strings.Builder
	for _, f := range report.Formats() {
		fmt.Fprintf(&b, " [--%s %s]", f.Name, f.Arg()[:1])
	}
	return b.String()
}

// reportNouns lists what the report formats write, as "an HTML report,
// CSV files, a Markdown summary".
func reportNouns() string {
	var s []string
	for _, f := range report.Formats() {
		s = append(s, f.Noun)
	}
	return strings.Join(s, ", ")
}

// flagList lists the formats' flags as "--html FILE, --csv DIR, ..."
// (args false: as "--html, --csv, ...").
func (o *reportOuts) flagList(args bool) string {
	var s []string
	for _, x := range o.outs {
		if args {
			s = append(s, "--"+x.f.Name+" "+x.f.Arg())
		} else {
			s = append(s, "--"+x.f.Name)
		}
	}
	return strings.Join(s, ", ")
}

func reportFlags(so *storeOpts, o *reportOuts, hdrLog *string) func(fs *pflag.FlagSet) {
	return func(fs *pflag.FlagSet) {
		resultsFlag(fs, &so.results)
		so.forceFlag(fs)
		o.flagsFor("")(fs)
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
		return usagef("`dbharness report` needs an output: %s or --hdr-log FILE", o.flagList(true))
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
	if len(o.stdout()) > 0 {
		msg = a.stderr
	}
	return writeReports(o, msg, d)
}

// writeSweepReports writes the asked reports of a sweep.
func writeSweepReports(o reportOuts, msg io.Writer, sw *results.Sweep) error {
	return writeReports(o, msg, reportable{sweep: sw})
}

// writeCompareReports writes the asked reports of a comparison.
func writeCompareReports(o reportOuts, msg io.Writer, c *results.Comparison) error {
	return writeReports(o, msg, reportable{cmp: c})
}

// writeReports writes the asked reports of d and says where they went. A
// format that does not apply to what d is writes nothing: report says so
// before writing any.
func writeReports(o reportOuts, msg io.Writer, d reportable) error {
	for _, x := range o.outs {
		if x.path != "" && !x.writes(d) {
			return usagef("--%s is not written for a %s; it is written for %s", x.f.Name, d.kind(), x.kinds())
		}
	}
	opt := report.HTMLOptions{Version: Version, Generated: time.Now()}
	for _, x := range o.outs {
		if x.path == "" {
			continue
		}
		var err error
		switch {
		case d.run != nil:
			err = x.f.Run(x.path, d.run, opt)
		case d.sweep != nil:
			err = x.f.Sweep(x.path, d.sweep, opt)
		default:
			err = x.f.Compare(x.path, d.cmp, opt)
		}
		if err != nil {
			return err
		}
		if x.path != "-" || !x.f.Stdout {
			fmt.Fprintf(msg, "%s written to %s\n", x.f.Written, x.path)
		}
	}
	return nil
}

// kinds lists what the format writes, as "runs and sweeps".
func (x reportOut) kinds() string {
	var s []string
	for _, k := range []struct {
		name string
		ok   bool
	}{{"runs", x.f.Run != nil}, {"sweeps", x.f.Sweep != nil}, {"comparisons", x.f.Compare != nil}} {
		if k.ok {
			s = append(s, k.name)
		}
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return strings.Join(s, "")
}

// writes says whether the format writes what d is.
func (x reportOut) writes(d reportable) bool {
	switch {
	case d.run != nil:
		return x.f.Run != nil
	case d.sweep != nil:
		return x.f.Sweep != nil
	default:
		return x.f.Compare != nil
	}
}

// reportable is what `report` can render: a run, a sweep or a comparison.
type reportable struct {
	run   *results.Run
	sweep *results.Sweep
	cmp   *results.Comparison
}

// kind is what d is: run, sweep or comparison.
func (d reportable) kind() string {
	switch {
	case d.run != nil:
		return "run"
	case d.sweep != nil:
		return "sweep"
	}
	return "comparison"
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
	c, err := compareIDs(context.Background(), s, a, b, so.force)
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
