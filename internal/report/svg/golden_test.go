package svg

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// chart is what every chart type has in common.
type chart interface {
	Render() ([]byte, error)
	WriteTo(io.Writer) (int64, error)
}

// tpsSeries is a deterministic throughput series over an hour-long run at
// one sample per second, with a warm-up ramp, noise, a stall and a gap.
func tpsSeries(n int, base float64) (xs, ys []float64) {
	seed := uint32(12345)
	rnd := func() float64 { // xorshift: deterministic, no math/rand
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return float64(seed) / float64(math.MaxUint32)
	}
	for i := range n {
		x := float64(i)
		y := base * (1 - math.Exp(-x/40))
		y += (rnd() - 0.5) * base * 0.08
		if i >= 1800 && i < 1806 {
			y = base * 0.1 // a checkpoint stall
		}
		if i >= 2500 && i < 2520 {
			y = math.NaN() // the sampler lost its connection
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys
}

func goldenCharts() []struct {
	name  string
	chart chart
} {
	xs, a := tpsSeries(3600, 4200)
	_, b := tpsSeries(3600, 3100)
	clients := []float64{1, 2, 4, 8, 16, 32, 64}
	tps := []float64{950, 1850, 3500, 6100, 8900, 9800, 9400}
	low := []float64{920, 1790, 3380, 5850, 8500, 9300, 8800}
	high := []float64{980, 1910, 3620, 6350, 9300, 10300, 10000}
	var fitX, fitY, idealY []float64
	for c := 1.0; c <= 64; c *= math.Pow(2, 0.25) {
		fitX = append(fitX, c)
		// Universal Scalability Law with sigma=0.03, kappa=0.0004.
		fitY = append(fitY, 960*c/(1+0.03*(c-1)+0.0004*c*(c-1)))
	}
	for _, c := range clients {
		idealY = append(idealY, 960*c)
	}
	return []struct {
		name  string
		chart chart
	}{
		{"line_timeseries", LineChart{
			Title: "Throughput over time", XLabel: "elapsed", YLabel: "transactions per second",
			XDuration: true,
			Series: []Series{
				{Name: "tpcb (PostgreSQL 17)", X: xs, Y: a},
				{Name: "tpcb (MariaDB 11)", X: xs, Y: b},
			},
			Bands:     []Band{{From: 0, To: 120, Label: "warm-up"}},
			Markers:   []Marker{{X: 1800, Label: "error 40001: could not serialize access", Text: "errors"}, {X: 3000, Label: "reconnect"}},
			HLines:    []HLine{{Y: 5000, Label: "target 5000 tps"}},
			MaxPoints: 400,
		}},
		{"line_scalability", LineChart{
			Title: "Scalability", XLabel: "clients", YLabel: "tps", XLog: true,
			Series: []Series{
				{Name: "measured (95% CI)", X: clients, Y: tps, Low: low, High: high, Style: StylePoints},
				{Name: "USL fit", X: fitX, Y: fitY, Style: StyleDashed},
				{Name: "linear", X: clients, Y: idealY, Style: StyleDotted, Color: "#777777"},
			},
			YRange: &Range{Min: 0, Max: 12000},
		}},
		{"line_logy_gaps", LineChart{
			Title: "p99 latency", XLabel: "seconds", YLabel: "ms", YLog: true, YTight: true,
			Width: 600, Height: 300,
			Series: []Series{{Name: "p99", X: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{2.1, 2.4, 3.9, math.NaN(), math.NaN(), 120, 35, 4.2, 0}, Style: StyleLinePoints}},
		}},
		{"bar_grouped", BarChart{
			Title: "Throughput by configuration", YLabel: "tps", XLabel: "transaction",
			Categories: []string{"new-order", "payment", "order-status", "delivery", "stock-level"},
			Series: []BarSeries{
				{Name: "baseline", Values: []float64{410, 395, 38, 36, 35}, Low: []float64{400, 380, 36, 33, 34}, High: []float64{420, 410, 40, 39, 36}},
				{Name: "fillfactor 80", Values: []float64{455, 420, 39, 41, math.NaN()}, Low: []float64{440, 405, 37, 38, math.NaN()}, High: []float64{470, 435, 41, 44, math.NaN()}},
			},
			ValueLabels: true,
		}},
		{"bar_waits", BarChart{
			Title: "Wait-event profile", XLabel: "share of DB time",
			Categories: []string{"CPU", "IO:DataFileRead", "LWLock:WALWrite", "Lock:transactionid", "Client:ClientRead", "IO:WALSync"},
			Series:     []BarSeries{{Values: []float64{46.2, 21.7, 12.4, 9.8, 6.3, 3.6}}},
			Horizontal: true, ValueLabels: true, ValueFormat: func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
			AxisFormat: func(v float64) string { return fmt.Sprintf("%g%%", v) },
		}},
		{"stacked_cpu", StackedArea{
			Title: "CPU", XLabel: "elapsed", YLabel: "share", XDuration: true, Percent: true,
			X: seq(0, 600, 5),
			Series: []StackSeries{
				{Name: "user", Values: wave(121, 55, 10, 0)},
				{Name: "system", Values: wave(121, 15, 4, 1)},
				{Name: "iowait", Values: wave(121, 8, 6, 2)},
				{Name: "idle", Values: wave(121, 22, 8, 3), Color: "#dddddd"},
			},
			Bands: []Band{{From: 0, To: 60, Label: "warm-up"}},
		}},
		{"stacked_bars", StackedArea{
			Title: "Errors by class", YLabel: "errors per minute", XLabel: "minute",
			X: []float64{1, 2, 3, 4, 5, 6},
			Series: []StackSeries{
				{Name: "serialization", Values: []float64{3, 5, 2, 8, 1, 0}},
				{Name: "deadlock", Values: []float64{0, 1, 0, 2, 0, 0}},
				{Name: "connection", Values: []float64{0, 0, 4, 0, math.NaN(), 1}},
			},
			Bars: true, YFormat: func(v float64) string { return fmt.Sprintf("%g", v) },
		}},
		{"spectrum", PercentileSpectrum{
			Title: "Latency by percentile", YLabel: "latency (ms)", YLog: true,
			Series: []SpectrumSeries{
				{Name: "run 41", Percentiles: []float64{0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}, Values: []float64{0.4, 1.2, 1.6, 2.3, 3.1, 6.8, 9.9, 24, 41, 95, 310, 500}, Style: StyleLinePoints},
				{Name: "run 42", Percentiles: []float64{0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999}, Values: []float64{0.4, 1.1, 1.4, 1.9, 2.4, 4.0, 5.2, 9.8, 14, 33, 80}, Style: StyleLinePoints},
			},
			HLines: []HLine{{Y: 50, Label: "SLO 50 ms"}},
		}},
		{"nodata", LineChart{Title: "Nothing measured", Series: []Series{{Name: "empty"}}}},
	}
}

func seq(from, to, step float64) []float64 {
	var s []float64
	for v := from; v <= to; v += step {
		s = append(s, v)
	}
	return s
}

func wave(n int, base, amp, phase float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.Max(0, base+amp*math.Sin(float64(i)/9+phase))
	}
	return s
}

// checkXML fails the test unless b is one well-formed <svg> element with a
// <title> child.
func checkXML(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	depth, roots, titles := 0, 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("invalid XML: %v\n%s", err, b)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if el.Name.Local != "svg" {
					t.Fatalf("root element is <%s>, want <svg>", el.Name.Local)
				}
			}
			if depth == 1 && el.Name.Local == "title" {
				titles++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 {
		t.Fatalf("found %d root elements, want 1", roots)
	}
	if titles != 1 {
		t.Fatalf("found %d <title> children of <svg>, want 1", titles)
	}
	if !bytes.Contains(b, []byte(`role="img"`)) {
		t.Fatalf(`root lacks role="img"`)
	}
}

func TestGoldenCharts(t *testing.T) {
	for _, tc := range goldenCharts() {
		t.Run(tc.name+" matches its golden file", func(t *testing.T) {
			got, err := tc.chart.Render()
			if err != nil {
				t.Fatal(err)
			}
			checkXML(t, got)
			path := filepath.Join("testdata", tc.name+".svg")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test -update after checking the change)", path)
			}
		})
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	for _, tc := range goldenCharts() {
		t.Run(tc.name+" renders the same bytes twice", func(t *testing.T) {
			a, err := tc.chart.Render()
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			n, err := tc.chart.WriteTo(&b)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(a)) || b.String() != string(a) {
				t.Fatal("second rendering differs from the first")
			}
		})
	}
}
