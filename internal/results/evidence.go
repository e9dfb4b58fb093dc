package results

// Evidence gathered beside the client's numbers: operating-system and
// server counters on the run's intervals, the wait profile and the plans of
// the workload's statements. internal/collect fills these; report and
// compare only read them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Collect holds the interval series of the collectors.
type Collect struct {
	// Enabled lists the collectors asked for (--collect): os, server,
	// waits, plans, or any other registered collector.
	Enabled []string `json:"enabled"`
	// Series are the interval series of the collectors that sample on the
	// run's intervals, by collector name. In JSON each is a member of
	// collect named after its collector: collect.os, collect.server.
	Series map[string]*Series `json:"-"`
	// PlansNotChecked says why plans were asked for but no statement was
	// explained (the workload describes none, say).
	PlansNotChecked string `json:"plans_not_checked,omitempty"`
}

// Get returns the series of the named collector, or nil.
func (c *Collect) Get(name string) *Series {
	if c == nil {
		return nil
	}
	return c.Series[name]
}

// Set stores the series of the named collector (nil removes it).
func (c *Collect) Set(name string, s *Series) {
	if s == nil {
		delete(c.Series, name)
		return
	}
	if c.Series == nil {
		c.Series = map[string]*Series{}
	}
	c.Series[name] = s
}

// Names lists the collectors that have a series: in the order of Enabled,
// then any others by name.
func (c *Collect) Names() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, n := range c.Enabled {
		if c.Series[n] != nil {
			out = append(out, n)
		}
	}
	var rest []string
	for n := range c.Series {
		if !slices.Contains(out, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// collectFixed are Collect's own JSON members; every other member is a
// collector's series.
var collectFixed = []string{"enabled", "plans_not_checked"}

// MarshalJSON writes enabled, then each series as a member named after its
// collector, then plans_not_checked.
func (c Collect) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enabled := c.Enabled
	if enabled == nil {
		enabled = []string{}
	}
	e, err := json.Marshal(enabled)
	if err != nil {
		return nil, err
	}
	b.WriteString(`{"enabled":`)
	b.Write(e)
	for _, n := range c.Names() {
		if slices.Contains(collectFixed, n) {
			return nil, fmt.Errorf("collector name %q is taken by collect's own %q", n, n)
		}
		v, err := json.Marshal(c.Series[n])
		if err != nil {
			return nil, err
		}
		k, _ := json.Marshal(n)
		b.WriteByte(',')
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if c.PlansNotChecked != "" {
		v, _ := json.Marshal(c.PlansNotChecked)
		b.WriteString(`,"plans_not_checked":`)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Collect) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*c = Collect{}
	if v, ok := m["enabled"]; ok {
		if err := json.Unmarshal(v, &c.Enabled); err != nil {
			return fmt.Errorf("collect.enabled: %w", err)
		}
	}
	if v, ok := m["plans_not_checked"]; ok {
		if err := json.Unmarshal(v, &c.PlansNotChecked); err != nil {
			return fmt.Errorf("collect.plans_not_checked: %w", err)
		}
	}
	for k, v := range m {
		if slices.Contains(collectFixed, k) || string(v) == "null" {
			continue
		}
		var s Series
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("collect.%s: %w", k, err)
		}
		c.Set(k, &s)
	}
	return nil
}

// Series is one collector's samples, one point per interval of the run.
type Series struct {
	// Source says where the numbers come from, e.g. "/proc on the local
	// host" or "pg_stat_database, pg_stat_wal, pg_stat_bgwriter".
	Source string `json:"source"`
	// Describes says which machine or server the numbers describe (for the
	// OS collector: "client host").
	Describes string `json:"describes,omitempty"`
	// DBLocal is true when the database target is on the client host
	// (127.0.0.1, localhost, a Unix socket or an SQLite file), so the
	// client host's counters include the server's work.
	DBLocal *bool `json:"db_local,omitempty"`
	// Title heads the series' section in reports ("Operating system");
	// Layout says how reports draw it (Layout* constants). A collector
	// sets both; see TitleAndLayout for runs saved without them.
	Title  string `json:"title,omitempty"`
	Layout string `json:"layout,omitempty"`
	// Unavailable lists parts that could not be read, each with its reason.
	Unavailable []string `json:"unavailable,omitempty"`
	Intervals   []Point  `json:"intervals"`
	// Totals are the counters' increases over the measured phase (not
	// rates), for figures per transaction.
	Totals map[string]float64 `json:"totals,omitempty"`
	// Headlines are the figures the report's one-line summary of the
	// collector singles out, in order; the collector names them (for the
	// server, the engine's package). Runs saved before they were stored
	// have none: see HeadlinesOf.
	Headlines []Headline `json:"headlines,omitempty"`
	// Priority lists counter names (or their ends) that the report's
	// counter charts and tables rank first, in order; the rest follow by
	// their mean rate. See PriorityOf for runs saved without it.
	Priority []string `json:"priority,omitempty"`
	// Gaps are the stretches of the run the collector did not cover (see
	// Gap), in order.
	Gaps []Gap `json:"gaps,omitempty"`
}

// Gap is a stretch of the run a collector did not cover: its connection
// was lost, or a sample failed or timed out, and it sampled again only
// later (after reconnecting). No point spans a gap, so no rate or total
// mixes the counters of two lives of the server (a restart resets them).
type Gap struct {
	// FirstSeq and LastSeq are the run's intervals left uncovered
	// (inclusive).
	FirstSeq int `json:"first_seq"`
	LastSeq  int `json:"last_seq"`
	// From and To are the gap's start and end, in seconds since the start
	// of the run: the boundaries of the last sample before it and of the
	// first one after it.
	From float64 `json:"from"`
	To   float64 `json:"to"`
	// Reason says why, as a phrase: "its connection was lost", "the server
	// did not answer within 5s", "its sample failed".
	Reason string `json:"reason"`
	// Error is the first error met, on one line.
	Error string `json:"error,omitempty"`
}

// Headline is one figure of a collector's summary line.
type Headline struct {
	// Label is the text shown, with {} where the value goes: "WAL {}/
	// transaction (server-wide)", "{} deadlocks".
	Label string `json:"label"`
	// Key is the counter or value the figure comes from; for Show
	// ShowWaits, the prefix of three totals (see there).
	Key string `json:"key"`
	// Show says how the figure is computed and written (Show* constants).
	Show string `json:"show"`
}

// How a Headline is shown (Headline.Show). A figure whose counter or value
// is missing is left out.
const (
	// ShowBytesPerTx: the counter's total over the measured phase per
	// transaction, as a byte size ("1.2 kB").
	ShowBytesPerTx = "bytes_per_transaction"
	// ShowMeanPct: the value's time-weighted mean over the measured
	// intervals, as a percentage with two decimals ("99.52%").
	ShowMeanPct = "mean_pct"
	// ShowMean: the value's time-weighted mean over the measured
	// intervals, with one decimal.
	ShowMean = "mean"
	// ShowCount: the counter's total over the measured phase, shown only
	// when above zero.
	ShowCount = "count"
	// ShowLast: the value at the end of the last interval, with one
	// decimal.
	ShowLast = "last"
	// ShowWaits: acquisitions of a lock from three totals, Key+".acquired",
	// Key+".waited" and Key+".wait_s" (seconds): "N taken, M waited (P%),
	// X ms average"; shown when any were taken.
	ShowWaits = "waits"
)

// How reports draw a series (Series.Layout).
const (
	// LayoutCounters (also the default): the leading counters per second
	// on a log scale, ranked by Priority then by mean rate; the _pct
	// values on their own chart; every counter's total in a table.
	LayoutCounters = "counters"
	// LayoutHost: a host's CPU split stacked to 100%, disk throughput and
	// utilisation per device, run queue, then the counters' totals (the
	// keys the os collector writes: cpu.*_pct, disk.DEV.read_mb, ...).
	LayoutHost = "host"
)

// Point is one interval of a Series.
type Point struct {
	// Seq is the interval's seq in intervals[].
	Seq   int     `json:"seq"`
	Phase string  `json:"phase"`
	T     float64 `json:"t"`
	// Seconds is the time between the two samples the rates come from.
	Seconds float64 `json:"seconds"`
	// Span is how many of the run's intervals the point covers, ending
	// with Seq, when more than one (a boundary that was not sampled);
	// 0 is one.
	Span int `json:"span,omitempty"`
	// Rates maps counter names to their per-second rate in the interval.
	Rates map[string]float64 `json:"rates"`
	// Values are gauges and derived figures (percentages, sizes, averages)
	// at the end of the interval; the unit ends the name (_pct, _mb, _ms).
	Values map[string]float64 `json:"values,omitempty"`
}

// Waits is the wait profile of the harness's own sessions.
type Waits struct {
	// Method says how it was measured: "pg_stat_activity sampled every
	// 100 ms" or "performance_schema wait time".
	Method string `json:"method"`
	// Unit of Weight: "samples" (session samples) or "seconds" (wait time).
	Unit string `json:"unit"`
	// Total is the measured phase's weight (session samples or seconds).
	Total float64 `json:"total"`
	// Events are the measured phase's shares, largest first.
	Events      []WaitShare    `json:"events"`
	Intervals   []WaitInterval `json:"intervals,omitempty"`
	Unavailable string         `json:"unavailable,omitempty"`
	// Gaps are the stretches of the run the profile did not cover (see
	// Gap), in order.
	Gaps []Gap `json:"gaps,omitempty"`
}

// WaitShare is one wait event's share of the time.
type WaitShare struct {
	// Event is "Type:Event" (e.g. "LWLock:WALWrite"), or "CPU" for an
	// active session not waiting.
	Event  string  `json:"event"`
	Share  float64 `json:"share"`
	Weight float64 `json:"weight"`
}

// SortWaitShares orders wait events by weight, largest first, then by
// name.
func SortWaitShares(ev []WaitShare) {
	sort.Slice(ev, func(i, j int) bool {
		if ev[i].Weight != ev[j].Weight {
			return ev[i].Weight > ev[j].Weight
		}
		return ev[i].Event < ev[j].Event
	})
}

// WaitInterval is one interval's wait shares.
type WaitInterval struct {
	Seq   int     `json:"seq"`
	Phase string  `json:"phase"`
	T     float64 `json:"t"`
	// Span is as Point's.
	Span   int                `json:"span,omitempty"`
	Total  float64            `json:"total"`
	Shares map[string]float64 `json:"shares"`
}

// StatementPlans is the plan check of one statement of the workload.
type StatementPlans struct {
	Statement string `json:"statement"`
	SQL       string `json:"sql"`
	// Plans are the distinct plans seen before the run, most common first.
	Plans []PlanVariant `json:"plans"`
	// Flags: "parameter-sensitive" (more than one plan over the sampled
	// parameter values), "changed-during-run" (a parameter set planned
	// differently after the run than before), "generic-plan-differs" (the
	// generic plan is not the plan of every sampled parameter set).
	Flags []string `json:"flags,omitempty"`
	// Changed lists the parameter sets whose plan changed during the run.
	Changed []PlanChange `json:"changed,omitempty"`
	// Generic is the prepared statement's generic plan, on engines whose
	// plan cache may run one plan for all values (PostgreSQL).
	Generic *GenericPlan `json:"generic,omitempty"`
	// Error is why the statement could not be explained; it starts with
	// AfterRun when it was explained before the run but not after it.
	Error string `json:"error,omitempty"`
}

// AfterRun starts the Error of a statement that was explained before the
// run but not after it: whether its plan changed is unknown.
const AfterRun = "after the run: "

// PlansAfterFailed returns why the check after the run failed for every
// statement it was to explain again (it could not connect, say), or ""
// when it explained any of them or failed for each in its own way.
func PlansAfterFailed(plans []StatementPlans) string {
	why := ""
	for _, p := range plans {
		switch {
		case p.Error == "":
			return ""
		case strings.HasPrefix(p.Error, AfterRun):
			if why != "" && p.Error != AfterRun+why {
				return ""
			}
			why = strings.TrimPrefix(p.Error, AfterRun)
		}
	}
	return why
}

// GenericPlan is a prepared statement's plan for any parameter values.
type GenericPlan struct {
	Fingerprint string `json:"fingerprint"`
	Shape       string `json:"shape"`
	// Chosen: prepared as the clients prepare it and explained with six
	// random parameter sets drawn as the clients draw them, the server's
	// plan cache ran the sixth with the generic plan (it compares the
	// generic plan's cost with the first five custom plans'). The clients'
	// own first executions decide at run time.
	Chosen bool `json:"chosen"`
}

// PlanVariant is one distinct plan of a statement.
type PlanVariant struct {
	// Fingerprint is a hash of Shape.
	Fingerprint string `json:"fingerprint"`
	// Shape is the normalized plan: operators, access paths, relations and
	// indexes in join order, without costs, estimates or timings.
	Shape string `json:"shape"`
	// Count is how many sampled parameter sets got this plan.
	Count int `json:"count"`
	// Examples are parameter sets (name to value) that got this plan, with
	// the label of the draw ("min", "max", "median", "random").
	Examples []PlanExample `json:"examples"`
}

// PlanExample is one sampled parameter set.
type PlanExample struct {
	Draw   string         `json:"draw"`
	Params map[string]any `json:"params"`
}

// PlanChange is a parameter set planned differently after the run.
type PlanChange struct {
	Params map[string]any `json:"params"`
	Before string         `json:"before"`
	After  string         `json:"after"`
	// AfterShape is the new plan's shape.
	AfterShape string `json:"after_shape"`
}
