// Package experiment turns saved runs into the analysis of a sweep (points
// with confidence intervals, concurrency inflation, scaling efficiency, a
// USL fit) and into comparisons of two runs or two sweeps. It reads runs,
// never the target database, and never prints.
package experiment

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/dbharness/dbharness/internal/analysis"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/runphase"
)

// MinBootstrapRepeats is the fewest repeats for a percentile bootstrap over
// repeats; with fewer, Student's t is used (the percentile bootstrap of a
// median of n samples cannot cover more than 1-2^(1-n) of the time).
const MinBootstrapRepeats = 5

// Methods of a point's interval.
const (
	CIRepeats   = "repeats"   // percentile bootstrap of the median over runs
	CIRepeatsT  = "repeats-t" // Student t interval of the mean over 2-4 runs
	CIIntervals = "intervals" // one run: block-bootstrap t interval over its intervals
)

// Level is the confidence level of every interval.
const Level = 0.95

// Iters is the number of bootstrap resamples.
const Iters = 4000

// newRNG returns the fixed-seed generator of the bootstraps, so an analysis
// is reproducible.
func newRNG() *rand.Rand { return rand.New(rand.NewPCG(0x5357454550, 0x414e414c)) }

// VaryKey names a combination of vary values, e.g. "batch=10 key=uuid";
// "" for none.
func VaryKey(v map[string]string) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + v[k]
	}
	return strings.Join(parts, " ")
}

// MeasuredIntervalTPS returns a run's per-interval tps over the measured
// phase, for transaction type op ("" for the total), leaving out a short
// last interval (shorter than half the interval length), whose rate is
// noisy.
func MeasuredIntervalTPS(r *results.Run, op string) []float64 {
	var out []float64
	for _, iv := range r.Intervals {
		if iv.Phase != runphase.Measure {
			continue
		}
		if r.Config.IntervalSeconds > 0 && iv.Seconds < r.Config.IntervalSeconds/2 {
			continue
		}
		if op == "" {
			out = append(out, iv.TPS)
			continue
		}
		v := 0.0
		for _, o := range iv.Ops {
			if o.Name == op {
				v = o.TPS
			}
		}
		out = append(out, v)
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// tpsCI returns the point estimate and 95% interval of throughput for a
// point's completed runs: the bootstrap of the median over repeats when
// there are two or more, else the run's tps with a moving-block bootstrap of
// the mean of its per-interval tps. clipped is set when a t interval
// reached below zero and its low end was cut to 0.
func tpsCI(runs []*results.Run, rng *rand.Rand) (est, lo, hi float64, method string, clipped bool) {
	if len(runs) >= 2 {
		tps := make([]float64, len(runs))
		for i, r := range runs {
			tps[i] = r.Summary.TPS
		}
		if len(runs) >= MinBootstrapRepeats {
			est, lo, hi = analysis.BootstrapMedianCI(tps, Level, Iters, rng)
			return est, lo, hi, CIRepeats, false
		}
		// Too few repeats for a percentile bootstrap to reach 95% (with 3
		// samples its interval is at most [min, max], which covers the
		// median 75% of the time): Student's t over the repeats.
		_, lo, hi = analysis.MeanTCI(tps, Level)
		return analysis.Median(tps), max(lo, 0), hi, CIRepeatsT, lo < 0
	}
	r := runs[0]
	est = r.Summary.TPS
	ivs := MeasuredIntervalTPS(r, "")
	if len(ivs) < 2 {
		return est, est, est, CIIntervals, false
	}
	m, lo, hi := analysis.BlockBootstrapMeanCI(ivs, 0, Level, Iters, rng)
	// The mean of full intervals differs slightly from the run's tps (the
	// short last interval is left out): shift the interval onto the run's
	// figure. A few stalled intervals can stretch a t interval below zero,
	// which throughput cannot be.
	lo += est - m
	return est, max(lo, 0), hi + est - m, CIIntervals, lo < 0
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return analysis.Median(xs)
}

func ptr(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}

func roundPtr(f *float64, digits int) *float64 {
	if f == nil {
		return nil
	}
	v := round(*f, digits)
	return &v
}

// Analyze fills sw.Points, sw.Fits, sw.USL and sw.USLError from the
// completed runs of the sweep's plan (runs maps run ids to runs; runs
// missing from it or not completed are left out).
func Analyze(sw *results.Sweep, runs map[string]*results.Run) {
	rng := newRNG()
	groups := map[seriesKey][]*results.Run{}
	varyOf := map[string]map[string]string{}
	var seriesOrder []string
	for _, pr := range sw.Plan {
		r := runs[pr.RunID]
		if r == nil || r.Status != results.StatusCompleted {
			continue
		}
		s := VaryKey(pr.Vary)
		if _, ok := varyOf[s]; !ok {
			varyOf[s] = pr.Vary
			seriesOrder = append(seriesOrder, s)
		}
		k := seriesKey{s, pr.Clients}
		groups[k] = append(groups[k], r)
	}
	// Series in the order of the --vary values as given (batch=1, 2, 10,
	// not 1, 10, 2).
	rank := func(v map[string]string) []int {
		var r []int
		for _, f := range sw.Vary {
			i := len(f.Values)
			for j, x := range f.Values {
				if x == v[f.Flag] {
					i = j
				}
			}
			r = append(r, i)
		}
		return r
	}
	sort.SliceStable(seriesOrder, func(i, j int) bool {
		ri, rj := rank(varyOf[seriesOrder[i]]), rank(varyOf[seriesOrder[j]])
		for k := range ri {
			if ri[k] != rj[k] {
				return ri[k] < rj[k]
			}
		}
		return seriesOrder[i] < seriesOrder[j]
	})
	sw.Points = []results.SweepPoint{}
	sw.Fits = []results.SweepFit{}
	sw.USL, sw.USLError = nil, ""
	sw.HeadlineMetric = headlineMetric(groups)
	for _, s := range seriesOrder {
		var clients []int
		for k := range groups {
			if k.series == s {
				clients = append(clients, k.clients)
			}
		}
		sort.Ints(clients)
		var base *results.SweepPoint
		var uslPts []analysis.Point
		for _, n := range clients {
			rs := groups[seriesKey{s, n}]
			// Runs in execution order.
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].StartTime.Before(rs[j].StartTime) })
			pt := results.SweepPoint{Clients: n, Vary: varyOf[s]}
			est, lo, hi, method, clipped := tpsCI(rs, rng)
			pt.TPSMedian, pt.TPSCILow, pt.TPSCIHigh, pt.CIMethod = round(est, 2), round(lo, 2), round(hi, 2), method
			pt.TPSCILowClipped = clipped
			opNames := []string{}
			seen := map[string]bool{}
			for _, r := range rs {
				pt.Runs = append(pt.Runs, r.RunID)
				pt.TPS = append(pt.TPS, r.Summary.TPS)
				pt.Errors += r.Summary.Errors
				if r.Summary.HostCPU.Interfered() {
					pt.Interfered = append(pt.Interfered, r.RunID)
				}
				uslPts = append(uslPts, analysis.Point{N: float64(n), X: r.Summary.TPS})
				for _, o := range r.Ops {
					if !seen[o.Name] {
						seen[o.Name] = true
						opNames = append(opNames, o.Name)
					}
				}
			}
			pt.Physical = physicalMedians(rs)
			pt.Metrics = metricMedians(rs)
			pt.Workers = workerMedians(rs)
			for _, name := range opNames {
				var tps, p50, p99 []float64
				st := results.SweepOpStat{Name: name}
				for _, r := range rs {
					for _, o := range r.Ops {
						if o.Name != name {
							continue
						}
						tps = append(tps, o.TPS)
						st.Errors += o.Errors
						if v, ok := o.LatencyMs["p50"]; ok {
							p50 = append(p50, v)
						}
						if v, ok := o.LatencyMs["p99"]; ok {
							p99 = append(p99, v)
						}
					}
				}
				st.TPSMedian = round(medianOf(tps), 2)
				st.P50Ms = round(nanZero(medianOf(p50)), 3)
				st.P99Ms = round(nanZero(medianOf(p99)), 3)
				pt.Ops = append(pt.Ops, st)
			}
			if n == 1 {
				b := pt
				base = &b
			}
			if base != nil {
				pt.Efficiency = roundPtr(ptr(analysis.ScalingEfficiency(pt.TPSMedian, base.TPSMedian, n)), 4)
				for i := range pt.Ops {
					for _, bo := range base.Ops {
						if bo.Name == pt.Ops[i].Name {
							pt.Ops[i].InflationP50 = roundPtr(ratio(pt.Ops[i].P50Ms, bo.P50Ms), 3)
							pt.Ops[i].InflationP99 = roundPtr(ratio(pt.Ops[i].P99Ms, bo.P99Ms), 3)
						}
					}
				}
			}
			sw.Points = append(sw.Points, pt)
		}
		fit := results.SweepFit{Vary: varyOf[s]}
		if f, err := analysis.FitUSL(uslPts); err != nil {
			fit.USLError = strings.TrimPrefix(err.Error(), "fit USL: ")
		} else {
			fit.USL = uslModel(f, clients[len(clients)-1])
		}
		sw.Fits = append(sw.Fits, fit)
	}
	sw.SeriesComparisons = compareSeries(sw.Vary, seriesOrder, varyOf, groups, rng)
	switch {
	case len(sw.Fits) == 1:
		sw.USL, sw.USLError = sw.Fits[0].USL, sw.Fits[0].USLError
	case len(sw.Fits) == 0:
		sw.USLError = "no completed runs to fit"
	default:
		sw.USLError = "the sweep varies " + varyNames(sw.Vary) + "; fits[] has one USL fit per series"
	}
	sw.Caveats = caveats(sw, runs)
}

// seriesKey is one point of a sweep: a series (VaryKey) at a client count.
type seriesKey struct {
	series  string
	clients int
}

// compareSeries compares, at each client count, every series whose value
// of a swept flag is not the flag's first against the series that differs
// from it there only, with compare's statistics (compareGroup): by flag,
// then series, then clients. nil when nothing varies.
func compareSeries(vary []results.VaryFlag, order []string, varyOf map[string]map[string]string,
	groups map[seriesKey][]*results.Run, rng *rand.Rand) []results.SeriesComparison {
	var clients []int
	seen := map[int]bool{}
	for k := range groups {
		if !seen[k.clients] {
			seen[k.clients] = true
			clients = append(clients, k.clients)
		}
	}
	sort.Ints(clients)
	var out []results.SeriesComparison
	for _, f := range vary {
		for _, s := range order {
			vb := varyOf[s]
			if vb[f.Flag] == f.Values[0] {
				continue
			}
			va := make(map[string]string, len(vb))
			for k, v := range vb {
				va[k] = v
			}
			va[f.Flag] = f.Values[0]
			a := VaryKey(va)
			if _, ok := varyOf[a]; !ok {
				continue
			}
			for _, n := range clients {
				ra, rb := groups[seriesKey{a, n}], groups[seriesKey{s, n}]
				if len(ra) == 0 || len(rb) == 0 {
					continue
				}
				ops, method, note := compareGroup(ra, rb, rng)
				out = append(out, results.SeriesComparison{Clients: n, Flag: f.Flag, A: varyOf[a], B: vb, Method: method, Ops: ops, Note: note})
			}
		}
	}
	return out
}

// headlineMetric is the workload's result figure named by every run of
// groups, or "" when they do not all name the same one.
func headlineMetric[K comparable](groups map[K][]*results.Run) string {
	h, first := "", true
	for _, rs := range groups {
		for _, r := range rs {
			if first {
				h, first = r.Summary.HeadlineMetric, false
			} else if r.Summary.HeadlineMetric != h {
				return ""
			}
		}
	}
	return h
}

// metricMedians are the medians of the workload's figures over runs, each
// over the runs that have it; nil when none has any.
func metricMedians(runs []*results.Run) map[string]float64 {
	vals := map[string][]float64{}
	for _, r := range runs {
		for k, v := range r.Summary.Metrics {
			vals[k] = append(vals[k], v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	out := make(map[string]float64, len(vals))
	for k, vs := range vals {
		out[k] = round(medianOf(vs), 2)
	}
	return out
}

// workerMedians are the medians over the runs that measured them of the
// parallel workers their plans planned and launched; nil when none did.
func workerMedians(runs []*results.Run) *results.SweepWorkers {
	var planned, launched []float64
	for _, r := range runs {
		if p, l, n, _ := r.PlanWorkers(); n > 0 {
			planned, launched = append(planned, float64(p)), append(launched, float64(l))
		}
	}
	if len(planned) == 0 {
		return nil
	}
	return &results.SweepWorkers{Planned: round(medianOf(planned), 2), Launched: round(medianOf(launched), 2), Runs: len(planned)}
}

func varyNames(v []results.VaryFlag) string {
	var n []string
	for _, f := range v {
		n = append(n, "--"+f.Flag)
	}
	return strings.Join(n, ", ")
}

func nanZero(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return f
}

func ratio(a, b float64) *float64 {
	if !(b > 0) {
		return nil
	}
	return ptr(a / b)
}

// uslModel is the fit as the sweep records it; maxClients is the largest
// client count of its series, past which a peak is an extrapolation.
func uslModel(f analysis.USLFit, maxClients int) *results.USLModel {
	m := &results.USLModel{Lambda: round(f.Lambda, 4), Sigma: f.Sigma, Kappa: f.Kappa,
		R2: round(nanZero(f.R2), 4), Points: f.Points}
	m.PoorFit = m.R2 < results.USLMinR2
	if f.Bounded() {
		m.PeakClients = roundPtr(ptr(f.PeakClients), 2)
		m.PeakTPS = roundPtr(ptr(f.PeakTPS), 2)
		m.PeakExtrapolated = f.PeakClients > float64(maxClients)
	} else {
		m.AsymptoteTPS = roundPtr(ptr(f.PeakTPS), 2)
	}
	return m
}
