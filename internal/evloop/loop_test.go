//go:build linux

package evloop_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/evloop"
	"golang.org/x/sys/unix"
)

// server accepts connections and hands each to handle on its own goroutine.
func server(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return l.Addr().String()
}

// dial opens a connection and takes it over.
func dial(t *testing.T, addr string) *evloop.Sock {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := evloop.Wrap(c)
	if err := s.TakeOver(); err != nil {
		t.Fatal(err)
	}
	return s
}

// echoLines answers each line with "re:" + the line, in the way given.
func echoLines(split, batch bool) func(c net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReader(c)
		var pending []string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			reply := "re:" + line
			switch {
			case batch:
				// Hold replies until two are due: the client then gets
				// both in one read.
				pending = append(pending, reply)
				if len(pending) < 2 {
					continue
				}
				if _, err := io.WriteString(c, strings.Join(pending, "")); err != nil {
					return
				}
				pending = pending[:0]
			case split:
				// Half now, half later: the client's read returns a part.
				h := len(reply) / 2
				io.WriteString(c, reply[:h])
				time.Sleep(5 * time.Millisecond)
				io.WriteString(c, reply[h:])
			default:
				io.WriteString(c, reply)
			}
		}
	}
}

func runLoop(t *testing.T, l *evloop.Loop) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		l.Run()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the loop did not end within 60 s")
	}
	l.Close()
}

func TestTasksTalkThroughTheirSocketsOnOneLoop(t *testing.T) {
	for _, tc := range []struct {
		name         string
		split, batch bool
	}{
		{"replies arrive whole", false, false},
		{"a reply split across reads is read whole", true, false},
		{"several replies in one read are all delivered", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := server(t, echoLines(tc.split, tc.batch))
			l, err := evloop.New()
			if err != nil {
				t.Fatal(err)
			}
			const tasks, rounds = 8, 50
			got := make([][]string, tasks)
			errs := make([]error, tasks)
			for i := range tasks {
				s := dial(t, addr)
				l.Go(func(tk *evloop.Task) {
					defer s.Close()
					if err := s.Attach(tk); err != nil {
						errs[i] = err
						return
					}
					r := bufio.NewReaderSize(s, 16)
					for k := range rounds {
						// With batching, two requests go out before the
						// replies are read.
						n := 1
						if tc.batch {
							n = 2
						}
						for j := range n {
							fmt.Fprintf(s, "%d-%d-%d\n", i, k, j)
						}
						for range n {
							line, err := r.ReadString('\n')
							if err != nil {
								errs[i] = err
								return
							}
							got[i] = append(got[i], strings.TrimSpace(line))
						}
					}
				})
			}
			runLoop(t, l)
			for i := range tasks {
				if errs[i] != nil {
					t.Fatalf("task %d: %v", i, errs[i])
				}
				n := 1
				if tc.batch {
					n = 2
				}
				if len(got[i]) != rounds*n {
					t.Fatalf("task %d got %d replies, want %d", i, len(got[i]), rounds*n)
				}
				for k := range rounds {
					for j := range n {
						if want := fmt.Sprintf("re:%d-%d-%d", i, k, j); got[i][k*n+j] != want {
							t.Fatalf("task %d reply %d = %q, want %q", i, k*n+j, got[i][k*n+j], want)
						}
					}
				}
			}
			if st := l.Stats(); st.Resumes < tasks || st.Elapsed <= 0 || st.Busy > st.Elapsed {
				t.Errorf("stats %+v are not plausible", st)
			}
		})
	}
}

func TestSleepsWakeInOrderAndNeverEarly(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	durations := []int{30, 10, 20, 0, 5}
	late := make([]time.Duration, len(durations))
	due := make([]time.Time, len(durations))
	for i, ms := range durations {
		l.Go(func(tk *evloop.Task) {
			d := time.Duration(ms) * time.Millisecond
			start := time.Now()
			due[i] = start.Add(d)
			if !tk.Sleep(d) {
				t.Errorf("sleep %d was interrupted", i)
			}
			late[i] = time.Since(start) - d
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
	}
	runLoop(t, l)
	// The tasks that had to wait woke in the order of their deadlines. (Each
	// deadline counts from its task's start: on a busy machine the tasks
	// may start far enough apart to change the order of the durations.)
	var waited []time.Time
	for _, i := range order {
		if durations[i] > 0 {
			waited = append(waited, due[i])
		}
	}
	if !sort.SliceIsSorted(waited, func(a, b int) bool { return waited[a].Before(waited[b]) }) {
		t.Errorf("tasks woke in the order %v (sleeps of %v ms), not by their deadlines", order, durations)
	}
	for i, d := range late {
		if d < 0 {
			t.Errorf("sleep %d ended %v early", i, -d)
		}
	}
}

func TestInterruptEndsSleepsButLetsSocketWaitsFinish(t *testing.T) {
	asked, release := make(chan struct{}), make(chan struct{})
	addr := server(t, func(c net.Conn) {
		buf := make([]byte, 1)
		if _, err := c.Read(buf); err != nil {
			return
		}
		close(asked)
		<-release
		c.Write([]byte("x"))
	})
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	s := dial(t, addr)
	var slept bool
	var read string
	var readErr error
	woke := make(chan struct{})
	l.Go(func(tk *evloop.Task) {
		slept = tk.Sleep(time.Hour)
		close(woke)
	})
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if readErr = s.Attach(tk); readErr != nil {
			return
		}
		s.Write([]byte("?"))
		buf := make([]byte, 1)
		var n int
		n, readErr = s.Read(buf)
		read = string(buf[:n])
	})
	// Once the server has the request, the reading task waits on its socket
	// (it went from the write to the read without yielding) and the other
	// sleeps: interrupt then, and let the server answer only after the
	// interrupt has woken the sleeper.
	go func() {
		<-asked
		l.Interrupt()
		<-woke
		close(release)
	}()
	runLoop(t, l)
	if slept {
		t.Error("an hour's sleep returned true after Interrupt")
	}
	if readErr != nil || read != "x" {
		t.Errorf("the read in flight got %q, %v; want the server's reply", read, readErr)
	}
}

func TestAbortEndsAWaitOnASilentPeer(t *testing.T) {
	asked := make(chan struct{})
	addr := server(t, func(c net.Conn) {
		if _, err := c.Read(make([]byte, 1)); err != nil {
			return
		}
		close(asked)
		io.Copy(io.Discard, c)
	})
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	s := dial(t, addr)
	var readErr error
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if readErr = s.Attach(tk); readErr != nil {
			return
		}
		s.Write([]byte("?"))
		_, readErr = s.Read(make([]byte, 10))
	})
	// Once the server has the request, the task waits for an answer that
	// never comes.
	go func() {
		<-asked
		l.Abort()
	}()
	runLoop(t, l)
	if !errors.Is(readErr, evloop.ErrAborted) {
		t.Errorf("read on a silent peer after Abort: %v, want ErrAborted", readErr)
	}
}

func TestDeadlinesEndWaitsInBothModes(t *testing.T) {
	addr := server(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	check := func(t *testing.T, err error) {
		t.Helper()
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read past its deadline: %v, want a timeout", err)
		}
	}
	t.Run("on a task", func(t *testing.T) {
		l, err := evloop.New()
		if err != nil {
			t.Fatal(err)
		}
		s := dial(t, addr)
		var readErr error
		l.Go(func(tk *evloop.Task) {
			defer s.Close()
			if readErr = s.Attach(tk); readErr != nil {
				return
			}
			s.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
			_, readErr = s.Read(make([]byte, 10))
		})
		runLoop(t, l)
		check(t, readErr)
	})
	t.Run("taken over, on a goroutine", func(t *testing.T) {
		s := dial(t, addr)
		defer s.Close()
		s.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		_, err := s.Read(make([]byte, 10))
		check(t, err)
	})
}

func TestATakenOverSocketWorksOnAGoroutineAndThenOnATask(t *testing.T) {
	addr := server(t, echoLines(false, false))
	s := dial(t, addr)
	r := bufio.NewReader(s)
	fmt.Fprintf(s, "before\n")
	if line, err := r.ReadString('\n'); err != nil || line != "re:before\n" {
		t.Fatalf("on a goroutine: %q, %v", line, err)
	}
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var line string
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if err = s.Attach(tk); err != nil {
			return
		}
		fmt.Fprintf(s, "after\n")
		line, err = r.ReadString('\n')
	})
	runLoop(t, l)
	if err != nil || line != "re:after\n" {
		t.Fatalf("on a task: %q, %v", line, err)
	}
}

func TestThePeerGoingAwayIsAnErrorNotASignal(t *testing.T) {
	addr := server(t, func(c net.Conn) {})
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	s := dial(t, addr)
	var readErr, writeErr error
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if readErr = s.Attach(tk); readErr != nil {
			return
		}
		_, readErr = s.Read(make([]byte, 10))
		// Writing to a closed peer fails (EPIPE or a reset) and raises
		// no SIGPIPE; the process lives on to report it.
		for range 100 {
			if _, writeErr = s.Write(make([]byte, 4096)); writeErr != nil {
				break
			}
			tk.Sleep(time.Millisecond)
		}
	})
	runLoop(t, l)
	if readErr != io.EOF {
		t.Errorf("read from a peer that closed: %v, want EOF", readErr)
	}
	if writeErr == nil {
		t.Error("writes to a peer that closed kept succeeding")
	}
}

func TestOffloadRunsBlockingWorkWhileOtherTasksGoOn(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var ticks int
	var offloaded bool
	l.Go(func(tk *evloop.Task) {
		tk.Offload(func() {
			<-release // blocks a goroutine, not the loop
			offloaded = true
		})
	})
	l.Go(func(tk *evloop.Task) {
		for ticks < 5 {
			tk.Sleep(time.Millisecond)
			ticks++
		}
		close(release)
	})
	runLoop(t, l)
	if !offloaded || ticks != 5 {
		t.Errorf("offloaded %v, ticks %d: the sleeping task must run while the other waits", offloaded, ticks)
	}
}

func TestSleepHonoursTheContextOffTheLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := evloop.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context: %v", err)
	}
	if err := evloop.Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("a short sleep: %v", err)
	}
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var onLoop error
	l.Go(func(tk *evloop.Task) {
		onLoop = evloop.Sleep(evloop.WithTask(context.Background(), tk), time.Millisecond)
	})
	runLoop(t, l)
	if onLoop != nil {
		t.Errorf("Sleep on a task: %v", onLoop)
	}
}

func TestRunningLoopsKeepAProcessorToSpareAndGiveItBack(t *testing.T) {
	before := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(before)
	const n = 2
	loops := make([]*evloop.Loop, n)
	seen, counted := make([]int, n), make([]int, n)
	var started atomic.Int32
	for i := range loops {
		l, err := evloop.New()
		if err != nil {
			t.Fatal(err)
		}
		loops[i] = l
		l.Go(func(tk *evloop.Task) {
			started.Add(1)
			// Both loops are running once both tasks have started.
			for started.Load() < n && tk.Sleep(time.Millisecond) {
			}
			seen[i], counted[i] = runtime.GOMAXPROCS(0), evloop.Processors()
		})
	}
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runLoop(t, l)
		}()
	}
	wg.Wait()
	for i, p := range seen {
		if p < n+1 {
			t.Errorf("loop %d ran with GOMAXPROCS %d beside %d loops; want at least %d", i, p, n, n+1)
		}
		// What the program has, for a run choosing its loops, leaves out
		// what the loops added.
		if counted[i] != 1 {
			t.Errorf("Processors() %d while the loops ran; want the 1 the program had", counted[i])
		}
	}
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Errorf("GOMAXPROCS %d after the loops ended; want the 1 it was before", p)
	}
	if p := evloop.Processors(); p != 1 {
		t.Errorf("Processors() %d after the loops ended; want 1", p)
	}
}

// A peer that writes its last words and closes at once (a server shutting
// down sends a FATAL message and exits): the data and the end of the
// stream may come in one edge. After the short read that returns the
// data, the next read must return EOF, not wait for an edge that will not
// come.
func TestTheLastWordsAndTheCloseInOneEdgeEndInEOF(t *testing.T) {
	addr := server(t, func(c net.Conn) { io.WriteString(c, "bye\n") })
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	s := dial(t, addr)
	var got []byte
	var readErr error
	done := make(chan struct{})
	l.Go(func(tk *evloop.Task) {
		defer close(done)
		defer s.Close()
		if readErr = s.Attach(tk); readErr != nil {
			return
		}
		// Let both the data and the close arrive before the first read,
		// so that epoll reports them together.
		tk.Sleep(100 * time.Millisecond)
		buf := make([]byte, 64)
		for {
			n, err := s.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				readErr = err
				return
			}
		}
	})
	go func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			l.Abort() // the read waited for an edge that never came
		}
	}()
	runLoop(t, l)
	if string(got) != "bye\n" || readErr != io.EOF {
		t.Errorf("read %q, then %v; want the last words, then EOF", got, readErr)
	}
}

// unixPair returns a Unix stream socket taken over for a loop and the
// peer's end as a plain net.Conn.
func unixPair(t *testing.T) (*evloop.Sock, net.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", t.TempDir()+"/s")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	s := evloop.Wrap(c)
	if err := s.TakeOver(); err != nil {
		t.Fatal(err)
	}
	return s, peer
}

// A write larger than the socket's buffers waits on the loop for room
// (the other tasks go on meanwhile) and ends once the peer reads it all;
// the socket then reads as before.
func TestAWriteThatFillsTheSocketWaitsForRoomOnTheLoop(t *testing.T) {
	s, peer := unixPair(t)
	const size = 16 << 20
	got := make(chan int, 1)
	go func() {
		time.Sleep(50 * time.Millisecond) // the writer fills the buffers first
		n, _ := io.CopyN(io.Discard, peer, size)
		got <- int(n)
		io.WriteString(peer, "ok")
	}()
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var wrote int
	var writeErr error
	var reply string
	var ticks atomic.Int64
	var ticksDuring int64 // the other task's ticks while the write waited
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if writeErr = s.Attach(tk); writeErr != nil {
			return
		}
		wrote, writeErr = s.Write(make([]byte, size))
		ticksDuring = ticks.Load()
		if writeErr != nil {
			return
		}
		buf := make([]byte, 8)
		n, err := io.ReadFull(s, buf[:2])
		reply, writeErr = string(buf[:n]), err
	})
	// Started after the writer (the loop starts tasks in order): it ticks
	// only while the write waits on the loop, which is at least the 50 ms
	// before the peer reads.
	l.Go(func(tk *evloop.Task) {
		for tk.Sleep(time.Millisecond) && ticks.Add(1) < 20 {
		}
	})
	runLoop(t, l)
	var read int
	select {
	case read = <-got:
	case <-time.After(10 * time.Second):
	}
	if writeErr != nil || wrote != size || read != size || reply != "ok" {
		t.Fatalf("wrote %d (%v), the peer read %d bytes, reply %q; want %d written and read, then ok", wrote, writeErr, read, reply, size)
	}
	if _, writes := s.Counts(); writes < 2 {
		t.Fatalf("one write call took all %d bytes: nothing waited for room", size)
	}
	if ticksDuring == 0 {
		t.Errorf("the other task never ticked while the write waited for room: the write held up the loop")
	}
}

// The loop sleeps until a reply comes: the peer taking in a request (which
// makes room to write) does not wake it. Each round the peer waits before
// it reads the request and again before it replies, so the loop is asleep
// for both; a loop that asked epoll for room to write woke twice a round.
func TestThePeerReadingARequestDoesNotWakeTheLoop(t *testing.T) {
	s, peer := unixPair(t)
	const rounds = 6
	go func() {
		buf := make([]byte, 1)
		for range rounds {
			time.Sleep(20 * time.Millisecond)
			if _, err := peer.Read(buf); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
			if _, err := peer.Write(buf); err != nil {
				return
			}
		}
	}()
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var runErr error
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if runErr = s.Attach(tk); runErr != nil {
			return
		}
		buf := make([]byte, 1)
		for range rounds {
			if _, runErr = s.Write([]byte("?")); runErr != nil {
				return
			}
			if _, runErr = s.Read(buf); runErr != nil {
				return
			}
		}
	})
	runLoop(t, l)
	if runErr != nil {
		t.Fatal(runErr)
	}
	// One sleep a round, and one to spare.
	if w := l.Stats().Waits; w > rounds+1 {
		t.Errorf("the loop slept %d times in %d rounds, want at most %d: something other than the replies woke it", w, rounds, rounds+1)
	}
}

// A pinned loop's tasks run on the CPU it was given, and its thread has
// the affinity it had before once Run returns.
func TestAPinnedLoopRunsOnItsCPUAndGivesItsThreadBack(t *testing.T) {
	cpus := evloop.AllowedCPUs()
	if len(cpus) == 0 {
		t.Fatal("AllowedCPUs found no CPU this process may use")
	}
	cpu := cpus[len(cpus)-1]
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	l.Pin(cpu)
	var inTask []int
	l.Go(func(tk *evloop.Task) { inTask = evloop.AllowedCPUs() })
	var before, after []int
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Locked here too, so that this goroutine is still on the loop's
		// thread after Run.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		before = evloop.AllowedCPUs()
		l.Run()
		after = evloop.AllowedCPUs()
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the loop did not end within 60 s")
	}
	l.Close()
	if len(inTask) != 1 || inTask[0] != cpu {
		t.Errorf("a task of the loop pinned to CPU %d may run on CPUs %v", cpu, inTask)
	}
	if got := l.Stats().CPU; got != cpu {
		t.Errorf("Stats().CPU = %d, want %d", got, cpu)
	}
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the thread may run on CPUs %v after the loop, %v before it", after, before)
	}

	free, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	free.Go(func(*evloop.Task) {})
	runLoop(t, free)
	if got := free.Stats().CPU; got != -1 {
		t.Errorf("an unpinned loop's Stats().CPU = %d, want -1", got)
	}
}

// threadMasks returns the CPUs each thread of this process may run on, by
// thread id, from /proc/self/task/TID/status.
func threadMasks(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/status")
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				m[e.Name()] = strings.TrimSpace(v)
			}
		}
	}
	return m
}

// Two pinned loops whose goroutines are not locked to their threads, and
// are preempted and moved between threads while they run (their tasks
// yield to the scheduler on every turn, beside goroutines that keep the
// other processors busy), leave no thread of the process pinned when they
// end: each gives back every thread it pinned, and never unpins one the
// other loop has pinned since. Each task, whenever it looks, runs on its
// loop's CPU or has just moved (checkEvery turns at most).
func TestPinnedLoopsThatMoveBetweenThreadsLeaveNoThreadPinned(t *testing.T) {
	cpus := evloop.AllowedCPUs()
	if len(cpus) < 2 {
		t.Fatalf("this test needs two CPUs the process may use, it has %v", cpus)
	}
	// The affinity most threads have is the process's; a thread another
	// test left on a CPU (onCPU's end with their goroutines, a moment
	// later) is not this test's to check.
	before := threadMasks(t)
	count := map[string]int{}
	all := ""
	for _, m := range before {
		count[m]++
		if count[m] > count[all] {
			all = m
		}
	}
	stop := make(chan struct{})
	var busy sync.WaitGroup
	for range 3 {
		busy.Add(1)
		go func() {
			defer busy.Done()
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
	}
	loops := make([]*evloop.Loop, 2)
	onCPU := make([]atomic.Int64, 2)
	var wg sync.WaitGroup
	for i := range loops {
		l, err := evloop.New()
		if err != nil {
			t.Fatal(err)
		}
		l.Pin(cpus[i])
		loops[i] = l
		l.Go(func(tk *evloop.Task) {
			deadline := time.Now().Add(300 * time.Millisecond)
			for time.Now().Before(deadline) {
				tk.Sleep(100 * time.Microsecond)
				runtime.Gosched()
				if c := evloop.AllowedCPUs(); len(c) == 1 && c[0] == cpus[i] {
					onCPU[i].Add(1)
				}
			}
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run()
		}()
	}
	wg.Wait()
	close(stop)
	busy.Wait()
	for i, l := range loops {
		l.Close()
		if onCPU[i].Load() == 0 {
			t.Errorf("loop %d's task never ran pinned to CPU %d", i, cpus[i])
		}
		t.Logf("loop %d: moved to another thread %d times, on its CPU in %d looks", i, l.Stats().Moves, onCPU[i].Load())
	}
	for tid, m := range threadMasks(t) {
		if was, ok := before[tid]; ok && was != all {
			continue
		}
		if m != all {
			t.Errorf("thread %s may run on CPUs %s after the loops ended, want %s as before", tid, m, all)
		}
	}
}

// With the scheduler's preemption signals off (GODEBUG=asyncpreemptoff=1),
// a garbage collection that starts while a loop sleeps in epoll finishes,
// and the loop then takes its reply. The loop's raw wait once kept the
// collection's stop-the-world waiting for ever. The test runs itself in a
// child process with the setting, which the runtime reads only at start.
func TestACollectionReachesALoopAsleepWithoutPreemptionSignals(t *testing.T) {
	if os.Getenv("EVLOOP_TEST_GC_CHILD") == "1" {
		collectWhileALoopSleeps(t)
		return
	}
	godebug := "asyncpreemptoff=1"
	if g := os.Getenv("GODEBUG"); g != "" {
		godebug = g + "," + godebug
	}
	// The limit only ends a hang: the child needs a second or two.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestACollectionReachesALoopAsleepWithoutPreemptionSignals$", "-test.v")
	cmd.Env = append(os.Environ(), "EVLOOP_TEST_GC_CHILD=1", "GODEBUG="+godebug)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("with GODEBUG=%s, the child (a collection while a loop sleeps) had not ended after 3 minutes:\n%s", godebug, out)
	}
	if err != nil {
		t.Fatalf("with GODEBUG=%s, the child failed: %v\n%s", godebug, err, out)
	}
	if !strings.Contains(string(out), "the loop took its reply after the collection") {
		t.Fatalf("the child did not run the scenario:\n%s", out)
	}
}

// collectWhileALoopSleeps waits until a loop's thread sleeps in epoll on a
// socket with nothing to read, runs a garbage collection, and then sends
// the socket a byte, which the loop's task must read.
func collectWhileALoopSleeps(t *testing.T) {
	s, peer := unixPair(t)
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	var readErr error
	l.Go(func(tk *evloop.Task) {
		defer s.Close()
		if readErr = s.Attach(tk); readErr != nil {
			return
		}
		buf := make([]byte, 1)
		var n int
		n, readErr = s.Read(buf)
		got = buf[:n]
	})
	done := make(chan struct{})
	go func() {
		l.Run()
		close(done)
	}()
	// The loop blocks in epoll_pwait2, or in epoll_wait where the kernel
	// lacks it; its looks are epoll_wait with a timeout of 0, and Go's own
	// network poller uses epoll_pwait. A thread's syscall file reads
	// "number arg1 ... arg6 sp pc" while it is in a system call.
	pwait2, wait := fmt.Sprint(unix.SYS_EPOLL_PWAIT2), fmt.Sprint(unix.SYS_EPOLL_WAIT)
	asleep := func() bool {
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			fs := strings.Fields(string(b))
			if len(fs) > 4 && (fs[0] == pwait2 || fs[0] == wait && fs[4] != "0x0") {
				return true
			}
		}
		return false
	}
	for i := 0; !asleep(); i++ {
		if i == 60000 {
			t.Fatal("no thread of this process slept in the loop's epoll wait within a minute")
		}
		time.Sleep(time.Millisecond)
	}
	runtime.GC()
	if _, err := peer.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	<-done
	l.Close()
	if readErr != nil || string(got) != "x" {
		t.Fatalf("the task read %q, %v; want \"x\"", got, readErr)
	}
	t.Log("the loop took its reply after the collection")
}
