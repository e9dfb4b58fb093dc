package svg

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Style is how a line-chart series is drawn.
type Style int

const (
	// StyleLine draws a solid line through the points.
	StyleLine Style = iota
	// StylePoints draws a marker at each point and no line.
	StylePoints
	// StyleDashed draws a dashed line, e.g. for a fitted curve.
	StyleDashed
	// StyleLinePoints draws a solid line with a marker at each point.
	StyleLinePoints
	// StyleDotted draws a dotted line, e.g. for an ideal (linear) reference.
	StyleDotted
)

func (s Style) dash() string {
	switch s {
	case StyleDashed:
		return "7 4"
	case StyleDotted:
		return "2 3"
	}
	return ""
}

func (s Style) hasLine() bool   { return s != StylePoints }
func (s Style) hasPoints() bool { return s == StylePoints || s == StyleLinePoints }

func (s Style) legendKind() legendKind {
	switch s {
	case StylePoints:
		return legendPoints
	case StyleLinePoints:
		return legendLinePoints
	}
	return legendLine
}

// maxPointTips is the largest series whose points each get a tooltip.
const maxPointTips = 300

// Series is one named line of a LineChart.
type Series struct {
	Name string    // shown in the legend and tooltips; unnamed series have no legend entry
	X, Y []float64 // same length; a NaN or infinite value breaks the line
	// Low and High, when set, have the length of Y and give an error bar
	// (e.g. a confidence interval) per point; NaN skips a point's bar.
	Low, High []float64
	Style     Style
	Color     string  // CSS colour; the palette colour of the series' index when empty
	Width     float64 // stroke width in pixels; 1.75 when zero
}

// LineChart plots named series of (x, y) points.
type LineChart struct {
	Width, Height int // pixels; DefaultWidth×DefaultHeight when zero
	Title         string
	XLabel        string // title of the x axis
	YLabel        string // title of the y axis
	Series        []Series

	XLog bool // log10 x axis; points with x <= 0 are left out
	YLog bool // log10 y axis; points with y <= 0 are left out
	// XDuration marks x values as seconds: ticks fall on clock-friendly steps
	// and read m:ss (h:mm:ss from an hour on).
	XDuration bool
	// XInteger marks x values as counts (clients): a linear axis has ticks
	// on whole numbers only.
	XInteger bool
	// YTight lets a linear y axis start at the data instead of including zero.
	YTight bool

	XRange, YRange *Range // fixed axis ranges; chosen from the data when nil

	// XFormat and YFormat, when set, format tick labels and tooltip values.
	XFormat, YFormat func(float64) string

	Bands   []Band   // shaded x-ranges, e.g. warm-up
	Markers []Marker // vertical event lines, e.g. errors
	HLines  []HLine  // horizontal reference lines; included in the y range

	// MaxPoints bounds the points drawn per series (see Downsample): zero
	// means DefaultMaxPoints, negative means no limit. Series with error bars
	// are never downsampled.
	MaxPoints int
}

// WriteTo writes the chart's SVG to w.
func (ch LineChart) WriteTo(w io.Writer) (int64, error) {
	b, err := ch.Render()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

type lineSeries struct {
	Series
	color string
	shape int
}

func (ch LineChart) validate() error {
	if err := ch.XRange.validate("x axis", ch.XLog); err != nil {
		return err
	}
	if err := ch.YRange.validate("y axis", ch.YLog); err != nil {
		return err
	}
	for i, s := range ch.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %d (%q): %d x values but %d y values", i, s.Name, len(s.X), len(s.Y))
		}
		if (s.Low != nil || s.High != nil) && (len(s.Low) != len(s.Y) || len(s.High) != len(s.Y)) {
			return fmt.Errorf("series %d (%q): error bars need %d low and high values, have %d and %d",
				i, s.Name, len(s.Y), len(s.Low), len(s.High))
		}
		if s.Style < StyleLine || s.Style > StyleDotted {
			return fmt.Errorf("series %d (%q): unknown style %d", i, s.Name, s.Style)
		}
		if s.Width < 0 || !finite(s.Width) {
			return fmt.Errorf("series %d (%q): invalid stroke width %v", i, s.Name, s.Width)
		}
	}
	return validateOverlays(ch.Markers, ch.HLines)
}

// Render returns the chart as a standalone <svg> element. A chart without
// any plottable point renders a small "No data" placeholder.
func (ch LineChart) Render() ([]byte, error) {
	w, h, err := size(ch.Width, ch.Height, DefaultHeight)
	if err != nil {
		return nil, err
	}
	if err := ch.validate(); err != nil {
		return nil, err
	}
	xProbe := axis{log: ch.XLog}
	yProbe := axis{log: ch.YLog}

	maxPts := ch.MaxPoints
	if maxPts == 0 {
		maxPts = DefaultMaxPoints
	}
	series := make([]lineSeries, len(ch.Series))
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	grow := func(x, y float64) {
		xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
	}
	for i, s := range ch.Series {
		color, err := pickColor(s.Color, i, fmt.Sprintf("series %d (%q)", i, s.Name))
		if err != nil {
			return nil, err
		}
		if s.Low == nil && maxPts > 0 && len(s.X) > maxPts {
			s.X, s.Y = Downsample(s.X, s.Y, maxPts)
		}
		series[i] = lineSeries{Series: s, color: color, shape: i}
		for j := range s.X {
			if !xProbe.valid(s.X[j]) || !yProbe.valid(s.Y[j]) {
				continue
			}
			grow(s.X[j], s.Y[j])
			if s.Low != nil {
				for _, v := range []float64{s.Low[j], s.High[j]} {
					if yProbe.valid(v) {
						grow(s.X[j], v)
					}
				}
			}
		}
	}
	if xlo > xhi {
		return noData(w, ch.Title), nil
	}
	for _, hl := range ch.HLines {
		if yProbe.valid(hl.Y) {
			ylo, yhi = math.Min(ylo, hl.Y), math.Max(yhi, hl.Y)
		}
	}

	var legend []legendItem
	for _, s := range series {
		if s.Name != "" {
			legend = append(legend, legendItem{name: s.Name, color: s.color, kind: s.Style.legendKind(), dash: s.Style.dash(), shape: s.shape})
		}
	}
	lay := xyLayout{
		w: w, h: h, title: ch.Title, xlabel: ch.XLabel, ylabel: ch.YLabel, legend: legend,
		xo:  axisOpts{log: ch.XLog, duration: ch.XDuration && !ch.XLog, integer: ch.XInteger, fixed: ch.XRange, format: ch.XFormat},
		yo:  axisOpts{log: ch.YLog, includeZero: !ch.YTight, fixed: ch.YRange, format: ch.YFormat},
		xlo: xlo, xhi: xhi, ylo: ylo, yhi: yhi,
	}
	p, xa, ya, legendY := lay.build()

	var c canvas
	c.open(w, h, ch.Title)
	drawGrid(&c, p, &xa, &ya)
	c.clipOpen(p, 5)
	drawBands(&c, p, &xa, ch.Bands)
	drawHLines(&c, p, &ya, ch.HLines)
	for _, s := range series {
		drawSeries(&c, &xa, &ya, s)
	}
	drawMarkers(&c, p, &xa, ch.Markers)
	c.clipClose()
	drawAxes(&c, p, &xa, &ya, ch.XLabel, ch.YLabel)
	drawLegend(&c, legend, legendY, w)
	c.close()
	return c.Bytes(), nil
}

func drawSeries(c *canvas, xa, ya *axis, s lineSeries) {
	width := s.Width
	if width == 0 {
		width = 1.75
	}
	c.WriteString("<g>")
	if s.Name != "" {
		c.f("<title>%s</title>", esc(s.Name))
	}
	c.WriteString("\n")
	ok := func(j int) bool { return xa.valid(s.X[j]) && ya.valid(s.Y[j]) }

	if s.Low != nil {
		c.f(`<g stroke="%s" stroke-width="1">`+"\n", s.color)
		for j := range s.X {
			lo, hi := s.Low[j], s.High[j]
			if !xa.valid(s.X[j]) || !ya.valid(lo) || !ya.valid(hi) {
				continue
			}
			px, y0, y1 := xa.pos(s.X[j]), ya.pos(lo), ya.pos(hi)
			c.f(`<path d="M%s,%sV%sM%s,%sH%sM%s,%sH%s"/>`+"\n",
				num(px), num(y0), num(y1), num(px-3), num(y0), num(px+3), num(px-3), num(y1), num(px+3))
		}
		c.WriteString("</g>\n")
	}

	if s.Style.hasLine() {
		var d strings.Builder
		pen := false
		for j := range s.X {
			if !ok(j) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			d.WriteString(cmd + num(xa.pos(s.X[j])) + "," + num(ya.pos(s.Y[j])))
			pen = true
		}
		if d.Len() > 0 {
			extra := ""
			if dash := s.Style.dash(); dash != "" {
				extra = ` stroke-dasharray="` + dash + `"`
			}
			c.f(`<path d="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round" stroke-linecap="round"%s/>`+"\n",
				d.String(), s.color, num(width), extra)
		}
	}

	if s.Style.hasPoints() {
		tips := len(s.X) <= maxPointTips
		r := 3.0
		if !s.Style.hasLine() {
			r = 3.5
		}
		for j := range s.X {
			if !ok(j) {
				continue
			}
			tip := ""
			if tips {
				tip = xa.label(s.X[j]) + ", " + ya.label(s.Y[j])
				if s.Low != nil && finite(s.Low[j]) && finite(s.High[j]) {
					tip += " [" + ya.label(s.Low[j]) + " – " + ya.label(s.High[j]) + "]"
				}
				if s.Name != "" {
					tip = s.Name + ": " + tip
				}
			}
			markerShape(c, s.shape, xa.pos(s.X[j]), ya.pos(s.Y[j]), r, s.color, tip)
		}
	}
	c.WriteString("</g>\n")
}
