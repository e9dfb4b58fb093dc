package svg

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Default number of x positions kept by a StackedArea when MaxPoints is zero.
const (
	DefaultStackPoints = 600 // areas
	DefaultStackBars   = 120 // bars
)

// StackSeries is one layer of a StackedArea, one value per x.
type StackSeries struct {
	Name   string    // shown in the legend and tooltips
	Values []float64 // one per x; negative values count as zero; NaN marks a gap
	Color  string    // CSS colour; the palette colour of the series' index when empty
}

// StackedArea stacks series on top of each other over a shared x, such as
// CPU user, system, iowait and idle shares over time. The first series is the
// bottom layer.
type StackedArea struct {
	Width, Height int // pixels; DefaultWidth×DefaultHeight when zero
	Title         string
	XLabel        string
	YLabel        string
	X             []float64 // ascending; NaN marks a gap
	Series        []StackSeries

	// Percent scales every x to a total of 100 and fixes the y axis at 0–100 %.
	Percent bool
	// Bars draws a stacked bar per x instead of areas.
	Bars bool
	// XDuration marks x values as seconds (see LineChart.XDuration).
	XDuration bool

	XFormat, YFormat func(float64) string // tick and tooltip formats
	YRange           *Range               // fixed y axis; from the data (or 0–100 with Percent) when nil
	// XRange fixes the x axis, e.g. to the run's time span so the chart
	// lines up with line charts of the same run; from the data when nil.
	XRange *Range

	Bands   []Band
	Markers []Marker

	// MaxPoints bounds the number of x positions by averaging runs of
	// neighbours: zero means DefaultStackPoints (DefaultStackBars with Bars),
	// negative means no limit.
	MaxPoints int
}

// WriteTo writes the chart's SVG to w.
func (ch StackedArea) WriteTo(w io.Writer) (int64, error) {
	b, err := ch.Render()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

func (ch StackedArea) validate() error {
	if err := ch.YRange.validate("y axis", false); err != nil {
		return err
	}
	if err := ch.XRange.validate("x axis", false); err != nil {
		return err
	}
	for i, s := range ch.Series {
		if len(s.Values) != len(ch.X) {
			return fmt.Errorf("stack series %d (%q): %d values for %d x values", i, s.Name, len(s.Values), len(ch.X))
		}
	}
	return validateOverlays(ch.Markers, nil)
}

func percentLabel(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + "%"
}

// Render returns the chart as a standalone <svg> element. A chart without a
// complete x position renders a small "No data" placeholder.
func (ch StackedArea) Render() ([]byte, error) {
	w, h, err := size(ch.Width, ch.Height, DefaultHeight)
	if err != nil {
		return nil, err
	}
	if err := ch.validate(); err != nil {
		return nil, err
	}
	colors := make([]string, len(ch.Series))
	for i, s := range ch.Series {
		if colors[i], err = pickColor(s.Color, i, fmt.Sprintf("stack series %d (%q)", i, s.Name)); err != nil {
			return nil, err
		}
	}
	if len(ch.Series) == 0 || len(ch.X) == 0 {
		return noData(w, ch.Title), nil
	}

	xs := ch.X
	cols := make([][]float64, len(ch.Series))
	for k, s := range ch.Series {
		cols[k] = s.Values
	}
	maxPts := ch.MaxPoints
	if maxPts == 0 {
		maxPts = DefaultStackPoints
		if ch.Bars {
			maxPts = DefaultStackBars
		}
	}
	xs, cols = downsampleMean(xs, cols, maxPts)

	// Stack: cum[k][i] is the top of layer k at x i; valid[i] says whether
	// x i is complete.
	n := len(xs)
	valid := make([]bool, n)
	cum := make([][]float64, len(cols))
	for k := range cols {
		cum[k] = make([]float64, n)
	}
	xlo, xhi, ymax := math.Inf(1), math.Inf(-1), 0.0
	found := false
	for i := range n {
		ok := finite(xs[i])
		total := 0.0
		for k := range cols {
			v := cols[k][i]
			if !finite(v) {
				ok = false
			} else if v > 0 {
				total += v
			}
		}
		if ch.Percent && !(total > 0) {
			ok = false
		}
		if !ok {
			continue
		}
		valid[i], found = true, true
		sum := 0.0
		for k := range cols {
			v := math.Max(cols[k][i], 0)
			if ch.Percent {
				v = v * 100 / total
			}
			sum += v
			cum[k][i] = sum
		}
		xlo, xhi, ymax = math.Min(xlo, xs[i]), math.Max(xhi, xs[i]), math.Max(ymax, sum)
	}
	if !found {
		return noData(w, ch.Title), nil
	}

	// Bars need half a bar of room on either side.
	step := math.Inf(1)
	prev := math.NaN()
	for i := range n {
		if valid[i] {
			if !math.IsNaN(prev) && xs[i] > prev {
				step = math.Min(step, xs[i]-prev)
			}
			prev = xs[i]
		}
	}
	if math.IsInf(step, 1) {
		step = 1
	}
	if ch.Bars {
		xlo, xhi = xlo-step/2, xhi+step/2
	}

	yRange, yFormat := ch.YRange, ch.YFormat
	if ch.Percent {
		if yRange == nil {
			yRange = &Range{Min: 0, Max: 100}
		}
		if yFormat == nil {
			yFormat = percentLabel
		}
	}
	var legend []legendItem
	for k, s := range ch.Series {
		if s.Name != "" {
			legend = append(legend, legendItem{name: s.Name, color: colors[k], kind: legendBox})
		}
	}
	lay := xyLayout{
		w: w, h: h, title: ch.Title, xlabel: ch.XLabel, ylabel: ch.YLabel, legend: legend,
		xo:  axisOpts{duration: ch.XDuration, fixed: ch.XRange, format: ch.XFormat},
		yo:  axisOpts{includeZero: true, fixed: yRange, format: yFormat},
		xlo: xlo, xhi: xhi, ylo: 0, yhi: ymax,
	}
	p, xa, ya, legendY := lay.build()

	var c canvas
	c.open(w, h, ch.Title)
	drawGrid(&c, p, &xa, &ya)
	c.clipOpen(p, 0)
	drawBands(&c, p, &xa, ch.Bands)
	base := func(k, i int) float64 {
		if k == 0 {
			return 0
		}
		return cum[k-1][i]
	}
	if ch.Bars {
		bw := math.Abs(xa.pos(xlo+step) - xa.pos(xlo))
		gap := math.Min(2, bw*0.2)
		for k, s := range ch.Series {
			c.f(`<g fill="%s">`+"\n", colors[k])
			for i := range n {
				if !valid[i] {
					continue
				}
				y0, y1 := ya.pos(ya.clamp(cum[k][i])), ya.pos(ya.clamp(base(k, i)))
				x0 := xa.pos(xs[i]) - bw/2 + gap/2
				tip := xa.label(xs[i]) + ": " + ya.label(cum[k][i]-base(k, i))
				if s.Name != "" {
					tip = s.Name + " at " + tip
				}
				c.f(`<rect x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`+"\n",
					num(x0), num(y0), num(bw-gap), num(y1-y0), esc(tip))
			}
			c.WriteString("</g>\n")
		}
	} else {
		for k, s := range ch.Series {
			var d strings.Builder
			for i := 0; i < n; {
				if !valid[i] {
					i++
					continue
				}
				j := i
				for j < n && valid[j] {
					j++
				}
				if j-i >= 2 {
					for t := i; t < j; t++ {
						cmd := "L"
						if t == i {
							cmd = "M"
						}
						d.WriteString(cmd + num(xa.pos(xs[t])) + "," + num(ya.pos(ya.clamp(cum[k][t]))))
					}
					for t := j - 1; t >= i; t-- {
						d.WriteString("L" + num(xa.pos(xs[t])) + "," + num(ya.pos(ya.clamp(base(k, t)))))
					}
					d.WriteString("Z")
				}
				i = j
			}
			if d.Len() == 0 {
				continue
			}
			c.WriteString("<g>")
			if s.Name != "" {
				c.f("<title>%s</title>", esc(s.Name))
			}
			c.f(`<path d="%s" fill="%s" stroke="%s" stroke-width="0.5" stroke-linejoin="round"/></g>`+"\n",
				d.String(), colors[k], colors[k])
		}
	}
	drawMarkers(&c, p, &xa, ch.Markers)
	c.clipClose()
	drawAxes(&c, p, &xa, &ya, ch.XLabel, ch.YLabel)
	drawLegend(&c, legend, legendY, w)
	c.close()
	return c.Bytes(), nil
}
