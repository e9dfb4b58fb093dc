package collect

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/results"
)

// A Profile is perf samples added up, process by process: by function
// (the leaf of each sample, its self time), by module, and by whole call
// stack. Weights are the samples' periods (nanoseconds of CPU for
// cpu-clock), since perf adjusts the period to keep the frequency. It
// also keeps which process forked which, so that Fill can keep one
// process and its descendants.
type Profile struct {
	procs  map[int]*procProfile
	parent map[int]int
}

type procProfile struct {
	samples   int64
	period    float64
	functions map[frame]*weight
	modules   map[string]*weight
	stacks    map[string]*weight
}

// forkRecord is perf script's line for a fork (with --show-task-events):
// PERF_RECORD_FORK(child pid:tid):(parent pid:tid).
var forkRecord = regexp.MustCompile(`PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)`)

type frame struct{ sym, module string }

type weight struct {
	samples int64
	period  float64
}

func (w *weight) add(period float64) {
	w.samples++
	w.period += period
}

func (w *weight) merge(o *weight) {
	w.samples += o.samples
	w.period += o.period
}

// Window bounds the samples kept, by their time in seconds (perf script's
// time field); the zero Window keeps every sample.
type Window struct{ From, To float64 }

func (w Window) holds(t float64, timed bool) bool {
	if w == (Window{}) {
		return true
	}
	return timed && t >= w.From && t <= w.To
}

// ParsePerfScript reads the output of `perf script -F
// comm,pid,tid[,time],period,ip,sym,dso --show-task-events` over a
// profile recorded with call stacks (-g): for each sample a line "comm
// pid/tid [time:] period" and then one line per frame, leaf first,
// "address symbol (module)", and a blank line; and a line per task event,
// of which it keeps the forks. Samples outside w are left out.
func ParsePerfScript(r io.Reader, w Window) (*Profile, error) {
	p := &Profile{procs: map[int]*procProfile{}, parent: map[int]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var (
		period float64
		pid    int
		frames []frame
		open   bool
		keep   bool
	)
	flush := func() {
		if open && len(frames) > 0 && keep {
			p.proc(pid).add(period, frames)
		}
		open, frames = false, frames[:0]
	}
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		switch {
		case strings.TrimSpace(s) == "":
			flush()
		case strings.Contains(s, "PERF_RECORD_"):
			flush()
			if m := forkRecord.FindStringSubmatch(s); m != nil {
				child, _ := strconv.Atoi(m[1])
				parent, _ := strconv.Atoi(m[2])
				if child != parent { // a thread is its process's
					p.parent[child] = parent
				}
			}
		case s[0] == ' ' || s[0] == '\t':
			if !open {
				return nil, fmt.Errorf("line %d: a frame outside a sample", line)
			}
			f, ok := parseFrame(s)
			if !ok {
				return nil, fmt.Errorf("line %d: cannot read the frame %q", line, strings.TrimSpace(s))
			}
			frames = append(frames, f)
		default:
			flush()
			f := strings.Fields(s)
			if len(f) < 3 {
				return nil, fmt.Errorf("line %d: cannot read the sample header %q", line, s)
			}
			// The command name may hold spaces: the period is last, the
			// time ("seconds:") and pid/tid before it.
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil || v < 0 || math.IsInf(v, 0) {
				return nil, fmt.Errorf("line %d: cannot read the sample's period in %q", line, s)
			}
			at, timed := 0.0, false
			if ts, ok := strings.CutSuffix(f[len(f)-2], ":"); ok && len(f) >= 4 {
				if at, err = strconv.ParseFloat(ts, 64); err != nil {
					return nil, fmt.Errorf("line %d: cannot read the sample's time in %q", line, s)
				}
				timed = true
				f = f[:len(f)-1]
			}
			keep = w.holds(at, timed)
			id, _, _ := strings.Cut(f[len(f)-2], "/")
			if pid, err = strconv.Atoi(id); err != nil {
				return nil, fmt.Errorf("line %d: cannot read the sample's process in %q", line, s)
			}
			period, open = v, true
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// parseFrame reads "address symbol (module)".
func parseFrame(s string) (frame, bool) {
	s = strings.TrimSpace(s)
	addr, rest, ok := strings.Cut(s, " ")
	if !ok || addr == "" || !strings.HasSuffix(rest, ")") {
		return frame{}, false
	}
	i := strings.LastIndex(rest, " (")
	var sym, mod string
	if i < 0 {
		if !strings.HasPrefix(rest, "(") {
			return frame{}, false
		}
		mod = rest[1 : len(rest)-1]
	} else {
		sym, mod = strings.TrimSpace(rest[:i]), rest[i+2:len(rest)-1]
	}
	if sym == "" {
		sym = "[unknown]"
	}
	if mod != "[unknown]" && !strings.HasPrefix(mod, "[") {
		mod = filepath.Base(mod)
	}
	return frame{sym: sym, module: mod}, true
}

func (p *Profile) proc(pid int) *procProfile {
	pp := p.procs[pid]
	if pp == nil {
		pp = &procProfile{functions: map[frame]*weight{}, modules: map[string]*weight{}, stacks: map[string]*weight{}}
		p.procs[pid] = pp
	}
	return pp
}

// Under returns the profile of process root and its descendants (root 0:
// every process).
func (p *Profile) Under(root int) *Profile {
	out := &Profile{procs: map[int]*procProfile{}, parent: p.parent}
	in := map[int]bool{root: true}
	var under func(pid int, depth int) bool
	under = func(pid, depth int) bool {
		if v, ok := in[pid]; ok {
			return v
		}
		pp, ok := p.parent[pid]
		// A cycle (a PID reused) cannot be deeper than the processes.
		v := ok && depth < len(p.parent) && under(pp, depth+1)
		in[pid] = v
		return v
	}
	for pid, pp := range p.procs {
		if root == 0 || under(pid, 0) {
			out.procs[pid] = pp
		}
	}
	return out
}

func (p *procProfile) add(period float64, frames []frame) {
	p.samples++
	p.period += period
	leaf := frames[0]
	get(p.functions, leaf).add(period)
	get(p.modules, leaf.module).add(period)
	// The folded stack runs from the root to the leaf; a frame without a
	// symbol is named by its module, so that the graph says whose it is.
	names := make([]string, len(frames))
	for i, f := range frames {
		n := f.sym
		if n == "[unknown]" && !strings.HasPrefix(f.module, "[") {
			n = "[" + f.module + "]"
		}
		names[len(frames)-1-i] = strings.ReplaceAll(n, ";", ":")
	}
	get(p.stacks, strings.Join(names, ";")).add(period)
}

func get[K comparable](m map[K]*weight, k K) *weight {
	w := m[k]
	if w == nil {
		w = &weight{}
		m[k] = w
	}
	return w
}

// TopFunctions and TopModules are how many functions and modules a
// profile keeps; StacksMinPct is the share below which a call stack is
// left out of it (the flame graph could not draw it wider than a hair).
const (
	TopFunctions = 30
	TopModules   = 20
	StacksMinPct = 0.1
)

// merged adds up the processes' profiles.
func (p *Profile) merged() *procProfile {
	all := &procProfile{functions: map[frame]*weight{}, modules: map[string]*weight{}, stacks: map[string]*weight{}}
	for _, pp := range p.procs {
		all.samples += pp.samples
		all.period += pp.period
		for k, w := range pp.functions {
			get(all.functions, k).merge(w)
		}
		for k, w := range pp.modules {
			get(all.modules, k).merge(w)
		}
		for k, w := range pp.stacks {
			get(all.stacks, k).merge(w)
		}
	}
	return all
}

// Fill stores the profile of every process in it in out: samples, CPU
// seconds, the top functions and modules and the stacks above
// StacksMinPct.
func (p *Profile) Fill(out *results.ServerCPU) {
	m := p.merged()
	out.Samples = m.samples
	out.CPUSeconds = round3(m.period / 1e9)
	pct := func(w *weight) float64 {
		if m.period <= 0 {
			return 0
		}
		return math.Round(10000*w.period/m.period) / 100
	}
	out.Functions = []results.CPUShare{}
	for f, w := range m.functions {
		out.Functions = append(out.Functions, results.CPUShare{Symbol: f.sym, Module: f.module, Samples: w.samples, SelfPct: pct(w)})
	}
	out.Functions = topShares(out.Functions, TopFunctions)
	out.Modules = []results.CPUShare{}
	for mod, w := range m.modules {
		out.Modules = append(out.Modules, results.CPUShare{Module: mod, Samples: w.samples, SelfPct: pct(w)})
	}
	out.Modules = topShares(out.Modules, TopModules)
	out.Stacks = nil
	for s, w := range m.stacks {
		if pct(w) >= StacksMinPct {
			out.Stacks = append(out.Stacks, results.FoldedStack{Frames: s, Samples: w.samples})
		}
	}
	sort.Slice(out.Stacks, func(i, j int) bool {
		a, b := out.Stacks[i], out.Stacks[j]
		if a.Samples != b.Samples {
			return a.Samples > b.Samples
		}
		return a.Frames < b.Frames
	})
	out.StacksMinPct = StacksMinPct
}

// topShares sorts shares by share, samples and name, and keeps the first n.
func topShares(s []results.CPUShare, n int) []results.CPUShare {
	sort.Slice(s, func(i, j int) bool {
		a, b := s[i], s[j]
		switch {
		case a.SelfPct != b.SelfPct:
			return a.SelfPct > b.SelfPct
		case a.Samples != b.Samples:
			return a.Samples > b.Samples
		case a.Module != b.Module:
			return a.Module < b.Module
		}
		return a.Symbol < b.Symbol
	})
	return s[:min(n, len(s))]
}
