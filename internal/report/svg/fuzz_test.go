package svg

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"testing"
)

// FuzzChartsStayValidXML feeds arbitrary text and numbers to every chart
// type; the output must always be well-formed XML.
func FuzzChartsStayValidXML(f *testing.F) {
	f.Add("title", "series", 1.0, 2.0, 3.0)
	f.Add(hostile, "\xff\xfe", math.NaN(), math.Inf(1), -1.0)
	f.Add("", "]]>", 0.0, 0.0, 0.0)
	f.Add("<a>", "&amp;", 1e308, -1e308, 5e-324)
	f.Fuzz(func(t *testing.T, label, name string, a, b, c float64) {
		vals := []float64{a, b, c}
		xs := []float64{0, 1, 2}
		charts := []chart{
			LineChart{Title: label, XLabel: label, YLabel: label, Series: []Series{{Name: name, X: vals, Y: vals, Style: StyleLinePoints}},
				Bands: []Band{{From: a, To: b, Label: label}}, Markers: []Marker{{X: c, Label: name, Text: label}}, HLines: []HLine{{Y: b, Label: name}}},
			LineChart{XLog: true, YLog: true, Series: []Series{{Name: name, X: vals, Y: vals, Low: vals, High: vals, Style: StylePoints}}},
			BarChart{Title: label, Categories: []string{label, name, ""}, Series: []BarSeries{{Name: name, Values: vals, Low: vals, High: xs}}, ValueLabels: true},
			BarChart{Horizontal: true, Categories: []string{label, name, ""}, Series: []BarSeries{{Name: name, Values: vals}}, ValueLabels: true},
			StackedArea{Title: label, X: xs, Series: []StackSeries{{Name: name, Values: vals}, {Name: label, Values: vals}}, Percent: true},
			StackedArea{X: vals, Series: []StackSeries{{Name: name, Values: xs}}, Bars: true, XDuration: true},
			PercentileSpectrum{Title: label, Series: []SpectrumSeries{{Name: name, Percentiles: vals, Values: xs}}},
		}
		for i, ch := range charts {
			out, err := ch.Render()
			if err != nil {
				t.Fatalf("chart %d: %v", i, err)
			}
			d := xml.NewDecoder(bytes.NewReader(out))
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("chart %d: invalid XML: %v\n%s", i, err, out)
				}
			}
		}
	})
}
