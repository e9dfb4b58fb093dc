package report

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/numfmt"
	"github.com/dbharness/dbharness/internal/redact"
	"github.com/dbharness/dbharness/internal/report/svg"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// HTMLOptions are the parts of an HTML report that do not come from the data.
type HTMLOptions struct {
	// Version is the dbharness version shown in the footer.
	Version string
	// Generated is the time shown in the footer; omitted when zero (tests
	// use this for byte-stable output).
	Generated time.Time
}

// Chart sizes and point budgets. A chart keeps at most chartPoints points
// per series whatever the run's length (svg.Downsample keeps the peaks), so
// a one-hour run of one-second intervals gives a report of the same size as
// a ten-minute one; the full series stays in the results store and the CSV.
const (
	chartWidth  = 940
	chartHeight = 340
	chartPoints = 700
	maxMarkers  = 30 // error and reconnect markers per chart
	maxSeries   = 8  // per-operation series drawn in one chart
)

//go:embed report.css
var reportCSS string

//go:embed report.html.tmpl
var reportTmpl string

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"ms":    fmtMs,
	"num":   numfmt.Figure,
	"count": fmtCount,
	"pct":   func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" },
}).Parse(reportTmpl))

// kv is one row of a two-column facts table.
type kv struct{ K, V string }

// chart is one rendered chart with its caption.
type chart struct {
	Title string
	Note  string
	SVG   template.HTML // produced by internal/report/svg, which escapes all text
}

// table is a generic table: header and string cells, escaped by the template.
type table struct {
	Caption string
	Head    []string
	Rows    [][]string
	Num     []bool // right-align column i
	Total   []string
	Note    string
	// RowClass, when set, gives each row a CSS class (e.g. a verdict).
	RowClass []string
}

// section is one titled part of a page, with tables, charts and prose.
type section struct {
	ID     string
	Title  string
	Intro  string
	Facts  []kv
	Tables []table
	Charts []chart
	// ChartsFirst puts the charts above the facts and tables.
	ChartsFirst bool
	Pre         []preBlock // preformatted text from the database (plans, messages)
	// Warnings are shown under the intro, each as a sentence.
	Warnings []string
}

type preBlock struct {
	Caption string
	Text    string
}

// page is what the template renders.
type page struct {
	Title    string
	Subtitle string
	Status   string
	Bad      bool // status other than completed
	Headline []kv // large key figures
	Error    string
	Sections []section
	Footer   string
	CSS      template.CSS
}

// RunHTML writes the HTML report of one run: a single self-contained file
// with inline CSS and inline SVG charts, no script and no external resource.
func RunHTML(w io.Writer, r *results.Run, opt HTMLOptions) error {
	p, err := runPage(r, opt)
	if err != nil {
		return err
	}
	return renderPage(w, p)
}

func renderPage(w io.Writer, p *page) error {
	p.CSS = template.CSS(reportCSS)
	return pageTmpl.Execute(w, p)
}

// WriteFile writes what fn produces to path ("-" is standard output), only
// when fn succeeds: a failing fn leaves the file as it was. Every write
// error is returned, on standard output too.
func WriteFile(path string, fn func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return err
	}
	return writeOut(path, b.Bytes())
}

// writeOut writes b to path ("-" is standard output) and returns any
// error of the writes or of closing the file.
func writeOut(path string, b []byte) error {
	if path == "-" {
		if _, err := os.Stdout.Write(b); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("cannot write to standard output: %v", err)
		}
		return nil
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %v", path, err)
	}
	return nil
}

func footer(opt HTMLOptions) string {
	s := "dbharness"
	if opt.Version != "" {
		s += " " + opt.Version
	}
	if !opt.Generated.IsZero() {
		s += ", report generated " + opt.Generated.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return s + ". Self-contained: no script, no external resource."
}

func runPage(r *results.Run, opt HTMLOptions) (*page, error) {
	s := r.Summary
	p := &page{
		Title:  fmt.Sprintf("dbharness run %s%s", r.RunID, results.Quoted(r.Label)),
		Status: r.Status,
		Bad:    r.Status != results.StatusCompleted,
		Error:  r.Error,
		Footer: footer(opt),
	}
	p.Subtitle = fmt.Sprintf("%s on %s %s, %d clients, %s", r.Name(), r.Engine.Engine, r.Engine.Version,
		r.Config.Clients, r.StartTime.UTC().Format("2006-01-02 15:04:05 UTC"))
	p.Headline = []kv{
		{"throughput", numfmt.Figure(s.TPS) + " tps"},
		{"transactions", fmtCount(s.Transactions)},
		{"p50 latency", msCell(s.LatencyMs, "p50") + " ms"},
		{"p99 latency", msCell(s.LatencyMs, "p99") + " ms"},
		{"errors", fmtCount(s.Errors)},
		{"measured", fmtSeconds(s.Seconds)},
	}
	if s.Retries > 0 {
		p.Headline = append(p.Headline, kv{"retries", fmtCount(s.Retries)})
	}
	if s.Reconnects > 0 {
		p.Headline = append(p.Headline, kv{"reconnects", fmtCount(s.Reconnects)})
	}
	if n := len(s.Outages); n > 0 {
		var down float64
		for _, o := range s.Outages {
			down += o.Seconds
		}
		p.Headline = append(p.Headline, kv{"outages", fmt.Sprintf("%d (%s)", n, fmtSeconds(down))})
	}

	p.Sections = append(p.Sections, summarySection(r))
	if r.IO != nil {
		sec, err := ioSection(r)
		if err != nil {
			return nil, err
		}
		p.Sections = append(p.Sections, sec)
	}
	if r.Group != nil {
		sec, err := shardSection(r)
		if err != nil {
			return nil, err
		}
		p.Sections = append(p.Sections, sec)
	}
	if sec, ok := errorSection(r); ok {
		p.Sections = append(p.Sections, sec)
	}
	charts, err := runCharts(r)
	if err != nil {
		return nil, err
	}
	p.Sections = append(p.Sections, charts...)
	bands, markers, _ := timeline(r)
	if r.Group != nil {
		sec, ok, err := shardHostsSection(r, bands, markers)
		if err != nil {
			return nil, err
		}
		if ok {
			p.Sections = append(p.Sections, sec)
		}
	}
	ev, err := evidenceSections(r, bands, markers)
	if err != nil {
		return nil, err
	}
	if g := r.Group; g != nil && g.EvidenceShard != nil {
		// The database's evidence is one shard's: say whose.
		for i := range ev {
			ev[i].Facts = append([]kv{{"sampled by", fmt.Sprintf("shard %d; the other shards sampled the same server", *g.EvidenceShard)}}, ev[i].Facts...)
		}
	}
	p.Sections = append(p.Sections, ev...)
	p.Sections = append(p.Sections, configSection(r))
	return p, nil
}

// percentileCols are the latency columns of the run's tables.
func percentileCols(r *results.Run) []string {
	ps := r.Config.Percentiles
	if len(ps) == 0 {
		ps = results.NormalizePercentiles(nil)
	}
	var cols []string
	for _, p := range ps {
		cols = append(cols, results.PercentileKey(p))
	}
	return append(cols, "max", "mean")
}

func opTable(caption string, r *results.Run, ops []results.Op, withTPS bool) table {
	cols := percentileCols(r)
	t := table{Caption: caption, Head: []string{"transaction", "count"}}
	if withTPS {
		t.Head = append(t.Head, "tps")
	}
	t.Head = append(t.Head, "errors", "retries")
	late := r.Config.LatencyLimitMs > 0
	if late {
		t.Head = append(t.Head, "late")
	}
	for _, c := range cols {
		t.Head = append(t.Head, c+" ms")
	}
	for i := range t.Head {
		t.Num = append(t.Num, i > 0)
	}
	row := func(name string, count int64, tps float64, errs, retries, nlate int64, l results.Latency) []string {
		cells := []string{name, fmtCount(count)}
		if withTPS {
			cells = append(cells, numfmt.Figure(tps))
		}
		cells = append(cells, fmtCount(errs), fmtCount(retries))
		if late {
			cells = append(cells, fmtCount(nlate))
		}
		for _, c := range cols {
			cells = append(cells, msCell(l, c))
		}
		return cells
	}
	for _, o := range ops {
		t.Rows = append(t.Rows, row(o.Name, o.Count, o.TPS, o.Errors, o.Retries, o.Late, o.LatencyMs))
	}
	if withTPS && len(ops) > 1 {
		s := r.Summary
		t.Total = row("total", s.Transactions, s.TPS, s.Errors, s.Retries, s.Late, s.LatencyMs)
	}
	return t
}

// statementTable is the latencies of each statement (run -r).
func statementTable(r *results.Run) table {
	cols := percentileCols(r)
	t := table{Caption: "Per statement (-r), measured phase", Head: []string{"transaction", "statement", "count", "mean ms"}}
	for _, c := range cols {
		t.Head = append(t.Head, c+" ms")
	}
	for i := range t.Head {
		t.Num = append(t.Num, i > 1)
	}
	for _, st := range r.Statements {
		row := []string{st.Op, st.Name, fmtCount(st.Count), msCell(st.LatencyMs, "mean")}
		for _, c := range cols {
			row = append(row, msCell(st.LatencyMs, c))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func summarySection(r *results.Run) section {
	s := r.Summary
	sec := section{ID: "summary", Title: "Summary"}
	sec.Intro = fmt.Sprintf("Measured %s: %s transactions at %s tps. Latencies in milliseconds, from the run's HdrHistograms.",
		fmtSeconds(s.Seconds), fmtCount(s.Transactions), numfmt.Figure(s.TPS))
	if line, warnings := harnessCost(r, true); line != "" {
		sec.Intro += " The harness: " + line + "."
		sec.Warnings = warnings
	}
	if h := s.HostCPU; h != nil {
		sec.Intro += " The host's CPU: " + h.Line() + "."
		if h.Warning != "" {
			sec.Warnings = append(sec.Warnings, h.Warning)
		}
	}
	sec.Tables = append(sec.Tables, opTable("Per transaction type", r, r.Ops, true))
	if len(r.Statements) > 0 {
		sec.Tables = append(sec.Tables, statementTable(r))
	}
	if r.Config.ConnectPerTx {
		sec.Facts = append(sec.Facts, kv{"connections (-C)", fmt.Sprintf("%s opened in the measured phase, one per transaction; mean %s ms, p99 %s ms",
			fmtCount(s.Connections), msCell(s.ConnectMs, "mean"), msCell(s.ConnectMs, "p99"))})
	}
	if len(r.Warmup) > 0 {
		t := opTable("Warm-up (excluded from the summary)", r, r.Warmup, false)
		sec.Tables = append(sec.Tables, t)
	}
	if len(s.LagMs) > 0 {
		sec.Facts = append(sec.Facts, kv{"schedule lag", fmt.Sprintf("p50 %s ms, p99 %s ms, max %s ms",
			msCell(s.LagMs, "p50"), msCell(s.LagMs, "p99"), msCell(s.LagMs, "max"))})
	}
	if r.Config.LatencyLimitMs > 0 {
		sec.Facts = append(sec.Facts, kv{"over the latency limit", fmt.Sprintf("%s transactions slower than %s ms",
			fmtCount(s.Late), numfmt.Figure(r.Config.LatencyLimitMs))})
	}
	if n := len(r.ClientSeconds); n > 0 {
		lo, hi := r.ClientSeconds[0], r.ClientSeconds[0]
		for _, v := range r.ClientSeconds {
			lo, hi = min(lo, v), max(hi, v)
		}
		sec.Facts = append(sec.Facts, kv{"fixed work", fmt.Sprintf("%d clients finished between %.3f s and %.3f s (spread %.3f s)", n, lo, hi, hi-lo)})
	}
	for _, k := range sortedMetricKeys(s.Metrics) {
		sec.Facts = append(sec.Facts, kv{k, numfmt.Figure(s.Metrics[k]) + metricLabel(s, k)})
	}
	return sec
}

func errorSection(r *results.Run) (section, bool) {
	if len(r.ErrorClasses) == 0 {
		return section{}, false
	}
	sec := section{ID: "errors", Title: "Errors",
		Intro: "Failed transactions by error class, with the first message of each class as the database sent it."}
	t := table{Head: []string{"class", "count", "first message"}, Num: []bool{false, true, false}}
	for _, k := range results.SortedClasses(r.ErrorClasses) {
		t.Rows = append(t.Rows, []string{k, fmtCount(r.ErrorClasses[k]), r.ErrorSamples[k]})
	}
	sec.Tables = append(sec.Tables, t)
	return sec, true
}

func configSection(r *results.Run) section {
	c := r.Config
	sec := section{ID: "config", Title: "Configuration"}
	sec.Facts = []kv{
		{"run", r.RunID},
		{"status", r.Status},
		{"workload", r.Workload},
		{"command", strings.Join(results.RedactArgs(r.Command), " ")},
		{"target", redact.String(r.Target)},
		{"engine", strings.TrimSpace(r.Engine.Engine + " " + r.Engine.Version)},
		{"started", r.StartTime.UTC().Format(time.RFC3339)},
		{"ended", r.EndTime.UTC().Format(time.RFC3339)},
		{"clients", strconv.Itoa(c.Clients)},
	}
	add := func(k, v string) { sec.Facts = append(sec.Facts, kv{k, v}) }
	if r.Engine.TLS != "" {
		add("TLS", r.Engine.TLS)
	}
	if c.Terminals > 0 {
		add("terminals", strconv.Itoa(c.Terminals))
	}
	if c.Transactions > 0 {
		add("transactions per client", fmtCount(c.Transactions))
	} else {
		add("duration", fmtSeconds(c.DurationSeconds))
	}
	if c.WarmupSeconds > 0 {
		add("warm-up", fmtSeconds(c.WarmupSeconds))
	}
	if c.Rate > 0 {
		add("open-loop rate", numfmt.Figure(c.Rate)+" tps")
	} else {
		add("loop", "closed")
	}
	if c.LatencyLimitMs > 0 {
		add("latency limit", numfmt.Figure(c.LatencyLimitMs)+" ms")
	}
	add("max tries", strconv.Itoa(c.MaxTries))
	add("interval", fmtSeconds(c.IntervalSeconds))
	add("seed", strconv.FormatUint(c.Seed, 10))
	for _, k := range sortedKeys(c.WorkloadFlags) {
		add("--"+k, c.WorkloadFlags[k])
	}
	if ds := r.Dataset; ds != nil {
		for _, k := range ds.ParamKeys() {
			add("dataset "+k, ds.ParamText(k))
		}
		if len(ds.Tables) > 0 {
			t := table{Caption: "Dataset at the start of the run (~ marks an estimated row count)", Head: []string{"table", "rows", "data", "indexes"},
				Num: []bool{false, true, true, true}}
			size := func(b *int64) string {
				if b == nil {
					return "-"
				}
				return results.HumanBytes(*b)
			}
			for _, tb := range ds.Tables {
				t.Rows = append(t.Rows, []string{tb.Name, tb.RowsText(), size(tb.Bytes), size(tb.IndexBytes)})
			}
			sec.Tables = append(sec.Tables, t)
		}
	}
	if len(r.Engine.Settings) > 0 {
		t := table{Caption: "Server settings", Head: []string{"setting", "value"}}
		for _, k := range sortedKeys(r.Engine.Settings) {
			t.Rows = append(t.Rows, []string{k, r.Engine.Settings[k]})
		}
		sec.Tables = append(sec.Tables, t)
	}
	h := r.Host
	ht := table{Caption: "Client host", Head: []string{"", ""}}
	for _, f := range []kv{{"hostname", h.Hostname}, {"CPU", h.CPUModel}, {"cores", strconv.Itoa(h.Cores)},
		{"memory", fmt.Sprintf("%d MB", h.MemoryMB)}, {"OS", h.OS}, {"kernel", h.Kernel}, {"arch", h.Arch}, {"Go", h.Go}} {
		if f.V != "" && f.V != "0" && f.V != "0 MB" {
			ht.Rows = append(ht.Rows, []string{f.K, f.V})
		}
	}
	ht.Head = nil
	sec.Tables = append(sec.Tables, ht)
	return sec
}

// series is an x/y pair being built.
type series struct{ x, y []float64 }

func (s *series) add(x, y float64) { s.x, s.y = append(s.x, x), append(s.y, y) }

// latencyValue reads a latency key, NaN when absent (a gap in the line).
func latencyValue(l results.Latency, k string) float64 {
	if v, ok := l[k]; ok {
		return v
	}
	return math.NaN()
}

// timeline returns the warm-up band and the error and reconnect markers of a
// run's intervals, shared by every chart on the run's time axis.
func timeline(r *results.Run) (bands []svg.Band, markers []svg.Marker, note string) {
	var warmEnd float64
	for _, iv := range r.Intervals {
		if iv.Phase == runphase.Warmup {
			warmEnd = iv.T
		}
	}
	if warmEnd > 0 {
		bands = append(bands, svg.Band{From: 0, To: warmEnd, Label: "warm-up"})
	}
	for _, o := range r.Summary.Outages {
		bands = append(bands, svg.Band{From: o.StartS, To: o.StartS + o.Seconds, Label: fmt.Sprintf("outage: %d down, %s", o.Clients, fmtSeconds(o.Seconds))})
	}
	omitted := 0
	prevErr := false
	// Marker texts closer than this (in seconds) to the previous one would
	// overlap: those markers keep their line and tooltip only.
	var span float64
	if n := len(r.Intervals); n > 0 {
		span = r.Intervals[n-1].T
	}
	minGap := span * 0.07
	lastText := math.Inf(-1)
	for _, iv := range r.Intervals {
		var parts []string
		if iv.Reconnects > 0 {
			parts = append(parts, fmt.Sprintf("%d reconnected", iv.Reconnects))
		}
		if iv.Down > 0 {
			parts = append(parts, fmt.Sprintf("%d clients down", iv.Down))
		}
		if iv.Waiting > 0 {
			parts = append(parts, fmt.Sprintf("%d waiting", iv.Waiting))
		}
		hasErr := iv.Errors > 0
		if hasErr && (!prevErr || iv.Reconnects > 0) {
			var cls []string
			for _, k := range results.SortedClasses(iv.ErrorClasses) {
				cls = append(cls, fmt.Sprintf("%s x%d", k, iv.ErrorClasses[k]))
			}
			e := fmt.Sprintf("%d errors", iv.Errors)
			if len(cls) > 0 {
				e += " (" + strings.Join(cls, ", ") + ")"
			}
			parts = append(parts, e)
		}
		prevErr = hasErr
		if len(parts) == 0 {
			continue
		}
		if len(markers) >= maxMarkers {
			omitted++
			continue
		}
		m := svg.Marker{X: iv.T, Label: fmt.Sprintf("%s: %s", svg.FormatDuration(iv.T, iv.T >= 3600), strings.Join(parts, ", "))}
		// The line's text names the worst of what happened: a client cut
		// off, then errors, then clients only waiting on the server (a
		// stall, which is no error).
		var text string
		switch {
		case iv.Reconnects > 0 || iv.Down > 0:
			text, m.Color = "reconnect", "#AA3377"
		case hasErr && len(parts) > 0 && strings.Contains(parts[len(parts)-1], "errors"):
			text = "errors"
		default:
			text, m.Color = "waiting", "#777777"
		}
		if iv.T-lastText >= minGap {
			m.Text, lastText = text, iv.T
		}
		markers = append(markers, m)
	}
	if omitted > 0 {
		note = fmt.Sprintf("%d further error or reconnect events are not marked; the errors/s line shows them all.", omitted)
	}
	return bands, markers, note
}

// timeRange is the run's time axis, shared by every chart over time so
// that they line up: from 0 to the end of the last interval.
func timeRange(r *results.Run) *svg.Range {
	end := 0.0
	for _, iv := range r.Intervals {
		end = math.Max(end, iv.T)
	}
	for _, n := range r.Collect.Names() {
		for _, p := range r.Collect.Get(n).Intervals {
			end = math.Max(end, p.T)
		}
	}
	if !(end > 0) {
		return nil
	}
	return &svg.Range{Min: 0, Max: end}
}

func runCharts(r *results.Run) ([]section, error) {
	if len(r.Intervals) == 0 {
		return []section{{ID: "timeline", Title: "Over time", Intro: "The run has no intervals to chart."}}, nil
	}
	bands, markers, markNote := timeline(r)
	xr := timeRange(r)
	var out []section

	// Throughput.
	var total, errs series
	anyErr := false
	opNames := intervalOpNames(r)
	perOp := make([]series, len(opNames))
	for _, iv := range r.Intervals {
		total.add(iv.T, iv.TPS)
		e := 0.0
		if iv.Seconds > 0 {
			e = float64(iv.Errors) / iv.Seconds
		}
		if iv.Errors > 0 {
			anyErr = true
		}
		errs.add(iv.T, e)
		for i, name := range opNames {
			v := math.NaN()
			for _, o := range iv.Ops {
				if o.Name == name {
					v = o.TPS
				}
			}
			perOp[i].add(iv.T, v)
		}
	}
	tp := svg.LineChart{Width: chartWidth, Height: chartHeight, Title: "Throughput", XLabel: "elapsed",
		YLabel: "transactions per second", XDuration: true, XRange: xr, Bands: bands, Markers: markers, MaxPoints: chartPoints}
	tp.Series = append(tp.Series, svg.Series{Name: "all", X: total.x, Y: total.y, Width: 2, Color: allColor})
	// Transaction types whose rates differ tenfold or more (tpcc's
	// new_order beside its stock_level) each get a small chart with an axis
	// of their own: on one axis the rare ones would lie flat on zero.
	var small []chart
	if len(opNames) > 1 && spread(perOp) >= 10 {
		for i := range opNames {
			if i >= maxSeries {
				break
			}
			sm := svg.LineChart{Width: chartWidth, Height: chartHeight * 11 / 20, Title: opNames[i] + " per second", XLabel: "elapsed",
				YLabel: "tps", XDuration: true, XRange: xr, Bands: bands, MaxPoints: chartPoints,
				Series: []svg.Series{{Name: opNames[i], X: perOp[i].x, Y: perOp[i].y, Width: 1.5, Color: opColor(i)}}}
			b, err := sm.Render()
			if err != nil {
				return nil, fmt.Errorf("throughput chart of %s: %w", opNames[i], err)
			}
			small = append(small, chart{Title: opNames[i], SVG: template.HTML(b)})
		}
	} else if len(opNames) > 1 {
		for i := range opNames {
			if i >= maxSeries {
				break
			}
			tp.Series = append(tp.Series, svg.Series{Name: opNames[i], X: perOp[i].x, Y: perOp[i].y, Width: 1.25, Color: opColor(i)})
		}
	}
	if anyErr {
		tp.Series = append(tp.Series, svg.Series{Name: "errors/s", X: errs.x, Y: errs.y, Color: "#CC3311", Style: svg.StyleDashed})
	}
	note := "Transactions completed per interval."
	if r.Config.WarmupSeconds > 0 {
		note += " The shaded range at the start is the warm-up, excluded from the summary."
	}
	if len(r.Summary.Outages) > 0 {
		note += " Ranges shaded as outages are when clients had no connection to the server (the throughput includes them)."
	}
	if len(markers) > 0 {
		note += " Vertical lines mark errors and reconnects (hover for details)."
	}
	if markNote != "" {
		note += " " + markNote
	}
	tpSVG, err := tp.Render()
	if err != nil {
		return nil, fmt.Errorf("throughput chart: %w", err)
	}
	if len(small) > 0 {
		note += " Each transaction type follows in a chart of its own, with its own axis: their rates differ tenfold or more."
	}
	out = append(out, section{ID: "throughput", Title: "Throughput over time", Charts: append([]chart{{Title: "Throughput", Note: note, SVG: template.HTML(tpSVG)}}, small...)})

	// Latency percentiles over time.
	keys := []string{"p50", "p95", "p99", "max"}
	lat := svg.LineChart{Width: chartWidth, Height: chartHeight, Title: "Latency percentiles per interval", XLabel: "elapsed",
		YLabel: "latency (ms, log scale)", XDuration: true, XRange: xr, YLog: true, Bands: bands, Markers: markers, MaxPoints: chartPoints}
	if r.Config.LatencyLimitMs > 0 {
		lat.HLines = []svg.HLine{{Y: r.Config.LatencyLimitMs, Label: "latency limit " + numfmt.Figure(r.Config.LatencyLimitMs) + " ms"}}
	}
	for i, k := range keys {
		var s series
		for _, iv := range r.Intervals {
			s.add(iv.T, latencyValue(iv.LatencyMs, k))
		}
		st := svg.StyleLine
		if k == "max" {
			st = svg.StyleDotted
		}
		lat.Series = append(lat.Series, svg.Series{Name: k, X: s.x, Y: s.y, Style: st, Color: svg.PaletteColor(i)})
	}
	latNote := "p50, p95, p99 and the maximum of each interval, all transaction types together, on a log scale."
	worst := FindOutlier(r)
	if worst != nil {
		lat.Markers = append(slices.Clone(lat.Markers), svg.Marker{X: worst.To, Text: "slowest", Label: worst.Sentence(), Color: "#555555"})
		latNote += " The grey line marks the interval of the slowest transaction (hover for what the evidence says there)."
	}
	latSVG, err := lat.Render()
	if err != nil {
		return nil, fmt.Errorf("latency chart: %w", err)
	}
	latSec := section{ID: "latency", Title: "Latency over time", Charts: []chart{{Title: "Latency percentiles",
		Note: latNote, SVG: template.HTML(latSVG)}}}
	if worst != nil {
		label := "slowest transaction"
		if worst.IsOutlier() {
			label = "outlier"
		}
		latSec.Facts = append(latSec.Facts, kv{label, worst.Sentence()})
	}
	if len(opNames) > 1 {
		byOp := svg.LineChart{Width: chartWidth, Height: chartHeight, Title: "p99 latency per transaction type", XLabel: "elapsed",
			YLabel: "p99 latency (ms, log scale)", XDuration: true, XRange: xr, YLog: true, Bands: bands, MaxPoints: chartPoints}
		for i, name := range opNames {
			if i >= maxSeries {
				break
			}
			var s series
			for _, iv := range r.Intervals {
				v := math.NaN()
				for _, o := range iv.Ops {
					if o.Name == name {
						v = latencyValue(o.LatencyMs, "p99")
					}
				}
				s.add(iv.T, v)
			}
			byOp.Series = append(byOp.Series, svg.Series{Name: name, X: s.x, Y: s.y, Color: opColor(i)})
		}
		b, err := byOp.Render()
		if err != nil {
			return nil, fmt.Errorf("latency per operation chart: %w", err)
		}
		latSec.Charts = append(latSec.Charts, chart{Title: "p99 per transaction type", SVG: template.HTML(b)})
	}
	if r.Config.Rate > 0 {
		lag := svg.LineChart{Width: chartWidth, Height: chartHeight, Title: "Schedule lag per interval", XLabel: "elapsed",
			YLabel: "lag (ms, log scale)", XDuration: true, XRange: xr, YLog: true, Bands: bands, MaxPoints: chartPoints}
		for i, k := range []string{"p50", "p99", "max"} {
			var s series
			for _, iv := range r.Intervals {
				s.add(iv.T, latencyValue(iv.LagMs, k))
			}
			lag.Series = append(lag.Series, svg.Series{Name: k, X: s.x, Y: s.y, Color: svg.PaletteColor(i)})
		}
		b, err := lag.Render()
		if err != nil {
			return nil, fmt.Errorf("lag chart: %w", err)
		}
		latSec.Charts = append(latSec.Charts, chart{Title: "Schedule lag",
			Note: "How late transactions started against the open-loop schedule; latency above counts from the intended start.", SVG: template.HTML(b)})
	}
	out = append(out, latSec)

	// Percentile spectrum from the histograms.
	spec, ok, err := spectrumChart(r)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, section{ID: "spectrum", Title: "Latency percentile spectrum", Charts: []chart{spec}})
	}
	host, ok, err := hostCPUSection(r, bands, markers)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, host)
	}
	return out, nil
}

// intervalOpNames lists the operations in the order of the run's summary,
// then any others seen in the intervals.
func intervalOpNames(r *results.Run) []string {
	seen := map[string]bool{}
	var names []string
	for _, o := range r.Ops {
		if !seen[o.Name] {
			seen[o.Name] = true
			names = append(names, o.Name)
		}
	}
	for _, iv := range r.Intervals {
		for _, o := range iv.Ops {
			if !seen[o.Name] {
				seen[o.Name] = true
				names = append(names, o.Name)
			}
		}
	}
	return names
}

// spectrumChart draws each operation's latency against percentile on a "1
// in N" axis from the run's HdrHistograms, plus all operations together
// when there are several.
func spectrumChart(r *results.Run) (chart, bool, error) {
	ch := svg.PercentileSpectrum{Width: chartWidth, Height: chartHeight, Title: "Latency by percentile",
		YLabel: "latency (ms, log scale)", XLabel: "percentile (log scale of 1 in N)", YLog: true}
	var all *hdr.Histogram
	n := 0
	opIndex := map[string]int{}
	for i, name := range intervalOpNames(r) {
		opIndex[name] = i
	}
	for _, o := range r.Ops {
		if o.Histogram == "" {
			continue
		}
		h, err := results.DecodeHist(o.Histogram)
		if err != nil {
			return chart{}, false, fmt.Errorf("run %s: histogram of %s cannot be decoded: %v", r.RunID, o.Name, err)
		}
		if h.TotalCount() == 0 {
			continue
		}
		if all == nil {
			all = hdr.Import(h.Export())
		} else {
			all.Merge(h)
		}
		n++
		if n <= maxSeries {
			s := spectrumSeries(o.Name, h)
			s.Color = opColor(opIndex[o.Name])
			ch.Series = append(ch.Series, s)
		}
	}
	if n == 0 {
		return chart{}, false, nil
	}
	if n > 1 {
		s := spectrumSeries("all", all)
		s.Color = allColor
		ch.Series = append([]svg.SpectrumSeries{s}, ch.Series...)
	}
	b, err := ch.Render()
	if err != nil {
		return chart{}, false, fmt.Errorf("spectrum chart: %w", err)
	}
	note := fmt.Sprintf("Latency at each percentile of the whole measured phase (HdrHistogram percentile distribution); the right end is the maximum. 99%% means 1 in 100 transactions was slower. Overall max %s ms.",
		msCell(r.Summary.LatencyMs, "max"))
	return chart{Title: "Percentile spectrum", Note: note, SVG: template.HTML(b)}, true, nil
}

// spectrumSeries turns a µs histogram into its percentile distribution in
// ms: HdrHistogram's standard iteration (5 ticks per half distance), below
// 100 %, then the maximum as the last point, at the "1 in count" position.
func spectrumSeries(name string, h *hdr.Histogram) svg.SpectrumSeries {
	s := svg.SpectrumSeries{Name: name}
	for _, b := range h.CumulativeDistributionWithTicks(5) {
		if b.Quantile >= 100 {
			break
		}
		s.Percentiles = append(s.Percentiles, b.Quantile)
		s.Values = append(s.Values, float64(b.ValueAt)/1000)
	}
	if n := h.TotalCount(); n > 1 {
		p := 100 * (1 - 1/float64(n))
		if len(s.Percentiles) == 0 || p > s.Percentiles[len(s.Percentiles)-1] {
			s.Percentiles = append(s.Percentiles, p)
			s.Values = append(s.Values, float64(h.Max())/1000)
		}
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fmtCount(n int64) string { return numfmt.Group(strconv.FormatInt(n, 10)) }

func fmtSeconds(s float64) string {
	if s >= 3600 {
		return fmt.Sprintf("%dh%02dm%02ds", int(s)/3600, int(s)%3600/60, int(s)%60)
	}
	if s >= 60 {
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + " s"
}

// allColor draws "all transaction types" in every chart of a run.
const allColor = "#000000"

// opColor is the colour of the i-th transaction type of a run
// (intervalOpNames' order), the same in every chart.
func opColor(i int) string { return svg.PaletteColor(i) }

// spread is how many times the busiest series' mean exceeds the quietest's
// (1 when there is nothing to compare).
func spread(ss []series) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		sum, n := 0.0, 0
		for _, v := range s.y {
			if !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n == 0 {
			continue
		}
		m := sum / float64(n)
		lo, hi = math.Min(lo, m), math.Max(hi, m)
	}
	if hi == 0 || math.IsInf(lo, 1) {
		return 1
	}
	if lo == 0 {
		return math.Inf(1)
	}
	return hi / lo
}

func init() {
	Register(Format{
		Name:      "html",
		Order:     10,
		Help:      "write a self-contained HTML report (charts inline, no script, works offline) to FILE",
		SweepHelp: "write the sweep's self-contained HTML report to FILE at the end",
		Noun:      "an HTML report",
		Written:   "HTML report",
		Run:       toFile(RunHTML),
		Sweep:     toFile(SweepHTML),
		Compare:   toFile(CompareHTML),
	})
}
