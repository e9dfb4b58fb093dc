package svg

import (
	"math"
	"sort"
)

// DefaultMaxPoints is the number of points per series a chart keeps when its
// MaxPoints is zero.
const DefaultMaxPoints = 2000

// Downsample reduces the series (xs[i], ys[i]) to at most maxPoints points
// while keeping its peaks. The points are split by index into equal buckets
// and each bucket contributes the point with its smallest y and the point
// with its largest y, in their original order, so a one-second spike in an
// hour of data survives. Gaps survive too: a bucket holding a point whose x
// or y is NaN or infinite also contributes its first such point, which breaks
// the line where the data had a hole.
//
// The first and the last point are always kept, so the series spans the
// same x range. xs is expected in ascending order. When the slices differ in
// length the extra tail of the longer one is ignored. maxPoints below 5 is
// treated as 5;
// when maxPoints is not below the number of points, or is zero or negative,
// the result is a copy of the input. The inputs are never modified.
func Downsample(xs, ys []float64, maxPoints int) ([]float64, []float64) {
	n := min(len(xs), len(ys))
	if maxPoints <= 0 || n <= maxPoints {
		return append([]float64(nil), xs[:n]...), append([]float64(nil), ys[:n]...)
	}
	maxPoints = max(maxPoints, 5)
	gaps := false
	for i := range n {
		if !finite(xs[i]) || !finite(ys[i]) {
			gaps = true
			break
		}
	}
	per := 2
	if gaps {
		per = 3
	}
	// The first and the last point are always kept, so the series keeps its
	// extent; the points between them are bucketed.
	inner := n - 2
	buckets := (maxPoints - 2) / per
	ox := make([]float64, 0, buckets*per+2)
	oy := make([]float64, 0, buckets*per+2)
	ox, oy = append(ox, xs[0]), append(oy, ys[0])
	var pick []int
	for b := range buckets {
		lo, hi := 1+b*inner/buckets, 1+(b+1)*inner/buckets
		iMin, iMax, iGap := -1, -1, -1
		for i := lo; i < hi; i++ {
			if !finite(xs[i]) || !finite(ys[i]) {
				if iGap < 0 {
					iGap = i
				}
				continue
			}
			if iMin < 0 || ys[i] < ys[iMin] {
				iMin = i
			}
			if iMax < 0 || ys[i] > ys[iMax] {
				iMax = i
			}
		}
		pick = pick[:0]
		for _, i := range []int{iMin, iMax, iGap} {
			if i >= 0 && !contains(pick, i) {
				pick = append(pick, i)
			}
		}
		sort.Ints(pick)
		for _, i := range pick {
			ox = append(ox, xs[i])
			oy = append(oy, ys[i])
		}
	}
	ox, oy = append(ox, xs[n-1]), append(oy, ys[n-1])
	return ox, oy
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// downsampleMean reduces x and each series of cols to at most maxPoints
// points by averaging equal runs of indices; it suits shares such as CPU
// use, where an average is the honest summary. NaN values are left out of
// an average; a bucket with no finite value stays NaN.
func downsampleMean(x []float64, cols [][]float64, maxPoints int) ([]float64, [][]float64) {
	n := len(x)
	if maxPoints <= 0 || n <= maxPoints {
		return x, cols
	}
	buckets := maxPoints
	ox := make([]float64, buckets)
	oc := make([][]float64, len(cols))
	for j := range cols {
		oc[j] = make([]float64, buckets)
	}
	for b := range buckets {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		ox[b] = mean(x[lo:hi])
		for j, col := range cols {
			oc[j][b] = mean(col[lo:hi])
		}
	}
	return ox, oc
}

func mean(v []float64) float64 {
	s, k := 0.0, 0
	for _, x := range v {
		if finite(x) {
			s += x
			k++
		}
	}
	if k == 0 {
		return math.NaN()
	}
	return s / float64(k)
}
