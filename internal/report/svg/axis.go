package svg

import (
	"fmt"
	"math"
	"strconv"
)

type tick struct {
	v     float64
	label string
}

// axis maps data values to pixels and carries the labelled ticks.
type axis struct {
	log    bool
	lo, hi float64 // data domain
	a, b   float64 // pixel positions of lo and hi
	ticks  []tick
	minor  []float64 // unlabelled minor grid values (log axes)
	format func(float64) string

	duration, withHours bool // values are seconds
}

func (ax *axis) pos(v float64) float64 {
	var t float64
	if ax.log {
		t = (math.Log10(v) - math.Log10(ax.lo)) / (math.Log10(ax.hi) - math.Log10(ax.lo))
	} else {
		t = (v - ax.lo) / (ax.hi - ax.lo)
	}
	return ax.a + t*(ax.b-ax.a)
}

// valid reports whether v can be placed on the axis at all.
func (ax *axis) valid(v float64) bool {
	return finite(v) && (!ax.log || v > 0)
}

// contains reports whether v lies within the domain (with a little slack).
func (ax *axis) contains(v float64) bool {
	if !ax.valid(v) {
		return false
	}
	slack := (ax.hi - ax.lo) * 1e-9
	if ax.log {
		slack = 0
	}
	return v >= ax.lo-slack && v <= ax.hi+slack
}

// clamp limits v to the domain; used for bars and bands reaching outside.
func (ax *axis) clamp(v float64) float64 {
	if ax.log && !(v > 0) {
		return ax.lo
	}
	return math.Max(ax.lo, math.Min(ax.hi, v))
}

// label formats a data value the way the axis labels it, for tooltips.
func (ax *axis) label(v float64) string {
	switch {
	case ax.format != nil:
		return ax.format(v)
	case ax.duration:
		return FormatDuration(v, ax.withHours)
	}
	return formatValue(v)
}

type axisOpts struct {
	log         bool
	duration    bool // values are seconds, labelled as clock times
	includeZero bool // linear auto ranges reach zero
	integer     bool // values are counts: linear ticks only on whole numbers
	fixed       *Range
	format      func(float64) string // tick label format; default chosen by axis kind
	tipFormat   func(float64) string // tooltip format; defaults to format or formatValue
	target      int                  // wanted number of intervals
}

// newAxis builds an axis over the data range [dlo, dhi] (or the fixed range)
// mapped onto pixels a..b.
func newAxis(o axisOpts, dlo, dhi, a, b float64) axis {
	lo, hi := dlo, dhi
	if o.fixed != nil {
		lo, hi = o.fixed.Min, o.fixed.Max
	} else if o.includeZero && !o.log {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	// Absurd magnitudes must still give an axis, if not a useful one.
	lo = math.Max(math.Min(lo, math.MaxFloat64/4), -math.MaxFloat64/4)
	hi = math.Max(math.Min(hi, math.MaxFloat64/4), -math.MaxFloat64/4)
	ax := axis{log: o.log, a: a, b: b, format: o.tipFormat}
	if ax.format == nil {
		ax.format = o.format
	}
	var vals []float64
	var labels []string
	decades := false
	switch {
	case o.log:
		vals, decades = logTicks(lo, hi, o.target)
	case o.duration:
		vals = DurationTicks(lo, hi, o.target)
	default:
		var e int
		vals, _, e = linearTicks(lo, hi, o.target)
		if o.integer && len(vals) > 1 && vals[1]-vals[0] < 1 {
			// A step below one would put ticks at half a client.
			vals, e = nil, 0
			for v := math.Ceil(lo); v <= math.Floor(hi); v++ {
				vals = append(vals, v)
			}
		}
		labels = formatLinearTicks(vals, e)
	}
	if len(vals) < 2 {
		vals = []float64{lo, hi}
		labels = []string{formatValue(lo), formatValue(hi)}
	}
	if o.fixed != nil {
		ax.lo, ax.hi = lo, hi
	} else {
		ax.lo, ax.hi = vals[0], vals[len(vals)-1]
	}
	withHours := math.Max(math.Abs(ax.lo), math.Abs(ax.hi)) >= 3600
	subSecond := len(vals) > 1 && vals[1]-vals[0] < 1
	ax.duration, ax.withHours = o.duration && !subSecond, withHours
	for i, v := range vals {
		if !ax.contains(v) {
			continue
		}
		var l string
		switch {
		case o.format != nil:
			l = o.format(v)
		case o.log:
			l = formatLog(v)
		case o.duration && subSecond:
			l = strconv.FormatFloat(v, 'f', -1, 64) + "s"
		case o.duration:
			l = FormatDuration(v, withHours)
		default:
			l = labels[i]
		}
		ax.ticks = append(ax.ticks, tick{v: v, label: l})
	}
	if decades && len(vals) > 1 && vals[1]/vals[0] < 10.5 && len(vals) <= 9 {
		for _, v := range vals {
			e := int(math.Round(math.Log10(v)))
			for m := int64(2); m <= 9; m++ {
				if mv := decimal(m, e); ax.contains(mv) {
					ax.minor = append(ax.minor, mv)
				}
			}
		}
	}
	return ax
}

func maxLabelWidth(ticks []tick, size float64) float64 {
	w := 0.0
	for _, t := range ticks {
		w = math.Max(w, textWidth(t.label, size))
	}
	return w
}

// xyLayout places the plot area, axes and legend of a chart with two numeric axes.
type xyLayout struct {
	w, h                  int
	title, xlabel, ylabel string
	legend                []legendItem
	xo, yo                axisOpts
	xlo, xhi, ylo, yhi    float64
}

func (l xyLayout) build() (p plotArea, x, y axis, legendY float64) {
	top := 12.0
	if l.title != "" {
		top = 36
	}
	legendH := legendHeight(l.legend, l.w)
	bottom := 8 + 18.0
	if l.xlabel != "" {
		bottom += 18
	}
	if legendH > 0 {
		bottom += legendH + 8
	}
	y1 := float64(l.h) - bottom
	if y1-top < 40 {
		y1 = top + 40
	}
	yo := l.yo
	yo.target = max(2, int((y1-top)/45))
	y = newAxis(yo, l.ylo, l.yhi, y1, top)

	left := 10 + math.Min(maxLabelWidth(y.ticks, fontSize), float64(l.w)*0.3) + 8
	if l.ylabel != "" {
		left += 20
	}
	x = fitXAxis(l.xo, l.xlo, l.xhi, left, float64(l.w))
	p = plotArea{x0: left, y0: top, x1: x.b, y1: y1}
	return p, x, y, legendTop(y1, l.xlabel)
}

// legendTop is the centre line of the first legend row below a plot whose
// bottom is at y1.
func legendTop(y1 float64, xlabel string) float64 {
	if xlabel != "" {
		return y1 + 54
	}
	return y1 + 36
}

// fitXAxis builds a horizontal axis from left to near the right edge w of
// the chart, with as many ticks as fit without their labels colliding and
// room for the last label.
func fitXAxis(o axisOpts, lo, hi, left, w float64) axis {
	right := math.Max(w-20, left+40)
	var x axis
	for target := max(2, int((right-left)/90)); ; target-- {
		o.target = target
		x = newAxis(o, lo, hi, left, right)
		if n := len(x.ticks); n > 0 && x.pos(x.ticks[n-1].v) > right-1 {
			// The last label is centred on the right end: keep it inside.
			if r := w - 4 - textWidth(x.ticks[n-1].label, fontSize)/2; r < right && r > left+40 {
				right = r
				x = newAxis(o, lo, hi, left, right)
			}
		}
		width := 0.0
		for _, t := range x.ticks {
			width += textWidth(t.label, fontSize) + 12
		}
		if target <= 2 || width <= right-left {
			return x
		}
	}
}

// drawGrid draws the light grid lines behind the data.
func drawGrid(c *canvas, p plotArea, x, y *axis) {
	c.WriteString(`<g stroke-width="1">` + "\n")
	for _, v := range x.minor {
		px := x.pos(v)
		c.line(px, p.y0, px, p.y1, minorColor, 1, "")
	}
	for _, v := range y.minor {
		py := y.pos(v)
		c.line(p.x0, py, p.x1, py, minorColor, 1, "")
	}
	for _, t := range x.ticks {
		px := x.pos(t.v)
		c.line(px, p.y0, px, p.y1, gridColor, 1, "")
	}
	for _, t := range y.ticks {
		py := y.pos(t.v)
		c.line(p.x0, py, p.x1, py, gridColor, 1, "")
	}
	c.WriteString("</g>\n")
}

// drawAxes draws the axis lines, tick labels and axis titles.
func drawAxes(c *canvas, p plotArea, x, y *axis, xlabel, ylabel string) {
	c.line(p.x0, p.y1, p.x1, p.y1, axisColor, 1, "")
	c.line(p.x0, p.y0, p.x0, p.y1, axisColor, 1, "")
	c.f(`<g fill="%s">`+"\n", textColor)
	for _, t := range x.ticks {
		px := x.pos(t.v)
		c.line(px, p.y1, px, p.y1+4, axisColor, 1, "")
		c.text(px, p.y1+17, "middle", fontSize, "", t.label, "")
	}
	for _, t := range y.ticks {
		py := y.pos(t.v)
		c.line(p.x0-4, py, p.x0, py, axisColor, 1, "")
		c.text(p.x0-7, py+4, "end", fontSize, "", t.label, "")
	}
	c.WriteString("</g>\n")
	drawAxisTitles(c, p, xlabel, ylabel)
}

func drawAxisTitles(c *canvas, p plotArea, xlabel, ylabel string) {
	if xlabel != "" {
		c.text((p.x0+p.x1)/2, p.y1+36, "middle", fontSize, textColor, xlabel, "")
	}
	if ylabel != "" {
		cy := (p.y0 + p.y1) / 2
		c.text(16, cy, "middle", fontSize, textColor, ylabel,
			`transform="rotate(-90 16 `+num(cy)+`)"`)
	}
}

// drawBands shades x-ranges; call inside the clip viewport.
func drawBands(c *canvas, p plotArea, x *axis, bands []Band) {
	for _, b := range bands {
		from, to := b.From, b.To
		if !x.valid(from) || !x.valid(to) {
			continue
		}
		if from > to {
			from, to = to, from
		}
		if to < x.lo || from > x.hi {
			continue
		}
		x0, x1 := x.pos(x.clamp(from)), x.pos(x.clamp(to))
		if x0 > x1 {
			x0, x1 = x1, x0
		}
		c.WriteString("<g>")
		if b.Label != "" {
			c.f("<title>%s</title>", esc(b.Label))
		}
		c.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.07"/>`,
			num(x0), num(p.y0), num(x1-x0), num(p.y1-p.y0), bandColor)
		c.WriteString("</g>\n")
		if b.Label != "" {
			c.text(x0+4, p.y0+13, "", smallFont, mutedColor, b.Label, "")
		}
	}
}

// drawHLines draws horizontal reference lines; call inside the clip viewport.
func drawHLines(c *canvas, p plotArea, y *axis, lines []HLine) {
	for _, h := range lines {
		if !y.contains(h.Y) {
			continue
		}
		color := h.Color
		if color == "" {
			color = mutedColor
		}
		py := y.pos(h.Y)
		c.WriteString("<g>")
		if h.Label != "" {
			c.f("<title>%s</title>", esc(h.Label))
		}
		c.line(p.x0, py, p.x1, py, color, 1.25, `stroke-dasharray="6 3"`)
		if h.Label != "" {
			ly := py - 4
			if ly < p.y0+12 {
				ly = py + 13 // no room above the line: write below it
			}
			c.text(p.x1-4, ly, "end", smallFont, color, h.Label, `stroke="#ffffff" stroke-width="3" paint-order="stroke"`)
		}
		c.WriteString("</g>\n")
	}
}

// drawMarkers draws vertical event lines with tooltips; call inside the clip
// viewport.
func drawMarkers(c *canvas, p plotArea, x *axis, markers []Marker) {
	for _, m := range markers {
		if !x.contains(m.X) {
			continue
		}
		color := m.Color
		if color == "" {
			color = markerColor
		}
		px := x.pos(m.X)
		c.WriteString("<g>")
		if m.Label != "" {
			c.f("<title>%s</title>", esc(m.Label))
		}
		c.WriteString("\n")
		// A wide transparent line makes the thin marker easy to hover.
		c.line(px, p.y0, px, p.y1, color, 7, `stroke-opacity="0"`)
		c.line(px, p.y0, px, p.y1, color, 1.25, `stroke-dasharray="3 2"`)
		if m.Text != "" {
			c.text(px+3, p.y0+24, "", smallFont, color, m.Text, "")
		}
		c.WriteString("</g>\n")
	}
}

func validateOverlays(markers []Marker, hlines []HLine) error {
	for i, m := range markers {
		if m.Color != "" && !validColor(m.Color) {
			return fmt.Errorf("marker %d: invalid color %q", i, m.Color)
		}
	}
	for i, h := range hlines {
		if h.Color != "" && !validColor(h.Color) {
			return fmt.Errorf("horizontal line %d: invalid color %q", i, h.Color)
		}
	}
	return nil
}
