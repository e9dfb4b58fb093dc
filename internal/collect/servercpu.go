package collect

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
	"github.com/dbharness/dbharness/internal/results"
)

// KindServerCPU is the server's CPU profile of the measured phase.
const KindServerCPU = "server-cpu"

// PerfHz is how often perf samples each CPU. 199 is prime and off the
// kernel's usual tick rates (100, 250, 1000), so sampling does not fall in
// step with periodic work; it gives about 200 samples per CPU-second of
// the server, enough for a share of 1% to rest on tens of samples in a
// run of a few seconds, at a cost the README measures
// (bench/servercpu-overhead.sh).
const PerfHz = 199

func init() {
	// The profile runs around the measured phase (ServerCPU), not on its
	// intervals. It is not in all: it needs perf and the right to profile
	// another user's processes, and it costs the server CPU.
	Register(Kind{Name: KindServerCPU, Order: 50,
		Help:  "where the database server's processes spent their CPU in the measured phase, by function and module, sampled by Linux perf; not in all, since it needs perf and root and costs the server CPU",
		Needs: "perf (Debian linux-perf), root or CAP_PERFMON, and the server on this host",
		Phase: startServerCPU})
}

// startServerCPU profiles the server's processes over the measured phase
// (env.Run.ServerCPU): perf starts before the clients connect, and the
// profile keeps its samples from the end of the warm-up (or the start of
// the clock) to the end of the run. Where perf cannot start (no perf, not
// permitted, a remote server, no server process), the run records why and
// a one-line warning says so, and it goes on; nil then.
func startServerCPU(ctx context.Context, env *PhaseEnv) *PhaseHooks {
	p := &ServerCPU{DB: env.DB}
	if env.Side != nil {
		p.DB = env.Side.DB
	}
	if err := p.Start(ctx); err != nil {
		env.Run.ServerCPU = p.Result(errLine(err))
		env.Warnf("%s: not profiled: %s", KindServerCPU, env.Run.ServerCPU.Unavailable)
		return nil
	}
	warmup := time.Duration(env.Run.Config.WarmupSeconds * float64(time.Second))
	var mu sync.Mutex // the clock starts on the load's own goroutine
	return &PhaseHooks{
		// The measured phase starts at the start of the clock, or at the
		// end of the warm-up that follows it.
		ClockStarted: func(t time.Time) {
			mu.Lock()
			defer mu.Unlock()
			p.Begin(t.Add(warmup))
		},
		// perf does not talk to the server: its end is bounded by its own
		// timeouts, not by the time left after the run.
		End: func(ctx context.Context) {
			mu.Lock()
			defer mu.Unlock()
			out := p.Stop(context.WithoutCancel(ctx))
			if out.Unavailable != "" {
				env.Warnf("%s: not profiled: %s", KindServerCPU, out.Unavailable)
			} else if out.Note != "" {
				env.Warnf("%s: %s", KindServerCPU, out.Note)
			}
			env.Run.ServerCPU = out
		},
	}
}

// ServerCPU profiles the processes of a database server on this host with
// perf record on the software cpu-clock event (hardware counters are not
// available on every machine, virtual ones often lack them). Start starts
// perf, Begin marks the start of the measured phase, and Stop ends perf
// and reads the profile of the measured phase. perf's data file lives in
// a temporary directory that Stop removes.
type ServerCPU struct {
	DB db.DB
	// Perf is the perf command, "perf" (found on PATH) when empty.
	Perf string
	// Hz is the sampling frequency, PerfHz when 0.
	Hz int
	// MaxData caps perf's data file, in bytes: perf stops sampling when
	// it is reached and the profile covers the measured phase up to
	// there. 0 is PerfMaxData, or half the space left where the file
	// lives if that is less.
	MaxData int64

	path   string
	server evidence.ServerProcess
	from   float64 // the measured phase's start on CLOCK_MONOTONIC
	what   string
	dir    string
	cmd    *exec.Cmd
	ctl    *os.File // perf's control fifo, written
	ack    *os.File // perf's acknowledgements, read
	stderr *capped
	exited chan struct{}
	// endedAt is when perf ended, on CLOCK_MONOTONIC; set before exited
	// is closed.
	endedAt float64
	maxData int64
}

// PerfMaxData is the default cap of perf's data file. It grows by about
// 3 MB per CPU-minute at 199 Hz, so 1 GiB holds a 2-CPU host's 2.8 hours
// and a 64-CPU host's 5 minutes.
const PerfMaxData = 1 << 30

// dataCap is the cap of perf's data file in dir: MaxData, else
// PerfMaxData or half the space left there, whichever is less (at least
// 1 MB, so that perf starts and its error says why it cannot write).
func (p *ServerCPU) dataCap(dir string) int64 {
	if p.MaxData > 0 {
		return p.MaxData
	}
	c := int64(PerfMaxData)
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err == nil {
		c = min(c, int64(st.Bavail)*st.Bsize/2)
	}
	return max(c, 1<<20)
}

// hz returns the sampling frequency.
func (p *ServerCPU) hz() int {
	if p.Hz > 0 {
		return p.Hz
	}
	return PerfHz
}

// Method says how the profile is taken.
func (p *ServerCPU) Method() string {
	return fmt.Sprintf("perf record -a -e cpu-clock -F %d -g", p.hz())
}

// Start finds the server's processes and starts perf, before the clients
// connect: perf then sees every process the server forks for them. Its
// error is one line saying why there will be no profile; the run goes on
// without it.
func (p *ServerCPU) Start(ctx context.Context) error {
	f, ok := p.DB.(evidence.ServerProcessFinder)
	if !ok {
		return fmt.Errorf("the %s engine cannot name its server's process", p.DB.Target().Kind)
	}
	if !p.DB.Target().Local() {
		return fmt.Errorf("the server %s is not on this host, and perf profiles only local processes", p.DB.Target())
	}
	perf := p.Perf
	if perf == "" {
		perf = "perf"
	}
	path, err := exec.LookPath(perf)
	if err != nil {
		return errors.New("perf is not installed (Debian package linux-perf)")
	}
	p.path = path
	sp, err := f.ServerProcess(ctx)
	if err != nil {
		return errors.New(oneLine(err.Error()))
	}
	p.server = sp
	return p.attach(ctx)
}

// attach starts perf on every CPU, timestamping samples on
// CLOCK_MONOTONIC: the samples of the server's processes in the measured
// phase are picked out after the run (Profile.Under, the Window). perf
// attached to the processes themselves (-p) busy-loops on poll() once one
// of them ends (perf 6.1: 56% of a core in one run of
// bench/servercpu-overhead.sh, as sessions of other clients came and
// went), and started with its events off (-D -1) it loses the fork and
// mmap records of the processes forked meanwhile, and so the names of
// their code; sampling every CPU from the start does neither, and costs
// the same per busy CPU.
func (p *ServerCPU) attach(ctx context.Context) error {
	pids, err := processTree(p.server)
	if err != nil {
		return err
	}
	p.what = fmt.Sprintf("%s (pid %d)", p.server.What, p.server.PID)
	if p.server.Children {
		p.what += fmt.Sprintf(" and its child processes (%d as sampling started)", len(pids)-1)
	} else {
		p.what += " and its threads"
	}
	return p.startPerf(ctx)
}

func (p *ServerCPU) startPerf(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "dbharness-perf-")
	if err != nil {
		return err
	}
	p.dir = dir
	// perf reads commands on fd 3 and acknowledges on fd 4 (its
	// --control): a ping answered says that its events are open.
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		p.cleanup()
		return err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		p.cleanup()
		return err
	}
	// -N keeps perf from copying the server's binaries into ~/.debug, and
	// -B skips its pass over the samples for build ids at the end (perf
	// script reads the binaries in place, right after the run): that pass
	// was half of perf's own CPU in a short run.
	// --max-size keeps a long run on many CPUs from filling the disk.
	p.maxData = p.dataCap(dir)
	p.cmd = exec.Command(p.path, "record", "-a", "-k", "CLOCK_MONOTONIC", "-e", "cpu-clock", "-F", strconv.Itoa(p.hz()),
		"-g", "-N", "-B", "--max-size", strconv.FormatInt(max(1, p.maxData>>10), 10)+"K",
		"--control", "fd:3,4", "-o", filepath.Join(dir, "perf.data"))
	p.cmd.ExtraFiles = []*os.File{ctlR, ackW}
	// perf must not outlive dbharness (killed, say): it would go on
	// sampling the server.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	p.stderr = &capped{max: 8 << 10}
	p.cmd.Stderr = p.stderr
	err = p.cmd.Start()
	ctlR.Close()
	ackW.Close()
	p.ctl, p.ack = ctlW, ackR
	if err != nil {
		p.cleanup()
		return fmt.Errorf("cannot start perf: %v", err)
	}
	p.exited = make(chan struct{})
	go func() {
		_ = p.cmd.Wait()
		p.endedAt = monotonic()
		close(p.exited)
	}()
	// perf answers a ping once its events are open; one that may not
	// profile the server exits instead.
	if err := p.command(ctx, "ping"); err != nil {
		p.kill()
		p.cleanup()
		return err
	}
	return nil
}

// end asks perf to stop and waits for it; false if it had to be killed.
func (p *ServerCPU) end() bool {
	// perf writes its data file's header when it ends on SIGINT; its
	// control fifo stays open until then (a closed one ends it early).
	defer p.cleanup()
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
		return true
	case <-time.After(perfTimeout):
		p.kill()
		return false
	}
}

// perfTimeout bounds each command to perf and its end.
const perfTimeout = 10 * time.Second

// command sends perf a control command and waits for its
// acknowledgement. An error says why perf did not answer.
func (p *ServerCPU) command(ctx context.Context, c string) error {
	if _, err := io.WriteString(p.ctl, c+"\n"); err != nil {
		<-p.exited
		return p.failed()
	}
	got := make(chan error, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := p.ack.Read(buf)
		if err == nil && !strings.HasPrefix(string(buf[:n]), "ack") {
			err = fmt.Errorf("perf answered %q to %s", buf[:n], c)
		}
		got <- err
	}()
	ctx, cancel := context.WithTimeout(ctx, perfTimeout)
	defer cancel()
	select {
	case err := <-got:
		if err != nil {
			select {
			case <-p.exited:
				return p.failed()
			case <-time.After(time.Second):
			}
		}
		return err
	case <-p.exited:
		return p.failed()
	case <-ctx.Done():
		return fmt.Errorf("perf did not answer %s within %s", c, perfTimeout)
	}
}

// Ended reports whether perf has ended, on its own (its data cap, a
// failure) or after Stop.
func (p *ServerCPU) Ended() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// failed says why perf ended: the first line of its complaint that names
// the cause.
func (p *ServerCPU) failed() error {
	if strings.Contains(p.stderr.String(), "size limit reached") {
		return fmt.Errorf("its data file reached its cap of %s", results.HumanBytes(p.maxData))
	}
	msg := perfComplaint(p.stderr.String())
	if msg == "" {
		msg = fmt.Sprintf("perf ended (%v)", p.cmd.ProcessState)
	}
	return errors.New(msg)
}

// perfComplaint picks from perf's error output the line that says why it
// could not profile.
func perfComplaint(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "Error:" && !strings.HasPrefix(l, "Events ") && !strings.HasPrefix(l, "[ perf record:") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	if strings.Contains(s, "perf_event_paranoid") {
		paranoid := ""
		if b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil {
			paranoid = " (it is " + strings.TrimSpace(string(b)) + ")"
		}
		return "perf is not permitted to profile the server's processes: run as root or with CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid" + paranoid
	}
	return "perf failed: " + lines[0]
}

// Result returns the profile's description without samples; why, if not
// empty, says why there are none.
func (p *ServerCPU) Result(why string) *results.ServerCPU {
	return &results.ServerCPU{Method: p.Method(), Processes: p.what, FrequencyHz: p.hz(),
		Functions: []results.CPUShare{}, Modules: []results.CPUShare{}, Unavailable: why}
}

// Begin marks the start of the measured phase, at (which may be to come,
// at the end of a warm-up): samples taken before it are left out.
func (p *ServerCPU) Begin(at time.Time) { p.from = monotonic() + time.Until(at).Seconds() }

// monotonic reads CLOCK_MONOTONIC, perf's clock here (-k), in seconds.
func monotonic() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// Stop ends sampling and perf, reads the profile and removes perf's data.
// The profile says why it is empty if something failed.
func (p *ServerCPU) Stop(ctx context.Context) *results.ServerCPU {
	out := p.Result("")
	to := monotonic()
	if p.from == 0 || p.from >= to {
		p.kill()
		p.cleanup()
		out.Unavailable = "the measured phase never started"
		return out
	}
	out.Seconds = round3(to - p.from)
	data := filepath.Join(p.dir, "perf.data")
	dir := p.dir
	p.dir = "" // end leaves the data for perf script
	defer os.RemoveAll(dir)
	early := p.Ended()
	if !p.end() {
		out.Unavailable = fmt.Sprintf("perf did not end within %s of being asked to", perfTimeout)
		return out
	}
	if early {
		// perf ended on its own: its data cap, or a failure. Its samples
		// cover the measured phase up to then, and the profile says so.
		if p.endedAt <= p.from {
			out.Unavailable = "perf ended before the measured phase: " + p.failed().Error()
			return out
		}
		out.Note = fmt.Sprintf("perf stopped %.1f s into the measured phase of %.1f s (%s): the profile covers that part",
			p.endedAt-p.from, to-p.from, p.failed().Error())
		to = p.endedAt
		out.Seconds = round3(to - p.from)
	}
	if ps := p.cmd.ProcessState; ps != nil {
		out.PerfCPUSeconds = round3((ps.UserTime() + ps.SystemTime()).Seconds())
	}
	read := time.Now()
	defer func() { out.ReadSeconds = round3(time.Since(read).Seconds()) }()
	sctx, cancel := context.WithTimeout(ctx, scriptTimeout(to-p.from))
	defer cancel()
	cmd := exec.CommandContext(sctx, p.path, "script", "-i", data, "-F", "comm,pid,tid,time,period,ip,sym,dso", "--ns", "--show-task-events")
	stderr := &capped{max: 4 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		out.Unavailable = "perf script: " + oneLine(err.Error())
		return out
	}
	prof, perr := ParsePerfScript(stdout, Window{From: p.from, To: to})
	if perr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil || perr != nil {
		out.Unavailable = "perf script: " + oneLine(cmp.Or(perr, err).Error()+" "+stderr.String())
		return out
	}
	prof.Under(p.server.PID).Fill(out)
	return out
}

// scriptTimeout bounds perf script's reading of the profile of a run of
// secs seconds: it took 0.03 to 0.13 s per second of run on two busy CPUs
// (bench/servercpu-overhead.sh), so a quarter of the run's length, and
// two minutes more, leave room for more CPUs.
func scriptTimeout(secs float64) time.Duration {
	return 2*time.Minute + time.Duration(secs/4*float64(time.Second))
}

func (p *ServerCPU) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// cleanup closes perf's pipes and removes its data file.
func (p *ServerCPU) cleanup() {
	if p.ctl != nil {
		p.ctl.Close()
	}
	if p.ack != nil {
		p.ack.Close()
	}
	if p.dir != "" {
		_ = os.RemoveAll(p.dir)
		p.dir = ""
	}
}

// capped keeps the first max bytes written to it.
type capped struct {
	max int
	buf bytes.Buffer
}

func (c *capped) Write(b []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

func (c *capped) String() string {
	if c == nil {
		return ""
	}
	return c.buf.String()
}

// processTree checks the server's process and returns its PID followed,
// where its children belong to the server, by theirs.
func processTree(sp evidence.ServerProcess) ([]int, error) {
	comm, err := procComm(sp.PID)
	if err != nil {
		return nil, fmt.Errorf("the server's process %d is not a process on this host", sp.PID)
	}
	if !slices.Contains(sp.Names, comm) {
		return nil, fmt.Errorf("process %d on this host is %q, not the server (%s)", sp.PID, comm, strings.Join(sp.Names, " or "))
	}
	pids := []int{sp.PID}
	if !sp.Children {
		return pids, nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, err := procfs.ParentPID(pid); err == nil && pp == sp.PID {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// procComm returns the command name of process pid.
func procComm(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b)), err
}
