package svg

import (
	"math"
	"strconv"
)

const tickEps = 1e-9

// decimal returns m×10^e, rounded once, so that tick values such as 0.3 are
// the float64 nearest to the decimal number rather than 3×0.1.
func decimal(m int64, e int) float64 {
	if e >= 0 {
		return float64(m) * math.Pow10(e)
	}
	return float64(m) / math.Pow10(-e)
}

// niceStep returns the step m×10^e, with m in {1, 2, 5}, nearest to span/n
// on a log scale (so the tick count is about n, sometimes a little more).
func niceStep(span float64, n int) (m int64, e int) {
	if n < 1 {
		n = 1
	}
	raw := span / float64(n)
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1, 0
	}
	e = int(math.Floor(math.Log10(raw)))
	f := raw / decimal(1, e)
	if f < 1-tickEps { // Log10 rounded up across a power of ten
		e--
		f *= 10
	}
	switch {
	case f >= math.Sqrt(50):
		m, e = 1, e+1
	case f >= math.Sqrt(10):
		m = 5
	case f >= math.Sqrt2:
		m = 2
	default:
		m = 1
	}
	return m, e
}

// NiceStep returns the "nice" step (1, 2 or 5 times a power of ten) nearest
// to span/n, so that it divides span into about n intervals.
func NiceStep(span float64, n int) float64 {
	m, e := niceStep(span, n)
	return decimal(m, e)
}

// LinearTicks returns evenly spaced tick values in steps of 1, 2 or 5 times a
// power of ten, about n intervals apart, such that the first tick is at or
// below lo and the last at or above hi. When lo equals hi the range is widened
// around it. It returns nil for non-finite input.
func LinearTicks(lo, hi float64, n int) []float64 {
	ticks, _, _ := linearTicks(lo, hi, n)
	return ticks
}

func linearTicks(lo, hi float64, n int) ([]float64, int64, int) {
	if !finite(lo) || !finite(hi) {
		return nil, 0, 0
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		if lo == 0 {
			hi = 1
		} else {
			d := math.Abs(lo) * 0.1
			lo, hi = lo-d, hi+d
		}
	}
	if !finite(hi - lo) {
		return []float64{lo, hi}, 1, 0
	}
	m, e := niceStep(hi-lo, n)
	step := decimal(m, e)
	if math.Abs(lo/step) > 1e15 || math.Abs(hi/step) > 1e15 {
		// The step is lost in the magnitude: ticks would not be distinct.
		return []float64{lo, hi}, m, e
	}
	i0 := int64(math.Floor(lo/step + tickEps))
	i1 := int64(math.Ceil(hi/step - tickEps))
	if i1 <= i0 {
		i1 = i0 + 1
	}
	if i1-i0 > 10000 { // unreachable for sane n; guards memory
		return []float64{lo, hi}, m, e
	}
	ticks := make([]float64, 0, i1-i0+1)
	for i := i0; i <= i1; i++ {
		ticks = append(ticks, decimal(i*m, e))
	}
	return ticks, m, e
}

// LogTicks returns tick values for a log10 axis that covers [lo, hi], both
// positive. Over more than two decades the ticks are powers of ten, every
// k-th decade when there would be more than n of them; over two decades or
// fewer they are 1, 2 and 5 times powers of ten. The first tick is at or
// below lo and the last at or above hi. It returns nil when lo is not
// positive or either bound is not finite.
func LogTicks(lo, hi float64, n int) []float64 {
	ticks, _ := logTicks(lo, hi, n)
	return ticks
}

// logTicks also reports whether the ticks are whole decades only.
func logTicks(lo, hi float64, n int) ([]float64, bool) {
	if !(lo > 0) || !finite(lo) || !finite(hi) {
		return nil, false
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if n < 1 {
		n = 1
	}
	e0 := int(math.Floor(math.Log10(lo) + tickEps))
	e1 := int(math.Ceil(math.Log10(hi) - tickEps))
	if e1 <= e0 {
		e1 = e0 + 1
	}
	if e1-e0 <= 2 && n >= 3 {
		var all []float64
		for e := e0; e <= e1; e++ {
			for _, m := range []int64{1, 2, 5} {
				all = append(all, decimal(m, e))
			}
		}
		// Keep the last value at or below lo through the first at or above hi.
		first, last := 0, len(all)-1
		for i, v := range all {
			if v <= lo*(1+tickEps) {
				first = i
			}
		}
		for i := len(all) - 1; i >= 0; i-- {
			if all[i] >= hi*(1-tickEps) {
				last = i
			}
		}
		if last-first >= 1 {
			return all[first : last+1], false
		}
	}
	// Every k-th decade, aligned to multiples of k, in at most n intervals.
	k := 1
	for (-floorMul(-e1, k)-floorMul(e0, k))/k > n {
		k++
	}
	e0 = floorMul(e0, k)
	e1 = -floorMul(-e1, k)
	var ticks []float64
	for e := e0; e <= e1; e += k {
		ticks = append(ticks, decimal(1, e))
	}
	return ticks, true
}

// floorMul rounds a down to a multiple of k.
func floorMul(a, k int) int {
	if a >= 0 {
		return a / k * k
	}
	return -((-a + k - 1) / k * k)
}

// durationSteps are the tick steps, in seconds, of a duration axis.
var durationSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// DurationTicks returns tick values for an axis of seconds, about n intervals
// apart, in steps that read well as clock times (1, 2, 5, 10, 15 and 30
// seconds; 1, 2, 5, 10, 15 and 30 minutes; 1, 2, 3, 6 and 12 hours; days).
// Spans shorter than n seconds fall back to LinearTicks.
func DurationTicks(lo, hi float64, n int) []float64 {
	if !finite(lo) || !finite(hi) {
		return nil
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if n < 1 {
		n = 1
	}
	raw := (hi - lo) / float64(n)
	if raw < 1 || raw > 1e9 { // below a second, or beyond clock-like spans
		return LinearTicks(lo, hi, n)
	}
	step := 0.0
	for _, s := range durationSteps {
		if s >= raw*(1-tickEps) {
			step = s
			break
		}
	}
	if step == 0 {
		step = 86400 * NiceStep((hi-lo)/86400, n)
	}
	i0 := math.Floor(lo/step + tickEps)
	i1 := math.Ceil(hi/step - tickEps)
	if i1 <= i0 {
		i1 = i0 + 1
	}
	var ticks []float64
	for i := i0; i <= i1; i++ {
		ticks = append(ticks, i*step)
	}
	return ticks
}

// FormatDuration formats seconds as m:ss, or h:mm:ss when withHours is set;
// fractions of a second are rounded.
func FormatDuration(sec float64, withHours bool) string {
	if !finite(sec) {
		return strconv.FormatFloat(sec, 'f', -1, 64)
	}
	s := int64(math.Round(sec))
	sign := ""
	if s < 0 {
		sign, s = "-", -s
	}
	h, m, ss := s/3600, s%3600/60, s%60
	if withHours {
		return sign + strconv.FormatInt(h, 10) + ":" + pad2(m) + ":" + pad2(ss)
	}
	return sign + strconv.FormatInt(s/60, 10) + ":" + pad2(ss)
}

func pad2(v int64) string {
	if v < 10 {
		return "0" + strconv.FormatInt(v, 10)
	}
	return strconv.FormatInt(v, 10)
}

// siScale picks the SI prefix used for labels of magnitude a.
func siScale(a float64) (float64, string) {
	switch {
	case a >= 1e9:
		return 1e9, "G"
	case a >= 1e6:
		return 1e6, "M"
	case a >= 1e4:
		return 1e3, "k"
	}
	return 1, ""
}

// formatLinearTicks labels linear ticks with as many decimals as the step
// needs, using k, M and G suffixes for large magnitudes.
func formatLinearTicks(ticks []float64, e int) []string {
	maxAbs := 0.0
	for _, t := range ticks {
		maxAbs = math.Max(maxAbs, math.Abs(t))
	}
	scale, suffix := siScale(maxAbs)
	scaleExp := int(math.Round(math.Log10(scale)))
	dec := scaleExp - e
	if dec < 0 {
		dec = 0
	}
	out := make([]string, len(ticks))
	for i, t := range ticks {
		if t == 0 {
			out[i] = "0"
			continue
		}
		out[i] = strconv.FormatFloat(t/scale, 'f', dec, 64) + suffix
	}
	return out
}

// formatLog labels a log-axis tick: 0.001, 1, 10, 2k, 1M.
func formatLog(v float64) string {
	scale, suffix := 1.0, ""
	switch a := math.Abs(v); {
	case a >= 1e9:
		scale, suffix = 1e9, "G"
	case a >= 1e6:
		scale, suffix = 1e6, "M"
	case a >= 1e3:
		scale, suffix = 1e3, "k"
	}
	return strconv.FormatFloat(v/scale, 'f', -1, 64) + suffix
}
