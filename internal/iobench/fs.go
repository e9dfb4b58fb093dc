package iobench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FS describes the filesystem that holds a directory.
type FS struct {
	// Type is the filesystem's name from statfs(2) (ext4, xfs, tmpfs,
	// overlay, ...), or its magic number in hex when unknown.
	Type string
	// Free is what an unprivileged user may still write, Size the whole
	// filesystem, in bytes.
	Free, Size uint64
	// Device is the block device behind the directory as named in
	// /proc/diskstats ("vda", "nvme0n1p2"); empty when there is none
	// (tmpfs, overlay, a network filesystem).
	Device string
}

// fsMagic names the filesystems statfs(2) reports by magic number.
var fsMagic = map[int64]string{
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x01021994: "tmpfs",
	0x794C7630: "overlay",
	0x2FC12FC1: "zfs",
	0x6969:     "nfs",
	0xF2F52010: "f2fs",
	0x65735546: "fuse",
	0x4d44:     "vfat",
}

// StatFS reads the filesystem facts of dir.
func StatFS(dir string) (FS, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return FS{}, err
	}
	fs := FS{Free: st.Bavail * uint64(st.Bsize), Size: st.Blocks * uint64(st.Bsize)}
	if name, ok := fsMagic[int64(st.Type)]; ok {
		fs.Type = name
	} else {
		fs.Type = fmt.Sprintf("0x%x", st.Type)
	}
	var s unix.Stat_t
	if err := unix.Stat(dir, &s); err == nil {
		fs.Device = blockDevice(unix.Major(s.Dev), unix.Minor(s.Dev))
	}
	return fs, nil
}

// blockDevice names the block device major:minor in /proc/diskstats, or ""
// for the anonymous devices of tmpfs, overlay and the like.
func blockDevice(major, minor uint32) string {
	if major == 0 {
		return ""
	}
	link, err := os.Readlink(fmt.Sprintf("/sys/dev/block/%d:%d", major, minor))
	if err != nil {
		return ""
	}
	return filepath.Base(link)
}

// SameDevice reports whether a and b live on the same filesystem device.
func SameDevice(a, b string) bool {
	var sa, sb unix.Stat_t
	if unix.Stat(a, &sa) != nil || unix.Stat(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev
}

// DiskCounters is one line of /proc/diskstats.
type DiskCounters struct {
	ReadIOs, ReadSectors, ReadMs    uint64
	WriteIOs, WriteSectors, WriteMs uint64
	IOTicksMs, WeightedMs           uint64
	Flushes, FlushMs                uint64
}

// ReadDiskstats reads the counters of device from /proc/diskstats.
func ReadDiskstats(device string) (DiskCounters, error) {
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		return DiskCounters{}, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 14 || f[2] != device {
			continue
		}
		n := func(i int) uint64 {
			if i+3 >= len(f) {
				return 0
			}
			v, _ := strconv.ParseUint(f[i+3], 10, 64)
			return v
		}
		return DiskCounters{ReadIOs: n(0), ReadSectors: n(2), ReadMs: n(3), WriteIOs: n(4), WriteSectors: n(6), WriteMs: n(7),
			IOTicksMs: n(9), WeightedMs: n(10), Flushes: n(15), FlushMs: n(16)}, nil
	}
	return DiskCounters{}, fmt.Errorf("device %s is not in /proc/diskstats", device)
}

// DiskView is iostat's view of a device over a span of time, from two
// readings of /proc/diskstats.
type DiskView struct {
	Device       string
	ReadIOs      uint64
	WriteIOs     uint64
	Flushes      uint64
	ReadBytes    uint64
	WriteBytes   uint64
	AvgRequestKB float64 // bytes per request, reads and writes together
	AvgQueue     float64 // iostat's aqu-sz: weighted I/O time / elapsed
	AwaitMs      float64 // mean time per request, queueing included
	UtilPct      float64 // share of the time the device had I/O in flight
}

// Diff is the view between two readings taken seconds apart.
func (a DiskCounters) Diff(device string, b DiskCounters, seconds float64) DiskView {
	v := DiskView{Device: device, ReadIOs: b.ReadIOs - a.ReadIOs, WriteIOs: b.WriteIOs - a.WriteIOs, Flushes: b.Flushes - a.Flushes,
		ReadBytes: (b.ReadSectors - a.ReadSectors) * 512, WriteBytes: (b.WriteSectors - a.WriteSectors) * 512}
	ios := v.ReadIOs + v.WriteIOs
	if ios > 0 {
		v.AvgRequestKB = float64(v.ReadBytes+v.WriteBytes) / float64(ios) / 1024
		v.AwaitMs = float64((b.ReadMs-a.ReadMs)+(b.WriteMs-a.WriteMs)) / float64(ios)
	}
	if seconds > 0 {
		v.AvgQueue = float64(b.WeightedMs-a.WeightedMs) / (seconds * 1000)
		v.UtilPct = min(100, 100*float64(b.IOTicksMs-a.IOTicksMs)/(seconds*1000))
	}
	return v
}
