package collect

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
)

// loadavg is a collector as a new one would be added: one file that
// registers a Kind. It reads a counter that grows by one per sample.
type loadavg struct{ n float64 }

func (l *loadavg) Name() string                { return "loadavg" }
func (l *loadavg) Start(context.Context) error { return nil }
func (l *loadavg) Stop() error                 { return nil }
func (l *loadavg) Describe(s *evidence.Series) { s.Source = "a test counter" }
func (l *loadavg) Sample(context.Context) (*evidence.Snapshot, error) {
	l.n++
	return &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{"ticks": l.n}}, nil
}

func init() {
	Register(Kind{Name: "loadavg", Order: 25, Title: "Load", Help: "a test counter", Needs: "nothing real",
		Sampler: func(env *Env) evidence.Sampler {
			if env.AppName == "no-loadavg" {
				return nil // where there is nothing to sample
			}
			return &loadavg{}
		}})
}

func TestARegisteredCollectorIsParsedDescribedAndRun(t *testing.T) {
	m, err := ParseKinds("loadavg,os")
	if err != nil || !m["loadavg"] || !m["os"] || len(m) != 2 {
		t.Fatalf("ParseKinds: %v %v", m, err)
	}
	if got := Enabled(m); strings.Join(got, ",") != "os,loadavg" {
		t.Errorf("Enabled orders %v; want os, then loadavg (order 25)", got)
	}
	if all := AllKinds(); strings.Contains(strings.Join(all, ","), "loadavg") || strings.Join(all, ",") != "os,server,waits,plans,physical" {
		t.Errorf("--collect all is %v; a kind not InAll stays out", all)
	}
	if h := Help(); !strings.Contains(h, "loadavg (a test counter; needs nothing real)") || !strings.Contains(h, "plans (") {
		t.Errorf("help: %s", h)
	}
	if _, err := ParseKinds("loadavg,nope"); err == nil || !strings.Contains(err.Error(), "use os, server, loadavg, waits, plans, physical, server-cpu, all or none") {
		t.Errorf("an unknown collector: %v", err)
	}

	c := For(nil, map[string]bool{"loadavg": true}, "", nil)
	if w := c.Start(context.Background()); len(w) != 0 {
		t.Fatal(w)
	}
	h := c.Headers()
	if s := h.Series["loadavg"]; s == nil || s.Title != "Load" || s.Source != "a test counter" {
		t.Fatalf("headers %+v", h.Series)
	}
	var points []string
	c.OnPoint = func(kind string, seq int, v any) { points = append(points, kind) }
	c.Begin(time.Now())
	time.Sleep(5 * time.Millisecond)
	c.Boundary(0, "measure", time.Now())
	res := c.Stop(1, "measure", time.Now())
	s := res.Series["loadavg"]
	if s == nil || len(s.Intervals) != 2 || s.Totals["ticks"] != 2 || len(res.Series) != 1 || res.Waits != nil {
		t.Fatalf("result %+v", res)
	}
	if strings.Join(points, ",") != "loadavg,loadavg" {
		t.Errorf("points stored as they came: %v", points)
	}

	if c := For(nil, map[string]bool{"loadavg": true}, "no-loadavg", nil); len(c.samplers) != 0 {
		t.Error("a kind with nothing to sample still made a sampler")
	}
}

func TestRegisterRefusesBadKinds(t *testing.T) {
	for _, k := range []Kind{
		{Name: "os", Help: "again"},
		{Name: "all", Help: "reserved"},
		{Name: "a,b", Help: "a list"},
		{Name: "nohelp"},
		{Name: "both", Help: "x", Sampler: func(*Env) evidence.Sampler { return nil }, Waits: func(*Env) evidence.WaitProfiler { return nil }},
		{Name: "phased", Help: "x", Sampler: func(*Env) evidence.Sampler { return nil },
			Phase: func(context.Context, *PhaseEnv) *PhaseHooks { return nil }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not refuse", k.Name)
				}
			}()
			Register(k)
		}()
	}
}

func TestPhasesRunTheirHooksInOrder(t *testing.T) {
	var got []string
	hook := func(name string) *PhaseHooks {
		return &PhaseHooks{
			End: func(context.Context) { got = append(got, name+" end") },
			After: func(_ context.Context, unhealthy bool) {
				got = append(got, fmt.Sprintf("%s after %v", name, unhealthy))
			},
		}
	}
	clocked := &PhaseHooks{ClockStarted: func(time.Time) { got = append(got, "clock") }}
	p := Phases{hook("a"), clocked, hook("b")}
	if !p.Clocked() || (Phases{hook("a")}).Clocked() {
		t.Error("Clocked says whether a hook takes the clock's start")
	}
	p.ClockStarted(time.Now())
	p.End(context.Background())
	p.After(context.Background(), true)
	if want := "clock,a end,b end,a after true,b after true"; strings.Join(got, ",") != want {
		t.Errorf("hooks ran as %v; want %s", got, want)
	}
}
