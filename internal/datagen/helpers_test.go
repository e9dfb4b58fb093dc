package datagen

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// testSeed is the seed of every random stream in the tests: the tests are
// deterministic, so a failure is reproducible rather than a fluke.
const testSeed = 20240901

// alpha is the significance level of the goodness-of-fit tests.
const alpha = 1e-3

// chiSquare returns Pearson's statistic for observed counts against expected
// probabilities, after merging neighbouring bins until each expects at least
// five observations, and its degrees of freedom.
func chiSquare(counts []int64, probs []float64) (stat float64, df int) {
	var total int64
	for _, c := range counts {
		total += c
	}
	var obs, exp []float64
	o, e := 0.0, 0.0
	for i := range counts {
		o += float64(counts[i])
		e += probs[i] * float64(total)
		if e >= 5 {
			obs, exp = append(obs, o), append(exp, e)
			o, e = 0, 0
		}
	}
	if o > 0 || e > 0 {
		if len(obs) == 0 {
			obs, exp = append(obs, 0), append(exp, 0)
		}
		obs[len(obs)-1] += o
		exp[len(exp)-1] += e
	}
	for i := range obs {
		if exp[i] == 0 {
			return math.Inf(1), len(obs) - 1 // observations where none can be
		}
		d := obs[i] - exp[i]
		stat += d * d / exp[i]
	}
	return stat, len(obs) - 1
}

// checkFit fails t unless counts fit probs at significance level alpha.
func checkFit(t *testing.T, counts []int64, probs []float64) {
	t.Helper()
	if len(counts) != len(probs) {
		t.Fatalf("%d bins of counts but %d probabilities", len(counts), len(probs))
	}
	sum := 0.0
	for _, p := range probs {
		sum += p
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Fatalf("expected probabilities sum to %v, not 1", sum)
	}
	stat, df := chiSquare(counts, probs)
	if df < 1 {
		t.Fatalf("only %d degrees of freedom", df)
	}
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
	if !(stat <= crit) {
		t.Errorf("chi-square %.1f with %d degrees of freedom exceeds the critical value %.1f (alpha %g)", stat, df, crit, alpha)
	}
}

// fits reports whether counts fit probs, for tests that a wrong hypothesis
// is rejected.
func fits(counts []int64, probs []float64) bool {
	stat, df := chiSquare(counts, probs)
	return stat <= distuv.ChiSquared{K: float64(df)}.Quantile(1-alpha)
}

// countDraws draws n values from d and counts each value of [d.Min(),
// d.Max()]; it fails t on a value outside the range.
func countDraws(t *testing.T, d IntDist, n int, streams ...uint64) []int64 {
	t.Helper()
	r := NewRand(testSeed, streams...)
	lo, hi := d.Min(), d.Max()
	counts := make([]int64, hi-lo+1)
	for range n {
		v := d.Int64(r)
		if v < lo || v > hi {
			t.Fatalf("drew %d, outside [%d, %d]", v, lo, hi)
		}
		counts[v-lo]++
	}
	return counts
}

// zipfProbs returns the probabilities of ranks 1..n for exponent s.
func zipfProbs(n int, s float64) []float64 {
	p := make([]float64, n)
	sum := 0.0
	for k := range p {
		p[k] = math.Pow(float64(k+1), -s)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// normMass returns P(a <= X < b) for X normal(mean, sd), computed in the
// tail where it is accurate.
func normMass(a, b, mean, sd float64) float64 {
	n := distuv.Normal{Mu: mean, Sigma: sd}
	if a+b > 2*mean {
		return n.Survival(a) - n.Survival(b)
	}
	return n.CDF(b) - n.CDF(a)
}

// gaussianProbs returns the probabilities of lo..hi for NewGaussian(lo, hi,
// mean, sd).
func gaussianProbs(lo, hi int64, mean, sd float64) []float64 {
	p := make([]float64, hi-lo+1)
	sum := 0.0
	for i := range p {
		k := float64(lo + int64(i))
		p[i] = normMass(k-0.5, k+0.5, mean, sd)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// ksStatistic returns the one-sample Kolmogorov-Smirnov distance between
// the sample (sorted in place) and cdf.
func ksStatistic(sample []float64, cdf func(float64) float64) float64 {
	sort.Float64s(sample)
	n := float64(len(sample))
	d := 0.0
	for i, x := range sample {
		f := cdf(x)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}

// ksCritical is the asymptotic critical value of the KS distance at alpha
// = 0.001 for n observations.
func ksCritical(n int) float64 { return 1.9495 / math.Sqrt(float64(n)) }

// newRand is a shorthand for the tests' random streams.
func newRand(streams ...uint64) *rand.Rand { return NewRand(testSeed, streams...) }
