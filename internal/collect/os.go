package collect

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/procfs"
	"github.com/dbharness/dbharness/internal/selfcost"
)

// Source is where the OS collector reads /proc from. Local reads the
// client host's files; a remote source (e.g. `ssh host cat FILE`) only has
// to implement ReadFile.
type Source interface {
	// Name describes the source, e.g. "local".
	Name() string
	// Local is true when the files describe the client host.
	Local() bool
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// LocalSource reads the files of the client host.
type LocalSource struct{}

// Name implements Source.
func (LocalSource) Name() string { return "local" }

// Local implements Source.
func (LocalSource) Local() bool { return true }

// ReadFile implements Source.
func (LocalSource) ReadFile(_ context.Context, path string) ([]byte, error) { return os.ReadFile(path) }

func init() {
	Register(Kind{Name: KindOS, Order: 10, InAll: true, Title: "Operating system", Layout: evidence.LayoutHost,
		Help: "the client host's CPU, disks, memory and run queue from /proc", Needs: "Linux",
		Sampler: func(env *Env) evidence.Sampler { return &OS{Src: LocalSource{}, DBLocal: env.DB.Target().Local()} }})
}

// OS samples CPU, context switches, reschedule interrupts, run queue,
// memory and block devices from /proc (the iostat and vmstat view).
type OS struct {
	Src Source
	// DBLocal says whether the database target runs on this host.
	DBLocal bool
	// Root is the /proc directory (tests point it elsewhere); default /proc.
	Root string
}

// Name implements Sampler.
func (o *OS) Name() string { return KindOS }

func (o *OS) root() string {
	if o.Root == "" {
		return "/proc"
	}
	return o.Root
}

// Start implements Sampler: it checks that /proc/stat is readable.
func (o *OS) Start(ctx context.Context) error {
	if o.Src == nil {
		o.Src = LocalSource{}
	}
	if _, err := o.Src.ReadFile(ctx, o.root()+"/stat"); err != nil {
		return fmt.Errorf("cannot read %s/stat (the OS collector needs Linux /proc): %v", o.root(), err)
	}
	return nil
}

// Stop implements Sampler.
func (o *OS) Stop() error { return nil }

// Describe implements Sampler.
func (o *OS) Describe(s *evidence.Series) {
	s.Source = "/proc (stat, meminfo, diskstats, interrupts) on the " + o.Src.Name() + " host"
	if o.Src.Local() {
		s.Describes = evidence.DescribesClientHost
	} else {
		s.Describes = "remote host " + o.Src.Name()
	}
	local := o.DBLocal
	s.DBLocal = &local
}

// The CPU time columns of /proc/stat, in order.
var cpuCols = []string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}

// Sample implements Sampler.
func (o *OS) Sample(ctx context.Context) (*evidence.Snapshot, error) {
	if o.Src == nil {
		o.Src = LocalSource{}
	}
	snap := &evidence.Snapshot{Time: time.Now(), Counters: map[string]float64{}, Gauges: map[string]float64{}}
	stat, err := o.Src.ReadFile(ctx, o.root()+"/stat")
	if err != nil {
		return nil, err
	}
	parseStat(stat, snap)
	if mem, err := o.Src.ReadFile(ctx, o.root()+"/meminfo"); err == nil {
		parseMeminfo(mem, snap)
	}
	if disk, err := o.Src.ReadFile(ctx, o.root()+"/diskstats"); err == nil {
		parseDiskstats(disk, snap)
	}
	if irq, err := o.Src.ReadFile(ctx, o.root()+"/interrupts"); err == nil {
		if n, ok := selfcost.ReschedulingInterrupts(irq); ok {
			snap.Counters["resched_ipis"] = n
		}
	}
	return snap, nil
}

// parseStat reads /proc/stat: per-CPU jiffies (hidden counters, turned
// into percentages by Derive), context switches and the run queue.
func parseStat(b []byte, snap *evidence.Snapshot) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		switch {
		case strings.HasPrefix(f[0], "cpu"):
			name := f[0] // "cpu" is the total, "cpuN" one CPU
			for i, col := range cpuCols {
				if i+1 < len(f) {
					v, _ := strconv.ParseFloat(f[i+1], 64)
					snap.Counters["_"+name+"."+col] = v
				}
			}
		case f[0] == "ctxt":
			v, _ := strconv.ParseFloat(f[1], 64)
			snap.Counters["ctxt"] = v
		case f[0] == "processes":
			v, _ := strconv.ParseFloat(f[1], 64)
			snap.Counters["forks"] = v
		case f[0] == "procs_running":
			v, _ := strconv.ParseFloat(f[1], 64)
			snap.Gauges["run_queue"] = v
		case f[0] == "procs_blocked":
			v, _ := strconv.ParseFloat(f[1], 64)
			snap.Gauges["procs_blocked"] = v
		}
	}
}

// parseMeminfo reads used and cached memory as free(1) computes them.
func parseMeminfo(b []byte, snap *evidence.Snapshot) {
	kb := map[string]float64{}
	for k, v := range procfs.ParseMeminfo(b) {
		kb[k] = float64(v)
	}
	if kb["MemTotal"] == 0 {
		return
	}
	cached := kb["Buffers"] + kb["Cached"] + kb["SReclaimable"]
	snap.Gauges["mem.total_mb"] = kb["MemTotal"] / 1024
	snap.Gauges["mem.free_mb"] = kb["MemFree"] / 1024
	snap.Gauges["mem.cached_mb"] = cached / 1024
	snap.Gauges["mem.used_mb"] = (kb["MemTotal"] - kb["MemFree"] - cached) / 1024
	if v, ok := kb["MemAvailable"]; ok {
		snap.Gauges["mem.available_mb"] = v / 1024
	}
	if kb["SwapTotal"] > 0 {
		snap.Gauges["mem.swap_used_mb"] = (kb["SwapTotal"] - kb["SwapFree"]) / 1024
	}
}

// parseDiskstats reads /proc/diskstats for whole block devices (not
// partitions, loop or ram devices).
func parseDiskstats(b []byte, snap *evidence.Snapshot) {
	type row struct {
		name string
		f    []float64
	}
	var rows []row
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 14 {
			continue
		}
		name := f[2]
		if strings.HasPrefix(name, "loop") || strings.HasPrefix(name, "ram") {
			continue
		}
		vals := make([]float64, 11)
		for i := range vals {
			vals[i], _ = strconv.ParseFloat(f[3+i], 64)
		}
		rows = append(rows, row{name, vals})
		names[name] = true
	}
	for _, r := range rows {
		if isPartition(r.name, names) {
			continue
		}
		p := "disk." + r.name + "."
		// Fields: reads, reads merged, sectors read, ms reading, writes,
		// writes merged, sectors written, ms writing, in flight, ms doing
		// I/O, weighted ms. Sectors are 512 bytes.
		snap.Counters[p+"reads"] = r.f[0]
		snap.Counters[p+"writes"] = r.f[4]
		snap.Counters[p+"read_mb"] = r.f[2] * 512 / 1e6
		snap.Counters[p+"write_mb"] = r.f[6] * 512 / 1e6
		snap.Counters["_"+p+"ms_read"] = r.f[3]
		snap.Counters["_"+p+"ms_write"] = r.f[7]
		snap.Counters["_"+p+"ms_io"] = r.f[9]
		snap.Counters["_"+p+"sectors"] = r.f[2] + r.f[6]
	}
}

// isPartition tells sda1 from sda and nvme0n1p1 from nvme0n1.
func isPartition(name string, names map[string]bool) bool {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] < '0' || name[i] > '9' {
			base := name[:i+1]
			if names[base] && base != name {
				return true
			}
			if name[i] == 'p' && names[name[:i]] {
				return true
			}
			return false
		}
	}
	return false
}

// Derive implements Deriver: CPU shares in percent (total and per CPU) and
// the iostat averages per device.
func (o *OS) Derive(prev, cur *evidence.Snapshot, values map[string]float64) {
	secs := cur.Time.Sub(prev.Time).Seconds()
	for k := range cur.Counters {
		if !strings.HasPrefix(k, "_cpu") || !strings.HasSuffix(k, ".user") {
			continue
		}
		cpu := strings.TrimSuffix(strings.TrimPrefix(k, "_"), ".user")
		d := map[string]float64{}
		var total float64
		for _, col := range cpuCols {
			key := "_" + cpu + "." + col
			v := cur.Counters[key] - prev.Counters[key]
			if v < 0 {
				v = 0
			}
			d[col] = v
			total += v
		}
		if total <= 0 {
			continue
		}
		pct := func(v float64) float64 { return round3(100 * v / total) }
		values[cpu+".user_pct"] = pct(d["user"] + d["nice"])
		values[cpu+".system_pct"] = pct(d["system"] + d["irq"] + d["softirq"])
		values[cpu+".iowait_pct"] = pct(d["iowait"])
		values[cpu+".idle_pct"] = pct(d["idle"])
		if d["steal"] > 0 {
			values[cpu+".steal_pct"] = pct(d["steal"])
		}
	}
	for k := range cur.Counters {
		if !strings.HasPrefix(k, "disk.") || !strings.HasSuffix(k, ".reads") {
			continue
		}
		p := strings.TrimSuffix(k, "reads")
		diff := func(name string) float64 { return cur.Counters[name] - prev.Counters[name] }
		ios := diff(p+"reads") + diff(p+"writes")
		if ios > 0 {
			values[p+"avg_req_kb"] = round3(diff("_"+p+"sectors") * 512 / 1024 / ios)
			values[p+"await_ms"] = round3((diff("_"+p+"ms_read") + diff("_"+p+"ms_write")) / ios)
		}
		if secs > 0 && ios > 0 {
			values[p+"util_pct"] = round3(min(100, diff("_"+p+"ms_io")/(secs*10)))
		}
	}
}
