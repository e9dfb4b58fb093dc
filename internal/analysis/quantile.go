package analysis

import (
	"math"
	"slices"
)

// Median returns the median of xs (the mean of the two middle values when
// len(xs) is even), or NaN when xs is empty or contains NaN; xs is not
// modified.
func Median(xs []float64) float64 {
	return Quantile(xs, 0.5)
}

// Quantile returns the q-th quantile of xs, 0 <= q <= 1, by linear
// interpolation between order statistics (Hyndman and Fan type 7, the default
// of R and NumPy); it returns NaN when xs is empty, contains NaN or q is
// outside [0, 1], and does not modify xs.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	for _, x := range s {
		if math.IsNaN(x) {
			return math.NaN()
		}
	}
	slices.Sort(s)
	return sortedQuantile(s, q)
}

// sortedQuantile is Quantile for an already sorted, non-empty slice without
// NaN.
func sortedQuantile(s []float64, q float64) float64 {
	n := len(s)
	if n == 1 {
		return s[0]
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return s[n-1]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return s[lo]
	}
	return s[lo] + frac*(s[lo+1]-s[lo])
}

// medianInPlace returns the median of xs, reordering xs; it returns NaN for
// an empty slice or one that contains NaN. It runs in expected linear time,
// which matters inside bootstrap loops.
func medianInPlace(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	for _, x := range xs {
		if math.IsNaN(x) {
			return math.NaN()
		}
	}
	k := n / 2
	hi := selectKth(xs, k)
	if n%2 == 1 {
		return hi
	}
	// After selection every element left of k is <= xs[k]; the lower middle
	// value is the largest of them.
	lo := xs[0]
	for _, x := range xs[1:k] {
		lo = max(lo, x)
	}
	return lo + (hi-lo)/2
}

// selectKth reorders xs so that xs[k] holds the value it would have if xs
// were sorted, with no larger value before it and no smaller value after it,
// and returns xs[k]. xs must not contain NaN.
func selectKth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for hi-lo > 16 {
		// Median-of-three pivot, then Hoare partition.
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// Now xs[lo..j] <= pivot, xs[i..hi] >= pivot, and anything between
		// equals pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	// Insertion sort the small remaining range.
	for a := lo + 1; a <= hi; a++ {
		for b := a; b > lo && xs[b] < xs[b-1]; b-- {
			xs[b], xs[b-1] = xs[b-1], xs[b]
		}
	}
	return xs[k]
}
