//go:build linux

// Command metricscost measures the CPU that --metrics-addr costs a run, by
// doing its whole work alone, many times over: each interval's tick (the
// merged HdrHistograms and counters of every transaction type turned into
// Prometheus buckets and counters), the collectors' points, and one scrape
// of /metrics over HTTP in Prometheus' protobuf format (what a Prometheus
// with native histograms asks for) or the text format. CPU is the process's
// own (getrusage), the HTTP client that reads the page included, so the
// figure is an upper bound. A run with one tick and one scrape a second
// loses about that share of one core; bench/metrics-overhead.sh measures
// the same on real runs, where a busy machine hides anything near 1%.
//
//	go run ./bench/metricscost -ops 5 -tps 40000 -seconds 600
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/measure"
	"github.com/dbharness/dbharness/internal/metrics"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	nops := flag.Int("ops", 1, "transaction types (tpcb 1, tpcc 5)")
	tps := flag.Int("tps", 40000, "transactions per interval, spread over the types")
	seconds := flag.Int("seconds", 300, "intervals (seconds of a run) to replay")
	counters := flag.Int("counters", 60, "counters of each of the os and server collectors")
	format := flag.String("format", "protobuf", "protobuf or text")
	flag.Parse()
	accept := "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
	if *format == "text" {
		accept = "text/plain; version=0.0.4"
	}
	srv, err := metrics.Listen("127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer srv.Close()
	ops := make([]string, *nops)
	for i := range ops {
		ops[i] = fmt.Sprintf("op%d", i)
	}
	run := srv.StartRun(metrics.RunInfo{RunID: "bench", Workload: "bench", Engine: "postgresql", Ops: ops, Clients: 8, Start: time.Now()})
	// Ticks as the engine makes them: latencies log-normal around 250 µs
	// with a tail to tens of ms; 16 different ones, replayed in turn.
	rng := rand.New(rand.NewPCG(1, 2))
	ticks := make([]*measure.Tick, 16)
	for k := range ticks {
		tk := &measure.Tick{Phase: "measure", ErrorClasses: map[string]int64{"sqlstate:40": 1}}
		for range ops {
			h := hdr.New(1, 3_600_000_000, 2)
			for range *tps / *nops {
				_ = h.RecordValue(int64(250 * math.Exp(rng.NormFloat64()*0.8)))
			}
			tk.Ops = append(tk.Ops, measure.OpTick{Hist: h, Errors: 1})
		}
		ticks[k] = tk
	}
	point := func() evidence.Point {
		p := evidence.Point{Rates: map[string]float64{}, Values: map[string]float64{}}
		for i := range *counters {
			p.Rates[fmt.Sprintf("counter_%d", i)] = rng.Float64() * 1e4
			p.Values[fmt.Sprintf("value_%d_pct", i)] = rng.Float64() * 100
		}
		return p
	}
	scrape := func() int {
		req, _ := http.NewRequest("GET", srv.URL(), nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return int(n)
	}
	scrape() // the connection, once
	var tickCPU, scrapeCPU time.Duration
	size := 0
	for i := range *seconds {
		c0 := cpu()
		run.OnTick(ticks[i%len(ticks)])
		run.OnPoint("os", i, point())
		run.OnPoint("server", i, point())
		c1 := cpu()
		size = scrape()
		c2 := cpu()
		tickCPU += c1 - c0
		scrapeCPU += c2 - c1
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(*seconds) }
	total := per(tickCPU + scrapeCPU)
	fmt.Printf("%d types, %d transactions per interval, %d counters per collector, %s scrapes of %d bytes, %d intervals:\n",
		*nops, *tps, *counters, *format, size, *seconds)
	fmt.Printf("  per interval: tick and points %.0f µs, scrape %.0f µs; one of each a second costs %.3f%% of one core\n",
		per(tickCPU), per(scrapeCPU), total/1e4)
}
