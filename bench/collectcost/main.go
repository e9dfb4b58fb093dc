//go:build linux

// Command collectcost measures the CPU the evidence collectors use, on the
// client and on the PostgreSQL server, by running them alone for a while
// (OS and server counters once per interval, pg_stat_activity every 100 ms)
// beside some idle sessions of a pretend run. Throughput comparisons on a
// busy machine cannot resolve 1%; CPU accounting can: a run that keeps the
// machine's CPUs busy loses about (collector CPU / total CPU) of its
// throughput.
//
//	go run ./bench/collectcost -db postgres://postgres@127.0.0.1/postgres -seconds 20
//
// With -duty D it measures the collectors' cost in throughput instead,
// within one run of load so that the machine's drift between runs does
// not blur it: it starts the collectors (as a run does, sampling the
// sessions whose application_name is -app), keeps them for D, stops them
// (closing their connections), waits D, and so on for -seconds, writing
// each on-window's start and end to -windows. -analyze RUN.json reads
// the load run's per-interval throughput against those windows (see
// analyze.go and bench/collect-duty.sh). With -load 'run ...' it runs
// that load itself, in this process, so that the collectors share the
// load's process as in a run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	_ "github.com/dbharness/dbharness/internal/db/all" // every engine
	"github.com/dbharness/dbharness/internal/db/postgres"
	"github.com/dbharness/dbharness/internal/evidence"
)

func main() {
	url := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres", "PostgreSQL URL (local server: its backends' CPU is read from /proc)")
	secs := flag.Int("seconds", 20, "how long the collectors run")
	sessions := flag.Int("sessions", 4, "idle sessions of the pretend run")
	duty := flag.Duration("duty", 0, "alternate: collectors on for this long, then off as long (0: run them alone and count their CPU)")
	app := flag.String("app", "", "with -duty: the application_name of the load's sessions, which the collectors sample")
	windows := flag.String("windows", "", "with -duty: file the on-windows are written to; with -analyze: read from")
	analyzeRun := flag.String("analyze", "", "a load run's JSON: its interval throughput with the collectors on against off (needs -windows)")
	load := flag.String("load", "", "with -duty: a dbharness command line (run ...) this process runs beside the collectors, so that they share its process as in a run; its output goes to standard output")
	flag.Parse()
	var err error
	switch {
	case *analyzeRun != "":
		err = analyze(*analyzeRun, *windows)
	case *duty > 0 && *load != "":
		err = dutyBeside(strings.Fields(*load), *url, *app, *windows, *duty, time.Duration(*secs)*time.Second)
	case *duty > 0:
		err = dutyCycle(*url, *app, *windows, *duty, time.Duration(*secs)*time.Second)
	default:
		err = run(*url, *secs, *sessions)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "collectcost:", err)
		os.Exit(1)
	}
}

// ticksPerSecond is USER_HZ, the unit of /proc/PID/stat's utime and stime.
const ticksPerSecond = 100

func backendCPU(pid int64) (float64, error) {
	b, err := os.ReadFile("/proc/" + strconv.FormatInt(pid, 10) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return (u + k) / ticksPerSecond, nil
}

func selfCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func run(url string, secs, sessions int) error {
	ctx := context.Background()
	t, err := db.ParseURL(url)
	if err != nil {
		return err
	}
	d, err := db.Open(t)
	if err != nil {
		return err
	}
	defer d.Close()
	app := d.(db.Tagger).Tag(fmt.Sprintf("dbharness-collectcost-%d", os.Getpid()))
	for i := 0; i < sessions; i++ {
		c, err := d.Connect(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
	}
	col := collect.For(d, map[string]bool{collect.KindOS: true, evidence.KindServer: true, evidence.KindWaits: true}, app, nil)
	if w := col.Start(ctx); len(w) > 0 {
		return fmt.Errorf("%v", w)
	}
	mon, err := d.Connect(ctx)
	if err != nil {
		return err
	}
	defer mon.Close()
	rows, err := mon.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", postgres.CollectorAppName)
	if err != nil {
		return err
	}
	var pids []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			return err
		}
		pids = append(pids, p)
	}
	rows.Close()
	server := func() float64 {
		var s float64
		for _, p := range pids {
			v, err := backendCPU(p)
			if err == nil {
				s += v
			}
		}
		return s
	}
	start, c0, s0 := time.Now(), selfCPU(), server()
	col.Begin(start)
	for i := 0; i < secs; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * time.Second)))
		col.Boundary(i, "measure", time.Now())
	}
	time.Sleep(50 * time.Millisecond)
	s1 := server()
	res := col.Stop(-1, "", time.Time{})
	c1 := time.Since(start).Seconds()
	client, srv := selfCPU()-c0, s1-s0
	cores := runtime.NumCPU()
	fmt.Printf("collectors alone for %.1fs (%d collector backends, %d idle run sessions, %d wait samples, %d OS and %d server points)\n",
		c1, len(pids), sessions, int(res.Waits.Total), points(res, collect.KindOS), points(res, evidence.KindServer))
	fmt.Printf("client CPU %.2f ms/s, server CPU %.2f ms/s, total %.2f ms/s = %.3f%% of %d cores\n",
		1000*client/c1, 1000*srv/c1, 1000*(client+srv)/c1, 100*(client+srv)/c1/float64(cores), cores)
	return nil
}

// points counts the intervals of one collector's series, 0 when it has none.
func points(res *collect.Result, name string) int {
	if s := res.Series[name]; s != nil {
		return len(s.Intervals)
	}
	return 0
}
