//go:build linux

package evloop

import (
	"container/heap"
	"iter"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available reports whether event loops run on this system.
func Available() bool { return true }

// Loop runs tasks on one OS thread. Create it with New, add tasks with Go,
// then call Run, which returns when every task has finished.
type Loop struct {
	// The pads keep the counters the loop's thread writes on every
	// transaction (resumes, waits, blocked) off another loop's cache
	// lines: loops are allocated one after the other.
	_            [128]byte
	epfd, wakefd int

	mu      sync.Mutex
	posted  []func()
	spawns  []func(*Task)
	wakeSet atomic.Bool
	// holds keeps Run going while no task is left (Hold).
	holds atomic.Int32

	// Owned by the loop's thread.
	runq, spare []*Task
	all         []*Task
	timers      timerHeap
	live        int
	interrupted bool
	aborted     bool
	// socks are the attached sockets by descriptor (nil where none is),
	// written and read on the loop's thread only.
	socks    []*Sock
	events   []unix.EpollEvent
	noPwait2 bool
	// raw: a blocking wait leaves the Go scheduler alone, as rawNow
	// last found, which asks again when rawLeft is down to 0.
	raw     bool
	rawLeft int
	// wakeEv: epoll said the eventfd is readable (see drain).
	wakeEv bool

	// pin is the CPU Pin asked for (-1: none); cpu the CPU the loop's
	// thread was pinned to when Run started (-1: none). tid is the thread
	// the loop pinned last (0: none), one the loop's CPU; moves counts
	// the times the loop found itself on another thread (see pinnedBy).
	pin   int
	cpu   atomic.Int32
	tid   int
	one   unix.CPUSet
	moves atomic.Int64

	start atomic.Int64 // unix ns
	// epoch is New's instant: poll times its waits as time.Since(epoch),
	// one read of the monotonic clock each side, where time.Now reads
	// the wall clock too.
	epoch   time.Time
	blocked atomic.Int64 // ns spent in blocking epoll waits
	waits   atomic.Int64
	resumes atomic.Int64
	_       [128]byte
}

// New returns a loop with its own epoll instance.
func New() (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wakefd)}); err != nil {
		unix.Close(epfd)
		unix.Close(wakefd)
		return nil, err
	}
	l := &Loop{epfd: epfd, wakefd: wakefd, events: make([]unix.EpollEvent, 128), pin: -1, epoch: time.Now()}
	l.cpu.Store(-1)
	return l, nil
}

// Pin asks Run to keep the loop's thread on one CPU (an id from
// AllowedCPUs); call it before Run. Where the system refuses, the loop
// runs unpinned: Stats says which.
func (l *Loop) Pin(cpu int) { l.pin = cpu }

// AllowedCPUs returns the CPUs the calling thread may run on (its
// affinity mask), in order; nil if the system does not say. Off a pinned
// loop's thread, that is the process's mask.
func AllowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := range len(set) * 64 {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// The loop's goroutine is not locked to its OS thread, and a pinned loop
// pins whichever thread runs it. The Go scheduler preempts a goroutine
// that has run 10 ms without passing through it, and a loop that waits in
// raw system calls never passes through it: every loop is preempted about
// every 10 ms. For a goroutine locked to its thread that costs a hand-off
// of the processor to another thread and back (four futex calls and two
// thread switches); for one that is not, the preemption queues it and the
// same thread takes it up again, most of the time. Unlocked and still
// pinned, tpcb-like took 0.95 of the locked build's CPU in alternating
// pairs (bench/results/2026-11-27-scripts-vs-pgbench-round4.md).
//
// The price is that the goroutine may resume on another thread: every
// checkEvery-th turn the loop looks at which thread it runs on, and when
// it has moved, it gives the thread it left its affinity back and pins
// the one it is on. A thread pinned by a loop is recorded in pinnedBy, so
// that a loop that has moved on never unpins a thread another loop has
// pinned since.
var pinnedBy = struct {
	sync.Mutex
	loop map[int]*Loop // by thread id
	// free is the affinity a thread has when no loop has pinned it, read
	// from the first thread a loop pinned while no other was.
	free unix.CPUSet
}{loop: map[int]*Loop{}}

// checkEvery is how many turns of a pinned loop pass between two looks at
// its thread (a gettid system call).
const checkEvery = 16

// pinThread keeps the calling thread on l.pin and reports whether it did.
func (l *Loop) pinThread() bool {
	if l.pin < 0 {
		return false
	}
	l.one.Zero()
	l.one.Set(l.pin)
	pinnedBy.Lock()
	defer pinnedBy.Unlock()
	tid := unix.Gettid()
	if len(pinnedBy.loop) == 0 && unix.SchedGetaffinity(tid, &pinnedBy.free) != nil {
		return false
	}
	if !l.pinOn(tid) {
		return false
	}
	l.cpu.Store(int32(l.pin))
	return true
}

// pinOn pins thread tid (the one the loop's goroutine ran on a moment
// ago: it may have moved since, and then the next look moves the pin
// along) and records it; pinnedBy must be held.
func (l *Loop) pinOn(tid int) bool {
	if unix.SchedSetaffinity(tid, &l.one) != nil {
		return false
	}
	l.tid = tid
	pinnedBy.loop[tid] = l
	return true
}

// followThread pins the thread the loop's goroutine runs on now, when it
// is not the one it pinned, and gives the one it left its affinity back.
func (l *Loop) followThread() {
	tid := unix.Gettid()
	if tid == l.tid {
		return
	}
	pinnedBy.Lock()
	defer pinnedBy.Unlock()
	l.giveBack()
	if l.pinOn(tid) {
		l.moves.Add(1)
	}
}

// giveBack gives the thread the loop pinned the affinity it had, unless
// another loop has pinned it since; pinnedBy must be held. The thread is
// one of this process's: Go's threads do not end while the program runs
// (only a thread whose goroutine ends locked does, and no loop locks its
// own).
func (l *Loop) giveBack() {
	tid := l.tid
	l.tid = 0
	if tid == 0 || pinnedBy.loop[tid] != l {
		return
	}
	delete(pinnedBy.loop, tid)
	if unix.Tgkill(unix.Getpid(), tid, 0) == nil {
		_ = unix.SchedSetaffinity(tid, &pinnedBy.free)
	}
}

// Go adds a task running fn. It may be called from any goroutine, before or
// during Run; the task starts on the loop's thread.
func (l *Loop) Go(fn func(t *Task)) {
	l.mu.Lock()
	l.spawns = append(l.spawns, fn)
	l.mu.Unlock()
	l.wake()
}

// Hold keeps Run from returning when the loop has no task left, until a
// Release for each Hold: a program that moves tasks between loops (ending
// one here and starting its sequel there with Go) holds every loop, so that
// none ends while a task may still come to it. It may be called from any
// goroutine.
func (l *Loop) Hold() { l.holds.Add(1) }

// Release undoes one Hold; Run returns once no task and no hold is left.
// It may be called from any goroutine.
func (l *Loop) Release() {
	l.holds.Add(-1)
	l.wake()
}

// post runs fn on the loop's thread; it may be called from any goroutine.
func (l *Loop) post(fn func()) {
	l.mu.Lock()
	l.posted = append(l.posted, fn)
	l.mu.Unlock()
	l.wake()
}

// wake interrupts a blocking epoll wait. The write is made under l.mu,
// which Close takes: a loop may end (and be closed) between a Release and
// its wake, and the eventfd's number may be another file's by then.
func (l *Loop) wake() {
	if l.wakeSet.Swap(true) {
		return
	}
	one := [8]byte{1}
	l.mu.Lock()
	if l.wakefd >= 0 {
		_, _ = unix.Write(l.wakefd, one[:])
	}
	l.mu.Unlock()
}

// Interrupt ends every sleep, now and later: Task.Sleep returns false.
// Socket waits go on, so that transactions in flight can finish. It may be
// called from any goroutine.
func (l *Loop) Interrupt() {
	l.post(func() {
		l.interrupted = true
		for _, t := range l.all {
			if t.sleeping {
				l.ready(t)
			}
		}
	})
}

// Abort ends every wait, now and later: sleeps return false, and a Sock's
// Read and Write return ErrAborted. Tasks waiting for Offload'ed work wait
// for it to end. It may be called from any goroutine.
func (l *Loop) Abort() {
	l.post(func() {
		l.interrupted, l.aborted = true, true
		for _, t := range l.all {
			if t.parked && !t.offloading {
				l.ready(t)
			}
		}
	})
}

// Stats returns the loop's counters so far; safe from any goroutine.
func (l *Loop) Stats() Stats {
	st := l.start.Load()
	if st == 0 {
		return Stats{CPU: -1}
	}
	el := time.Duration(time.Now().UnixNano() - st)
	return Stats{Elapsed: el, Busy: max(0, el-time.Duration(l.blocked.Load())), Waits: l.waits.Load(), Resumes: l.resumes.Load(),
		CPU: int(l.cpu.Load()), Moves: l.moves.Load()}
}

// Close releases the loop's epoll instance; call it after Run has
// returned.
func (l *Loop) Close() error {
	l.mu.Lock()
	unix.Close(l.wakefd)
	l.wakefd = -1
	l.mu.Unlock()
	return unix.Close(l.epfd)
}

// Run runs the tasks on the calling goroutine until every task has
// finished. The goroutine is not locked to its OS thread (see pinnedBy);
// a pinned loop keeps whichever thread runs it on its CPU.
func (l *Loop) Run() {
	pinned := l.pinThread()
	if pinned {
		defer func() {
			pinnedBy.Lock()
			l.giveBack()
			pinnedBy.Unlock()
		}()
	}
	enter()
	defer leave()
	l.start.Store(time.Now().UnixNano())
	for turn := 0; ; turn++ {
		if pinned && turn%checkEvery == 0 {
			l.followThread()
		}
		l.drain()
		if len(l.timers) > 0 {
			now := time.Now()
			for len(l.timers) > 0 && !l.timers[0].at.After(now) {
				t := heap.Pop(&l.timers).(*Task)
				l.ready(t)
			}
		}
		for len(l.runq) > 0 {
			q := l.runq
			l.runq = l.spare[:0]
			for i, t := range q {
				q[i] = nil
				l.resume(t)
			}
			l.spare = q[:0]
		}
		if l.live == 0 && l.holds.Load() == 0 && !l.pending() {
			return
		}
		timeout := time.Duration(-1)
		if len(l.timers) > 0 {
			timeout = max(0, time.Until(l.timers[0].at))
		}
		l.poll(timeout)
	}
}

// pending reports whether work was posted or tasks added since the last
// drain.
func (l *Loop) pending() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.posted) > 0 || len(l.spawns) > 0
}

// drain runs posted functions and starts added tasks.
//
// It empties the eventfd whenever epoll said it was readable (wakeEv), not
// only when wakeSet is: a wake's write may come after a drain that found
// wakeSet set but read the eventfd before the write, and the eventfd
// (level-triggered) would then keep every later epoll wait from blocking,
// the loop spinning until the next wake (seen as runs of 60,000 epoll
// calls where 15,000 do, after a client moved between loops).
func (l *Loop) drain() {
	if !l.wakeSet.Load() && !l.wakeEv {
		return
	}
	l.wakeEv = false
	var buf [8]byte
	_, _ = unix.Read(l.wakefd, buf[:])
	l.wakeSet.Store(false)
	l.mu.Lock()
	posted, spawns := l.posted, l.spawns
	l.posted, l.spawns = nil, nil
	l.mu.Unlock()
	for _, fn := range posted {
		fn()
	}
	for _, fn := range spawns {
		l.spawn(fn)
	}
}

func (l *Loop) spawn(fn func(*Task)) {
	t := &Task{l: l, hidx: -1}
	t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
		t.yield = yield
		fn(t)
	})
	l.all = append(l.all, t)
	l.live++
	t.parked = true
	l.ready(t)
}

// ready queues a parked task to be resumed.
func (l *Loop) ready(t *Task) {
	if t.parked && !t.queued && !t.done {
		t.queued = true
		l.runq = append(l.runq, t)
	}
}

func (l *Loop) resume(t *Task) {
	t.queued = false
	if t.done {
		return
	}
	l.resumes.Add(1)
	if _, ok := t.next(); !ok {
		t.done = true
		t.stop()
		l.live--
		if t.hidx >= 0 {
			heap.Remove(&l.timers, t.hidx)
		}
		for i, x := range l.all {
			if x == t {
				l.all[i] = l.all[len(l.all)-1]
				l.all[len(l.all)-1] = nil
				l.all = l.all[:len(l.all)-1]
				break
			}
		}
	}
}

// poll waits for socket events up to timeout (negative: no limit) and
// readies the tasks waiting for them. Where a blocking wait would go
// through the Go scheduler (rawNow is false), it first looks without
// blocking, through a raw system call that leaves the scheduler alone, and
// blocks only when nothing is ready. Where the blocking wait is raw itself,
// it returns at once with what is ready, and a look first would be a
// second system call for nothing whenever nothing is: with 4 clients a
// loop, a third of the round trips of tpcb-like.
func (l *Loop) poll(timeout time.Duration) {
	n := 0
	if timeout == 0 || !l.rawNow() {
		n = l.epollWait(0, false)
	}
	if n == 0 && timeout != 0 {
		t0 := time.Since(l.epoch)
		n = l.epollWait(timeout, true)
		l.blocked.Add(int64(time.Since(l.epoch) - t0))
		if n >= 0 {
			l.waits.Add(1)
		}
		n = max(n, 0)
	}
	for _, ev := range l.events[:n] {
		if ev.Fd == int32(l.wakefd) {
			l.wakeEv = true // drained at the top of the loop
			continue
		}
		if int(ev.Fd) >= len(l.socks) {
			continue
		}
		s := l.socks[ev.Fd]
		if s == nil {
			continue
		}
		if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			s.readable = true
		}
		if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			s.hup = true
		}
		if ev.Events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			s.writable = true
		}
		if s.task != nil && (s.waitDir == waitRead && s.readable || s.waitDir == waitWrite && s.writable) {
			l.ready(s.task)
		}
	}
}

// running counts the loops running now, for epollWait.
var running atomic.Int64

// procs keeps GOMAXPROCS above the number of running loops.
var procs struct {
	sync.Mutex
	loops int
	base  int // GOMAXPROCS before the first loop started
}

// enter counts a loop that starts running and raises GOMAXPROCS, when it
// must, to one more than the running loops: each loop then sleeps in epoll
// on its own processor (see epollWait) and the rest of the program keeps
// one. Two loops on two cores otherwise wait in the system-call state and
// cost 1.4 times the CPU of one (select-only, 8 clients over the Unix
// socket); with three processors they cost about as much as one.
func enter() {
	procs.Lock()
	defer procs.Unlock()
	if procs.loops == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.loops++
	running.Store(int64(procs.loops))
	if want := procs.loops + 1; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// Processors is the number of processors (GOMAXPROCS) the program has
// apart from what running loops added: GOMAXPROCS now, or what it was
// before the first of the running loops raised it.
func Processors() int {
	procs.Lock()
	defer procs.Unlock()
	if procs.loops > 0 {
		return procs.base
	}
	return runtime.GOMAXPROCS(0)
}

// leave counts a loop that stopped; after the last one GOMAXPROCS is what
// it was before the first.
func leave() {
	procs.Lock()
	defer procs.Unlock()
	procs.loops--
	running.Store(int64(procs.loops))
	if procs.loops == 0 && runtime.GOMAXPROCS(0) != procs.base {
		runtime.GOMAXPROCS(procs.base)
	}
}

// rawNow reports whether a blocking wait leaves the Go scheduler alone
// (see epollWait), and keeps the answer in l.raw. It asks again every
// 64th time only: GOMAXPROCS(0) takes the scheduler's lock, a cache line
// that every loop's thread would otherwise write on every wait.
func (l *Loop) rawNow() bool {
	if l.rawLeft == 0 {
		l.raw = preemptSignals && int64(runtime.GOMAXPROCS(0)) > running.Load()
		l.rawLeft = 64
	}
	l.rawLeft--
	return l.raw
}

// preemptSignals: the Go scheduler interrupts a thread with a signal when
// it needs the thread's goroutine to stop, as it does unless the
// environment sets GODEBUG=asyncpreemptoff=1. A raw blocking wait keeps its
// processor, and only that signal brings the thread back: without it, a
// garbage collection's stop-the-world waits for ever on a loop asleep in
// epoll, and the loop for replies from clients the collection has stopped
// (a tpcb-like run hung so). With the signals off, loops wait in the
// system-call state, which the scheduler can take the processor from.
var preemptSignals = !godebugOn(os.Getenv("GODEBUG"), "asyncpreemptoff")

// godebugOn reports whether the GODEBUG value env sets the integer
// setting name to something other than 0. As in the runtime, the last
// setting that is a number wins and one that is not is ignored.
func godebugOn(env, name string) bool {
	on := false
	for _, kv := range strings.Split(env, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k != name {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 32); err == nil {
			on = n != 0
		}
	}
	return on
}

// epollWait waits up to timeout (negative: no limit; zero: a look) and
// returns the number of events, or -1 when a signal cut a blocking wait
// short.
//
// A look never enters the Go scheduler. A wait that blocks does not either
// while the program has a processor (GOMAXPROCS) to spare beyond the
// loops': the scheduler's system-call state costs the waiting thread a
// hand-off and wakes other threads (measured, 4 clients whose replies come
// one by one: 11,000 context switches against 6,000 for 4,000
// transactions, and 1.5 to 2 times the CPU). The loop then keeps its
// processor while it sleeps in epoll, which any signal interrupts: the
// scheduler's preemption and the garbage collector's stop-the-world reach
// it as EINTR, and the loop goes on at once. enter keeps a processor to
// spare; should the program lower GOMAXPROCS during a run, or turn the
// preemption signals off (preemptSignals), the loop waits in the
// system-call state, handing its processor to the rest of the program.
func (l *Loop) epollWait(timeout time.Duration, blocking bool) int {
	raw := !blocking || l.raw
	for {
		var r uintptr
		var errno unix.Errno
		evp := uintptr(unsafe.Pointer(&l.events[0]))
		switch {
		case !blocking:
			r, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(l.epfd), evp, uintptr(len(l.events)), 0, 0, 0)
		case !l.noPwait2:
			// epoll_pwait2 takes nanoseconds: an open-loop schedule needs
			// better than epoll_wait's milliseconds.
			var tsp uintptr
			var ts unix.Timespec
			if timeout >= 0 {
				ts = unix.NsecToTimespec(int64(timeout))
				tsp = uintptr(unsafe.Pointer(&ts))
			}
			if raw {
				r, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), evp, uintptr(len(l.events)), tsp, 0, 0)
			} else {
				r, _, errno = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), evp, uintptr(len(l.events)), tsp, 0, 0)
			}
			runtime.KeepAlive(&ts)
			if errno == unix.ENOSYS {
				l.noPwait2 = true
				continue
			}
		default:
			ms := -1
			if timeout >= 0 {
				ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
			}
			if raw {
				r, _, errno = unix.RawSyscall6(unix.SYS_EPOLL_WAIT, uintptr(l.epfd), evp, uintptr(len(l.events)), uintptr(ms), 0, 0)
			} else {
				r, _, errno = unix.Syscall6(unix.SYS_EPOLL_WAIT, uintptr(l.epfd), evp, uintptr(len(l.events)), uintptr(ms), 0, 0)
			}
		}
		if errno == unix.EINTR {
			if !blocking {
				continue
			}
			return -1
		}
		if errno != 0 {
			// EBADF or EINVAL would be a programmer error.
			panic("evloop: epoll_wait: " + errno.Error())
		}
		return int(r)
	}
}

// Task is one coroutine of a loop. Its methods must be called from the
// task itself.
type Task struct {
	l          *Loop
	next       func() (struct{}, bool)
	stop       func()
	yield      func(struct{}) bool
	parked     bool
	queued     bool
	done       bool
	sleeping   bool
	offloading bool
	at         time.Time // the timer's time, while hidx >= 0
	hidx       int
}

// Loop returns the task's loop.
func (t *Task) Loop() *Loop { return t.l }

// park yields to the loop until something readies the task.
func (t *Task) park() {
	t.parked = true
	t.yield(struct{}{})
	t.parked = false
}

func (t *Task) setTimer(at time.Time) {
	t.at = at
	if t.hidx >= 0 {
		heap.Fix(&t.l.timers, t.hidx)
		return
	}
	heap.Push(&t.l.timers, t)
}

func (t *Task) clearTimer() {
	if t.hidx >= 0 {
		heap.Remove(&t.l.timers, t.hidx)
	}
}

// Sleep waits d on the loop. It returns false, early if need be, once the
// loop has been interrupted or aborted.
func (t *Task) Sleep(d time.Duration) bool { return t.SleepUntil(time.Now().Add(d)) }

// SleepUntil waits until at on the loop; see Sleep.
func (t *Task) SleepUntil(at time.Time) bool {
	l := t.l
	for !l.interrupted {
		if !time.Now().Before(at) {
			return true
		}
		t.setTimer(at)
		t.sleeping = true
		t.park()
		t.sleeping = false
		t.clearTimer()
	}
	return false
}

// Interrupted reports whether the loop has been interrupted.
func (t *Task) Interrupted() bool { return t.l.interrupted }

// Offload runs fn on a new goroutine and waits for it, letting the loop
// run the other tasks meanwhile. fn must not touch the loop's sockets.
func (t *Task) Offload(fn func()) {
	l := t.l
	t.offloading = true
	go func() {
		fn()
		l.post(func() {
			t.offloading = false
			l.ready(t)
		})
	}()
	for t.offloading {
		t.park()
	}
}

// timerHeap orders tasks by their timers.
type timerHeap []*Task

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*Task)
	t.hidx = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.hidx = -1
	return t
}
