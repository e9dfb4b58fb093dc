// Package tablescan measures how fast a database reads one table from end
// to end (`dbharness scan`): the table's stored size over the time of a
// full scan whose plan was checked, in MiB/s and rows/s, at each parallel
// degree asked for. The engine's package knows the size and the query
// (db.TableScanner); this package times it and makes the run.
package tablescan

import (
	"context"
	"errors"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runner"
)

// Config is what to scan.
type Config struct {
	Table       string
	Parallel    []int // processes per query, each a step
	Repeat      int   // timed scans per step, after one untimed warming scan
	Percentiles []float64
	Command     []string
}

// ErrUnsupported says the engine cannot measure a scan.
var ErrUnsupported = errors.New("no table scan measurement")

// Measure scans the table and returns the run; a cancelled ctx ends it
// early, the run then marked interrupted with the scans it timed.
func Measure(ctx context.Context, d db.DB, cfg Config) (*results.Run, error) {
	ts, ok := d.(db.TableScanner)
	if !ok {
		return nil, fmt.Errorf("%w on %s", ErrUnsupported, d.Target().Kind)
	}
	info, err := d.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the server's version and settings: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := d.Connect(cctx)
	cancel()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ps := results.NormalizePercentiles(cfg.Percentiles)
	start := time.Now()
	r := &results.Run{SchemaVersion: results.SchemaVersion, RunID: results.NewRunID(start), Status: results.StatusCompleted,
		Workload: "scan", Command: results.RedactArgs(cfg.Command), Target: d.Target().String(), Engine: runner.EngineInfo(info),
		Host: hostinfo.Read(), StartTime: start, ErrorClasses: map[string]int64{},
		Config: results.Config{Percentiles: ps, MaxTries: 1, Transactions: int64(cfg.Repeat), WorkloadFlags: map[string]string{"table": cfg.Table}}}
	io := &results.IO{Pattern: "scan"}
	r.IO = io
	all := histogram.New()
	var runErr error
	var total float64 // seconds of the timed scans
	seq := 0
steps:
	for _, p := range cfg.Parallel {
		spec, err := ts.PrepareScan(ctx, conn, cfg.Table, p)
		if errors.Is(err, db.ErrNoParallelScan) {
			runErr = fmt.Errorf("%s has no parallel scan: give --parallel 1", info.Engine)
			break
		}
		if err != nil {
			runErr = fmt.Errorf("scan %s: %w", cfg.Table, err)
			break
		}
		if io.SizeBytes == 0 {
			io.SizeBytes = spec.Bytes
			io.Notes = append(io.Notes, fmt.Sprintf("%s: %d pages of %d bytes (%s)", cfg.Table, spec.Pages, spec.PageSize, spec.SizeSource))
			if spec.Cold != "" {
				io.Notes = append(io.Notes, "cold scans not measured: "+spec.Cold)
			}
		}
		io.Notes = append(io.Notes, fmt.Sprintf("plan, parallel %d: %s", p, spec.Plan))
		// The first scan warms the caches and is not timed.
		if _, err := count(ctx, conn, spec.SQL); err != nil {
			runErr = err
			break
		}
		h := histogram.New()
		st := results.IOStep{Name: fmt.Sprintf("warm, parallel %d", p), Threads: p, Cache: "warm"}
		for range cfg.Repeat {
			t0 := time.Now()
			n, err := count(ctx, conn, spec.SQL)
			if err != nil {
				runErr = err
				break steps
			}
			el := time.Since(t0)
			histogram.Record(h, el)
			st.Rows += n
			st.Bytes += spec.Bytes
			st.Seconds += el.Seconds()
			iv := results.Interval{Seq: seq, Phase: "measure", T: round3(time.Since(start).Seconds()), Seconds: round3(el.Seconds()), Count: 1}
			iv.TPS = round3(1 / el.Seconds())
			iv.LatencyMs = results.LatencyOf(oneValue(el), ps)
			iv.Ops = []results.IntervalOp{{Name: st.Name, Count: 1, TPS: iv.TPS, LatencyMs: iv.LatencyMs}}
			r.Intervals = append(r.Intervals, iv)
			seq++
		}
		// Rates from the exact time: a small table scans in well under
		// a millisecond.
		st.LatencyMs = results.LatencyOf(h, ps)
		st.SetRates()
		secs := st.Seconds
		st.Seconds = round3(secs)
		io.Steps = append(io.Steps, st)
		all.Merge(h)
		r.Ops = append(r.Ops, results.Op{Name: st.Name, Count: h.TotalCount(), TPS: tps(h.TotalCount(), secs),
			LatencyMs: st.LatencyMs, Histogram: results.EncodeHist(h)})
		r.Summary.Transactions += h.TotalCount()
		total += secs
		r.Config.Clients = max(r.Config.Clients, p)
	}
	r.EndTime = time.Now()
	r.Summary.Seconds = round3(total)
	r.Summary.TPS = tps(r.Summary.Transactions, total)
	r.Summary.LatencyMs = results.LatencyOf(all, ps)
	switch {
	case ctx.Err() != nil:
		r.Status, runErr = results.StatusInterrupted, nil
	case runErr != nil:
		r.Status, r.Error = results.StatusFailed, runErr.Error()
	}
	return r, runErr
}

func count(ctx context.Context, c db.Conn, sql string) (int64, error) {
	n, err := db.QueryInt64(ctx, c, sql)
	if err != nil {
		return 0, fmt.Errorf("scan: %w", err)
	}
	return n, nil
}

func oneValue(d time.Duration) *hdr.Histogram {
	h := histogram.New()
	histogram.Record(h, d)
	return h
}

func tps(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(int64(float64(n)/secs*100+0.5)) / 100
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
