package svg

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const hostile = `<script>alert(1)</script> & "quotes" 'too' ]]> <!-- x --> ` + "\x00\x1b\ufffe"

// hostileCharts puts a hostile string in every text a chart can show.
func hostileCharts() map[string]chart {
	h := hostile
	f := func(float64) string { return h }
	return map[string]chart{
		"a line chart": LineChart{
			Title: h, XLabel: h, YLabel: h,
			Series:  []Series{{Name: h, X: []float64{1, 2, 3}, Y: []float64{1, 4, 2}, Low: []float64{0, 3, 1}, High: []float64{2, 5, 3}, Style: StyleLinePoints}},
			Bands:   []Band{{From: 1, To: 2, Label: h}},
			Markers: []Marker{{X: 2, Label: h, Text: h}},
			HLines:  []HLine{{Y: 3, Label: h}},
			XFormat: f, YFormat: f,
		},
		"a vertical bar chart": BarChart{
			Title: h, XLabel: h, YLabel: h, Categories: []string{h, strings.Repeat(h, 3)},
			Series:      []BarSeries{{Name: h, Values: []float64{1, 2}, Low: []float64{0.5, 1}, High: []float64{1.5, 3}}},
			ValueLabels: true, ValueFormat: f, AxisFormat: f,
		},
		"a horizontal bar chart": BarChart{
			Title: h, XLabel: h, YLabel: h, Categories: []string{h, strings.Repeat(h, 3)},
			Series:     []BarSeries{{Name: h, Values: []float64{1, -2}}},
			Horizontal: true, ValueLabels: true, ValueFormat: f,
		},
		"a stacked area chart": StackedArea{
			Title: h, XLabel: h, YLabel: h, X: []float64{0, 1, 2},
			Series:  []StackSeries{{Name: h, Values: []float64{1, 2, 3}}, {Name: h, Values: []float64{3, 2, 1}}},
			Bands:   []Band{{From: 0, To: 1, Label: h}},
			Markers: []Marker{{X: 1, Label: h, Text: h}},
			XFormat: f, YFormat: f,
		},
		"a stacked bar chart": StackedArea{
			Title: h, X: []float64{0, 1, 2}, Bars: true,
			Series: []StackSeries{{Name: h, Values: []float64{1, 2, 3}}},
		},
		"a percentile spectrum": PercentileSpectrum{
			Title: h, XLabel: h, YLabel: h,
			Series: []SpectrumSeries{{Name: h, Percentiles: []float64{50, 99, 99.9}, Values: []float64{1, 2, 3}, Style: StylePoints}},
		},
		"an empty chart": LineChart{Title: h},
	}
}

func TestHostileTextIsEscaped(t *testing.T) {
	for name, ch := range hostileCharts() {
		t.Run(name+" shows hostile text as text", func(t *testing.T) {
			b, err := ch.Render()
			if err != nil {
				t.Fatal(err)
			}
			checkXML(t, b)
			s := string(b)
			for _, bad := range []string{"<script", "]]>", "<!--", "\x00", "\x1b"} {
				if strings.Contains(s, bad) {
					t.Errorf("output contains %q unescaped", bad)
				}
			}
			if !strings.Contains(s, "&lt;script&gt;alert(1)&lt;/script&gt;") {
				t.Errorf("the label was not kept as escaped text")
			}
		})
	}
}

func TestHostileColorsAreRejected(t *testing.T) {
	bad := `red" onload="alert(1)`
	tests := []struct {
		name string
		ch   chart
	}{
		{"a line series color", LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}, Color: bad}}}},
		{"a marker color", LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}}}, Markers: []Marker{{X: 1, Color: bad}}}},
		{"a reference line color", LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}}}, HLines: []HLine{{Y: 1, Color: bad}}}},
		{"a bar series color", BarChart{Categories: []string{"a"}, Series: []BarSeries{{Values: []float64{1}, Color: bad}}}},
		{"a stack series color", StackedArea{X: []float64{1}, Series: []StackSeries{{Values: []float64{1}, Color: bad}}}},
		{"a spectrum series color", PercentileSpectrum{Series: []SpectrumSeries{{Percentiles: []float64{50}, Values: []float64{1}, Color: bad}}}},
	}
	for _, c := range []string{"url(#x)", "url(http://example.com/a.svg#p)", "var(--x)", "#12345", "#ggg", "rgb(1,2,3", "red;", "rgb(1,2,x)"} {
		t.Run("the color "+c+" is an error", func(t *testing.T) {
			ch := LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}, Color: c}}}
			if _, err := ch.Render(); err == nil {
				t.Fatal("got no error")
			}
		})
	}
	for _, tc := range tests {
		t.Run(tc.name+" that breaks out of its attribute is an error", func(t *testing.T) {
			if _, err := tc.ch.Render(); err == nil || !strings.Contains(err.Error(), "invalid color") {
				t.Fatalf("got error %v, want an invalid color error", err)
			}
		})
	}
	t.Run("ordinary CSS colors are accepted", func(t *testing.T) {
		for _, c := range []string{"#abc", "#AABBCC", "steelblue", "rgb(10, 20, 30)", "hsl(120, 50%, 40%)"} {
			ch := LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}, Color: c}}}
			if _, err := ch.Render(); err != nil {
				t.Errorf("color %q: %v", c, err)
			}
		}
	})
}

// TestEdgeCasesRenderValidXML renders awkward inputs; each must give valid
// XML (a chart or the no-data placeholder), never an error or a panic.
func TestEdgeCasesRenderValidXML(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name   string
		ch     chart
		noData bool
	}{
		{"a line chart without series says no data", LineChart{}, true},
		{"a line chart of only NaN says no data", LineChart{Series: []Series{{X: []float64{1, 2}, Y: []float64{nan, nan}}}}, true},
		{"a log axis with only non-positive values says no data", LineChart{YLog: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{0, -1}}}}, true},
		{"a line chart with a single point draws it", LineChart{Series: []Series{{X: []float64{3}, Y: []float64{7}, Style: StylePoints}}}, false},
		{"a line chart with a constant series draws it", LineChart{YTight: true, Series: []Series{{X: []float64{1, 2, 3}, Y: []float64{5, 5, 5}}}}, false},
		{"infinities are skipped", LineChart{Series: []Series{{X: []float64{1, 2, 3}, Y: []float64{1, inf, 3}}}}, false},
		{"data outside a fixed range is clipped", LineChart{XRange: &Range{0, 1}, YRange: &Range{0, 1}, Series: []Series{{X: []float64{-5, 0.5, 9}, Y: []float64{-3, 0.5, 40}}}}, false},
		{"a constant log series draws it", LineChart{XLog: true, YLog: true, Series: []Series{{X: []float64{10, 10}, Y: []float64{3, 3}}}}, false},
		{"huge and tiny values draw", LineChart{Series: []Series{{X: []float64{0, 1}, Y: []float64{-1e300, 1e300}}}}, false},
		{"negative time on a duration axis draws", LineChart{XDuration: true, Series: []Series{{X: []float64{-30, 0, 4000}, Y: []float64{1, 2, 3}}}}, false},
		{"a sub-second duration axis draws", LineChart{XDuration: true, Series: []Series{{X: []float64{0, 0.25, 0.5}, Y: []float64{1, 2, 3}}}}, false},
		{"many series wrap the legend", LineChart{Width: 300, Series: manySeries(12)}, false},
		{"a bar chart without categories says no data", BarChart{}, true},
		{"a bar chart of NaN says no data", BarChart{Categories: []string{"a"}, Series: []BarSeries{{Values: []float64{nan}}}}, true},
		{"negative bars hang below zero", BarChart{Categories: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{-3, 2}}}, ValueLabels: true}, false},
		{"many long categories rotate their labels", BarChart{Categories: longNames(12), Series: []BarSeries{{Values: make([]float64, 12)}}}, false},
		{"a horizontal chart with a fixed height draws", BarChart{Horizontal: true, Height: 100, Categories: longNames(30), Series: []BarSeries{{Values: make([]float64, 30)}}}, false},
		{"a stacked chart without x says no data", StackedArea{Series: []StackSeries{{Name: "a"}}}, true},
		{"a percent stack of zeros says no data", StackedArea{Percent: true, X: []float64{1, 2}, Series: []StackSeries{{Values: []float64{0, 0}}}}, true},
		{"a stack of one x draws", StackedArea{X: []float64{1}, Series: []StackSeries{{Values: []float64{2}}}}, false},
		{"a long stack is averaged down", StackedArea{X: seq(0, 3600, 1), Series: []StackSeries{{Values: wave(3601, 50, 20, 0)}}}, false},
		{"a spectrum of only the maximum says no data", PercentileSpectrum{Series: []SpectrumSeries{{Percentiles: []float64{100}, Values: []float64{9}}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.ch.Render()
			if err != nil {
				t.Fatal(err)
			}
			checkXML(t, b)
			if got := bytes.Contains(b, []byte("No data")); got != tc.noData {
				t.Errorf("no-data placeholder: got %v, want %v", got, tc.noData)
			}
			if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Inf")) {
				t.Errorf("output contains a non-finite number")
			}
		})
	}
}

func manySeries(n int) []Series {
	s := make([]Series, n)
	for i := range s {
		s[i] = Series{Name: strings.Repeat("series ", i%3+1), X: []float64{0, 1}, Y: []float64{float64(i), float64(i + 1)}, Style: Style(i % 5)}
	}
	return s
}

func longNames(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = strings.Repeat("LWLock:BufferMapping/", i%4+1)
	}
	return s
}

func TestInvalidInputIsAnError(t *testing.T) {
	tests := []struct {
		name string
		ch   chart
		want string
	}{
		{"x and y of different lengths", LineChart{Series: []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1}}}}, "2 x values but 1 y values"},
		{"error bars of the wrong length", LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}, Low: []float64{1, 2}}}}, "error bars"},
		{"an unknown style", LineChart{Series: []Series{{X: []float64{1}, Y: []float64{1}, Style: 42}}}, "unknown style"},
		{"a reversed fixed range", LineChart{YRange: &Range{Min: 5, Max: 1}}, "Min < Max"},
		{"a log range reaching zero", LineChart{XLog: true, XRange: &Range{Min: 0, Max: 1}}, "positive"},
		{"a negative size", LineChart{Width: -1}, "negative"},
		{"a tiny size", LineChart{Width: 50, Height: 20}, "too small"},
		{"bar values not matching the categories", BarChart{Categories: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{1}}}}, "1 values for 2 categories"},
		{"a negative bar chart height", BarChart{Height: -5}, "negative"},
		{"stack values not matching x", StackedArea{X: []float64{1, 2}, Series: []StackSeries{{Values: []float64{1}}}}, "1 values for 2 x values"},
		{"percentiles not matching values", PercentileSpectrum{Series: []SpectrumSeries{{Percentiles: []float64{50}}}}, "1 percentiles but 0 values"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" is rejected", func(t *testing.T) {
			_, err := tc.ch.Render()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestChartsAreAccessible(t *testing.T) {
	b, err := LineChart{Title: "Throughput", Series: []Series{{X: []float64{1}, Y: []float64{1}}}}.Render()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`role="img"`, `aria-label="Throughput"`, "<title>Throughput</title>", "sans-serif"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	for _, bad := range []string{"<script", " id=", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("output contains %s", bad)
		}
	}
}

func TestDownsamplingInLineChartsBoundsTheOutput(t *testing.T) {
	xs, ys := tpsSeries(3600, 1000)
	full, err := LineChart{MaxPoints: -1, Series: []Series{{X: xs, Y: ys}}}.Render()
	if err != nil {
		t.Fatal(err)
	}
	small, err := LineChart{MaxPoints: 300, Series: []Series{{X: xs, Y: ys}}}.Render()
	if err != nil {
		t.Fatal(err)
	}
	if len(small)*4 > len(full) {
		t.Errorf("downsampled chart is %d bytes, full one %d: want at least 4 times smaller", len(small), len(full))
	}
}
