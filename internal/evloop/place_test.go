//go:build linux

package evloop_test

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbharness/dbharness/internal/evloop"
)

// onCPU runs fn on a thread of its own kept on cpu, and waits for it.
func onCPU(t *testing.T, cpu int, fn func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// The thread stays on cpu: it ends with the goroutine (no Unlock).
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			done <- err
			return
		}
		fn()
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatalf("pin a thread to CPU %d: %v", cpu, err)
	}
}

// twoCPUs returns the CPUs this process may use, failing unless there are
// two or more: what is tested is which of them something ran on.
func twoCPUs(t *testing.T) []int {
	t.Helper()
	cpus := evloop.AllowedCPUs()
	if len(cpus) < 2 {
		t.Fatalf("this test needs two CPUs; the process may use %v", cpus)
	}
	return cpus
}

// Over loopback TCP, IncomingCPU names the CPU the peer sent from; over a
// Unix socket, and on a socket still wrapped, it says it does not know.
func TestIncomingCPUNamesTheCPUThePeerSentFrom(t *testing.T) {
	cpus := twoCPUs(t)
	peers := make(chan net.Conn, 1)
	addr := server(t, func(c net.Conn) {
		peers <- c
		io.Copy(io.Discard, c) // until the client closes
	})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := evloop.Wrap(c)
	if got := s.IncomingCPU(); got != -1 {
		t.Errorf("a wrapped socket's IncomingCPU = %d, want -1", got)
	}
	if err := s.TakeOver(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	peer := <-peers
	buf := make([]byte, 1)
	for _, cpu := range []int{cpus[0], cpus[len(cpus)-1], cpus[0]} {
		onCPU(t, cpu, func() {
			if _, err := peer.Write([]byte{'x'}); err != nil {
				t.Error(err)
			}
		})
		if _, err := io.ReadFull(s, buf); err != nil {
			t.Fatal(err)
		}
		if got := s.IncomingCPU(); got != cpu {
			t.Errorf("a byte sent from CPU %d came in on CPU %d, says IncomingCPU", cpu, got)
		}
	}

	u, upeer := unixPair(t)
	defer u.Close()
	if _, err := upeer.Write([]byte{'x'}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(u, buf); err != nil {
		t.Fatal(err)
	}
	if got := u.IncomingCPU(); got != -1 {
		t.Errorf("over a Unix socket IncomingCPU = %d, want -1 (Linux does not keep it)", got)
	}
}

// A task may end its part on one loop and hand its socket to a task of
// another, which goes on talking through it; a held loop with no task left
// waits for more until it is released.
func TestASocketMovesToAnotherLoopAndGoesOnTalking(t *testing.T) {
	addr := server(t, echoLines(false, false))
	s := dial(t, addr)
	a, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	a.Hold()
	b.Hold()
	r := bufio.NewReader(s)
	talk := func(tk *evloop.Task, line string) string {
		if err := s.Attach(tk); err != nil {
			return err.Error()
		}
		if _, err := io.WriteString(s, line+"\n"); err != nil {
			return err.Error()
		}
		reply, err := r.ReadString('\n')
		if err != nil {
			return err.Error()
		}
		return strings.TrimSpace(reply)
	}
	var replies []string
	var loops []*evloop.Loop
	var hop func(tk *evloop.Task, n int)
	hop = func(tk *evloop.Task, n int) {
		replies = append(replies, talk(tk, "hop"))
		loops = append(loops, tk.Loop())
		s.Detach()
		if n == 0 {
			s.Close()
			a.Release()
			b.Release()
			return
		}
		next := a
		if tk.Loop() == a {
			next = b
		}
		next.Go(func(tk *evloop.Task) { hop(tk, n-1) })
	}
	a.Go(func(tk *evloop.Task) { hop(tk, 5) })
	done := make(chan struct{})
	go func() {
		b.Run()
		close(done)
	}()
	runLoop(t, a)
	select {
	case <-done:
		b.Close()
	case <-time.After(60 * time.Second):
		t.Fatal("the second loop did not end")
	}
	if len(replies) != 6 {
		t.Fatalf("%d replies, want 6", len(replies))
	}
	for i, rep := range replies {
		if rep != "re:hop" {
			t.Errorf("reply %d on its loop: %q", i, rep)
		}
		if want := map[bool]*evloop.Loop{true: a, false: b}[i%2 == 0]; loops[i] != want {
			t.Errorf("hop %d ran on the wrong loop", i)
		}
	}
}
