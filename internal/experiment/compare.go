package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/analysis"
	"github.com/dbharness/dbharness/internal/results"
)

// Total is the name of the all-transactions row of a comparison.
const Total = "total"

// MinIntervals is the fewest full measured intervals per side for a
// verdict from interval data: below it even the t interval of
// analysis.CompareIntervalMeans stops keeping its false-positive rate.
const MinIntervals = 8

// Comparison methods.
const (
	MethodIntervals = "intervals"
	MethodRepeats   = "repeats"
	MethodRepeatsT  = "repeats-t"
	MethodMixed     = "mixed"
)

// CompareRuns compares run b against run a: throughput and latency per
// transaction type and in total, with verdicts from a moving-block
// bootstrap t interval of the change of the mean per-interval throughput
// (analysis.CompareIntervalMeans), and every configuration difference.
func CompareRuns(a, b *results.Run) *results.Comparison {
	c := &results.Comparison{SchemaVersion: results.CompareSchemaVersion, Level: Level,
		A: results.CompareSide{Kind: "run", ID: a.RunID, Label: a.Label, Workload: a.Workload, Mix: a.Mix, Runs: []string{a.RunID}},
		B: results.CompareSide{Kind: "run", ID: b.RunID, Label: b.Label, Workload: b.Workload, Mix: b.Mix, Runs: []string{b.RunID}}}
	ops, method, note := compareGroup([]*results.Run{a}, []*results.Run{b}, newRNG())
	c.Ops, c.Method = ops, method
	if note != "" {
		c.Notes = append(c.Notes, note)
	}
	c.ConfigDifferences = diffMaps(flattenRun(a), flattenRun(b))
	c.PlanDifferences = results.DiffPlans(a, b)
	c.PhysicalDifferences = results.PhysicalDiffs(a.Physical, b.Physical)
	c.ServerCPUDifferences = results.DiffServerCPU(a, b)
	c.Figures = diffFigures([]*results.Run{a}, []*results.Run{b})
	if a.Status != results.StatusCompleted || b.Status != results.StatusCompleted {
		c.Notes = append(c.Notes, fmt.Sprintf("run statuses: A %s, B %s", a.Status, b.Status))
	}
	if a.RunID == b.RunID {
		sameRun(c)
	}
	engineChange(c)
	workloadChange(c)
	return c
}

// workloadChange marks, at the head of the notes, a comparison of two
// different workloads, whose figures measure different work: compare
// refuses it unless forced. A change of the mix of one workload is noted
// too.
func workloadChange(c *results.Comparison) {
	a, b := c.A, c.B
	switch {
	case a.Workload != b.Workload:
		c.WorkloadsDiffer = true
		c.Notes = append([]string{c.WorkloadsNote()}, c.Notes...)
	case a.Mix != b.Mix && a.Mix != "" && b.Mix != "":
		c.Notes = append([]string{fmt.Sprintf("the mix changed: %s in A, %s in B", a.Mix, b.Mix)}, c.Notes...)
	}
}

// sameRun marks a comparison of a run (or sweep) with itself.
func sameRun(c *results.Comparison) {
	zero := 0.0
	for i := range c.Ops {
		o := &c.Ops[i]
		o.Verdict = results.VerdictSameRun
		o.TPSCILowPct, o.TPSCIHighPct = nil, nil
		if o.TPSDeltaPct != nil {
			o.TPSDeltaPct = &zero
		}
	}
	c.Notes = append([]string{fmt.Sprintf("A and B are the same %s (%s): there is nothing to compare", c.A.Kind, c.A.ID)}, c.Notes...)
}

// engineChange puts a change of engine or version at the head of the
// notes: no other difference between two runs matters as much.
func engineChange(c *results.Comparison) {
	var name, version *results.ConfigDiff
	for i, d := range c.ConfigDifferences {
		switch d.Key {
		case "engine.name":
			name = &c.ConfigDifferences[i]
		case "engine.version":
			version = &c.ConfigDifferences[i]
		}
	}
	switch {
	case name != nil:
		v := "the engine changed: " + name.A
		if version != nil {
			v = fmt.Sprintf("the engine changed: %s %s in A, %s %s in B", name.A, version.A, name.B, version.B)
		} else {
			v += " in A, " + name.B + " in B"
		}
		c.Notes = append([]string{v}, c.Notes...)
	case version != nil:
		c.Notes = append([]string{fmt.Sprintf("the engine's version changed: %s in A, %s in B", version.A, version.B)}, c.Notes...)
	}
}

// CompareSweeps compares sweep b against sweep a at every point they share
// (same client count and vary values), over repeats where both sides have
// at least two completed runs and over intervals otherwise.
func CompareSweeps(a, b *results.Sweep, runs map[string]*results.Run) *results.Comparison {
	c := &results.Comparison{SchemaVersion: results.CompareSchemaVersion, Level: Level,
		A:   results.CompareSide{Kind: "sweep", ID: a.SweepID, Label: a.Label, Workload: a.Workload, Mix: a.Mix, Runs: a.RunIDs},
		B:   results.CompareSide{Kind: "sweep", ID: b.SweepID, Label: b.Label, Workload: b.Workload, Mix: b.Mix, Runs: b.RunIDs},
		Ops: []results.CompareOp{}}
	if c.A.Runs == nil {
		c.A.Runs = []string{}
	}
	if c.B.Runs == nil {
		c.B.Runs = []string{}
	}
	groupsOf := func(sw *results.Sweep) (map[string][]*results.Run, map[string]results.SweepRun) {
		g := map[string][]*results.Run{}
		meta := map[string]results.SweepRun{}
		for _, pr := range sw.Plan {
			r := runs[pr.RunID]
			if r == nil || r.Status != results.StatusCompleted {
				continue
			}
			k := pointKey(pr.Clients, pr.Vary)
			g[k] = append(g[k], r)
			meta[k] = pr
		}
		return g, meta
	}
	ga, ma := groupsOf(a)
	gb, _ := groupsOf(b)
	var keys []string
	for k := range ga {
		if _, ok := gb[k]; ok {
			keys = append(keys, k)
		} else {
			c.Notes = append(c.Notes, "point "+k+" is only in A")
		}
	}
	for k := range gb {
		if _, ok := ga[k]; !ok {
			c.Notes = append(c.Notes, "point "+k+" is only in B")
		}
	}
	sort.Strings(c.Notes)
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := ma[keys[i]], ma[keys[j]]
		if vi, vj := VaryKey(pi.Vary), VaryKey(pj.Vary); vi != vj {
			return vi < vj
		}
		return pi.Clients < pj.Clients
	})
	rng := newRNG()
	methods := map[string]bool{}
	for _, k := range keys {
		ops, m, note := compareGroup(ga[k], gb[k], rng)
		methods[m] = true
		if note != "" {
			c.Notes = append(c.Notes, k+": "+note)
		}
		for i := range ops {
			ops[i].Clients, ops[i].Vary = ma[k].Clients, ma[k].Vary
		}
		c.Ops = append(c.Ops, ops...)
		figs := diffFigures(ga[k], gb[k])
		for i := range figs {
			figs[i].Clients, figs[i].Vary = ma[k].Clients, ma[k].Vary
		}
		c.Figures = append(c.Figures, figs...)
	}
	switch {
	case len(methods) > 1:
		c.Method = MethodMixed
	case methods[MethodRepeats]:
		c.Method = MethodRepeats
	case methods[MethodRepeatsT]:
		c.Method = MethodRepeatsT
	default:
		c.Method = MethodIntervals
	}
	if len(keys) == 0 {
		c.Notes = append(c.Notes, "the sweeps share no point with completed runs")
	}
	fa, fb := flattenSweep(a, runs), flattenSweep(b, runs)
	c.ConfigDifferences = diffMaps(fa, fb)
	if a.SweepID == b.SweepID {
		sameRun(c)
	}
	engineChange(c)
	workloadChange(c)
	return c
}

func pointKey(clients int, vary map[string]string) string {
	k := fmt.Sprintf("clients=%d", clients)
	if v := VaryKey(vary); v != "" {
		k += " " + v
	}
	return k
}

// compareGroup compares the runs rb against ra, per transaction type and
// in total.
func compareGroup(ra, rb []*results.Run, rng *rand.Rand) (ops []results.CompareOp, method, note string) {
	method = MethodIntervals
	switch {
	case len(ra) >= MinBootstrapRepeats && len(rb) >= MinBootstrapRepeats:
		method = MethodRepeats
	case len(ra) >= 2 && len(rb) >= 2:
		method = MethodRepeatsT
	}
	var names []string
	seen := map[string]bool{}
	// in says which sides ran each transaction type.
	in := map[string][2]bool{}
	for side, rs := range [][]*results.Run{ra, rb} {
		for _, r := range rs {
			for _, o := range r.Ops {
				if !seen[o.Name] {
					seen[o.Name] = true
					names = append(names, o.Name)
				}
				x := in[o.Name]
				x[side] = true
				in[o.Name] = x
			}
		}
	}
	// The total comes last, also for a single transaction type, so that
	// readers of "total" always find it.
	names = append(names, Total)
	for _, name := range names {
		op := results.CompareOp{Name: name}
		tpsA, latA := sideStats(ra, name)
		tpsB, latB := sideStats(rb, name)
		op.TPSA, op.TPSB = round(medianOf(tpsA), 2), round(medianOf(tpsB), 2)
		op.TPSDeltaPct = roundPtr(deltaPct(op.TPSA, op.TPSB), 2)
		op.LatencyA, op.LatencyB = latA, latB
		op.LatencyDeltaPct = map[string]float64{}
		for k, va := range latA {
			if vb, ok := latB[k]; ok {
				if d := deltaPct(va, vb); d != nil {
					op.LatencyDeltaPct[k] = round(*d, 2)
				}
			}
		}
		op.P50DeltaPct = roundPtr(deltaPct(latA["p50"], latB["p50"]), 2)
		op.P99DeltaPct = roundPtr(deltaPct(latA["p99"], latB["p99"]), 2)
		if x := in[name]; name != Total && x[0] != x[1] {
			// A transaction type one side never ran has nothing to be
			// compared with: it is not 100% slower.
			op.OnlyIn, op.Verdict = "A", results.VerdictOnlyInA
			if x[1] {
				op.OnlyIn, op.Verdict = "B", results.VerdictOnlyInB
			}
			op.TPSDeltaPct, op.P50DeltaPct, op.P99DeltaPct = nil, nil, nil
			ops = append(ops, op)
			continue
		}
		var cmp analysis.Comparison
		switch method {
		case MethodRepeats:
			cmp = analysis.CompareSamples(tpsA, tpsB, Level, Iters, rng)
		case MethodRepeatsT:
			cmp = analysis.CompareMeansT(tpsA, tpsB, Level)
		default:
			ia, ib := intervalsOf(ra, name), intervalsOf(rb, name)
			if len(ia) < MinIntervals || len(ib) < MinIntervals {
				// Too few intervals for a block bootstrap to mean anything.
				cmp = analysis.Comparison{Verdict: analysis.InsufficientData, CILowPct: math.NaN(), CIHighPct: math.NaN()}
				if name == Total {
					note = fmt.Sprintf("A has %d and B %d full measured intervals; a verdict needs at least %d on each side: "+
						"measure longer (--duration) or in shorter intervals (--progress), or repeat the runs in a sweep",
						len(ia), len(ib), MinIntervals)
				}
			} else {
				cmp = analysis.CompareIntervalMeans(ia, ib, Level, Iters, rng)
			}
		}
		op.TPSCILowPct = roundPtr(ptr(cmp.CILowPct), 2)
		op.TPSCIHighPct = roundPtr(ptr(cmp.CIHighPct), 2)
		op.Verdict = string(cmp.Verdict)
		ops = append(ops, op)
	}
	return ops, method, note
}

// sideStats returns each run's tps for the op (or the total) and the median
// over the runs of each latency figure.
func sideStats(rs []*results.Run, name string) ([]float64, results.Latency) {
	var tps []float64
	lats := map[string][]float64{}
	for _, r := range rs {
		var l results.Latency
		if name == Total {
			tps = append(tps, r.Summary.TPS)
			l = r.Summary.LatencyMs
		} else {
			found := false
			for _, o := range r.Ops {
				if o.Name == name {
					tps = append(tps, o.TPS)
					l, found = o.LatencyMs, true
				}
			}
			if !found {
				tps = append(tps, 0)
			}
		}
		for k, v := range l {
			lats[k] = append(lats[k], v)
		}
	}
	lat := results.Latency{}
	for k, vs := range lats {
		lat[k] = round(medianOf(vs), 3)
	}
	return tps, lat
}

func intervalsOf(rs []*results.Run, name string) []float64 {
	if name == Total {
		name = ""
	}
	var out []float64
	for _, r := range rs {
		out = append(out, MeasuredIntervalTPS(r, name)...)
	}
	return out
}

func deltaPct(a, b float64) *float64 {
	if !(a != 0) || math.IsNaN(a) || math.IsNaN(b) {
		return nil
	}
	return ptr((b - a) / math.Abs(a) * 100)
}

// cfgVal is one configuration item: Show is how it is written, and two
// items are the same when their Eq strings are (Eq defaults to Show), or,
// where both have Num, when they are within Tol of each other relatively,
// or with Cut, when they are on the same side of Cut and within Cut of
// each other. Hi, when set, makes the item a range from Num to Hi (a
// sweep's table sizes over its runs): two ranges are the same when they
// overlap, within Tol.
type cfgVal struct {
	Show, Eq string
	Num      *float64
	Hi       *float64
	Tol      float64
	Cut      float64
}

func (v cfgVal) eq() string {
	if v.Eq != "" {
		return v.Eq
	}
	return v.Show
}

func (v cfgVal) same(o cfgVal) bool {
	if v.Num != nil && o.Num != nil && (v.Hi != nil || o.Hi != nil) {
		hi := func(x cfgVal) float64 {
			if x.Hi != nil {
				return *x.Hi
			}
			return *x.Num
		}
		near := func(a, b float64) bool { return a <= b || math.Abs(a-b) <= v.Tol*math.Max(math.Abs(a), math.Abs(b)) }
		return near(*v.Num, hi(o)) && near(*o.Num, hi(v))
	}
	if v.Num != nil && o.Num != nil && v.Cut > 0 {
		a, b := *v.Num, *o.Num
		return math.Abs(a-b) <= v.Cut && (a > v.Cut) == (b > v.Cut)
	}
	if v.Num != nil && o.Num != nil && v.Tol > 0 {
		a, b := *v.Num, *o.Num
		return math.Abs(a-b) <= v.Tol*math.Max(math.Abs(a), math.Abs(b))
	}
	return v.eq() == o.eq()
}

// datasetSizeTolerance is how far apart two runs' table sizes may be and
// still count as the same data: tpcb's updates and a vacuum move a table's
// bytes a little between runs, which is no difference in the data.
const datasetSizeTolerance = 0.10

// flattenRun lists a run's configuration as dotted keys.
func flattenRun(r *results.Run) map[string]cfgVal {
	plain := map[string]string{
		"workload":                       r.Workload,
		"target":                         r.Target,
		"engine.name":                    r.Engine.Engine,
		"engine.version":                 r.Engine.Version,
		"host.hostname":                  r.Host.Hostname,
		"host.cpu_model":                 r.Host.CPUModel,
		"host.cores":                     strconv.Itoa(r.Host.Cores),
		"host.memory_mb":                 strconv.FormatInt(r.Host.MemoryMB, 10),
		"host.os":                        r.Host.OS,
		"host.kernel":                    r.Host.Kernel,
		"host.arch":                      r.Host.Arch,
		"host.go":                        r.Host.Go,
		"config.clients":                 strconv.Itoa(r.Config.Clients),
		"config.duration_s":              num(r.Config.DurationSeconds),
		"config.transactions_per_client": strconv.FormatInt(r.Config.Transactions, 10),
		"config.warmup_s":                num(r.Config.WarmupSeconds),
		"config.rate":                    num(r.Config.Rate),
		"config.latency_limit_ms":        num(r.Config.LatencyLimitMs),
		"config.max_tries":               strconv.Itoa(r.Config.MaxTries),
		"config.interval_s":              num(r.Config.IntervalSeconds),
		"config.seed":                    strconv.FormatUint(r.Config.Seed, 10),
	}
	// The transport is part of what a figure measures: TLS costs CPU on
	// both sides (recorded since issue 38; absent from older runs).
	if r.Engine.TLS != "" {
		plain["engine.tls"] = r.Engine.TLS
	}
	if r.Config.Terminals > 0 {
		plain["config.terminals"] = strconv.Itoa(r.Config.Terminals)
		plain["config.keying_think"] = strconv.FormatBool(r.Config.KeyingThink)
	}
	if len(r.Config.Percentiles) > 0 {
		ps := make([]string, len(r.Config.Percentiles))
		for i, p := range r.Config.Percentiles {
			ps[i] = num(p)
		}
		plain["config.percentiles"] = strings.Join(ps, ",")
	}
	// Evidence collection costs a little throughput: a difference in it is
	// a difference in the runs.
	plain["collect.enabled"] = "none"
	if r.Collect != nil && len(r.Collect.Enabled) > 0 {
		plain["collect.enabled"] = strings.Join(r.Collect.Enabled, ",")
	}
	for k, v := range r.Config.WorkloadFlags {
		plain["workload."+k] = v
	}
	for k, v := range r.Config.Set {
		plain["config.set."+k] = v
	}
	if r.Config.DOP > 0 {
		plain["config.dop"] = strconv.Itoa(r.Config.DOP)
	}
	m := make(map[string]cfgVal, len(plain))
	for k, v := range plain {
		m[k] = cfgVal{Show: v}
	}
	// Settings compare by their normalised value (bytes, ms) where the run
	// has one, and show as the server shows them.
	for k, v := range r.Engine.Settings {
		cv := cfgVal{Show: v}
		if n, ok := r.Engine.Normalized[k]; ok {
			cv.Eq = strconv.FormatFloat(n.Value, 'g', -1, 64) + " " + n.Unit
		}
		m["engine.settings."+k] = cv
	}
	// The CPU other processes took from the host can move the figures
	// more than any setting (docs/results.md): two runs differ in it when
	// one took more than results.OthersWarnPct and the other did not, or
	// when they are that far apart.
	if h := r.Summary.HostCPU; h != nil && h.NotMeasured == "" {
		others := h.OthersPct
		m["host_cpu.others_pct"] = cfgVal{Show: othersText(h), Num: &others, Cut: results.OthersWarnPct}
	}
	if ds := r.Dataset; ds != nil {
		for _, k := range ds.ParamKeys() {
			m["dataset."+k] = cfgVal{Show: ds.ParamText(k)}
		}
		for _, t := range ds.Tables {
			rows := float64(t.Rows)
			m["dataset.tables."+t.Name+".rows"] = cfgVal{Show: t.RowsText(), Num: &rows, Tol: datasetSizeTolerance}
			if t.Bytes != nil {
				b := float64(*t.Bytes)
				m["dataset.tables."+t.Name+".bytes"] = cfgVal{Show: results.HumanBytes(*t.Bytes), Num: &b, Tol: datasetSizeTolerance}
			}
		}
	}
	return m
}

// othersText is the others' share of a run's host, with the largest of
// them when they interfered, e.g. "41% (yes 40%)".
func othersText(h *results.HostCPU) string {
	s := fmt.Sprintf("%.0f%%", h.OthersPct)
	if h.Interfered() && len(h.TopOthers) > 0 {
		s += fmt.Sprintf(" (%s %.0f%%)", h.TopOthers[0].Comm, h.TopOthers[0].Pct)
	}
	return s
}

// flattenSweep lists a sweep's plan and the configuration its runs share:
// keys on which its completed runs disagree (clients, swept flags, seeds)
// are left out, the plan says them; but a size of the data its runs
// disagree on (a table that grows run to run) is kept as the range of
// its runs' sizes, so that compare lists the data differences of two
// sweeps as it lists those of two runs.
func flattenSweep(sw *results.Sweep, runs map[string]*results.Run) map[string]cfgVal {
	m := map[string]cfgVal{
		"workload":      {Show: sw.Workload},
		"target":        {Show: sw.Target},
		"sweep.clients": {Show: sw.ClientList()},
		"sweep.repeat":  {Show: strconv.Itoa(sw.Repeat)},
	}
	for _, v := range sw.Vary {
		m["sweep.vary."+v.Flag] = cfgVal{Show: strings.Join(v.Values, ",")}
	}
	var common map[string]cfgVal
	lo, hi := map[string]cfgVal{}, map[string]cfgVal{}
	for _, pr := range sw.Plan {
		r := runs[pr.RunID]
		if r == nil || r.Status != results.StatusCompleted {
			continue
		}
		f := flattenRun(r)
		for k, v := range f {
			if !strings.HasPrefix(k, "dataset.tables.") || v.Num == nil {
				continue
			}
			if l, ok := lo[k]; !ok || *v.Num < *l.Num {
				lo[k] = v
			}
			if h, ok := hi[k]; !ok || *v.Num > *h.Num {
				hi[k] = v
			}
		}
		if common == nil {
			common = f
			continue
		}
		for k, v := range common {
			if fv, ok := f[k]; !ok || !fv.same(v) {
				delete(common, k)
			}
		}
	}
	for k, l := range lo {
		if _, ok := common[k]; ok || len(common) == 0 {
			continue
		}
		h := hi[k]
		m[k] = cfgVal{Show: l.Show + " to " + h.Show, Num: l.Num, Hi: h.Num, Tol: l.Tol}
	}
	for k, v := range common {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return m
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// diffGroup sorts a configuration difference: the data and the engine the
// runs ran on first, then the configuration, then what is expected to
// differ between any two runs (the seed).
func diffGroup(key string) string {
	switch {
	case strings.HasPrefix(key, "dataset."), key == "engine.name", key == "engine.version":
		return results.DiffGroupData
	case key == "config.seed":
		return results.DiffGroupExpected
	case strings.HasPrefix(key, "host_cpu."):
		return results.DiffGroupHost
	}
	return results.DiffGroupConfig
}

func diffMaps(a, b map[string]cfgVal) []results.ConfigDiff {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	out := []results.ConfigDiff{}
	for k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb && va.same(vb) {
			continue
		}
		// A threshold item measured on one side only differs when that
		// side is above the threshold (a run saved before it was measured).
		if one := map[bool]cfgVal{true: va, false: vb}[oka]; oka != okb && one.Cut > 0 && one.Num != nil && *one.Num <= one.Cut {
			continue
		}
		if !oka {
			va.Show = "(unset)"
		}
		if !okb {
			vb.Show = "(unset)"
		}
		out = append(out, results.ConfigDiff{Key: k, A: va.Show, B: vb.Show, Group: diffGroup(k)})
	}
	order := map[string]int{results.DiffGroupData: 0, results.DiffGroupHost: 1, results.DiffGroupConfig: 2, results.DiffGroupExpected: 3}
	sort.Slice(out, func(i, j int) bool {
		if gi, gj := order[out[i].Group], order[out[j].Group]; gi != gj {
			return gi < gj
		}
		return out[i].Key < out[j].Key
	})
	return out
}
