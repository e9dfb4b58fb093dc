package svg

import (
	"fmt"
	"io"
	"math"
)

// BarSeries is one named set of bars of a BarChart, one value per category.
type BarSeries struct {
	Name   string    // shown in the legend and tooltips; unnamed series have no legend entry
	Values []float64 // one per category; NaN leaves the bar out
	// Low and High, when set, have the length of Values and give an error
	// bar (e.g. a confidence interval) per bar; NaN skips a bar's interval.
	Low, High []float64
	Color     string // CSS colour; the palette colour of the series' index when empty
}

// BarChart draws grouped bars: for each category, one bar per series.
// XLabel and YLabel title the horizontal and the vertical axis as drawn, so
// in a horizontal chart XLabel describes the values.
type BarChart struct {
	// Width and Height in pixels. Width defaults to DefaultWidth; Height to
	// DefaultHeight, or for a horizontal chart to what its rows need.
	Width, Height int
	Title         string
	XLabel        string
	YLabel        string
	Categories    []string
	Series        []BarSeries

	// Horizontal lays categories out as rows, labels on the left, bars
	// growing to the right: the form of a wait-event profile.
	Horizontal bool
	// ValueLabels writes each bar's value at its end.
	ValueLabels bool
	// ValueFormat formats value labels and tooltips, e.g.
	// func(v float64) string { return fmt.Sprintf("%.1f%%", v) }.
	ValueFormat func(float64) string
	// AxisFormat formats the value axis' tick labels; plain numbers (with
	// k, M, G for large ones) when nil.
	AxisFormat func(float64) string
	// ValueRange fixes the value axis; chosen from the data (and zero) when nil.
	ValueRange *Range
}

// WriteTo writes the chart's SVG to w.
func (ch BarChart) WriteTo(w io.Writer) (int64, error) {
	b, err := ch.Render()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

func (ch BarChart) validate() error {
	if err := ch.ValueRange.validate("value axis", false); err != nil {
		return err
	}
	nc := len(ch.Categories)
	for i, s := range ch.Series {
		if len(s.Values) != nc {
			return fmt.Errorf("bar series %d (%q): %d values for %d categories", i, s.Name, len(s.Values), nc)
		}
		if (s.Low != nil || s.High != nil) && (len(s.Low) != nc || len(s.High) != nc) {
			return fmt.Errorf("bar series %d (%q): error bars need %d low and high values, have %d and %d",
				i, s.Name, nc, len(s.Low), len(s.High))
		}
	}
	return nil
}

type barSeries struct {
	BarSeries
	color string
}

// Render returns the chart as a standalone <svg> element. A chart without a
// finite value renders a small "No data" placeholder.
func (ch BarChart) Render() ([]byte, error) {
	if err := ch.validate(); err != nil {
		return nil, err
	}
	series := make([]barSeries, len(ch.Series))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range ch.Series {
		color, err := pickColor(s.Color, i, fmt.Sprintf("bar series %d (%q)", i, s.Name))
		if err != nil {
			return nil, err
		}
		series[i] = barSeries{BarSeries: s, color: color}
		for j, v := range s.Values {
			if !finite(v) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if s.Low != nil {
				for _, e := range []float64{s.Low[j], s.High[j]} {
					if finite(e) {
						lo, hi = math.Min(lo, e), math.Max(hi, e)
					}
				}
			}
		}
	}
	autoH := ch.Horizontal && ch.Height == 0
	hh := ch.Height
	if autoH {
		hh = DefaultHeight // stands in for the height the rows will need
	}
	w, h, err := size(ch.Width, hh, DefaultHeight)
	if err != nil {
		return nil, err
	}
	if autoH {
		h = 0
	}
	if lo > hi {
		return noData(w, ch.Title), nil
	}
	var legend []legendItem
	for _, s := range series {
		if s.Name != "" {
			legend = append(legend, legendItem{name: s.Name, color: s.color, kind: legendBox})
		}
	}
	b := barLayout{ch: ch, series: series, legend: legend, w: w, h: h, lo: lo, hi: hi}
	if ch.Horizontal {
		return b.horizontal(), nil
	}
	return b.vertical(), nil
}

const (
	rotation         = 35.0 // degrees by which crowded category labels are turned
	rotatedLabelRune = 22   // rotated labels longer than this are shortened
	minLabelBar      = 9.0  // bars thinner than this get no value label
)

type barLayout struct {
	ch     BarChart
	series []barSeries
	legend []legendItem
	w, h   int
	lo, hi float64
}

func (b *barLayout) valueText(v float64) string {
	if b.ch.ValueFormat != nil {
		return b.ch.ValueFormat(v)
	}
	return formatValue(v)
}

func (b *barLayout) tip(s barSeries, cat string, j int) string {
	t := b.valueText(s.Values[j])
	if s.Low != nil && finite(s.Low[j]) && finite(s.High[j]) {
		t += " [" + b.valueText(s.Low[j]) + " – " + b.valueText(s.High[j]) + "]"
	}
	if s.Name != "" {
		return s.Name + " — " + cat + ": " + t
	}
	return cat + ": " + t
}

func (b *barLayout) valueAxis(target int, a, c float64) axis {
	lo, hi := math.Min(b.lo, 0), math.Max(b.hi, 0)
	if b.ch.ValueLabels && !b.ch.Horizontal {
		// Leave room for the labels at the bar ends.
		pad := hi*0.08 - lo*0.08
		if hi > 0 && finite(hi+pad) {
			hi += pad
		}
		if lo < 0 && finite(lo-pad) {
			lo -= pad
		}
	}
	return newAxis(axisOpts{includeZero: true, fixed: b.ch.ValueRange, format: b.ch.AxisFormat, tipFormat: b.ch.ValueFormat, target: target}, lo, hi, a, c)
}

// bar draws one bar (with tooltip) between value-axis pixels v0 and v1 and
// category-axis pixels c0 and c1.
func (b *barLayout) bar(c *canvas, horizontal bool, v0, v1, c0, c1 float64, color, tip string) {
	if v0 > v1 {
		v0, v1 = v1, v0
	}
	x, y, wd, ht := c0, v0, c1-c0, v1-v0
	if horizontal {
		x, y, wd, ht = v0, c0, v1-v0, c1-c0
	}
	c.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
		num(x), num(y), num(wd), num(ht), color, esc(tip))
}

func (b *barLayout) vertical() []byte {
	ch := b.ch
	nc := len(ch.Categories)
	top := 12.0
	if ch.Title != "" {
		top = 36
	}
	legendH := legendHeight(b.legend, b.w)
	labels := make([]string, nc)
	labelW := 0.0
	for i, cat := range ch.Categories {
		labels[i] = shorten(cat, maxLabelRune)
		labelW = math.Max(labelW, textWidth(labels[i], fontSize))
	}
	// A first guess of the plot width decides whether category labels must
	// be rotated, and shortened further, to fit.
	guessW := float64(b.w) - 90
	rotate := nc > 0 && labelW+8 > guessW/float64(nc)
	catH := 18.0
	if rotate {
		labelW = 0
		for i, cat := range ch.Categories {
			labels[i] = shorten(cat, rotatedLabelRune)
			labelW = math.Max(labelW, textWidth(labels[i], fontSize))
		}
		catH = 14 + labelW*math.Sin(rotation*math.Pi/180) + 6
	}
	bottom := 8 + catH
	if ch.XLabel != "" {
		bottom += 18
	}
	if legendH > 0 {
		bottom += legendH + 8
	}
	y1 := math.Max(float64(b.h)-bottom, top+40)
	ya := b.valueAxis(max(2, int((y1-top)/45)), y1, top)
	left := 10 + math.Min(maxLabelWidth(ya.ticks, fontSize), float64(b.w)*0.3) + 8
	if ch.YLabel != "" {
		left += 20
	}
	right := math.Max(float64(b.w)-20, left+40)
	if rotate && nc > 0 {
		// The first label reaches left from its category's centre.
		reach := labelW*math.Cos(rotation*math.Pi/180) + 4
		band := (right - left) / float64(nc)
		if need := reach - band/2; need > left {
			left = math.Min(need, float64(b.w)*0.4)
		}
	}
	p := plotArea{x0: left, y0: top, x1: right, y1: y1}

	var c canvas
	c.open(b.w, b.h, ch.Title)
	c.WriteString(`<g stroke-width="1">` + "\n")
	for _, t := range ya.ticks {
		py := ya.pos(t.v)
		c.line(p.x0, py, p.x1, py, gridColor, 1, "")
	}
	c.WriteString("</g>\n")

	band := (p.x1 - p.x0) / float64(max(nc, 1))
	ns := float64(max(len(b.series), 1))
	group := band * 0.8
	barW := group / ns
	gap := math.Min(2, barW*0.15)
	zero := ya.pos(ya.clamp(0))
	c.clipOpen(p, 1)
	for j, cat := range ch.Categories {
		g0 := p.x0 + float64(j)*band + (band-group)/2
		for i, s := range b.series {
			v := s.Values[j]
			if !finite(v) {
				continue
			}
			x0 := g0 + float64(i)*barW + gap/2
			b.bar(&c, false, zero, ya.pos(ya.clamp(v)), x0, x0+barW-gap, s.color, b.tip(s, cat, j))
		}
	}
	b.errorBars(&c, &ya, false, func(j, i int) float64 {
		return p.x0 + float64(j)*band + (band-group)/2 + (float64(i)+0.5)*barW
	}, barW)
	c.clipClose()

	if ch.ValueLabels {
		c.f(`<g fill="%s" font-size="%s" text-anchor="middle">`+"\n", textColor, num(smallFont))
		for j := range ch.Categories {
			for i, s := range b.series {
				v := s.Values[j]
				if !finite(v) {
					continue
				}
				label := b.valueText(v)
				if barW < minLabelBar || barW < 0.6*textWidth(label, smallFont) {
					continue
				}
				end := b.barEnd(s, j)
				cx := p.x0 + float64(j)*band + (band-group)/2 + (float64(i)+0.5)*barW
				py := ya.pos(ya.clamp(end)) - 4
				if v < 0 {
					py = ya.pos(ya.clamp(end)) + 12
				}
				c.text(cx, py, "", fontSize, "", label, "")
			}
		}
		c.WriteString("</g>\n")
	}

	c.line(p.x0, zero, p.x1, zero, axisColor, 1, "")
	c.line(p.x0, p.y0, p.x0, p.y1, axisColor, 1, "")
	c.f(`<g fill="%s">`+"\n", textColor)
	for _, t := range ya.ticks {
		py := ya.pos(t.v)
		c.line(p.x0-4, py, p.x0, py, axisColor, 1, "")
		c.text(p.x0-7, py+4, "end", fontSize, "", t.label, "")
	}
	for j, cat := range ch.Categories {
		cx := p.x0 + (float64(j)+0.5)*band
		ly := p.y1 + 17
		extra := ""
		anchor := "middle"
		if rotate {
			ly = p.y1 + 14
			anchor = "end"
			extra = `transform="rotate(-` + num(rotation) + " " + num(cx) + " " + num(ly) + `)"`
		}
		labelWithTip(&c, cx, ly, anchor, labels[j], cat, extra)
	}
	c.WriteString("</g>\n")
	drawAxisTitles(&c, plotArea{x0: p.x0, y0: p.y0, x1: p.x1, y1: p.y1 + catH - 18}, ch.XLabel, ch.YLabel)
	legendY := legendTop(p.y1+catH-18, ch.XLabel)
	drawLegend(&c, b.legend, legendY, b.w)
	c.close()
	return c.Bytes()
}

// labelWithTip writes a label, with the full text as tooltip when shortened.
func labelWithTip(c *canvas, x, y float64, anchor, label, full, extra string) {
	if label != full {
		c.f("<g><title>%s</title>", esc(full))
		c.text(x, y, anchor, fontSize, "", label, extra)
		c.WriteString("</g>\n")
		return
	}
	c.text(x, y, anchor, fontSize, "", label, extra)
}

// barEnd is where a value label goes: past the bar or its error bar.
func (b *barLayout) barEnd(s barSeries, j int) float64 {
	v := s.Values[j]
	if s.Low == nil {
		return v
	}
	if v >= 0 && finite(s.High[j]) {
		return math.Max(v, s.High[j])
	}
	if v < 0 && finite(s.Low[j]) {
		return math.Min(v, s.Low[j])
	}
	return v
}

// errorBars draws the intervals; center gives the category-axis pixel of
// series i in category j.
func (b *barLayout) errorBars(c *canvas, va *axis, horizontal bool, center func(j, i int) float64, barW float64) {
	capW := math.Min(4, barW/3)
	open := false
	for i, s := range b.series {
		if s.Low == nil {
			continue
		}
		for j := range b.ch.Categories {
			lo, hi := s.Low[j], s.High[j]
			if !finite(lo) || !finite(hi) || !finite(s.Values[j]) {
				continue
			}
			if !open {
				c.f(`<g stroke="%s" stroke-width="1.25">`+"\n", textColor)
				open = true
			}
			m := center(j, i)
			v0, v1 := va.pos(va.clamp(lo)), va.pos(va.clamp(hi))
			if horizontal {
				c.f(`<path d="M%s,%sH%sM%s,%sV%sM%s,%sV%s"/>`+"\n",
					num(v0), num(m), num(v1), num(v0), num(m-capW), num(m+capW), num(v1), num(m-capW), num(m+capW))
			} else {
				c.f(`<path d="M%s,%sV%sM%s,%sH%sM%s,%sH%s"/>`+"\n",
					num(m), num(v0), num(v1), num(m-capW), num(v0), num(m+capW), num(m-capW), num(v1), num(m+capW))
			}
		}
	}
	if open {
		c.WriteString("</g>\n")
	}
}

func (b *barLayout) horizontal() []byte {
	ch := b.ch
	nc := len(ch.Categories)
	ns := max(len(b.series), 1)
	top := 12.0
	if ch.Title != "" {
		top = 36
	}
	legendH := legendHeight(b.legend, b.w)
	bottom := 8 + 18.0
	if ch.XLabel != "" {
		bottom += 18
	}
	if legendH > 0 {
		bottom += legendH + 8
	}
	if b.h == 0 {
		rowH := math.Max(22, 8+13*float64(ns))
		b.h = int(math.Ceil(top + rowH*float64(nc) + bottom))
	}
	y1 := math.Max(float64(b.h)-bottom, top+20)

	labels := make([]string, nc)
	labelW := 0.0
	for i, cat := range ch.Categories {
		labels[i] = shorten(cat, maxLabelRune)
		labelW = math.Max(labelW, textWidth(labels[i], fontSize))
	}
	left := 10 + math.Min(labelW, float64(b.w)*0.4) + 8
	if ch.YLabel != "" {
		left += 20
	}
	right := float64(b.w) - 20
	if ch.ValueLabels {
		vw := 0.0
		for _, s := range b.series {
			for _, v := range s.Values {
				if finite(v) {
					vw = math.Max(vw, textWidth(b.valueText(v), smallFont))
				}
			}
		}
		right -= vw
	}
	right = math.Max(right, left+40)
	var xa axis
	for target := max(2, int((right-left)/90)); ; target-- {
		xa = b.valueAxis(target, left, right)
		width := 0.0
		for _, t := range xa.ticks {
			width += textWidth(t.label, fontSize) + 12
		}
		if target <= 2 || width <= right-left {
			break
		}
	}
	p := plotArea{x0: left, y0: top, x1: right, y1: y1}

	var c canvas
	c.open(b.w, b.h, ch.Title)
	c.WriteString(`<g stroke-width="1">` + "\n")
	for _, t := range xa.ticks {
		px := xa.pos(t.v)
		c.line(px, p.y0, px, p.y1, gridColor, 1, "")
	}
	c.WriteString("</g>\n")

	band := (p.y1 - p.y0) / float64(max(nc, 1))
	group := band * 0.8
	barH := group / float64(ns)
	gap := math.Min(2, barH*0.15)
	zero := xa.pos(xa.clamp(0))
	center := func(j, i int) float64 {
		return p.y0 + float64(j)*band + (band-group)/2 + (float64(i)+0.5)*barH
	}
	c.clipOpen(p, 1)
	for j, cat := range ch.Categories {
		for i, s := range b.series {
			v := s.Values[j]
			if !finite(v) {
				continue
			}
			y0 := center(j, i) - barH/2 + gap/2
			b.bar(&c, true, zero, xa.pos(xa.clamp(v)), y0, y0+barH-gap, s.color, b.tip(s, cat, j))
		}
	}
	b.errorBars(&c, &xa, true, center, barH)
	c.clipClose()

	if ch.ValueLabels && barH >= minLabelBar {
		c.f(`<g fill="%s" font-size="%s">`+"\n", textColor, num(smallFont))
		for j := range ch.Categories {
			for i, s := range b.series {
				v := s.Values[j]
				if !finite(v) {
					continue
				}
				label := b.valueText(v)
				px, anchor := valueLabelAt(xa.pos(xa.clamp(b.barEnd(s, j))), zero, v < 0, textWidth(label, fontSize), p.x0, float64(b.w)-4)
				c.text(px, center(j, i)+4, anchor, fontSize, "", label, "")
			}
		}
		c.WriteString("</g>\n")
	}

	c.line(p.x0, p.y1, p.x1, p.y1, axisColor, 1, "")
	c.line(zero, p.y0, zero, p.y1, axisColor, 1, "")
	c.f(`<g fill="%s">`+"\n", textColor)
	for _, t := range xa.ticks {
		px := xa.pos(t.v)
		c.line(px, p.y1, px, p.y1+4, axisColor, 1, "")
		c.text(px, p.y1+17, "middle", fontSize, "", t.label, "")
	}
	for j, cat := range ch.Categories {
		cy := p.y0 + (float64(j)+0.5)*band
		labelWithTip(&c, p.x0-8, cy+4, "end", labels[j], cat, "")
	}
	c.WriteString("</g>\n")
	drawAxisTitles(&c, p, ch.XLabel, ch.YLabel)
	legendY := legendTop(p.y1, ch.XLabel)
	drawLegend(&c, b.legend, legendY, b.w)
	c.close()
	return c.Bytes()
}

// valueLabelAt places a horizontal bar's value label of width w: beyond the
// bar's end (its error bar included), else on the other side of the zero
// line, else inside the bar beside zero, whichever first stays within the
// plot [x0, x1]; a label beyond x0 would write over the category labels.
func valueLabelAt(end, zero float64, negative bool, w, x0, x1 float64) (px float64, anchor string) {
	fits := func(from, to float64) bool { return from >= x0 && to <= x1 }
	if negative {
		if fits(end-4-w, end) {
			return end - 4, "end"
		}
		if fits(zero, zero+4+w) {
			return zero + 4, ""
		}
		return zero - 4, "end"
	}
	if fits(end, end+4+w) {
		return end + 4, ""
	}
	if fits(zero-4-w, zero) {
		return zero - 4, "end"
	}
	return zero + 4, ""
}
