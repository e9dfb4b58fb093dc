package collect

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// A Kind is a collector that --collect can name. Each registers itself
// from its own file (Register, in an init function): its name, what it
// records and needs, how reports draw it, and how it is made for a run.
// Nothing else lists the collectors: --collect's parsing and help, the run's
// collect.enabled, the results store and the reports follow the registry.
type Kind struct {
	// Name is how --collect names it, and its series' key in the run
	// (collect.<name> in JSON) and in the store.
	Name string
	// Help says in a few words what it records, for --collect's help.
	Help string
	// Needs says what it needs to record anything, for the help; empty
	// when it always can.
	Needs string
	// InAll turns it on with --collect all, the default.
	InAll bool
	// Order places it among the others (in help, collect.enabled and
	// reports); lower first.
	Order int
	// Title and Layout (results.Layout*) head and draw its series in the
	// reports; a series its sampler describes otherwise keeps its own.
	Title, Layout string
	// Sampler, when set, makes the collector a series of counters and
	// gauges on the run's intervals: it returns the sampler for the run's
	// environment, or nil where there is nothing to sample (the engine
	// has no such counters).
	Sampler func(env *Env) evidence.Sampler
	// ServerSide marks a collector of the server's own evidence (its
	// counters, its wait profile): given another endpoint of the same
	// server (ServerSide, --server-evidence), it is made from that
	// endpoint's DB (Env.Server) and its series is labelled with it.
	ServerSide bool
	// Waits, when set, makes the collector the run's wait profile: it
	// returns the profiler, or nil where the engine has none. It is made
	// after every sampler, which it may look up (Env.Sampler).
	Waits func(env *Env) evidence.WaitProfiler
	// Phase, when set, makes the collector run around the measured phase
	// rather than on its intervals (the plan check, the storage
	// measurement, the CPU profile). It is started before the clients
	// connect and before the interval collectors, in Order, and fills its
	// own section of env.Run; it returns the hooks the run calls later,
	// or nil when it has nothing more to do (having said why in the run).
	Phase func(ctx context.Context, env *PhaseEnv) *PhaseHooks
}

// Env is what a collector is made from.
type Env struct {
	DB db.DB
	// AppName is the name the harness's sessions carry (db.Tagger), empty
	// when they carry none.
	AppName string
	// Side, when set, is the other endpoint of the server that the
	// server's evidence is taken from.
	Side     *ServerSide
	samplers map[string]evidence.Sampler
}

// ServerSide is another endpoint of the run's server, in another protocol,
// that its own evidence (counters, waits, its process) is taken from:
// Babelfish's PostgreSQL side for a run over TDS (--server-evidence).
type ServerSide struct {
	DB db.DB
	// Label names it in the run's evidence ("Babelfish's PostgreSQL
	// side").
	Label string
}

// Server is the DB the server's own evidence is read from: the side's,
// when there is one, else the target's.
func (e *Env) Server() db.DB {
	if e.Side != nil {
		return e.Side.DB
	}
	return e.DB
}

// Sampler returns the sampler made for the collector name in this run, or
// nil.
func (e *Env) Sampler(name string) evidence.Sampler { return e.samplers[name] }

var (
	regMu sync.RWMutex
	kinds = map[string]Kind{}
)

// Register adds a collector. It panics on a duplicate or reserved name, or
// an unnamed kind, which are programming errors.
func Register(k Kind) {
	regMu.Lock()
	defer regMu.Unlock()
	switch {
	case k.Name == "" || k.Help == "":
		panic("collect: a collector needs a name and help")
	case k.Name == "all" || k.Name == "none" || strings.ContainsAny(k.Name, ", "):
		panic(fmt.Sprintf("collect: %q cannot name a collector", k.Name))
	case k.Sampler != nil && k.Waits != nil:
		panic(fmt.Sprintf("collect: collector %q is both a sampler and a wait profile", k.Name))
	case k.Phase != nil && (k.Sampler != nil || k.Waits != nil):
		panic(fmt.Sprintf("collect: collector %q runs both around the measured phase and on its intervals", k.Name))
	}
	if _, dup := kinds[k.Name]; dup {
		panic(fmt.Sprintf("collect: collector %q registered twice", k.Name))
	}
	kinds[k.Name] = k
}

// Kinds returns the registered collectors in their order.
func Kinds() []Kind {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Lookup returns the registered collector name.
func Lookup(name string) (Kind, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// AllKinds lists the collectors --collect all turns on, in order.
func AllKinds() []string {
	var out []string
	for _, k := range Kinds() {
		if k.InAll {
			out = append(out, k.Name)
		}
	}
	return out
}

// Enabled lists the collectors of set m in order.
func Enabled(m map[string]bool) []string {
	var out []string
	for _, k := range Kinds() {
		if m[k.Name] {
			out = append(out, k.Name)
		}
	}
	return out
}

func names() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// ParseKinds parses --collect: a comma-separated list of registered
// collectors, or all, or none.
func ParseKinds(s string) (map[string]bool, error) {
	m := map[string]bool{}
	parts := strings.Split(s, ",")
	for _, f := range parts {
		f = strings.TrimSpace(strings.ToLower(f))
		switch f {
		case "all":
			for _, k := range AllKinds() {
				m[k] = true
			}
		case "none":
			if len(parts) > 1 {
				return nil, fmt.Errorf("--collect %q: none cannot be combined with other collectors", s)
			}
			return map[string]bool{}, nil
		default:
			if _, ok := Lookup(f); !ok {
				return nil, fmt.Errorf("--collect %q: unknown collector %q; use %s, all or none", s, f, strings.Join(names(), ", "))
			}
			m[f] = true
		}
	}
	return m, nil
}

// Help describes --collect: every collector, what it records and needs.
func Help() string {
	var parts []string
	for _, k := range Kinds() {
		p := k.Name + " (" + k.Help
		if k.Needs != "" {
			p += "; needs " + k.Needs
		}
		parts = append(parts, p+")")
	}
	return "evidence to gather beside the run: a list of " + strings.Join(parts, ", ") + "; or all, or none"
}

// For returns the collectors of set m for database d: each registered
// sampler, then the wait profile. appName is the name the harness's
// sessions carry (db.Tagger), used to find them in the server's session
// list.
//
// side, when not nil, is where the collectors of the server's own
// evidence (Kind.ServerSide) read it from, and what labels their series.
func For(d db.DB, m map[string]bool, appName string, side *ServerSide) *Collector {
	env := &Env{DB: d, AppName: appName, Side: side, samplers: map[string]evidence.Sampler{}}
	sided := map[evidence.Sampler]bool{}
	var samplers []evidence.Sampler
	for _, k := range Kinds() {
		if !m[k.Name] || k.Sampler == nil {
			continue
		}
		if s := k.Sampler(env); s != nil {
			env.samplers[k.Name] = s
			samplers = append(samplers, s)
			sided[s] = k.ServerSide
		}
	}
	var waits evidence.WaitProfiler
	wsided := false
	for _, k := range Kinds() {
		if m[k.Name] && k.Waits != nil && waits == nil {
			waits, wsided = k.Waits(env), k.ServerSide
		}
	}
	c := New(samplers, waits)
	c.appName = appName
	if side != nil {
		c.side, c.sided, c.wsided = side.Label, sided, wsided
	}
	if d != nil {
		c.Classify = d.Classify
	}
	return c
}
