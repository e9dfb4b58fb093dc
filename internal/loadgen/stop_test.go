package loadgen

import (
	"slices"
	"testing"
	"time"
)

// patience bounds every wait in these tests: a step that has not come
// within it never will.
const patience = time.Minute

// fakeWait is one wait the stopper asked for: how long, and the channel
// the test closes to end it.
type fakeWait struct {
	d    time.Duration
	fire chan time.Time
}

// stopRig is a stopper whose waits and steps the test sees: waits gets
// each wait as the stopper begins it, steps each step's name as it is
// taken. The clients end when the test closes done.
type stopRig struct {
	s     *stopper
	done  chan struct{}
	waits chan fakeWait
	steps chan string
	// hardAtCancel is whether hardStop was set when the cancel step ran.
	hardAtCancel chan bool
}

func newStopRig(grace time.Duration) *stopRig {
	g := &stopRig{done: make(chan struct{}), waits: make(chan fakeWait, 8), steps: make(chan string, 8),
		hardAtCancel: make(chan bool, 1)}
	g.s = newStopper(grace, g.done,
		func() { g.steps <- "interrupt" },
		func() { g.hardAtCancel <- g.s.hardStop.Load(); g.steps <- "cancel" },
		func() { g.steps <- "abort" })
	g.s.after = func(d time.Duration) <-chan time.Time {
		w := fakeWait{d, make(chan time.Time)}
		g.waits <- w
		return w.fire
	}
	return g
}

// nextWait returns the next wait the stopper begins.
func (g *stopRig) nextWait(t *testing.T) fakeWait {
	t.Helper()
	select {
	case w := <-g.waits:
		return w
	case <-time.After(patience):
		t.Fatalf("the stopper began no wait within %s", patience)
	}
	return fakeWait{}
}

// nextStep returns the next step the stopper takes.
func (g *stopRig) nextStep(t *testing.T) string {
	t.Helper()
	select {
	case s := <-g.steps:
		return s
	case <-time.After(patience):
		t.Fatalf("the stopper took no step within %s", patience)
	}
	return ""
}

// taken drains the steps taken so far.
func (g *stopRig) taken() []string {
	var got []string
	for {
		select {
		case s := <-g.steps:
			got = append(got, s)
		default:
			return got
		}
	}
}

func TestStopperEscalatesStepByStepWhileTheClientsDoNotEnd(t *testing.T) {
	const grace = 3 * time.Second
	g := newStopRig(grace)
	s := g.s
	if s.stopping.Load() || !s.at.IsZero() {
		t.Fatal("the stop began before begin")
	}
	s.begin()
	// The graceful stop is taken at once, on the caller's goroutine.
	if !s.stopping.Load() || s.hardStop.Load() || s.at.IsZero() {
		t.Fatalf("after begin: stopping %v, hardStop %v, at %v; want stopping, no hard stop, at set",
			s.stopping.Load(), s.hardStop.Load(), s.at)
	}
	select {
	case <-s.stopC:
	default:
		t.Fatal("stopC is open after begin")
	}
	if got := g.taken(); !slices.Equal(got, []string{"interrupt"}) {
		t.Fatalf("steps on begin: %v, want [interrupt]", got)
	}
	at := s.at

	for _, want := range []struct {
		wait time.Duration
		step string
	}{
		{grace, "cancel"},
		{abortAfterCancel, "abort"},
		{abandonAfterAbort, "abandon"},
	} {
		w := g.nextWait(t)
		if w.d != want.wait {
			t.Fatalf("before %s the stopper waits %s, want %s", want.step, w.d, want.wait)
		}
		// Nothing more happens until the wait is over.
		if got := g.taken(); len(got) != 0 {
			t.Fatalf("steps taken before the wait for %s was over: %v", want.step, got)
		}
		select {
		case <-s.abandoned:
			t.Fatalf("the clients were abandoned before the wait for %s was over", want.step)
		default:
		}
		close(w.fire)
		if want.step == "abandon" {
			select {
			case <-s.abandoned:
			case <-time.After(patience):
				t.Fatalf("the clients were not abandoned within %s of the last wait", patience)
			}
			continue
		}
		if got := g.nextStep(t); got != want.step {
			t.Fatalf("after the wait of %s the step is %s, want %s", w.d, got, want.step)
		}
		if want.step == "cancel" && !<-g.hardAtCancel {
			t.Error("hardStop was not set when in-flight transactions were cancelled")
		}
	}

	// A second begin (say, an interrupt after the deadline) does nothing.
	s.begin()
	if got := g.taken(); len(got) != 0 {
		t.Errorf("a second begin took steps %v", got)
	}
	if s.at != at {
		t.Errorf("a second begin moved the stop's time from %v to %v", at, s.at)
	}
	select {
	case w := <-g.waits:
		t.Errorf("a second begin began a wait of %s", w.d)
	default:
	}
}

func TestStopperTakesNoFurtherStepOnceTheClientsEnd(t *testing.T) {
	// over is how many of the waits were over before the clients ended.
	for over, want := range [][]string{{}, {"cancel"}, {"cancel", "abort"}} {
		g := newStopRig(time.Second)
		returned := make(chan struct{})
		go func() {
			g.s.escalate()
			close(returned)
		}()
		var got []string
		for range over {
			close(g.nextWait(t).fire)
			got = append(got, g.nextStep(t))
		}
		close(g.done)
		select {
		case <-returned:
		case <-time.After(patience):
			t.Fatalf("%d waits over: the escalation did not stop within %s of the clients' end", over, patience)
		}
		got = append(got, g.taken()...)
		if !slices.Equal(got, want) {
			t.Errorf("%d waits over, then the clients ended: steps %v, want %v", over, got, want)
		}
		if g.s.hardStop.Load() != (over > 0) {
			t.Errorf("%d waits over: hardStop is %v", over, g.s.hardStop.Load())
		}
		select {
		case <-g.s.abandoned:
			t.Errorf("%d waits over: clients that ended were abandoned", over)
		default:
		}
	}
}
