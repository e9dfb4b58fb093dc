package tpch

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// The figures of clause 5.4, computed from the timing intervals the run
// measured (at the client's clock's resolution: the specification's
// rounding of each interval up to 0.1 s, clause 5.3.7.5, would make every
// interval of a small scale factor equal).

// Figure keys in the run's summary.
const (
	MetricPower      = "power_at_size"
	MetricThroughput = "throughput_at_size"
	MetricQphH       = "qphh_at_size"
	MetricGeoMean    = "query_geomean_s"
	MetricPowerS     = "power_test_s"
	MetricTS         = "throughput_test_s"
	MetricTPGeoMean  = "throughput_query_geomean_s"
)

var metricLabels = map[string]string{
	MetricPower:      "Power@Size: 3600 x SF over the geometric mean of the power test's 22 query and 2 refresh times in seconds (clause 5.4.1)",
	MetricThroughput: "Throughput@Size: S x 22 x 3600 over the throughput test's seconds, x SF (clause 5.4.2)",
	MetricQphH:       "QphH@Size: the geometric mean of Power@Size and Throughput@Size (clause 5.4.3)",
	MetricGeoMean:    "the geometric mean of the power test's 22 query times, in seconds",
	MetricPowerS:     "the power test's elapsed seconds, from RF1's start to RF2's end",
	MetricTS:         "Ts: the throughput test's elapsed seconds, from the first stream's start to the last stream's end (clause 5.3.7.7)",
	MetricTPGeoMean:  "the geometric mean of the throughput test's query times, in seconds",
}

// adjustIntervals raises each query interval below the longest / 1000 to
// that (clause 5.4.1.4: no query may weigh in the geometric mean as less
// than a thousandth of the longest), and returns them in seconds.
func adjustIntervals(ds []time.Duration) []float64 {
	longest := 0.0
	for _, d := range ds {
		longest = max(longest, d.Seconds())
	}
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = max(d.Seconds(), longest/1000)
	}
	return out
}

// geoMean is the geometric mean of xs (all above 0), through logs.
func geoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// PowerAtSize is clause 5.4.1's figure from the power test's 22 query
// times and 2 refresh times.
func PowerAtSize(sf float64, queries [22]time.Duration, rf1, rf2 time.Duration) float64 {
	all := append(adjustIntervals(queries[:]), rf1.Seconds(), rf2.Seconds())
	return 3600 * sf / geoMean(all)
}

// ThroughputAtSize is clause 5.4.2's figure: S streams of 22 queries in ts.
func ThroughputAtSize(sf float64, streams int, ts time.Duration) float64 {
	return float64(streams) * 22 * 3600 / ts.Seconds() * sf
}

// QphHAtSize is clause 5.4.3's figure.
func QphHAtSize(power, throughput float64) float64 { return math.Sqrt(power * throughput) }

// figures computes the run's figures; an error says why some are missing.
func (b *bench) figures() (map[string]float64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.scripts[0]
	for i := range b.powerSteps {
		switch {
		case !p.done[i]:
			return nil, errors.New("the power test did not finish: no TPC-H figures")
		case p.errs[i] != nil:
			return nil, fmt.Errorf("%s of the power test failed, so there are no TPC-H figures: %w", opNames[p.steps[i].op], p.errs[i])
		}
	}
	var qs [22]time.Duration
	var rf [2]time.Duration
	for i, st := range p.steps[:b.powerSteps] {
		switch st.op {
		case opRF1, opRF2:
			rf[st.op-opRF1] = p.durs[i]
		default:
			qs[st.op] = p.durs[i]
		}
	}
	m := map[string]float64{}
	power := PowerAtSize(b.sf, qs, rf[0], rf[1])
	m[MetricPower] = round2(power)
	m[MetricGeoMean] = round4(geoMean(adjustIntervals(qs[:])))
	m[MetricPowerS] = round4(b.powerEnd.Sub(b.powerStart).Seconds())
	if b.streams == 0 {
		return m, nil
	}
	var begin, end time.Time
	var tq []time.Duration
	for _, sc := range b.scripts {
		for i, st := range sc.steps {
			if st.phase != phaseThroughput {
				continue
			}
			switch {
			case !sc.done[i]:
				return m, errors.New("the throughput test did not finish: no Throughput@Size or QphH@Size")
			case sc.errs[i] != nil:
				return m, fmt.Errorf("%s of throughput stream %d failed, so there is no Throughput@Size or QphH@Size: %w", opNames[st.op], st.stream, sc.errs[i])
			case st.op < opRF1:
				tq = append(tq, sc.durs[i])
			}
			if begin.IsZero() || sc.starts[i].Before(begin) {
				begin = sc.starts[i]
			}
		}
		if sc.ended.After(end) {
			end = sc.ended
		}
	}
	ts := end.Sub(begin)
	tp := ThroughputAtSize(b.sf, b.streams, ts)
	m[MetricThroughput] = round2(tp)
	m[MetricQphH] = round2(QphHAtSize(power, tp))
	m[MetricTS] = round4(ts.Seconds())
	m[MetricTPGeoMean] = round4(geoMean(adjustIntervals(tq)))
	return m, nil
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
