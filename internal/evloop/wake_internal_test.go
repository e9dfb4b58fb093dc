//go:build linux

package evloop

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A wake whose write lands after the drain that answered it (the drain saw
// wakeSet, read the eventfd empty and cleared the flag; then the write came)
// leaves the eventfd readable. The next drain must empty it, or every
// later epoll wait returns at once and the loop spins.
func TestALateWakeIsDrainedAndTheLoopSleepsAgain(t *testing.T) {
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.wakeSet.Store(true) // a wake has begun: its flag is set...
	l.drain()             // ...the loop drains before its write...
	one := [8]byte{1}
	if _, err := unix.Write(l.wakefd, one[:]); err != nil { // ...which comes now
		t.Fatal(err)
	}
	l.poll(0)
	l.drain()
	if n := l.epollWait(0, false); n != 0 {
		t.Errorf("after the late wake was polled and drained, epoll still reports %d events: the loop would never sleep", n)
	}
}

func TestGodebugOnReadsTheLastSettingOfItsName(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{
		{"", false},
		{"asyncpreemptoff=1", true},
		{"gctrace=1,asyncpreemptoff=1", true},
		{"gctrace=1, asyncpreemptoff=1", false}, // the runtime reads " asyncpreemptoff" as another name
		{"asyncpreemptoff=0", false},
		{"asyncpreemptoff=1,asyncpreemptoff=0", false},
		{"asyncpreemptoff=0,asyncpreemptoff=2", true},
		{"asyncpreemptoffx=1", false},
		{"asyncpreemptoff=yes", false},
		{"asyncpreemptoff=1,asyncpreemptoff=yes", true},
	} {
		if got := godebugOn(c.env, "asyncpreemptoff"); got != c.want {
			t.Errorf("godebugOn(%q) = %v, want %v", c.env, got, c.want)
		}
	}
}
