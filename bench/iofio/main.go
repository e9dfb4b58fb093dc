//go:build linux

// Command iofio runs the same storage patterns with fio and with
// `dbharness io`, alternately, pair after pair, on the same directory with
// the same block size, queue depth, direct flag and size, and prints for
// each pattern the ratios dbharness/fio of bandwidth, IOPS and p99
// latency (median and range over the pairs), with each side's CPU time
// (user + system of the child, from wait4's rusage).
//
// Each tool reports its own figures for its measured phase (fio's JSON,
// dbharness's --json); the files each lays out beforehand are not in them.
// bench/io-vs-fio.sh builds dbharness and runs this.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// figures are one run's results.
type figures struct {
	mibps, iops, p99ms float64
	cpu, wall          time.Duration
}

// kase is one pattern configuration, run by both tools.
type kase struct {
	name     string
	fio      []string // fio's job options
	dbh      []string // dbharness io's flags
	syncP99  bool     // compare the fdatasync p99 (log writes)
	note     string
	fioWrite bool // fio reports the write side
}

func main() {
	dbh := flag.String("dbharness", "dbharness", "the dbharness binary")
	dir := flag.String("dir", "", "directory to measure (required)")
	size := flag.String("size", "256MiB", "working set of the sequential and random patterns")
	depths := flag.String("depths", "1,4,16", "queue depths of the reads")
	direct := flag.Bool("direct", true, "O_DIRECT on both sides")
	logWrites := flag.Int("log-writes", 2000, "log writes (each followed by fdatasync) per run")
	logBlock := flag.String("log-block", "4KiB", "log write size")
	n := flag.Int("n", 5, "pairs per pattern")
	only := flag.String("only", "", "run only the patterns whose name contains this")
	flag.Parse()
	if *dir == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "iofio: give -dir and -n >= 1")
		os.Exit(2)
	}
	sz := parseSize(*size)
	lb := parseSize(*logBlock)
	d := "0"
	if *direct {
		d = "1"
	}
	common := []string{"--ioengine=psync", "--direct=" + d, "--group_reporting", "--output-format=json", "--randrepeat=0"}
	dbhCommon := []string{"io", "--dir", *dir, "--no-save", "--json", "-", "--keep-free", "1GiB", "--step-time", "0"}
	if *direct {
		dbhCommon = append(dbhCommon, "--direct")
	}
	var cases []kase
	cases = append(cases,
		kase{name: "seqwrite 1MiB overwrite", fioWrite: true,
			fio: []string{"--rw=write", "--bs=1M", fmt.Sprintf("--size=%d", sz), "--overwrite=1", "--end_fsync=1"},
			dbh: []string{"--pattern", "seqwrite", "--block", "1MiB", "--size", strconv.FormatInt(sz, 10), "--overwrite"}},
		kase{name: "seqwrite 1MiB extend", fioWrite: true,
			fio:  []string{"--rw=write", "--bs=1M", fmt.Sprintf("--size=%d", sz), "--fallocate=none", "--end_fsync=1", "--unlink=1"},
			dbh:  []string{"--pattern", "seqwrite", "--block", "1MiB", "--size", strconv.FormatInt(sz, 10), "--extend"},
			note: "fio creates the file at its full size (sparse, ftruncate) and fills it; dbharness appends to an empty file, so every write also grows it: not the same work"},
	)
	for _, q := range strings.Split(*depths, ",") {
		qd, err := strconv.Atoi(q)
		if err != nil || qd < 1 {
			fmt.Fprintf(os.Stderr, "iofio: bad depth %q\n", q)
			os.Exit(2)
		}
		per := sz / int64(qd) / 8192 * 8192
		for _, rw := range []string{"read", "randread"} {
			pat := map[string]string{"read": "seqread", "randread": "randread"}[rw]
			cases = append(cases, kase{name: fmt.Sprintf("%s 8KiB qd%d", pat, qd),
				fio: []string{"--rw=" + rw, "--bs=8k", fmt.Sprintf("--numjobs=%d", qd), fmt.Sprintf("--size=%d", per),
					fmt.Sprintf("--offset_increment=%d", per), "--invalidate=1"},
				dbh: []string{"--pattern", pat, "--read-block", "8KiB", "--depth", q, "--size", strconv.FormatInt(per*int64(qd), 10)}})
		}
	}
	cases = append(cases, kase{name: fmt.Sprintf("logwrite %s fdatasync", *logBlock), fioWrite: true, syncP99: true,
		fio: []string{"--rw=write", fmt.Sprintf("--bs=%d", lb), fmt.Sprintf("--size=%d", lb*int64(*logWrites)), "--overwrite=1", "--fdatasync=1"},
		dbh: []string{"--pattern", "logwrite", "--log-block", strconv.FormatInt(lb, 10), "--log-writes", strconv.Itoa(*logWrites), "--streams", "1", "--overwrite"}})

	fmt.Printf("fio: %s; dbharness: %s; dir %s; direct %v; %d pairs per pattern, alternating which runs first\n",
		strings.TrimSpace(version("fio", "--version")), strings.TrimSpace(version(*dbh, "version")), *dir, *direct, *n)
	for _, c := range cases {
		if *only != "" && !strings.Contains(c.name, *only) {
			continue
		}
		fmt.Printf("== %s\n", c.name)
		if c.note != "" {
			fmt.Printf("   (%s)\n", c.note)
		}
		var bw, iops, p99, cpu []float64
		for i := 1; i <= *n; i++ {
			var f, b figures
			if i%2 == 1 {
				f, b = runFio(*dir, c, common), runDbh(*dbh, c, dbhCommon)
			} else {
				b, f = runDbh(*dbh, c, dbhCommon), runFio(*dir, c, common)
			}
			bw, iops, p99 = append(bw, b.mibps/f.mibps), append(iops, b.iops/f.iops), append(p99, b.p99ms/f.p99ms)
			cpu = append(cpu, b.cpu.Seconds()/f.cpu.Seconds())
			fmt.Printf("  pair %d: fio %8.1f MiB/s %8.0f IOPS p99 %7.3f ms cpu %5.2fs | dbharness %8.1f MiB/s %8.0f IOPS p99 %7.3f ms cpu %5.2fs\n",
				i, f.mibps, f.iops, f.p99ms, f.cpu.Seconds(), b.mibps, b.iops, b.p99ms, b.cpu.Seconds())
		}
		fmt.Printf("  dbharness/fio: bandwidth %s, IOPS %s, p99 %s, process CPU %s\n", spread(bw), spread(iops), spread(p99), spread(cpu))
	}
}

// spread is "median (min-max)".
func spread(v []float64) string {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%.3f (%.3f-%.3f)", m, s[0], s[len(s)-1])
}

func version(cmd string, arg string) string {
	out, err := exec.Command(cmd, arg).Output()
	if err != nil {
		return cmd + " (version unknown)"
	}
	return string(out)
}

// run runs a command and returns its output and rusage CPU and wall time.
func run(name string, args ...string) ([]byte, time.Duration, time.Duration) {
	c := exec.Command(name, args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "iofio: %s %s failed (%v):\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
		os.Exit(1)
	}
	wall := time.Since(start)
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	return out.Bytes(), time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), wall
}

func runFio(dir string, c kase, common []string) figures {
	file := filepath.Join(dir, "iofio.fio-file")
	defer os.Remove(file)
	if strings.Contains(strings.Join(c.fio, " "), "unlink") {
		os.Remove(file)
	}
	args := append([]string{"--name=iofio", "--filename=" + file}, common...)
	args = append(args, c.fio...)
	out, cpu, wall := run("fio", args...)
	// fio may print notes before its JSON.
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	var doc struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Jobs) == 0 {
		fmt.Fprintf(os.Stderr, "iofio: fio's JSON: %v\n%s", err, out)
		os.Exit(1)
	}
	side := "read"
	if c.fioWrite {
		side = "write"
	}
	var s struct {
		BwBytes float64 `json:"bw_bytes"`
		IOPS    float64 `json:"iops"`
		Clat    struct {
			Percentile map[string]float64 `json:"percentile"`
		} `json:"clat_ns"`
	}
	if err := json.Unmarshal(doc.Jobs[0][side], &s); err != nil {
		fmt.Fprintf(os.Stderr, "iofio: fio's %s figures: %v\n", side, err)
		os.Exit(1)
	}
	f := figures{mibps: s.BwBytes / (1 << 20), iops: s.IOPS, p99ms: s.Clat.Percentile["99.000000"] / 1e6, cpu: cpu, wall: wall}
	if c.syncP99 {
		var sy struct {
			Lat struct {
				Percentile map[string]float64 `json:"percentile"`
			} `json:"lat_ns"`
		}
		if err := json.Unmarshal(doc.Jobs[0]["sync"], &sy); err == nil {
			f.p99ms = sy.Lat.Percentile["99.000000"] / 1e6
		}
	}
	return f
}

func runDbh(bin string, c kase, common []string) figures {
	out, cpu, wall := run(bin, append(append([]string{}, common...), c.dbh...)...)
	var runs []struct {
		IO struct {
			Steps []struct {
				MiBPerS   float64            `json:"mib_per_s"`
				IOPS      float64            `json:"iops"`
				LatencyMs map[string]float64 `json:"latency_ms"`
				SyncMs    map[string]float64 `json:"sync_ms"`
			} `json:"steps"`
		} `json:"io"`
	}
	if err := json.Unmarshal(out, &runs); err != nil || len(runs) != 1 || len(runs[0].IO.Steps) != 1 {
		fmt.Fprintf(os.Stderr, "iofio: dbharness's JSON (%v):\n%s", err, out)
		os.Exit(1)
	}
	st := runs[0].IO.Steps[0]
	f := figures{mibps: st.MiBPerS, iops: st.IOPS, p99ms: st.LatencyMs["p99"], cpu: cpu, wall: wall}
	if c.syncP99 {
		f.p99ms = st.SyncMs["p99"]
	}
	return f
}

// parseSize reads 256MiB, 4KiB, 1GiB or a byte count.
func parseSize(s string) int64 {
	units := map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
	for u, m := range units {
		if strings.HasSuffix(s, u) {
			v, err := strconv.ParseInt(strings.TrimSuffix(s, u), 10, 64)
			if err == nil {
				return v * m
			}
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "iofio: bad size %q\n", s)
		os.Exit(2)
	}
	return v
}
