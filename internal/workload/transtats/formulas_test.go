package transtats

import (
	"testing"
	"time"
)

func TestRowFormulas(t *testing.T) {
	for _, c := range []struct {
		i    int64
		want Row
	}{
		{1, Row{"X580 G01", 20, 20, "VC1", 1, "WRITE-ONLY", "FAILURE", Base, Base.Add(1 * time.Second), 1, "abc"}},
		{40, Row{"X580 G00", 10, 10, "VC40", 40, "WRITE-ONLY", "FAILURE", Base, Base.Add(40 * time.Second), 40, "abc"}},
		{99, Row{"X580 G19", 50, 40, "VC99", 99, "READ-ONLY", "SUCCESS", Base, Base.Add(49 * time.Second), 99, "abc"}},
		{100, Row{"X580 G20", 10, 50, "VC0", 100, "WRITE-ONLY", "FAILURE", Base.Add(time.Second), Base.Add(time.Second), 0, "abc"}},
		{12345, Row{"X580 G25", 10, 20, "VC45", 12345, "READ-ONLY", "SUCCESS", Base.Add(123 * time.Second), Base.Add(168 * time.Second), 45, "abc"}},
		{1_000_000, Row{"X580 G00", 10, 10, "VC0", 1_000_000, "WRITE-ONLY", "FAILURE", Base.Add(10000 * time.Second), Base.Add(10000 * time.Second), 0, "abc"}},
	} {
		if got := RowAt(c.i); got != c.want {
			t.Errorf("row %d:\n got %+v\nwant %+v", c.i, got, c.want)
		}
	}
	if got := len(RowAt(7).Values()); got != len(Columns) {
		t.Fatalf("%d values for %d columns", got, len(Columns))
	}
}

// Every second holds 100 rows (the first one 99: rows start at 1).
func TestHundredRowsPerSecond(t *testing.T) {
	per := map[time.Time]int{}
	for i := int64(1); i <= 1000; i++ {
		per[RowAt(i).TranBegin]++
	}
	for ts, n := range per {
		want := 100
		if ts.Equal(Base) {
			want = 99
		} else if ts.Equal(Base.Add(10 * time.Second)) {
			want = 1
		}
		if n != want {
			t.Errorf("%s has %d rows, want %d", ts, n, want)
		}
	}
}

func TestDimensionValues(t *testing.T) {
	want := map[string]int{"server_config": 40, "thread_name": 100, "tran_type": 3, "tran_status": 3, "users": 5, "cpus": 8}
	for _, d := range Dimensions {
		vals := d.Values(1_000_000)
		if len(vals) != want[d.Column] {
			t.Errorf("%s: %d values, want %d", d.Table, len(vals), want[d.Column])
		}
	}
	// Fewer rows, fewer values: rows 1..7 have thread names VC1..VC7.
	if got := len(Dimensions[1].Values(7)); got != 7 {
		t.Errorf("7 rows give %d thread names", got)
	}
	if v := Dimensions[4].Values(100); v[0] != int32(10) || v[4] != int32(50) {
		t.Errorf("users values %v, want 10..50 in order", v)
	}
}

// bruteStar counts the distinct six-value combinations of rows 1..n, as the
// star query groups them.
func bruteStar(n int64) int64 {
	seen := map[[6]any]bool{}
	for i := int64(1); i <= n; i++ {
		r := RowAt(i)
		seen[[6]any{r.ServerConfig, r.ThreadName, r.TranType, r.TranStatus, r.Users, r.CPUs}] = true
	}
	return int64(len(seen))
}

func TestStarResultMatchesBruteForce(t *testing.T) {
	for _, n := range []int64{1, 2, 99, 599, 600, 601, 1234, 5000} {
		g, r := StarResult(n)
		if want := bruteStar(n); g != want || r != n {
			t.Errorf("n=%d: StarResult (%d, %d), brute force (%d, %d)", n, g, r, want, n)
		}
	}
}

// bruteWindow follows the query literally: the average of resultset_size
// per server_config over all rows (as a float with exact comparison by
// cross-multiplying), then the window's rows at or below it.
func bruteWindow(n, w int64) (groups, sum int64) {
	cnt, tot := map[string]int64{}, map[string]int64{}
	for i := int64(1); i <= n; i++ {
		r := RowAt(i)
		cnt[r.ServerConfig]++
		tot[r.ServerConfig] += int64(r.ResultsetSize)
	}
	from := Base.Add(time.Duration(w) * time.Second)
	seen := map[[6]any]bool{}
	for i := int64(1); i <= n; i++ {
		r := RowAt(i)
		if r.TranBegin.Before(from) || !r.TranBegin.Before(from.Add(time.Second)) {
			continue
		}
		if int64(r.ResultsetSize)*cnt[r.ServerConfig] > tot[r.ServerConfig] {
			continue
		}
		seen[[6]any{r.ServerConfig, r.ThreadName, r.TranType, r.TranStatus, r.Users, r.CPUs}] = true
		sum += int64(r.TranCount)
	}
	return int64(len(seen)), sum
}

func TestWindowResultMatchesBruteForce(t *testing.T) {
	for _, n := range []int64{1, 50, 199, 200, 201, 777, 2500, 10_001} {
		a := NewAverages(n)
		for w := int64(0); w < WindowSeconds(n); w += max(1, WindowSeconds(n)/7) {
			g, s := a.WindowResult(n, w)
			wg, ws := bruteWindow(n, w)
			if g != wg || s != ws {
				t.Errorf("n=%d window %d: (%d, %d), brute force (%d, %d)", n, w, g, s, wg, ws)
			}
		}
	}
	// A window past the end is empty.
	if g, s := NewAverages(150).WindowResult(150, 5); g != 0 || s != 0 {
		t.Errorf("empty window gives (%d, %d)", g, s)
	}
}

func TestAveragesMatchALoop(t *testing.T) {
	for _, n := range []int64{1, 199, 200, 401, 1_000_000} {
		a := NewAverages(n)
		var cnt, sum [40]int64
		for i := int64(1); i <= n; i++ {
			cnt[i%40]++
			sum[i%40] += i % 100
		}
		if a.count != cnt || a.sum != sum {
			t.Errorf("n=%d: averages differ from the loop", n)
		}
	}
}
