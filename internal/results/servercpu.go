package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// ServerCPU is where the database server's processes spent their CPU during
// the measured phase (--collect server-cpu), sampled by Linux perf on the
// software cpu-clock event. Unavailable says in one line why there is no
// profile (perf missing or not permitted, a remote server, an engine with
// no server process); the other members are then empty.
type ServerCPU struct {
	// Method is how the profile was taken, e.g. "perf record -a -e
	// cpu-clock -F 199 -g".
	Method string `json:"method,omitempty"`
	// Processes says which processes were profiled, e.g. "PostgreSQL
	// postmaster (pid 2227) and its child processes (6 as sampling
	// started)".
	Processes string `json:"processes,omitempty"`
	// FrequencyHz is the sampling frequency of each CPU.
	FrequencyHz int `json:"frequency_hz,omitempty"`
	// Samples is how many samples fell in the server's processes, and
	// CPUSeconds the CPU time they stand for (the sum of their periods).
	Samples    int64   `json:"samples"`
	CPUSeconds float64 `json:"cpu_s"`
	// Seconds is the length of the measured phase the samples were kept
	// from.
	Seconds float64 `json:"seconds"`
	// PerfCPUSeconds is the CPU perf record itself used (user and system,
	// from the OS; it runs from before the clients connect to the end of
	// the run), and ReadSeconds how long perf script
	// took to read the profile after the run: the collector's own cost.
	PerfCPUSeconds float64 `json:"perf_cpu_s"`
	ReadSeconds    float64 `json:"read_s"`
	// Functions are the functions that used the most CPU themselves (self
	// time, the leaf of each sample), most first; Modules the same by
	// module (the server binary, libc, the kernel).
	Functions []CPUShare `json:"functions"`
	Modules   []CPUShare `json:"modules"`
	// Stacks are the sampled call stacks folded, root first and frames
	// joined by ";" (the flame graph's input), most samples first; stacks
	// below StacksMinPct of the samples are left out.
	Stacks       []FoldedStack `json:"stacks,omitempty"`
	StacksMinPct float64       `json:"stacks_min_pct,omitempty"`
	Unavailable  string        `json:"unavailable,omitempty"`
	// Note says the profile covers only part of the measured phase, and
	// why (perf stopped at its data cap, or ended on its own); Seconds
	// is then the part covered.
	Note string `json:"note,omitempty"`
}

// CPUShare is one function's or module's share of the samples.
type CPUShare struct {
	// Symbol is the function's name, "[unknown]" where the module has no
	// symbol for the address (a static function of a stripped binary);
	// empty in Modules.
	Symbol string `json:"symbol,omitempty"`
	// Module is the binary or library the code lives in, by file name;
	// "[kernel.kallsyms]" is the kernel.
	Module  string  `json:"module"`
	Samples int64   `json:"samples"`
	SelfPct float64 `json:"self_pct"`
}

// FoldedStack is one call stack and how many samples it got.
type FoldedStack struct {
	Frames  string `json:"frames"`
	Samples int64  `json:"samples"`
}

// ServerCPUDiff compares the server's CPU profiles of two runs
// (--collect server-cpu on both): the server's CPU per transaction, and
// the modules and functions whose share of its self time changed most.
type ServerCPUDiff struct {
	// CPUPerTxUsA and CPUPerTxUsB are the CPU the profile saw in the
	// server per transaction of the run, in µs: cpu_s over the run's
	// tps times the seconds profiled; null without transactions.
	CPUPerTxUsA *float64 `json:"cpu_per_tx_us_a"`
	CPUPerTxUsB *float64 `json:"cpu_per_tx_us_b"`
	// Modules and Functions pair the entries listed in either profile,
	// the largest changes of share first (for an entry one profile does
	// not list, at least its share less the smallest that profile lists).
	Modules   []CPUShareDiff `json:"modules"`
	Functions []CPUShareDiff `json:"functions"`
	// Notes say where a profile covers only part of its run.
	Notes []string `json:"notes,omitempty"`
}

// CPUShareDiff is one module's or function's self-time share in A and B.
type CPUShareDiff struct {
	Symbol string `json:"symbol,omitempty"`
	Module string `json:"module"`
	// SelfPctA and SelfPctB are null where the entry is not among the
	// ones that run's profile lists (its share was below the last listed).
	SelfPctA *float64 `json:"self_pct_a"`
	SelfPctB *float64 `json:"self_pct_b"`
	// DeltaPts is B minus A in percentage points, null unless both are
	// known.
	DeltaPts *float64 `json:"delta_pts"`
}

// Compared lists of a comparison's server CPU differences.
const (
	cpuDiffModules   = 10
	cpuDiffFunctions = 15
)

// DiffServerCPU compares the profiles of runs a and b; nil unless both
// have one with samples.
func DiffServerCPU(a, b *Run) *ServerCPUDiff {
	pa, pb := a.ServerCPU, b.ServerCPU
	if pa == nil || pb == nil || pa.Unavailable != "" || pb.Unavailable != "" || pa.Samples == 0 || pb.Samples == 0 {
		return nil
	}
	perTx := func(r *Run) *float64 {
		p := r.ServerCPU
		if r.Summary.TPS <= 0 || p.Seconds <= 0 {
			return nil
		}
		v := round2(1e6 * p.CPUSeconds / (r.Summary.TPS * p.Seconds))
		return &v
	}
	d := &ServerCPUDiff{CPUPerTxUsA: perTx(a), CPUPerTxUsB: perTx(b),
		Modules: diffShares(pa.Modules, pb.Modules, cpuDiffModules), Functions: diffShares(pa.Functions, pb.Functions, cpuDiffFunctions)}
	for _, s := range []struct {
		n string
		p *ServerCPU
	}{{"A", pa}, {"B", pb}} {
		if s.p.Note != "" {
			d.Notes = append(d.Notes, s.n+": "+s.p.Note)
		}
	}
	return d
}

// diffShares pairs two lists of shares by symbol and module, and keeps
// the first max by the size of their change.
func diffShares(a, b []CPUShare, max int) []CPUShareDiff {
	type key struct{ sym, mod string }
	idx := map[key]int{}
	var out []CPUShareDiff
	for i, list := range [][]CPUShare{a, b} {
		for _, s := range list {
			k := key{s.Symbol, s.Module}
			j, ok := idx[k]
			if !ok {
				j = len(out)
				idx[k] = j
				out = append(out, CPUShareDiff{Symbol: s.Symbol, Module: s.Module})
			}
			v := s.SelfPct
			if i == 0 {
				out[j].SelfPctA = &v
			} else {
				out[j].SelfPctB = &v
			}
		}
	}
	for i := range out {
		if out[i].SelfPctA != nil && out[i].SelfPctB != nil {
			v := round2(*out[i].SelfPctB - *out[i].SelfPctA)
			out[i].DeltaPts = &v
		}
	}
	// By the size of the change: an entry one profile does not list has
	// there less than that profile's smallest listed share, so its
	// change is at least its share less that one.
	least := func(list []CPUShare) float64 {
		m := 0.0
		for i, s := range list {
			if i == 0 || s.SelfPct < m {
				m = s.SelfPct
			}
		}
		return m
	}
	leastA, leastB := least(a), least(b)
	weight := func(d CPUShareDiff) float64 {
		switch {
		case d.DeltaPts != nil:
			return math.Abs(*d.DeltaPts)
		case d.SelfPctA != nil:
			return *d.SelfPctA - leastB
		default:
			return *d.SelfPctB - leastA
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return weight(out[i]) > weight(out[j]) })
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// PerTx writes the server's CPU per transaction in A and B and its
// change: "41.2 µs → 38.0 µs (-7.8%)", "-" for a side without one.
func (d ServerCPUDiff) PerTx() string {
	out := arrow(d.CPUPerTxUsA, d.CPUPerTxUsB, " µs", "-")
	if d.CPUPerTxUsA != nil && d.CPUPerTxUsB != nil && *d.CPUPerTxUsA > 0 {
		out += fmt.Sprintf(" (%+.1f%%)", 100*(*d.CPUPerTxUsB / *d.CPUPerTxUsA - 1))
	}
	return out
}

// Lines writes the comparison for people: the CPU per transaction, then
// each module and function with its shares and their change.
func (d ServerCPUDiff) Lines() []string {
	out := []string{"server CPU per transaction: " + d.PerTx()}
	for _, s := range d.Modules {
		out = append(out, "module "+s.Module+": "+s.Shares())
	}
	for _, s := range d.Functions {
		out = append(out, "function "+s.Symbol+" ("+s.Module+"): "+s.Shares())
	}
	for _, n := range d.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

// Shares writes "12.0% → 15.5% (+3.5 pts)", a share not listed as
// "not listed".
func (s CPUShareDiff) Shares() string {
	out := arrow(s.SelfPctA, s.SelfPctB, "%", "not listed")
	if s.DeltaPts != nil {
		out += fmt.Sprintf(" (%+.1f pts)", *s.DeltaPts)
	}
	return out
}

// arrow writes "A → B", each side with one decimal and its unit, or
// missing where it is nil.
func arrow(a, b *float64, unit, missing string) string {
	side := func(v *float64) string {
		if v == nil {
			return missing
		}
		return strconv.FormatFloat(*v, 'f', 1, 64) + unit
	}
	return side(a) + " → " + side(b)
}
