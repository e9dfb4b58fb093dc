package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/dbharness/dbharness/internal/analysis"
	"github.com/dbharness/dbharness/internal/results"
)

// syntheticSweep builds a sweep over 1..32 clients, 3 repeats, whose
// throughput follows a USL curve with noise, analysed the way the sweep
// command does (median, bootstrap interval, efficiency, inflation, USL fit
// from internal/analysis). With vary, a second series (mix=select-only)
// scales better.
func syntheticSweep(vary bool) *results.Sweep {
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC)
	clients := []int{1, 2, 4, 8, 16, 32}
	sw := &results.Sweep{SchemaVersion: results.SweepSchemaVersion, SweepID: "sw-20261122-110000-beef", Workload: "tpcb",
		Command:  []string{"dbharness", "sweep", "tpcb", "--db", "postgres://u:xxxxx@h/db", "--clients", "1,2,4,8,16,32", "--repeat", "3"},
		BaseArgs: []string{"tpcb", "--db", "postgres://u:xxxxx@h/db", "-T", "10s"}, Target: "postgres://u:xxxxx@h/db",
		Clients: clients, Repeat: 3, OrderSeed: 7, Status: results.StatusCompleted, StartTime: start, EndTime: start.Add(20 * time.Minute),
		Caveats: []results.SweepCaveat{}}
	type ser struct {
		vary                 map[string]string
		lambda, sigma, kappa float64
	}
	all := []ser{{nil, 900, 0.05, 0.002}}
	if vary {
		sw.Vary = []results.VaryFlag{{Flag: "mix", Values: []string{"tpcb-like", "select-only"}}}
		all = []ser{{map[string]string{"mix": "tpcb-like"}, 900, 0.05, 0.002}, {map[string]string{"mix": "select-only"}, 3000, 0.02, 0.0005}}
	}
	seq := 0
	for _, s := range all {
		var pts []analysis.Point
		var p1, p99at1 float64
		for _, n := range clients {
			model := analysis.USLFit{Lambda: s.lambda, Sigma: s.sigma, Kappa: s.kappa}.Predict(float64(n))
			var tps []float64
			var ids []string
			for r := 1; r <= 3; r++ {
				v := model * (1 + 0.03*rng.NormFloat64())
				tps = append(tps, v)
				id := fmt.Sprintf("20261122-11%02d%02d-%04x", seq/60, seq%60, seq)
				ids = append(ids, id)
				sw.Plan = append(sw.Plan, results.SweepRun{Seq: seq, Round: r, Clients: n, Vary: s.vary, RunID: id, Status: results.StatusCompleted})
				sw.RunIDs = append(sw.RunIDs, id)
				pts = append(pts, analysis.Point{N: float64(n), X: v})
				seq++
			}
			med, lo, hi := analysis.BootstrapMedianCI(tps, 0.95, 500, rand.New(rand.NewPCG(5, 6)))
			p50 := 1000 / s.lambda * (1 + s.sigma*float64(n-1) + s.kappa*float64(n*(n-1)))
			p99 := p50 * 3.2
			pt := results.SweepPoint{Clients: n, Vary: s.vary, TPSMedian: med, TPSCILow: lo, TPSCIHigh: hi, CIMethod: "repeats", TPS: tps, Runs: ids}
			if n == 1 {
				p1, p99at1 = med, p99
			}
			eff := med / (float64(n) * p1)
			pt.Efficiency = &eff
			i50, i99 := p50/(1000/s.lambda), p99/p99at1
			pt.Ops = []results.SweepOpStat{{Name: "tpcb_like", TPSMedian: med, P50Ms: p50, P99Ms: p99, InflationP50: &i50, InflationP99: &i99}}
			sw.Points = append(sw.Points, pt)
		}
		fit, err := analysis.FitUSL(pts)
		sf := results.SweepFit{Vary: s.vary}
		if err != nil {
			sf.USLError = err.Error()
		} else {
			m := &results.USLModel{Lambda: fit.Lambda, Sigma: fit.Sigma, Kappa: fit.Kappa, R2: fit.R2, Points: fit.Points}
			if !math.IsInf(fit.PeakClients, 1) {
				pc, pt := fit.PeakClients, fit.PeakTPS
				m.PeakClients, m.PeakTPS = &pc, &pt
			}
			sf.USL = m
		}
		sw.Fits = append(sw.Fits, sf)
		if !vary {
			sw.USL, sw.USLError = sf.USL, sf.USLError
		}
	}
	sort.SliceStable(sw.Points, func(i, j int) bool { return varyLabel(sw.Points[i].Vary) < varyLabel(sw.Points[j].Vary) })
	return sw
}

func f64(v float64) *float64 { return &v }

// syntheticComparison is B against A for two operations: one clearly
// faster, one within the noise, with configuration differences.
func syntheticComparison() *results.Comparison {
	return &results.Comparison{SchemaVersion: results.CompareSchemaVersion,
		A:      results.CompareSide{Kind: "run", ID: "20261122-100000-aaaa", Workload: "tpcb", Runs: []string{"20261122-100000-aaaa"}},
		B:      results.CompareSide{Kind: "run", ID: "20261122-101000-bbbb", Workload: "tpcb", Runs: []string{"20261122-101000-bbbb"}},
		Method: "intervals", Level: 0.95,
		Ops: []results.CompareOp{
			{Name: "tpcb_like", TPSA: 4000, TPSB: 4600, TPSDeltaPct: f64(15), TPSCILowPct: f64(11.2), TPSCIHighPct: f64(18.9),
				LatencyA: results.Latency{"p50": 1.9, "p99": 7.5}, LatencyB: results.Latency{"p50": 1.6, "p99": 6.1},
				P50DeltaPct: f64(-15.8), P99DeltaPct: f64(-18.7), Verdict: "faster"},
			{Name: "select_only", TPSA: 9000, TPSB: 9100, TPSDeltaPct: f64(1.1), TPSCILowPct: f64(-2.5), TPSCIHighPct: f64(4.8),
				LatencyA: results.Latency{"p50": 0.8, "p99": 3.1}, LatencyB: results.Latency{"p50": 0.8, "p99": 3.3},
				P50DeltaPct: f64(0), P99DeltaPct: f64(6.5), Verdict: "no significant difference"},
			{Name: "total", TPSA: 13000, TPSB: 13700, TPSDeltaPct: f64(5.4), TPSCILowPct: f64(2.1), TPSCIHighPct: f64(8.8),
				LatencyA: results.Latency{"p50": 1.1, "p99": 6.2}, LatencyB: results.Latency{"p50": 1.0, "p99": 5.5},
				P50DeltaPct: f64(-9.1), P99DeltaPct: f64(-11.3), Verdict: "faster"},
		},
		ConfigDifferences: []results.ConfigDiff{{Key: "engine.settings.shared_buffers", A: "128MB", B: "1GB"},
			{Key: "engine.settings.<script>x</script>", A: "<b>on</b>", B: "off"}},
		Figures: []results.FigureDiff{{Name: "nopm", Label: "New-Order transactions a minute", A: f64(51000), B: f64(58650), DeltaPct: f64(15), Headline: true, RunsA: 1, RunsB: 1},
			{Name: "<i>tpm</i>", A: f64(117000), B: nil, RunsA: 1}},
		Notes: []string{"A and B ran on the same host."},
	}
}
