package analysis

import (
	"math"
	"math/rand/v2"
)

// Verdict states how a candidate run B performed against a baseline run A.
type Verdict string

// The verdicts of a comparison; each describes B relative to A.
const (
	// Faster means B is better than A beyond the noise: higher throughput,
	// or lower latency when compared with LowerIsBetter.
	Faster Verdict = "faster"
	// Slower means B is worse than A beyond the noise.
	Slower Verdict = "slower"
	// NoSignificantDifference means the confidence interval of the change
	// contains zero, so the noise can explain the difference.
	NoSignificantDifference Verdict = "no significant difference"
	// InsufficientData means a side has fewer than two samples, a median is
	// NaN or infinite, or the baseline median is zero, so no interval can be
	// computed.
	InsufficientData Verdict = "insufficient data"
)

// Comparison is the result of comparing candidate samples B with baseline
// samples A: the relative change of the median and its confidence interval.
type Comparison struct {
	MedianA   float64 // median of the baseline samples
	MedianB   float64 // median of the candidate samples
	DeltaPct  float64 // (median(B) - median(A)) / |median(A)| * 100
	CILowPct  float64 // lower bound of the bootstrap interval of DeltaPct
	CIHighPct float64 // upper bound of the bootstrap interval of DeltaPct
	Level     float64 // confidence level of the interval, e.g. 0.95
	Verdict   Verdict // B relative to A
}

// CompareOption adjusts how CompareSamples resamples and judges.
type CompareOption func(*compareConfig)

type compareConfig struct {
	lowerIsBetter bool
	block         bool
	blockLen      int
}

// LowerIsBetter makes a decrease count as Faster, for latency samples; by
// default higher is better, as for throughput.
func LowerIsBetter() CompareOption {
	return func(c *compareConfig) { c.lowerIsBetter = true }
}

// WithBlockBootstrap resamples each side with moving blocks of blockLen
// consecutive values (blockLen <= 0 selects DefaultBlockLen of each side),
// which suits autocorrelated per-interval series.
func WithBlockBootstrap(blockLen int) CompareOption {
	return func(c *compareConfig) { c.block, c.blockLen = true, blockLen }
}

// WithIIDBootstrap resamples each side independently with replacement, which
// suits independent samples such as per-repeat results; it is the default of
// CompareSamples and undoes an earlier WithBlockBootstrap.
func WithIIDBootstrap() CompareOption {
	return func(c *compareConfig) { c.block = false }
}

// CompareSamples compares candidate samples b with baseline samples a by the
// relative difference of their medians, (median(b)-median(a))/|median(a)| in
// percent, with a percentile bootstrap interval at the given level built from
// iters joint resamples of both sides; an interval that contains zero gives
// NoSignificantDifference. By default the samples are throughput (higher is
// faster) and are resampled independently; see LowerIsBetter and
// WithBlockBootstrap.
func CompareSamples(a, b []float64, level float64, iters int, rng *rand.Rand, opts ...CompareOption) Comparison {
	level, iters, rng = normalise(level, iters, rng)
	var cfg compareConfig
	for _, o := range opts {
		o(&cfg)
	}
	nan := math.NaN()
	c := Comparison{
		MedianA: Median(a), MedianB: Median(b),
		DeltaPct: nan, CILowPct: nan, CIHighPct: nan,
		Level: level, Verdict: InsufficientData,
	}
	if len(a) < 2 || len(b) < 2 || !finite(c.MedianA) || !finite(c.MedianB) || c.MedianA == 0 {
		return c
	}
	c.DeltaPct = relDeltaPct(c.MedianA, c.MedianB)

	resample := resampler(iidResample)
	if cfg.block {
		resample = blockResampler(cfg.blockLen)
	}
	bufA := make([]float64, len(a))
	bufB := make([]float64, len(b))
	dist := make([]float64, 0, iters)
	for range iters {
		resample(bufA, a, rng)
		resample(bufB, b, rng)
		ma, mb := medianInPlace(bufA), medianInPlace(bufB)
		if ma == 0 {
			continue
		}
		if d := relDeltaPct(ma, mb); finite(d) {
			dist = append(dist, d)
		}
	}
	c.CILowPct, c.CIHighPct = percentileInterval(dist, level)
	c.Verdict = judge(c.CILowPct, c.CIHighPct, cfg.lowerIsBetter)
	return c
}

// CompareLatency is CompareSamples for latency samples, where lower is faster.
func CompareLatency(a, b []float64, level float64, iters int, rng *rand.Rand, opts ...CompareOption) Comparison {
	return CompareSamples(a, b, level, iters, rng, append(opts, LowerIsBetter())...)
}

// CompareIntervals is CompareSamples for per-interval time series (for
// example per-second throughput of two runs): it uses the moving-block
// bootstrap with DefaultBlockLen unless an option says otherwise.
func CompareIntervals(a, b []float64, level float64, iters int, rng *rand.Rand, opts ...CompareOption) Comparison {
	return CompareSamples(a, b, level, iters, rng, append([]CompareOption{WithBlockBootstrap(0)}, opts...)...)
}

// judge turns an interval of the change of B against A into a verdict.
func judge(low, high float64, lowerIsBetter bool) Verdict {
	var up, down Verdict = Faster, Slower
	if lowerIsBetter {
		up, down = Slower, Faster
	}
	switch {
	case math.IsNaN(low) || math.IsNaN(high):
		return InsufficientData
	case low > 0:
		return up
	case high < 0:
		return down
	default:
		return NoSignificantDifference
	}
}

func relDeltaPct(a, b float64) float64 {
	return (b - a) / math.Abs(a) * 100
}

func finite(x float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0)
}

// CompareIntervalMeans compares two per-interval time series (for example
// the per-interval throughput of two runs) by the relative difference of
// their means, (mean(b)-mean(a))/|mean(a)| in percent, which is the change
// of the runs' overall rates when intervals have equal lengths. Each side's
// standard error comes from a moving-block bootstrap (BlockMeanSE); the
// interval is built on the log of the ratio of the means, log(mb/ma) ± t ×
// sqrt((se_a/ma)^2 + (se_b/mb)^2), with t of Welch-Satterthwaite degrees of
// freedom, and mapped back to percent (so it is not symmetric around the
// delta; the delta method is used instead when a mean is not positive). Unlike the percentile interval of
// CompareIntervals it keeps about its stated false-positive rate on short
// series (10 to 20 intervals a side). MedianA and MedianB hold the means.
// Each side needs at least two blocks, else the verdict is
// InsufficientData.
func CompareIntervalMeans(a, b []float64, level float64, iters int, rng *rand.Rand) Comparison {
	level, iters, rng = normalise(level, iters, rng)
	nan := math.NaN()
	c := Comparison{MedianA: nan, MedianB: nan, DeltaPct: nan, CILowPct: nan, CIHighPct: nan, Level: level, Verdict: InsufficientData}
	ma, sea, dfa, oka := BlockMeanSE(a, 0, iters, rng)
	mb, seb, dfb, okb := BlockMeanSE(b, 0, iters, rng)
	c.MedianA, c.MedianB = ma, mb
	if !oka || !okb || ma == 0 {
		return c
	}
	return compareMeans(c, ma, sea, dfa, mb, seb, dfb)
}

// CompareMeansT compares independent samples b against a (such as the tps
// of repeated runs) by the relative difference of their means with Welch's
// t interval on the log of the ratio (the delta method when a mean is not
// positive). With 2 to 4 samples a side, where no percentile bootstrap can
// reach a 95% level (the bootstrap of the median of 2 samples called 35% of
// equal pairs different), it is the honest choice. MedianA and MedianB hold
// the means. Each side needs 2 samples.
func CompareMeansT(a, b []float64, level float64) Comparison {
	level, _, _ = normalise(level, 1, nil)
	nan := math.NaN()
	c := Comparison{MedianA: nan, MedianB: nan, DeltaPct: nan, CILowPct: nan, CIHighPct: nan, Level: level, Verdict: InsufficientData}
	if len(a) < 2 || len(b) < 2 {
		return c
	}
	ma, sea := meanSE(a)
	mb, seb := meanSE(b)
	c.MedianA, c.MedianB = ma, mb
	if !finite(ma) || !finite(mb) || ma == 0 {
		return c
	}
	return compareMeans(c, ma, sea, float64(len(a)-1), mb, seb, float64(len(b)-1))
}

// MeanTCI returns the mean of independent samples and its Student t
// interval at the given level (NaN without samples; the mean three times
// with one).
func MeanTCI(samples []float64, level float64) (mean, low, high float64) {
	level, _, _ = normalise(level, 1, nil)
	if len(samples) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean, se := meanSE(samples)
	if len(samples) < 2 {
		return mean, mean, mean
	}
	h := studentQuantile(level, float64(len(samples)-1)) * se
	return mean, mean - h, mean + h
}

func meanSE(xs []float64) (mean, se float64) {
	mean = meanOf(xs)
	if len(xs) < 2 {
		return mean, 0
	}
	return mean, StdDev(xs) / math.Sqrt(float64(len(xs)))
}

// StdDev returns the sample standard deviation of xs (divisor n-1), NaN
// with fewer than two values.
func StdDev(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	mean := meanOf(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// compareMeans fills c from two means, their standard errors and degrees
// of freedom.
func compareMeans(c Comparison, ma, sea, dfa, mb, seb, dfb float64) Comparison {
	level := c.Level
	c.DeltaPct = relDeltaPct(ma, mb)
	if ma > 0 && mb > 0 {
		// On the log of the ratio, where the interval of a ratio is
		// symmetric: var(log m) ~ (se/m)^2.
		va, vb := math.Pow(sea/ma, 2), math.Pow(seb/mb, 2)
		if va+vb == 0 {
			return exactVerdict(c)
		}
		df := (va + vb) * (va + vb) / (va*va/dfa + vb*vb/dfb)
		h := studentQuantile(level, df) * math.Sqrt(va+vb)
		lr := math.Log(mb / ma)
		c.CILowPct, c.CIHighPct = (math.Exp(lr-h)-1)*100, (math.Exp(lr+h)-1)*100
		c.Verdict = judge(c.CILowPct, c.CIHighPct, false)
		return c
	}
	// A zero mean on one side: the delta method on d = mb/ma - 1, with
	// dd/dmb = 1/ma and dd/dma = -mb/ma^2.
	va := math.Pow(sea*mb/(ma*ma), 2)
	vb := math.Pow(seb/ma, 2)
	se := math.Sqrt(va+vb) * 100
	if se == 0 {
		return exactVerdict(c)
	}
	df := (va + vb) * (va + vb) / (va*va/dfa + vb*vb/dfb)
	t := studentQuantile(level, df)
	c.CILowPct, c.CIHighPct = c.DeltaPct-t*se, c.DeltaPct+t*se
	c.Verdict = judge(c.CILowPct, c.CIHighPct, false)
	return c
}

// exactVerdict judges a comparison of two series without any spread.
func exactVerdict(c Comparison) Comparison {
	c.CILowPct, c.CIHighPct = c.DeltaPct, c.DeltaPct
	c.Verdict = judge(c.CILowPct, c.CIHighPct, false)
	if c.DeltaPct == 0 {
		c.Verdict = NoSignificantDifference
	}
	return c
}
