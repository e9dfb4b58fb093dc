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

	"github.com/dbharness/dbharness/internal/evidence"
)

// Collect holds the interval series of the collectors.
type Collect struct {
	// Enabled lists the collectors asked for (--collect): os, server,
	// waits, plans, or any other registered collector.
	Enabled []string `json:"enabled"`
	// Series are the interval series of the collectors that sample on the
	// run's intervals, by collector name. In JSON each is a member of
	// collect named after its collector: collect.os, collect.server.
	Series map[string]*evidence.Series `json:"-"`
	// PlansNotChecked says why plans were asked for but no statement was
	// explained (the workload describes none, say).
	PlansNotChecked string `json:"plans_not_checked,omitempty"`
}

// Get returns the series of the named collector, or nil.
func (c *Collect) Get(name string) *evidence.Series {
	if c == nil {
		return nil
	}
	return c.Series[name]
}

// Set stores the series of the named collector (nil removes it).
func (c *Collect) Set(name string, s *evidence.Series) {
	if s == nil {
		delete(c.Series, name)
		return
	}
	if c.Series == nil {
		c.Series = map[string]*evidence.Series{}
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
		var s evidence.Series
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("collect.%s: %w", k, err)
		}
		c.Set(k, &s)
	}
	return nil
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
	// Side names the other endpoint of the server the profile was taken
	// from (--server-evidence), e.g. "Babelfish's PostgreSQL side"; empty
	// when it was taken from the target itself.
	Side string `json:"side,omitempty"`
	// Gaps are the stretches of the run the profile did not cover (see
	// Gap), in order.
	Gaps []evidence.Gap `json:"gaps,omitempty"`
	// Blockers are the sessions that held locks the harness's sessions
	// waited for in the measured phase, the most waited on first; where
	// the profile samples the session list and the engine names them
	// (see Blocker).
	Blockers []Blocker `json:"blockers,omitempty"`
	// BlockersEstimate says how their times are estimated.
	BlockersEstimate string `json:"blockers_estimate,omitempty"`
	// BlockersUnavailable is why blockers could not be read, when a lock
	// wait was sampled and they could not.
	BlockersUnavailable string `json:"blockers_unavailable,omitempty"`
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
	// Blockers counts, by blocking session id, the samples of the
	// harness's sessions waiting on it in the interval (Blocker).
	Blockers map[string]int `json:"blockers,omitempty"`
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
	// Workers is whether the statement's plan went parallel, from one
	// execution of it under the engine's EXPLAIN ANALYZE; nil where the
	// plan check did not get that far.
	Workers *Workers `json:"workers,omitempty"`
	// Error is why the statement could not be explained; it starts with
	// AfterRun when it was explained before the run but not after it.
	Error string `json:"error,omitempty"`
}

// Workers are the parallel workers of one execution of a statement, summed
// over its plan's Gather nodes: planned by the planner, and launched by the
// executor (fewer when the server's pool of workers, max_parallel_workers,
// ran short). A plan without a Gather node planned none: it ran serially.
type Workers struct {
	// Draw names the parameter set the statement ran with ("median").
	Draw     string `json:"draw,omitempty"`
	Planned  int    `json:"planned"`
	Launched int    `json:"launched"`
	// NotMeasured, when set, says why there are no figures (the engine
	// cannot tell, the statement writes); Planned and Launched are then 0.
	NotMeasured string `json:"not_measured,omitempty"`
}

// Parallel reports whether the execution planned any worker.
func (w *Workers) Parallel() bool { return w != nil && w.NotMeasured == "" && w.Planned > 0 }

// String is "serial", "parallel: 2 workers planned, 2 launched" or "not
// measured: WHY".
func (w *Workers) String() string {
	switch {
	case w == nil:
		return ""
	case w.NotMeasured != "":
		return "not measured: " + w.NotMeasured
	case w.Planned == 0:
		return "serial (no worker planned)"
	}
	return fmt.Sprintf("parallel: %d workers planned, %d launched", w.Planned, w.Launched)
}

// PlanWorkers sums the workers of the run's statements whose plans were
// measured (StatementPlans.Workers): planned, launched, and how many
// statements were measured and went parallel. measured is 0 when none was.
func (r *Run) PlanWorkers() (planned, launched, measured, parallel int) {
	for _, p := range r.Plans {
		w := p.Workers
		if w == nil || w.NotMeasured != "" {
			continue
		}
		measured++
		planned += w.Planned
		launched += w.Launched
		if w.Planned > 0 {
			parallel++
		}
	}
	return planned, launched, measured, parallel
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
