package report

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/evidence"
	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/hostinfo"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// hostileSample is an error message as a hostile or careless database
// might send it: it must render as text everywhere.
const hostileSample = `ERROR: relation "<script>alert('x')</script>" does not exist & more`

var (
	fixtureMu    sync.Mutex
	fixtureCache = map[[2]int][]byte{}
)

// syntheticRun returns a fresh copy of buildRun(n, warm), built once per
// test binary: the hour-long fixture goes through the real interval code
// 3600 times, which is slow under the race detector.
func syntheticRun(n, warm int) *results.Run {
	fixtureMu.Lock()
	b, ok := fixtureCache[[2]int{n, warm}]
	if !ok {
		var err error
		if b, err = json.Marshal(buildRun(n, warm)); err != nil {
			panic(err)
		}
		fixtureCache[[2]int{n, warm}] = b
	}
	fixtureMu.Unlock()
	var r results.Run
	if err := json.Unmarshal(b, &r); err != nil {
		panic(err)
	}
	return &r
}

// buildRun builds a deterministic run of n one-second intervals (the
// first warm of them warm-up) with two operations, a burst of errors with
// a hostile message, and a reconnect, the way `run` fills its model.
func buildRun(n, warm int) *results.Run {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := results.NormalizePercentiles(results.DefaultPercentiles)
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ops := []string{"tpcb_like", "select_only"}
	r := &results.Run{
		SchemaVersion: results.SchemaVersion, RunID: "20261122-100000-abcd", Status: results.StatusCompleted, Workload: "tpcb",
		Command: results.RedactArgs([]string{"dbharness", "run", "tpcb", "--db=postgres://u:secret@h/db", "-c", "8"}),
		Target:  "postgres://u:xxxxx@h/db",
		Engine:  results.EngineInfo{Engine: "postgresql", Version: "15.20", Settings: map[string]string{"shared_buffers": "128MB", "synchronous_commit": "on"}},
		Host:    hostinfo.Host{Hostname: "bench1", CPUModel: "Test CPU @ 3.0GHz", Cores: 2, MemoryMB: 4096, OS: "linux", Kernel: "6.1", Arch: "amd64", Go: "go1.26"},
		Config: results.Config{Clients: 8, DurationSeconds: float64(n - warm), WarmupSeconds: float64(warm), MaxTries: 1,
			IntervalSeconds: 1, Seed: 42, Percentiles: ps, WorkloadFlags: map[string]string{"mix": "tpcb-like"}},
		StartTime: start,
	}
	totals := make([]*hdr.Histogram, len(ops))
	warmTotals := make([]*hdr.Histogram, len(ops))
	for i := range ops {
		totals[i], warmTotals[i] = histogram.New(), histogram.New()
	}
	opErr := make([]int64, len(ops))
	classes := map[string]int64{}
	var reconnects int64
	var measCount int64
	for s := 0; s < n; s++ {
		phase := runphase.Measure
		if s < warm {
			phase = runphase.Warmup
		}
		tk := &loadgen.Tick{Seq: s, Phase: phase, Start: start.Add(time.Duration(s) * time.Second),
			End: start.Add(time.Duration(s+1) * time.Second), Elapsed: time.Duration(s+1) * time.Second}
		// A slow rise during warm-up, a dip in the middle, noise throughout.
		base := 400.0
		if s < warm {
			base = 150 + 250*float64(s)/float64(max(warm, 1))
		}
		if s > n/2 && s < n/2+3 {
			base = 120
		}
		for i := range ops {
			h := histogram.New()
			cnt := int(base*(1+0.1*rng.NormFloat64())) / (i + 1)
			// Up to 50 drawn latencies per interval, each standing for an
			// equal share of the interval's transactions (keeps the
			// hour-long fixture quick under -race).
			draws := min(cnt, 50)
			for j := 0; j < draws; j++ {
				us := math.Exp(rng.NormFloat64()*0.6 + 7.2 + 0.4*float64(1-i))
				if rng.IntN(200) == 0 {
					us *= 40
				}
				n := int64(cnt / draws)
				if j == draws-1 {
					n = int64(cnt - (draws-1)*(cnt/draws))
				}
				_ = h.RecordValues(int64(us), n)
			}
			ot := loadgen.OpTick{Hist: h}
			if s == n/2 && i == 0 {
				ot.Errors = 3
				tk.ErrorClasses = map[string]int64{"sqlstate:42": 3}
				classes["sqlstate:42"] += 3
				opErr[i] += 3
			}
			tk.Ops = append(tk.Ops, ot)
			if phase == runphase.Measure {
				totals[i].Merge(h)
				measCount += h.TotalCount()
			} else {
				warmTotals[i].Merge(h)
			}
		}
		if s == n/2+1 {
			tk.Reconnects, tk.Down = 2, 1
			reconnects += 2
		}
		if phase == runphase.Measure {
			tk.PhaseCount, tk.PhaseSeconds = measCount, float64(s-warm+1)
		}
		r.Intervals = append(r.Intervals, results.IntervalFromTick(tk, ops, ps))
	}
	res := &loadgen.Result{ErrorClasses: classes, ErrorSamples: map[string]string{"sqlstate:42": hostileSample},
		Reconnects: reconnects, Start: start, MeasureStart: start.Add(time.Duration(warm) * time.Second),
		End: start.Add(time.Duration(n) * time.Second)}
	for i, name := range ops {
		res.Ops = append(res.Ops, loadgen.OpResult{Name: name, Hist: totals[i], Errors: opErr[i]})
		res.Warmup = append(res.Warmup, loadgen.OpResult{Name: name, Hist: warmTotals[i]})
	}
	r.Fill(res, nil)
	return r
}

// withEvidence adds synthetic collector data to a run, shaped as
// internal/collect writes it: OS and server series on the run's intervals,
// a wait profile and statement plans (one flagged, with hostile SQL).
func withEvidence(r *results.Run) *results.Run {
	rng := rand.New(rand.NewPCG(7, 8))
	local := true
	osS := &evidence.Series{Source: "/proc on the local host", Describes: "client host", DBLocal: &local, Totals: map[string]float64{}}
	srv := &evidence.Series{Source: "pg_stat_database, pg_stat_wal", Describes: "database server postgres://u:xxxxx@h/db",
		Unavailable: []string{"pg_stat_wal.wal_write_time, wal_sync_time: track_wal_io_timing is off"}, Totals: map[string]float64{}}
	waits := &results.Waits{Method: "pg_stat_activity sampled every 100 ms", Unit: "samples"}
	events := []string{"CPU", "LWLock:WALWrite", "IO:WALSync", "Lock:transactionid", "Client:ClientRead"}
	weights := map[string]float64{}
	for _, iv := range r.Intervals {
		tps := iv.TPS
		user := 35 + 5*rng.NormFloat64()
		sys := 12 + 2*rng.NormFloat64()
		iow := 6 + 2*rng.Float64()
		osS.Intervals = append(osS.Intervals, evidence.Point{Seq: iv.Seq, Phase: iv.Phase, T: iv.T, Seconds: iv.Seconds,
			Rates: map[string]float64{"disk.sda.read_mb": 0.5 * rng.Float64(), "disk.sda.write_mb": tps * 0.012, "disk.sda.writes": tps * 1.1, "ctxt": tps * 9, "resched_ipis": tps * 0.3},
			Values: map[string]float64{"cpu.user_pct": user, "cpu.system_pct": sys, "cpu.iowait_pct": iow, "cpu.idle_pct": 100 - user - sys - iow - 1,
				"cpu.steal_pct":     1,
				"disk.sda.util_pct": math.Min(100, tps/8), "disk.sda.await_ms": 0.4 + rng.Float64(), "run_queue": 2 + float64(rng.IntN(4)), "mem.used_mb": 1800}})
		if iv.Seq%2 == 0 { // the collector leaves out steal when there is none
			delete(osS.Intervals[len(osS.Intervals)-1].Values, "cpu.steal_pct")
		}
		srv.Intervals = append(srv.Intervals, evidence.Point{Seq: iv.Seq, Phase: iv.Phase, T: iv.T, Seconds: iv.Seconds,
			Rates: map[string]float64{"pg_stat_database.xact_commit": tps, "pg_stat_database.blks_hit": tps * 14, "pg_stat_database.blks_read": tps * 0.3,
				"pg_stat_wal.wal_bytes": tps * 900, "pg_stat_database.tup_updated": tps * 3},
			Values: map[string]float64{"pg_stat_database.hit_pct": 97 + 2*rng.Float64()}})
		shares := map[string]float64{}
		left := 1.0
		for i, e := range events {
			v := left * (0.45 + 0.1*rng.Float64())
			if i == len(events)-1 {
				v = left
			}
			shares[e], left = v, left-v
			if iv.Phase == runphase.Measure {
				weights[e] += v * 80
			}
		}
		waits.Intervals = append(waits.Intervals, results.WaitInterval{Seq: iv.Seq, Phase: iv.Phase, T: iv.T, Total: 80, Shares: shares})
		if iv.Phase == runphase.Measure {
			osS.Totals["disk.sda.write_mb"] += tps * 0.012
			srv.Totals["pg_stat_database.xact_commit"] += tps
			srv.Totals["pg_stat_wal.wal_bytes"] += tps * 900
		}
	}
	for _, e := range events {
		waits.Total += weights[e]
	}
	for _, e := range events {
		waits.Events = append(waits.Events, results.WaitShare{Event: e, Weight: math.Round(weights[e]), Share: weights[e] / waits.Total})
	}
	r.Collect = &results.Collect{Enabled: []string{"os", "server", "waits", "plans"}, Series: map[string]*evidence.Series{"os": osS, "server": srv}}
	r.Waits = waits
	r.Plans = []results.StatementPlans{
		{Statement: "update_accounts", SQL: "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
			Plans: []results.PlanVariant{{Fingerprint: "a1b2c3", Shape: "Update on pgbench_accounts\n  -> Index Scan using pgbench_accounts_pkey on pgbench_accounts", Count: 8,
				Examples: []results.PlanExample{{Draw: "min", Params: map[string]any{"aid": 1, "delta": -5000}}}}}},
		{Statement: "update_teller", SQL: "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2", Flags: []string{"changed-during-run"},
			Plans: []results.PlanVariant{{Fingerprint: "c91f", Shape: "ModifyTable (Update, on pgbench_tellers) [Seq Scan (on pgbench_tellers, as Outer)]", Count: 4}},
			Changed: []results.PlanChange{
				{Params: map[string]any{"tid": 1}, Before: "c91f", After: "4201", AfterShape: "ModifyTable (Update, on pgbench_tellers) [Index Scan (on pgbench_tellers, using pgbench_tellers_pkey, Forward, as Outer)]"},
				{Params: map[string]any{"tid": 2}, Before: "c91f", After: "4201", AfterShape: "ModifyTable (Update, on pgbench_tellers) [Index Scan (on pgbench_tellers, using pgbench_tellers_pkey, Forward, as Outer)]"},
				{Params: map[string]any{"tid": 3}, Before: "c91f", After: "4201", AfterShape: "ModifyTable (Update, on pgbench_tellers) [Index Scan (on pgbench_tellers, using pgbench_tellers_pkey, Forward, as Outer)]"},
				{Params: map[string]any{"tid": 4}, Before: "c91f", After: "4201", AfterShape: "ModifyTable (Update, on pgbench_tellers) [Index Scan (on pgbench_tellers, using pgbench_tellers_pkey, Forward, as Outer)]"}}},
		{Statement: "select_<script>", SQL: "SELECT * FROM t WHERE note = '<script>alert(5)</script>' AND k > $1",
			Flags: []string{"parameter-sensitive"},
			Plans: []results.PlanVariant{
				{Fingerprint: "f00d01", Shape: "Index Scan using t_k on t", Count: 6, Examples: []results.PlanExample{{Draw: "max", Params: map[string]any{"k": 99000}}}},
				{Fingerprint: "f00d02", Shape: "Seq Scan on t\n  Filter: (k > $1)", Count: 2, Examples: []results.PlanExample{{Draw: "min", Params: map[string]any{"k": 1}}}}}},
	}
	return r
}
