// Package iobench is the storage probe behind `dbharness io`: the I/O
// patterns a database makes (large sequential writes that extend or
// overwrite files, 8 KiB sequential and random reads at a range of queue
// depths, small log writes each followed by fdatasync), measured with
// HdrHistograms, the CPU time of the process (getrusage) and the device's
// own counters (/proc/diskstats). It works in a directory of its own under
// the one it is given, refuses to start when it would leave too little
// free space, and removes its files when it ends, interrupted or not.
package iobench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"

	"github.com/dbharness/dbharness/internal/histogram"
)

// Pattern is one kind of I/O the probe measures.
type Pattern string

// The patterns, in the order `dbharness io` runs them.
const (
	SeqWrite Pattern = "seqwrite"
	SeqRead  Pattern = "seqread"
	RandRead Pattern = "randread"
	LogWrite Pattern = "logwrite"
)

// Patterns are every pattern, in order.
var Patterns = []Pattern{SeqWrite, SeqRead, RandRead, LogWrite}

// Write modes: extend writes a new file, as a database grows its data
// files; overwrite rewrites a file laid out beforehand, as fio does and as
// a database reuses its preallocated log segments.
const (
	Extend    = "extend"
	Overwrite = "overwrite"
)

// Config is what to measure and how much.
type Config struct {
	Dir       string
	Size      int64 // working set of seqwrite, seqread and randread, in bytes
	Block     int   // seqwrite's block
	ReadBlock int   // seqread's and randread's block
	Depths    []int // reads: outstanding I/Os, one goroutine each
	// Mode is Extend or Overwrite; empty: seqwrite extends and logwrite
	// overwrites (log segments are preallocated).
	Mode   string
	CRC    bool // seqwrite: seal each block with its CRC32C
	Direct bool // O_DIRECT where the filesystem allows it
	// Verify makes reads check the stamp of every sector they read;
	// without it each read checks its first and last sector's, which
	// catches a read of the wrong place or a short one at the cost of two
	// compares, as fio (which verifies nothing unless asked) pays none.
	Verify    bool
	LogBlocks []int
	Streams   []int // logwrite: concurrent streams, one file each
	LogWrites int   // logwrite: writes (each with fdatasync) per stream per step
	// StepTime, when positive, ends a step early after that long.
	StepTime time.Duration
	// KeepFree is the free space the probe leaves; negative: the
	// default, DefaultKeepFree of the filesystem.
	KeepFree int64
	// Interval is the length of a tick (the run's intervals).
	Interval time.Duration
}

// DefaultKeepFree is the free space the probe leaves by default: 5% of the
// filesystem, and at least 1 GiB.
func DefaultKeepFree(fsSize uint64) int64 { return max(int64(fsSize/20), 1<<30) }

// Tick is one interval of a step.
type Tick struct {
	Elapsed time.Duration // since the pattern started, at the tick's end
	Seconds float64
	IOs     int64
	Bytes   int64
	Hist    *hdr.Histogram
}

// Step is one measured configuration of a pattern: a queue depth, a log
// block size and stream count, or the one sequential write.
type Step struct {
	Name    string
	Threads int
	Block   int
	Bytes   int64
	IOs     int64
	Seconds float64
	CPU     time.Duration // the process's user + system time (getrusage)
	Hist    *hdr.Histogram
	// SyncHist holds the fdatasync times: each log write's, or the
	// sequential write's final one.
	SyncHist *hdr.Histogram
	Disk     *DiskView
	Ticks    []Tick
}

// Result is one pattern's measurement.
type Result struct {
	Pattern     Pattern
	Mode        string // write patterns
	Start, End  time.Time
	Steps       []Step
	Interrupted bool
}

// Probe is a prepared measurement in its own directory.
type Probe struct {
	cfg  Config
	FS   FS
	Work string // the probe's directory under Dir
	// Direct is whether O_DIRECT is in use; DirectNote says why not when
	// it was asked for, and what the filesystem means for the figures.
	Direct     bool
	DirectNote string
	diskNote   string
	// inspect, when set (tests), sees each file the probe wrote before
	// it is removed, and each file laid out for reading before it is read.
	inspect func(path string)
}

// SpaceError is the free-space guard's refusal.
type SpaceError struct {
	Dir                  string
	Type                 string
	Need, KeepFree, Free int64
}

func (e *SpaceError) Error() string {
	return fmt.Sprintf("not enough free space in %s (%s): the probe needs %s for its files and leaves %s free (--keep-free), so it needs %s, but %s is free; give a smaller --size or fewer --log-writes, or another --dir",
		e.Dir, e.Type, FormatSize(e.Need), FormatSize(e.KeepFree), FormatSize(e.Need+e.KeepFree), FormatSize(e.Free))
}

// Need is the most disk space the patterns hold at once: they run one
// after the other and each removes its files.
func (c *Config) Need(patterns []Pattern) int64 {
	var need int64
	for _, p := range patterns {
		switch p {
		case SeqWrite, SeqRead, RandRead:
			need = max(need, c.Size)
		case LogWrite:
			maxBlock, maxStreams := 0, 0
			for _, b := range c.LogBlocks {
				maxBlock = max(maxBlock, b)
			}
			for _, s := range c.Streams {
				maxStreams = max(maxStreams, s)
			}
			need = max(need, int64(maxStreams)*int64(c.LogWrites)*int64(maxBlock))
		}
	}
	return need
}

// Open checks the directory and the free space, makes the probe's own
// directory and finds out whether O_DIRECT works there. Close removes it.
func Open(cfg Config, patterns []Pattern) (*Probe, error) {
	st, err := os.Stat(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("--dir %s: %v", cfg.Dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("--dir %s is not a directory", cfg.Dir)
	}
	fs, err := StatFS(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("--dir %s: %v", cfg.Dir, err)
	}
	keep := cfg.KeepFree
	if keep < 0 {
		keep = DefaultKeepFree(fs.Size)
	}
	if need := cfg.Need(patterns); int64(fs.Free)-need < keep {
		return nil, &SpaceError{Dir: cfg.Dir, Type: fs.Type, Need: need, KeepFree: keep, Free: int64(fs.Free)}
	}
	work, err := os.MkdirTemp(cfg.Dir, "dbharness-io-")
	if err != nil {
		return nil, fmt.Errorf("--dir %s: cannot create the probe's directory: %v", cfg.Dir, errors.Unwrap(err))
	}
	p := &Probe{cfg: cfg, FS: fs, Work: work}
	if cfg.Direct {
		p.Direct, p.DirectNote = directWorks(work, fs.Type)
	}
	switch fs.Type {
	case "tmpfs":
		p.diskNote = "the directory is on tmpfs: its files live in memory, so the figures are memory's, not a disk's"
	case "overlay":
		p.diskNote = "the directory is on an overlay filesystem (a container's): its I/O goes to the filesystem under it, whose device is not known here"
	}
	if fs.Device == "" && p.diskNote == "" {
		p.diskNote = fmt.Sprintf("no block device is behind the directory (%s): no device counters", fs.Type)
	}
	return p, nil
}

// Note says what the filesystem means for the figures ("" for a plain
// block device).
func (p *Probe) Note() string { return p.diskNote }

// Close removes the probe's directory and everything in it.
func (p *Probe) Close() error { return os.RemoveAll(p.Work) }

// directWorks tries an O_DIRECT write in dir.
func directWorks(dir, fsType string) (bool, string) {
	path := filepath.Join(dir, "direct-probe")
	defer os.Remove(path)
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0o600)
	if err == nil {
		buf := alignedBuf(align)
		_, err = unix.Pwrite(fd, buf, 0)
		unix.Close(fd)
	}
	if err != nil {
		return false, fmt.Sprintf("O_DIRECT is not available on %s here (%v): the I/O goes through the page cache", fsType, err)
	}
	if fsType == "overlay" || fsType == "tmpfs" {
		return true, fmt.Sprintf("O_DIRECT is accepted on %s, but %s", fsType, map[string]string{
			"overlay": "it applies to the filesystem under the overlay",
			"tmpfs":   "tmpfs keeps its files in memory, so nothing is bypassed"}[fsType])
	}
	return true, ""
}

// openFile opens a file of the probe with O_DIRECT when in use.
func (p *Probe) openFile(name string, flags int) (int, error) {
	if p.Direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(filepath.Join(p.Work, name), flags|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, fmt.Errorf("open %s: %v", name, err)
	}
	return fd, nil
}

// layOut writes size bytes of the probe's content into a new file, syncs
// it and drops it from the page cache.
func (p *Probe) layOut(ctx context.Context, name string, size int64) error {
	fd, err := unix.Open(filepath.Join(p.Work, name), unix.O_CREAT|unix.O_TRUNC|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("lay out %s: %v", name, err)
	}
	defer unix.Close(fd)
	buf := alignedBuf(patternLen)
	for off := int64(0); off < size; off += patternLen {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		b := buf[:min(int64(patternLen), size-off)]
		Fill(b, off)
		if err := pwriteFull(fd, b, off); err != nil {
			return fmt.Errorf("lay out %s: %v", name, err)
		}
	}
	if err := unix.Fdatasync(fd); err != nil {
		return fmt.Errorf("lay out %s: fdatasync: %v", name, err)
	}
	_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	return nil
}

func pwriteFull(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := rawPwrite(fd, b, off)
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("wrote nothing")
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// done removes a file the probe wrote (after showing it to inspect).
func (p *Probe) done(name string) {
	path := filepath.Join(p.Work, name)
	if p.inspect != nil {
		p.inspect(path)
	}
	os.Remove(path)
}

// dropCache asks the kernel to forget the file's cached pages, so that
// the next reads go to the device.
func (p *Probe) dropCache(name string) {
	fd, err := unix.Open(filepath.Join(p.Work, name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	_ = unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
	unix.Close(fd)
}

func cpuTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stepRun measures one step: threads workers each call io until it
// returns done; io returns the bytes it moved.
type stepRun struct {
	p       *Probe
	name    string
	threads int
	block   int
	start   time.Time // the pattern's start, for the ticks' elapsed time
	// syncApart leaves a sync's time out of its I/O's latency (the
	// sequential write's final fdatasync, which fio's end_fsync does not
	// count as a write either); a log write's latency includes its sync.
	syncApart bool
}

// counter is one worker's I/Os and bytes, padded to a cache line of its
// own.
type counter struct {
	ios, bytes atomic.Int64
	_          [48]byte
}

// worker does one I/O per call: it returns the bytes moved, the time a
// sync took (0: none), whether it has no more to do, and an error.
type worker func(ctx context.Context) (n int, sync time.Duration, done bool, err error)

func (s stepRun) run(ctx context.Context, workers []worker) (Step, error) {
	st := Step{Name: s.name, Threads: s.threads, Block: s.block, Hist: histogram.New()}
	ops := []string{"io", "sync"}
	reg := histogram.NewRegistry(ops)
	// Each worker counts into its own line of memory, and polls a flag
	// rather than ctx (whose Err takes a lock): the loop around an I/O
	// shares nothing with the other workers but the flag's reads.
	counts := make([]counter, len(workers))
	var stopped atomic.Bool
	stopWatch := context.AfterFunc(ctx, func() { stopped.Store(true) })
	defer stopWatch()
	total := func() (n, b int64) {
		for i := range counts {
			n, b = n+counts[i].ios.Load(), b+counts[i].bytes.Load()
		}
		return n, b
	}
	var disk0 DiskCounters
	dev := s.p.FS.Device
	if dev != "" {
		var err error
		if disk0, err = ReadDiskstats(dev); err != nil {
			dev = ""
		}
	}
	// A goroutine back from a blocking pread needs a processor (a P) to
	// go on; with fewer Ps than outstanding I/Os it waits for one in the
	// run queue, and that wait shows as I/O latency. As many Ps as
	// workers, plus two for the ticker and the rest, leave the OS to
	// schedule the workers' threads as it schedules fio's processes.
	if want := len(workers) + 2; runtime.GOMAXPROCS(0) < want {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(want))
	}
	cpu0 := cpuTime()
	t0 := time.Now()
	var deadline time.Time
	if s.p.cfg.StepTime > 0 {
		deadline = t0.Add(s.p.cfg.StepTime)
	}
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for i, w := range workers {
		h := reg.NewHandle()
		cnt := &counts[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopped.Load() {
				a := time.Now()
				n, syncT, done, err := w(ctx)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				if done {
					return
				}
				b := time.Now()
				if s.syncApart {
					h.Record(0, b.Sub(a)-syncT)
				} else {
					h.Record(0, b.Sub(a))
				}
				if syncT > 0 {
					h.Record(1, syncT)
				}
				cnt.ios.Add(1)
				cnt.bytes.Add(int64(n))
				if !deadline.IsZero() && b.After(deadline) {
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	st.SyncHist = histogram.New()
	interval := s.p.cfg.Interval
	if interval <= 0 {
		interval = time.Second
	}
	tk := time.NewTicker(interval)
	defer tk.Stop()
	last, lastIOs, lastBytes := t0, int64(0), int64(0)
	tick := func(now time.Time) {
		h := reg.Tick()
		st.Hist.Merge(h[0])
		st.SyncHist.Merge(h[1])
		n, b := total()
		st.Ticks = append(st.Ticks, Tick{Elapsed: now.Sub(s.start), Seconds: now.Sub(last).Seconds(), IOs: n - lastIOs, Bytes: b - lastBytes, Hist: h[0]})
		last, lastIOs, lastBytes = now, n, b
	}
	for running := true; running; {
		select {
		case now := <-tk.C:
			tick(now)
		case <-done:
			running = false
		}
	}
	end := time.Now()
	tick(end)
	st.Seconds = end.Sub(t0).Seconds()
	st.CPU = cpuTime() - cpu0
	st.IOs, st.Bytes = total()
	if dev != "" {
		if d1, err := ReadDiskstats(dev); err == nil {
			v := disk0.Diff(dev, d1, st.Seconds)
			st.Disk = &v
		}
	}
	if st.SyncHist.TotalCount() == 0 {
		st.SyncHist = nil
	}
	return st, firstErr
}

// Run measures one pattern. A cancelled ctx (Ctrl-C) ends it early: the
// result then holds the steps measured so far and is marked interrupted.
func (p *Probe) Run(ctx context.Context, pat Pattern) (*Result, error) {
	r := &Result{Pattern: pat, Start: time.Now()}
	defer func() { r.End = time.Now() }()
	var err error
	switch pat {
	case SeqWrite:
		r.Mode = p.mode(Extend)
		err = p.seqWrite(ctx, r)
	case SeqRead, RandRead:
		err = p.reads(ctx, r, pat == RandRead)
	case LogWrite:
		r.Mode = p.mode(Overwrite)
		err = p.logWrite(ctx, r)
	default:
		return nil, fmt.Errorf("unknown pattern %q", pat)
	}
	if ctx.Err() != nil {
		r.Interrupted = true
		err = nil
	}
	return r, err
}

func (p *Probe) mode(def string) string {
	if p.cfg.Mode != "" {
		return p.cfg.Mode
	}
	return def
}

func (p *Probe) seqWrite(ctx context.Context, r *Result) error {
	const name = "seqwrite.dat"
	defer p.done(name)
	flags := unix.O_WRONLY
	if r.Mode == Overwrite {
		if err := p.layOut(ctx, name, p.cfg.Size); err != nil {
			return err
		}
	} else {
		flags |= unix.O_CREAT | unix.O_TRUNC
	}
	fd, err := p.openFile(name, flags)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	bs := p.cfg.Block
	buf := alignedBuf(bs)
	filled := int64(-1)
	var next int64
	w := func(context.Context) (int, time.Duration, bool, error) {
		off := next
		if off >= p.cfg.Size {
			return 0, 0, true, nil
		}
		b := buf[:min(int64(bs), p.cfg.Size-off)]
		if pos := off % patternLen; pos != filled || len(b) != bs {
			Fill(b, off)
			filled = pos
		} else {
			// The same content but the stamps (and the CRC's tail).
			stamp(b, off)
			if p.cfg.CRC {
				Fill(b[len(b)-4:], off+int64(len(b)-4))
			}
		}
		if p.cfg.CRC && len(b) == bs {
			SealCRC(b)
		}
		if err := pwriteFull(fd, b, off); err != nil {
			return 0, 0, false, fmt.Errorf("write at %d: %v", off, err)
		}
		next = off + int64(len(b))
		if next >= p.cfg.Size {
			// The last write includes the fdatasync that makes the
			// file durable, as fio's end_fsync does.
			a := time.Now()
			if err := rawFdatasync(fd); err != nil {
				return 0, 0, false, fmt.Errorf("fdatasync: %v", err)
			}
			return len(b), max(time.Since(a), time.Microsecond), false, nil
		}
		return len(b), 0, false, nil
	}
	name2 := fmt.Sprintf("write %s %s", FormatSize(int64(bs)), r.Mode)
	if p.cfg.CRC {
		name2 += " crc32c"
	}
	st, err := stepRun{p: p, name: name2, threads: 1, block: bs, start: r.Start, syncApart: true}.run(ctx, []worker{w})
	r.Steps = append(r.Steps, st)
	return err
}

func (p *Probe) reads(ctx context.Context, r *Result, random bool) error {
	name := "read.dat"
	defer os.Remove(filepath.Join(p.Work, name))
	bs := int64(p.cfg.ReadBlock)
	size := p.cfg.Size / bs * bs
	if size == 0 {
		return fmt.Errorf("--size %s is smaller than one read block (%s)", FormatSize(p.cfg.Size), FormatSize(bs))
	}
	if err := p.layOut(ctx, name, size); err != nil {
		return err
	}
	if p.inspect != nil {
		p.inspect(filepath.Join(p.Work, name))
	}
	fd, err := p.openFile(name, unix.O_RDONLY)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	nblocks := size / bs
	for _, depth := range p.cfg.Depths {
		if ctx.Err() != nil {
			return nil
		}
		p.dropCache(name)
		var workers []worker
		if random {
			// Each block once, in a random order, as fio's random map.
			perm := make([]uint32, nblocks)
			for i := range perm {
				perm[i] = uint32(i)
			}
			rand.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			var cursor atomic.Int64
			for range depth {
				buf := alignedBuf(int(bs))
				workers = append(workers, func(context.Context) (int, time.Duration, bool, error) {
					i := cursor.Add(1) - 1
					if i >= nblocks {
						return 0, 0, true, nil
					}
					return readBlock(fd, buf, int64(perm[i])*bs, p.cfg.Verify)
				})
			}
		} else {
			// Depth regions read one after the other, each by its own
			// goroutine from its start, as fio's offset_increment.
			per := (nblocks + int64(depth) - 1) / int64(depth)
			for k := range int64(depth) {
				buf := alignedBuf(int(bs))
				next, end := k*per*bs, min((k+1)*per*bs, size)
				workers = append(workers, func(context.Context) (int, time.Duration, bool, error) {
					if next >= end {
						return 0, 0, true, nil
					}
					n, s, d, err := readBlock(fd, buf, next, p.cfg.Verify)
					next += bs
					return n, s, d, err
				})
			}
		}
		st, err := stepRun{p: p, name: fmt.Sprintf("read %s qd%d", FormatSize(bs), depth), threads: depth, block: int(bs), start: r.Start}.run(ctx, workers)
		r.Steps = append(r.Steps, st)
		if err != nil {
			return err
		}
	}
	return nil
}

func readBlock(fd int, buf []byte, off int64, verify bool) (int, time.Duration, bool, error) {
	n, err := rawPread(fd, buf, off)
	if err != nil {
		return 0, 0, false, fmt.Errorf("read at %d: %v", off, err)
	}
	if n != len(buf) {
		return 0, 0, false, fmt.Errorf("read at %d: %d bytes instead of %d", off, n, len(buf))
	}
	check := CheckEnds
	if verify {
		check = CheckStamps
	}
	if err := check(buf, off); err != nil {
		return 0, 0, false, fmt.Errorf("read at %d returned the wrong data: %v", off, err)
	}
	return n, 0, false, nil
}

func (p *Probe) logWrite(ctx context.Context, r *Result) error {
	for _, bs := range p.cfg.LogBlocks {
		for _, streams := range p.cfg.Streams {
			if ctx.Err() != nil {
				return nil
			}
			st, err := p.logStep(ctx, r, bs, streams)
			if st != nil {
				r.Steps = append(r.Steps, *st)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Probe) logStep(ctx context.Context, r *Result, bs, streams int) (*Step, error) {
	span := int64(bs) * int64(p.cfg.LogWrites)
	var workers []worker
	var fds []int
	defer func() {
		for i, fd := range fds {
			unix.Close(fd)
			p.done(fmt.Sprintf("log-%d.dat", i))
		}
	}()
	for i := range streams {
		name := fmt.Sprintf("log-%d.dat", i)
		flags := unix.O_WRONLY
		if r.Mode == Overwrite {
			if err := p.layOut(ctx, name, span); err != nil {
				return nil, err
			}
		} else {
			flags |= unix.O_CREAT | unix.O_TRUNC
		}
		fd, err := p.openFile(name, flags)
		if err != nil {
			return nil, err
		}
		fds = append(fds, fd)
		buf := alignedBuf(bs)
		var off int64
		workers = append(workers, func(context.Context) (int, time.Duration, bool, error) {
			if off >= span {
				return 0, 0, true, nil
			}
			Fill(buf, off)
			if err := pwriteFull(fd, buf, off); err != nil {
				return 0, 0, false, fmt.Errorf("log write at %d: %v", off, err)
			}
			a := time.Now()
			if err := rawFdatasync(fd); err != nil {
				return 0, 0, false, fmt.Errorf("fdatasync: %v", err)
			}
			off += int64(bs)
			return bs, max(time.Since(a), time.Microsecond), false, nil
		})
	}
	name := fmt.Sprintf("log %s x%d", FormatSize(int64(bs)), streams)
	st, err := stepRun{p: p, name: name, threads: streams, block: bs, start: r.Start}.run(ctx, workers)
	return &st, err
}

// rawPread, rawPwrite and rawFdatasync make the probe's measured system
// calls without telling Go's scheduler that the thread blocks: the worker
// keeps its P (a step runs with a P per worker, and two more), so a call of
// 100 µs costs no hand-off of the P to another thread and back. With the
// ordinary calls, 8 KiB reads at queue depth 1 made 0.86x fio's IOPS at
// 1.4x its CPU; with these, 1.04x at 0.91x (bench/io-vs-fio.sh). The cost:
// a garbage collection's stop waits for calls in progress to return.
func rawPread(fd int, buf []byte, off int64) (int, error) {
	return rawIO(unix.SYS_PREAD64, fd, buf, off)
}

func rawPwrite(fd int, buf []byte, off int64) (int, error) {
	return rawIO(unix.SYS_PWRITE64, fd, buf, off)
}

func rawIO(trap uintptr, fd int, buf []byte, off int64) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	for {
		// Go's preemption signal (SIGURG) may interrupt a call: retry it.
		r, _, e := unix.RawSyscall6(trap, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(off), 0, 0)
		switch e {
		case 0:
			return int(r), nil
		case unix.EINTR:
			continue
		}
		return int(r), e
	}
}

func rawFdatasync(fd int) error {
	for {
		_, _, e := unix.RawSyscall(unix.SYS_FDATASYNC, uintptr(fd), 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}
