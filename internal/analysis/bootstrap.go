package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultLevel is the confidence level used when a caller passes 0.
const DefaultLevel = 0.95

// DefaultIters is the number of bootstrap resamples used when a caller passes
// a non-positive count.
const DefaultIters = 5000

// defaultSeed1 and defaultSeed2 seed the generator used when a caller passes a
// nil *rand.Rand, so that results stay reproducible.
const (
	defaultSeed1 = 0x6462686172
	defaultSeed2 = 0x6e657373
)

// ValidateLevel returns an error naming the value when level is not a
// confidence level strictly between 0 and 1.
func ValidateLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("confidence level must be between 0 and 1 (for example 0.95), got %v", level)
	}
	return nil
}

// normalise applies the documented defaults to level, iters and rng and
// panics on a level outside (0, 1), which is a programmer error.
func normalise(level float64, iters int, rng *rand.Rand) (float64, int, *rand.Rand) {
	if level == 0 {
		level = DefaultLevel
	}
	if err := ValidateLevel(level); err != nil {
		panic("analysis: " + err.Error())
	}
	if iters <= 0 {
		iters = DefaultIters
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(defaultSeed1, defaultSeed2))
	}
	return level, iters, rng
}

// DefaultBlockLen returns the moving-block length used for a series of n
// values when the caller does not choose one: ceil(sqrt(n)), at least 1.
func DefaultBlockLen(n int) int {
	if n <= 1 {
		return 1
	}
	return int(math.Ceil(math.Sqrt(float64(n))))
}

// resampler fills dst (len(dst) == len(src)) with a bootstrap resample of src.
type resampler func(dst, src []float64, rng *rand.Rand)

// iidResample draws len(src) values from src independently with replacement.
func iidResample(dst, src []float64, rng *rand.Rand) {
	n := len(src)
	for i := range dst {
		dst[i] = src[rng.IntN(n)]
	}
}

// blockResampler returns a moving-block resampler: it concatenates blocks of
// blockLen consecutive values, each starting at a uniformly chosen offset in
// [0, n-blockLen], and truncates the result to n values. A non-positive
// blockLen selects DefaultBlockLen(n); a blockLen above n is clamped to n.
func blockResampler(blockLen int) resampler {
	return func(dst, src []float64, rng *rand.Rand) {
		n := len(src)
		l := blockLen
		if l <= 0 {
			l = DefaultBlockLen(n)
		}
		l = min(l, n)
		starts := n - l + 1
		for i := 0; i < len(dst); {
			s := rng.IntN(starts)
			i += copy(dst[i:], src[s:s+l])
		}
	}
}

// Bootstrap returns stat(samples) and the percentile bootstrap confidence
// interval at the given level from iters resamples drawn independently with
// replacement; it suits independent samples such as per-repeat results.
//
// stat may reorder the slice it is given but must not keep it. With no
// samples all three results are NaN; with one sample the interval collapses to
// the estimate. Resamples whose statistic is NaN or infinite are dropped.
func Bootstrap(samples []float64, stat func([]float64) float64, level float64, iters int, rng *rand.Rand) (estimate, low, high float64) {
	return bootstrap(samples, stat, level, iters, rng, iidResample)
}

// BlockBootstrap is Bootstrap with the moving-block resampling of Künsch
// (1989), which keeps the autocorrelation of a time series such as
// per-interval throughput; blockLen <= 0 selects DefaultBlockLen(len(samples)).
func BlockBootstrap(samples []float64, blockLen int, stat func([]float64) float64, level float64, iters int, rng *rand.Rand) (estimate, low, high float64) {
	return bootstrap(samples, stat, level, iters, rng, blockResampler(blockLen))
}

// BootstrapMedianCI returns the median of independent samples and its
// percentile bootstrap confidence interval at the given level.
func BootstrapMedianCI(samples []float64, level float64, iters int, rng *rand.Rand) (median, low, high float64) {
	return Bootstrap(samples, medianInPlace, level, iters, rng)
}

// BlockBootstrapMedianCI returns the median of a time series (per-interval
// samples) and its moving-block bootstrap confidence interval at the given
// level; blockLen <= 0 selects DefaultBlockLen(len(samples)).
func BlockBootstrapMedianCI(samples []float64, blockLen int, level float64, iters int, rng *rand.Rand) (median, low, high float64) {
	return BlockBootstrap(samples, blockLen, medianInPlace, level, iters, rng)
}

func bootstrap(samples []float64, stat func([]float64) float64, level float64, iters int, rng *rand.Rand, resample resampler) (estimate, low, high float64) {
	level, iters, rng = normalise(level, iters, rng)
	nan := math.NaN()
	if len(samples) == 0 {
		return nan, nan, nan
	}
	estimate = stat(slices.Clone(samples))
	if math.IsNaN(estimate) {
		return nan, nan, nan
	}
	if len(samples) == 1 {
		return estimate, estimate, estimate
	}
	buf := make([]float64, len(samples))
	dist := make([]float64, 0, iters)
	for range iters {
		resample(buf, samples, rng)
		if v := stat(buf); !math.IsNaN(v) && !math.IsInf(v, 0) {
			dist = append(dist, v)
		}
	}
	low, high = percentileInterval(dist, level)
	return estimate, low, high
}

// percentileInterval sorts dist and returns its (1-level)/2 and (1+level)/2
// quantiles, or NaN twice when dist is empty.
func percentileInterval(dist []float64, level float64) (low, high float64) {
	if len(dist) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(dist)
	alpha := 1 - level
	return sortedQuantile(dist, alpha/2), sortedQuantile(dist, 1-alpha/2)
}

// BlockBootstrapMeanCI returns the mean of a time series (such as a run's
// per-interval throughput) and a confidence interval at the given level:
// mean ± t × se, where se is the moving-block bootstrap standard error of
// the mean (see BlockMeanSE) and t is Student's quantile with its degrees of
// freedom.
//
// The percentile interval of a block bootstrap is too narrow on short
// series (on 10 intervals of AR(1) noise with phi 0.3 a 95% percentile
// interval covered the true mean in about 70% of trials); the t quantile
// with few degrees of freedom and the end correction bring that to about
// 93%. blockLen <= 0 selects DefaultBlockLen(len(samples)). When the series
// has fewer than two blocks the interval collapses to the mean.
func BlockBootstrapMeanCI(samples []float64, blockLen int, level float64, iters int, rng *rand.Rand) (mean, low, high float64) {
	level, iters, rng = normalise(level, iters, rng)
	mean, se, df, ok := BlockMeanSE(samples, blockLen, iters, rng)
	if !ok {
		return mean, mean, mean
	}
	t := studentQuantile(level, df)
	return mean, mean - t*se, mean + t*se
}

// BlockMeanSE returns the mean of a time series, the moving-block bootstrap
// standard error of that mean from iters resamples (scaled by
// n/(n-blockLen+1) because moving blocks under-sample the ends of the
// series), and the degrees of freedom to use with it, 2k-1 for the
// k = n/blockLen blocks of the series. ok is false when there are fewer than
// two blocks or the mean is not finite; blockLen <= 0 selects
// DefaultBlockLen(len(samples)).
func BlockMeanSE(samples []float64, blockLen, iters int, rng *rand.Rand) (mean, se, df float64, ok bool) {
	_, iters, rng = normalise(0, iters, rng)
	n := len(samples)
	if n == 0 {
		return math.NaN(), math.NaN(), 0, false
	}
	mean = meanOf(samples)
	if blockLen <= 0 {
		blockLen = DefaultBlockLen(n)
	}
	blockLen = min(blockLen, n)
	k := n / blockLen
	if k < 2 || !finite(mean) {
		return mean, math.NaN(), 0, false
	}
	resample := blockResampler(blockLen)
	buf := make([]float64, n)
	var sum, sumSq float64
	for range iters {
		resample(buf, samples, rng)
		m := meanOf(buf)
		sum += m
		sumSq += m * m
	}
	bm := sum / float64(iters)
	v := max(sumSq/float64(iters)-bm*bm, 0) * float64(iters) / float64(iters-1)
	v *= float64(n) / float64(n-blockLen+1)
	return mean, math.Sqrt(v), float64(2*k - 1), true
}

// studentQuantile is the two-sided quantile of Student's t for the level.
func studentQuantile(level, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
