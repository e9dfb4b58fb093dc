package iobench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/hostinfo"
)

func TestCRC32CMatchesTheKnownCheckValue(t *testing.T) {
	// The check value of CRC-32C (RFC 3720, appendix B.4; the
	// "123456789" vector of every CRC catalogue).
	if got := CRC32C([]byte("123456789")); got != 0xE3069283 {
		t.Fatalf("CRC32C(123456789) = %08x, want e3069283", got)
	}
	// 32 bytes of zeros: RFC 3720, B.4.
	if got := CRC32C(make([]byte, 32)); got != 0x8A9136AA {
		t.Fatalf("CRC32C(32 zero bytes) = %08x, want 8a9136aa", got)
	}
}

func TestSizesParseAndPrint(t *testing.T) {
	for in, want := range map[string]int64{"512": 512, "8KiB": 8192, "8k": 8192, "1MiB": 1 << 20, "1.5GiB": 3 << 29, "1MB": 1e6, "64 KiB": 65536} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "-1", "1XB", "9e30GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) gave no error", bad)
		}
	}
	if s := FormatSize(1536 << 10); s != "1.5MiB" {
		t.Errorf("FormatSize(1.5 MiB) = %q", s)
	}
}

// smallConfig measures little, in dir.
func smallConfig(dir string) Config {
	return Config{Dir: dir, Size: 4 << 20, Block: 256 << 10, ReadBlock: 8 << 10, Depths: []int{1, 3}, LogBlocks: []int{512, 4096},
		Streams: []int{1, 2}, LogWrites: 20, KeepFree: 0, Interval: 50 * time.Millisecond}
}

func open(t *testing.T, cfg Config, pats ...Pattern) *Probe {
	t.Helper()
	p, err := Open(cfg, pats)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestSequentialWritesPutTheirBytesOnDisk(t *testing.T) {
	for _, tc := range []struct {
		mode string
		crc  bool
	}{{Extend, false}, {Extend, true}, {Overwrite, false}, {Overwrite, true}} {
		t.Run(fmt.Sprintf("%s crc=%v", tc.mode, tc.crc), func(t *testing.T) {
			cfg := smallConfig(t.TempDir())
			cfg.Size = 4<<20 + 8192 // a last block shorter than the others
			cfg.Mode, cfg.CRC = tc.mode, tc.crc
			p := open(t, cfg, SeqWrite)
			checked := false
			p.inspect = func(path string) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(b)) != cfg.Size {
					t.Fatalf("the file holds %d bytes, the probe was to write %d", len(b), cfg.Size)
				}
				if err := Verify(b, 0, cfg.Block, tc.crc); err != nil {
					t.Fatal(err)
				}
				if tc.crc {
					// A flipped bit is caught by the block's CRC.
					b[1000] ^= 1
					if err := Verify(b, 0, cfg.Block, true); err == nil || !strings.Contains(err.Error(), "CRC32C") {
						t.Fatalf("a flipped bit gave %v", err)
					}
				}
				checked = true
			}
			res, err := p.Run(context.Background(), SeqWrite)
			if err != nil {
				t.Fatal(err)
			}
			if !checked {
				t.Fatal("the written file was never shown")
			}
			st := res.Steps[0]
			if st.Bytes != cfg.Size || st.IOs != 17 || st.Hist.TotalCount() != 17 || st.SyncHist.TotalCount() != 1 {
				t.Fatalf("step: %d bytes, %d I/Os, %d latencies, sync %v", st.Bytes, st.IOs, st.Hist.TotalCount(), st.SyncHist)
			}
			if res.Mode != tc.mode {
				t.Fatalf("mode %q", res.Mode)
			}
		})
	}
}

func TestLogWritesSyncEveryWriteAndPutTheirBytesOnDisk(t *testing.T) {
	for _, mode := range []string{Extend, Overwrite} {
		t.Run(mode, func(t *testing.T) {
			cfg := smallConfig(t.TempDir())
			cfg.Mode = mode
			p := open(t, cfg, LogWrite)
			files := 0
			p.inspect = func(path string) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if len(b)%512 != 0 || len(b) < 20*512 {
					t.Fatalf("%s holds %d bytes", path, len(b))
				}
				if err := Verify(b, 0, len(b), false); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				files++
			}
			res, err := p.Run(context.Background(), LogWrite)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Steps) != 4 || files != 6 { // 2 sizes x (1 + 2 streams)
				t.Fatalf("%d steps, %d files", len(res.Steps), files)
			}
			for _, st := range res.Steps {
				want := int64(20 * st.Threads)
				if st.IOs != want || st.SyncHist.TotalCount() != want || st.Bytes != want*int64(st.Block) {
					t.Fatalf("%s: %d I/Os, %d syncs, %d bytes; want %d writes each synced", st.Name, st.IOs, st.SyncHist.TotalCount(), st.Bytes, want)
				}
			}
			if c := commitCeiling(res.Steps); c <= 0 {
				t.Fatalf("commit ceiling %v", c)
			}
		})
	}
}

func TestReadsReadEveryBlockOnceAtEachDepth(t *testing.T) {
	for _, pat := range []Pattern{SeqRead, RandRead} {
		t.Run(string(pat), func(t *testing.T) {
			cfg := smallConfig(t.TempDir())
			p := open(t, cfg, pat)
			res, err := p.Run(context.Background(), pat)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Steps) != 2 {
				t.Fatalf("%d steps", len(res.Steps))
			}
			for i, st := range res.Steps {
				if st.Threads != cfg.Depths[i] || st.Bytes != cfg.Size || st.IOs != cfg.Size/8192 || st.Hist.TotalCount() != st.IOs {
					t.Fatalf("%s: %d threads, %d bytes, %d I/Os, %d latencies", st.Name, st.Threads, st.Bytes, st.IOs, st.Hist.TotalCount())
				}
				var n int64
				for _, tk := range st.Ticks {
					n += tk.IOs
				}
				if n != st.IOs {
					t.Fatalf("the ticks count %d I/Os, the step %d", n, st.IOs)
				}
			}
		})
	}
}

// Reads check what they read: with Verify every sector's stamp, without
// it each read's first and last (a read of the wrong place or a short
// one), which a sector misplaced inside a block does not fail.
func TestReadsCatchDataThatIsNotWhatWasWritten(t *testing.T) {
	// plant writes, over the laid-out file, the content of file offset
	// from at offset to.
	plant := func(from, to int64, n int) func(path string) {
		return func(path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			b := make([]byte, n)
			Fill(b, from)
			if _, err := f.WriteAt(b, to); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name      string
		verify    bool
		from, to  int64
		n         int
		wantError bool
	}{
		// Sector 100 (inside the 7th 8 KiB block) says it is sector 7.
		{"a misplaced sector, verified", true, 7 * 512, 100 * 512, 512, true},
		{"a misplaced sector, ends only", false, 7 * 512, 100 * 512, 512, false},
		// Block 6 holds block 2's content: what a read of the wrong place returns.
		{"a misplaced block, ends only", false, 2 * 8192, 6 * 8192, 8192, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig(t.TempDir())
			cfg.Verify = tc.verify
			p := open(t, cfg, RandRead)
			p.inspect = plant(tc.from, tc.to, tc.n)
			_, err := p.Run(context.Background(), RandRead)
			if tc.wantError != (err != nil) || err != nil && !strings.Contains(err.Error(), "wrong data") {
				t.Fatalf("got %v; want an error about wrong data: %v", err, tc.wantError)
			}
		})
	}
}

func TestAnInterruptedPatternKeepsWhatItMeasured(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.LogWrites = 1 << 30 / 512 // far more than the test waits for
	cfg.LogBlocks = []int{512}
	cfg.Streams = []int{1}
	cfg.Mode = Extend
	// Opened for a small pattern: the guard would count the log files'
	// whole size, which this test never writes.
	p, err := Open(Config{Dir: cfg.Dir, KeepFree: 0, Size: 512}, []Pattern{SeqWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.cfg = cfg
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := p.Run(ctx, LogWrite)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Steps) != 1 || res.Steps[0].IOs == 0 {
		t.Fatalf("interrupted %v, %d steps", res.Interrupted, len(res.Steps))
	}
	entries, _ := os.ReadDir(p.Work)
	if len(entries) != 0 {
		t.Fatalf("files left: %v", entries)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Work); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the probe's directory is still there: %v", err)
	}
}

// smallFS mounts a filesystem of size bytes for the test: a tmpfs, or
// where that is not allowed, an ext4 image on a loop device.
func smallFS(t *testing.T, size int64) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a tmpfs or loop mount; go test -short runs only the tests that need no server")
	}
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", mnt).CombinedOutput()
	if err != nil {
		img := filepath.Join(dir, "fs.img")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, size); err != nil {
			t.Fatal(err)
		}
		out2, err2 := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput()
		if err2 == nil {
			out2, err2 = exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput()
		}
		if err2 != nil {
			t.Fatalf("cannot mount a small filesystem: tmpfs: %v %s; loop image: %v %s (the tests need root)", err, out, err2, out2)
		}
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", mnt, err, out)
		}
	})
	return mnt
}

func TestTheFreeSpaceGuardRefusesOnASmallFilesystem(t *testing.T) {
	mnt := smallFS(t, 16<<20)
	fs, err := StatFS(mnt)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Free < 8<<20 || fs.Free > 16<<20 {
		t.Fatalf("the small filesystem has %d bytes free", fs.Free)
	}
	t.Run("a working set larger than the free space", func(t *testing.T) {
		cfg := smallConfig(mnt)
		cfg.Size = 32 << 20
		_, err := Open(cfg, []Pattern{SeqWrite})
		var se *SpaceError
		if !errors.As(err, &se) || se.Need != 32<<20 || !strings.Contains(err.Error(), "32MiB") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("the default margin", func(t *testing.T) {
		cfg := smallConfig(mnt)
		cfg.KeepFree = -1
		_, err := Open(cfg, []Pattern{SeqRead})
		var se *SpaceError
		if !errors.As(err, &se) || se.KeepFree != 1<<30 || !strings.Contains(err.Error(), "leaves 1GiB free") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("log writes count their files", func(t *testing.T) {
		cfg := smallConfig(mnt)
		cfg.Size, cfg.LogBlocks, cfg.Streams, cfg.LogWrites = 1<<20, []int{64 << 10}, []int{4}, 100 // 25 MiB
		if _, err := Open(cfg, []Pattern{LogWrite}); err == nil {
			t.Fatal("4 streams of 100 x 64 KiB fit in 16 MiB")
		}
	})
	t.Run("what fits runs", func(t *testing.T) {
		cfg := smallConfig(mnt)
		p := open(t, cfg, SeqWrite)
		if _, err := p.Run(context.Background(), SeqWrite); err != nil {
			t.Fatal(err)
		}
		if entries, _ := os.ReadDir(mnt); len(entries) != 1 {
			t.Fatalf("the mount holds %v", entries)
		}
		p.Close()
		if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
			t.Fatalf("the probe left %v", entries)
		}
	})
	t.Run("tmpfs is named, and O_DIRECT's fate said", func(t *testing.T) {
		cfg := smallConfig(mnt)
		cfg.Direct = true
		p := open(t, cfg, SeqWrite)
		if p.FS.Type != "tmpfs" && p.FS.Type != "ext4" {
			t.Fatalf("the small filesystem is %s", p.FS.Type)
		}
		if p.FS.Type == "tmpfs" && (!strings.Contains(p.Note(), "tmpfs") || !strings.Contains(p.DirectNote, "tmpfs")) {
			t.Fatalf("notes %q, %q", p.Note(), p.DirectNote)
		}
	})
}

func TestDiskViewIsIostatsArithmetic(t *testing.T) {
	a := DiskCounters{ReadIOs: 100, ReadSectors: 1000, ReadMs: 50, WriteIOs: 10, WriteSectors: 100, WriteMs: 20, IOTicksMs: 1000, WeightedMs: 500}
	b := DiskCounters{ReadIOs: 200, ReadSectors: 2600, ReadMs: 150, WriteIOs: 110, WriteSectors: 2100, WriteMs: 320, IOTicksMs: 1500, WeightedMs: 2500}
	v := a.Diff("vda", b, 2)
	// 200 requests moved (1600+2000) sectors of 512 bytes: 9 KiB each;
	// they took 400 ms: 2 ms each; 2000 ms of queue time over 2 s: 1;
	// busy 500 ms of 2000: 25%.
	if v.ReadIOs != 100 || v.WriteIOs != 100 || v.AvgRequestKB != 9 || v.AwaitMs != 2 || v.AvgQueue != 1 || v.UtilPct != 25 {
		t.Fatalf("%+v", v)
	}
}

func TestTheRunOfAPatternHoldsItsStepsAsOps(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	p := open(t, cfg, RandRead)
	res, err := p.Run(context.Background(), RandRead)
	if err != nil {
		t.Fatal(err)
	}
	r := p.ToRun(res, "20261124-000000-abcd", Describe{Command: []string{"dbharness", "io"}, Host: hostinfo.Read()})
	if r.Workload != "io-randread" || len(r.Ops) != 2 || r.IO == nil || len(r.IO.Steps) != 2 || r.Summary.Transactions != 2*512 {
		t.Fatalf("run %+v", r)
	}
	var n int64
	for _, iv := range r.Intervals {
		n += iv.Count
	}
	if n != r.Summary.Transactions {
		t.Fatalf("the intervals count %d I/Os, the summary %d", n, r.Summary.Transactions)
	}
	for _, s := range r.IO.Steps {
		if s.Bytes != cfg.Size || s.MiBPerS <= 0 || s.IOPS <= 0 || s.LatencyMs["p50"] <= 0 {
			t.Fatalf("step %+v", s)
		}
	}
}
