package svg

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SpectrumSeries is one latency spectrum: values at percentiles.
type SpectrumSeries struct {
	Name        string
	Percentiles []float64 // in percent, 0 <= p < 100 (e.g. 50, 99, 99.9); others are left out
	Values      []float64 // the value at each percentile, e.g. latency in ms
	Color       string    // CSS colour; the palette colour of the series' index when empty
	Style       Style     // StyleLine by default; StyleLinePoints marks each percentile
}

// PercentileSpectrum plots values against percentiles on a log "1 in N" axis,
// the way HdrHistogram's plotter does: x = 1/(1-p), so 90 %, 99 %, 99.9 %
// and 99.99 % are evenly spaced and the tail gets the room it deserves.
type PercentileSpectrum struct {
	Width, Height int // pixels; DefaultWidth×DefaultHeight when zero
	Title         string
	XLabel        string // "percentile" when empty
	YLabel        string
	Series        []SpectrumSeries

	YLog    bool                 // log10 y axis
	YRange  *Range               // fixed y axis
	YFormat func(float64) string // y tick and tooltip format
	HLines  []HLine              // e.g. a latency target
}

// PercentileX maps a percentile in percent (0 <= p < 100) to its position
// on the spectrum's x axis, 1/(1-p/100): 90 → 10, 99 → 100, 99.9 → 1000.
func PercentileX(p float64) float64 {
	return 1 / (1 - p/100)
}

// PercentileLabel is the inverse of PercentileX, formatted as a tick label:
// 10 → "90%", 1000 → "99.9%", 1 → "0%".
func PercentileLabel(x float64) string {
	if !(x >= 1) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	// 1 - 1/x with x a power of ten prints exactly with enough decimals.
	digits := int(math.Ceil(math.Log10(x))) + 1
	p := 100 * (1 - 1/x)
	s := strconv.FormatFloat(p, 'f', max(digits, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s + "%"
}

// WriteTo writes the chart's SVG to w.
func (ch PercentileSpectrum) WriteTo(w io.Writer) (int64, error) {
	b, err := ch.Render()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// LineChart returns the line chart the spectrum is drawn as.
func (ch PercentileSpectrum) LineChart() (LineChart, error) {
	lc := LineChart{
		Width: ch.Width, Height: ch.Height, Title: ch.Title, XLabel: ch.XLabel, YLabel: ch.YLabel,
		XLog: true, YLog: ch.YLog, YRange: ch.YRange, XFormat: PercentileLabel, YFormat: ch.YFormat,
		HLines: ch.HLines, MaxPoints: -1,
	}
	if lc.XLabel == "" {
		lc.XLabel = "percentile"
	}
	for i, s := range ch.Series {
		if len(s.Percentiles) != len(s.Values) {
			return LineChart{}, fmt.Errorf("spectrum series %d (%q): %d percentiles but %d values", i, s.Name, len(s.Percentiles), len(s.Values))
		}
		ls := Series{Name: s.Name, Color: s.Color, Style: s.Style}
		for j, p := range s.Percentiles {
			if !(p >= 0 && p < 100) {
				continue
			}
			ls.X = append(ls.X, PercentileX(p))
			ls.Y = append(ls.Y, s.Values[j])
		}
		lc.Series = append(lc.Series, ls)
	}
	return lc, nil
}

// Render returns the chart as a standalone <svg> element. A chart without a
// plottable percentile renders a small "No data" placeholder.
func (ch PercentileSpectrum) Render() ([]byte, error) {
	lc, err := ch.LineChart()
	if err != nil {
		return nil, err
	}
	return lc.Render()
}
