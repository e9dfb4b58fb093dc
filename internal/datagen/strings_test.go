package datagen

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestRandString(t *testing.T) {
	t.Run("RandString appends n alphanumeric bytes after what dst holds", func(t *testing.T) {
		r := newRand(5)
		for _, n := range []int{0, 1, 9, 10, 11, 111, 4100} {
			got := RandString(r, []byte("key:"), n)
			if len(got) != 4+n || string(got[:4]) != "key:" {
				t.Fatalf("RandString(n=%d) = %q", n, got)
			}
			for _, c := range got[4:] {
				if !strings.ContainsRune(Alphanumeric, rune(c)) {
					t.Fatalf("byte %q is not alphanumeric", c)
				}
			}
		}
	})
	t.Run("every alphanumeric character is equally likely", func(t *testing.T) {
		r := newRand(6)
		index := make(map[byte]int, len(Alphanumeric))
		for i := range len(Alphanumeric) {
			index[Alphanumeric[i]] = i
		}
		counts := make([]int64, len(Alphanumeric))
		buf := make([]byte, 0, 1000)
		for range 1000 {
			buf = RandString(r, buf[:0], 1000)
			for _, c := range buf {
				counts[index[c]]++
			}
		}
		probs := make([]float64, len(counts))
		for i := range probs {
			probs[i] = 1 / float64(len(probs))
		}
		checkFit(t, counts, probs)
	})
}

func TestStringLengthMeans(t *testing.T) {
	for _, c := range []struct {
		name   string
		length IntDist
		mean   float64
	}{
		{"a fixed length of 111", NewConstant(111), 111},
		{"a uniform length over 10..30", Must(NewUniform(10, 30)), 20},
		{"a gaussian length with mean 100 and deviation 30 within 0..200", Must(NewGaussian(0, 200, 100, 30)), 100},
		{"a gaussian length with mean 10 and deviation 20 within 1..50", Must(NewGaussian(1, 50, 10, 20)), meanOf(gaussianProbs(1, 50, 10, 20), 1)},
		{"a zipf length over 1..1000", Must(NewZipf(1, 1000, 0.9)), meanOf(zipfProbs(1000, 0.9), 1)},
	} {
		t.Run(fmt.Sprintf("%s averages %.2f within 2%%", c.name, c.mean), func(t *testing.T) {
			g := Must(NewStringGen(c.length))
			r := newRand(7)
			const n = 100_000
			buf := make([]byte, 0, 1024)
			total := 0
			for range n {
				buf = g.Append(r, buf[:0])
				total += len(buf)
			}
			if got := float64(total) / n; math.Abs(got-c.mean) > 0.02*c.mean {
				t.Errorf("mean length %.3f, want %.3f within 2%%", got, c.mean)
			}
		})
	}
}

// meanOf returns the mean of a distribution with probabilities p over
// first, first+1, ...
func meanOf(p []float64, first int64) float64 {
	m := 0.0
	for i, x := range p {
		m += x * float64(first+int64(i))
	}
	return m
}

func TestPatterns(t *testing.T) {
	for _, c := range []struct {
		prefix string
		v      int64
		width  int
		want   string
	}{
		{"VC", 7, 0, "VC7"},
		{"X580 G", 7, 2, "X580 G07"},
		{"X580 G", 39, 2, "X580 G39"},
		{"", 123, 2, "123"},
		{"n", -5, 3, "n-005"},
		{"", 0, 0, "0"},
		{"", math.MinInt64, 0, "-9223372036854775808"},
		{"", math.MaxInt64, 21, "009223372036854775807"},
	} {
		t.Run(fmt.Sprintf("%q + %d padded to %d is %q", c.prefix, c.v, c.width, c.want), func(t *testing.T) {
			p := Pattern{Prefix: c.prefix, Num: NewConstant(c.v), Width: c.width}
			if got := string(p.Append(nil, []byte("<"))); got != "<"+c.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

func TestTimeUniform(t *testing.T) {
	lo := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("timestamps stay in range on the resolution grid and average the midpoint", func(t *testing.T) {
		hi := lo.Add(30 * 24 * time.Hour)
		g := Must(NewTimeUniform(lo, hi, time.Microsecond))
		r := newRand(8)
		const n = 100_000
		var sum float64
		for range n {
			ts := g.Time(r)
			if ts.Before(lo) || ts.After(hi) {
				t.Fatalf("%v outside [%v, %v]", ts, lo, hi)
			}
			if ts.Sub(lo)%time.Microsecond != 0 {
				t.Fatalf("%v is not on the microsecond grid", ts)
			}
			sum += float64(ts.Sub(lo))
		}
		if mid := float64(hi.Sub(lo)) / 2; math.Abs(sum/n-mid) > 0.01*mid {
			t.Errorf("mean offset %v, want about %v", time.Duration(sum/n), time.Duration(mid))
		}
	})
	t.Run("both ends of a ten-second range at one-second resolution are drawn", func(t *testing.T) {
		g := Must(NewTimeUniform(lo, lo.Add(10*time.Second), time.Second))
		r := newRand(9)
		seen := map[time.Time]bool{}
		for range 10_000 {
			seen[g.Time(r)] = true
		}
		if len(seen) != 11 || !seen[lo] || !seen[lo.Add(10*time.Second)] {
			t.Errorf("%d distinct timestamps, want 11 including both ends", len(seen))
		}
	})
	t.Run("a range ending before it starts is an error", func(t *testing.T) {
		if _, err := NewTimeUniform(lo, lo.Add(-time.Second), time.Second); err == nil {
			t.Error("no error")
		}
	})
}
