package svg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Default chart size in pixels, used when a config leaves Width or Height at zero.
const (
	DefaultWidth  = 720
	DefaultHeight = 360
)

const (
	fontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
	fontSize   = 12.0
	smallFont  = 11.0
	titleFont  = 14.0

	textColor   = "#222222"
	mutedColor  = "#555555"
	gridColor   = "#e5e5e5"
	minorColor  = "#f2f2f2"
	axisColor   = "#888888"
	bandColor   = "#000000"
	markerColor = "#CC3311"

	noDataHeight = 80
	maxLabelRune = 40 // category labels longer than this are shortened (full text in a tooltip)
)

// palette is Okabe and Ito's colour-blind-safe set (Color Universal
// Design), ordered so that the first five (tpcc's five transaction types)
// differ in hue, or where two share a hue (blue, sky blue) clearly in
// lightness; its yellow, hard to see on white, comes last.
var palette = []string{
	"#0072B2", // blue
	"#E69F00", // orange
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#D55E00", // vermillion
	"#555555", // dark grey (Okabe-Ito's black, softened beside black "all" lines)
	"#F0E442", // yellow
}

// PaletteColor returns the default colour of the i-th series (0-based); the
// palette repeats after eight colours.
func PaletteColor(i int) string {
	if i < 0 {
		i = -i
	}
	return palette[i%len(palette)]
}

// Range fixes an axis to [Min, Max] instead of choosing it from the data.
type Range struct {
	Min, Max float64
}

func (r *Range) validate(name string, log bool) error {
	if r == nil {
		return nil
	}
	if !finite(r.Min) || !finite(r.Max) || r.Min >= r.Max {
		return fmt.Errorf("%s: range [%v, %v] must be finite with Min < Max", name, r.Min, r.Max)
	}
	if log && r.Min <= 0 {
		return fmt.Errorf("%s: range [%v, %v] on a log axis must be positive", name, r.Min, r.Max)
	}
	return nil
}

// Band shades an x-range of a chart, such as the warm-up period.
type Band struct {
	From, To float64
	Label    string // drawn at the top left of the band and shown as its tooltip
}

// Marker draws a vertical line at X, such as an error or a reconnect.
type Marker struct {
	X     float64
	Label string // tooltip (SVG <title>) shown when hovering over the line
	Text  string // optional short text drawn beside the top of the line
	Color string // optional; a red that stands apart from the palette when empty
}

// HLine draws a horizontal reference line at Y, such as a latency target.
type HLine struct {
	Y     float64
	Label string // drawn above the right end of the line
	Color string // optional; dark grey when empty
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// num formats an SVG coordinate with at most two decimals, so output is
// deterministic and compact.
func num(v float64) string {
	if !finite(v) {
		return "0"
	}
	v = math.Round(v*100) / 100
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// esc escapes s for use as XML character data or a quoted attribute value.
// Characters not allowed in XML are replaced by U+FFFD.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}

// textWidth estimates the rendered width of s in pixels for a sans-serif font.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.58
}

// shorten cuts s to at most n runes, ending with an ellipsis when cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// validColor reports whether c is a CSS colour of a safe form: #rgb,
// #rrggbb (or with alpha), a colour name, or rgb(), rgba(), hsl() or hsla()
// of numbers. Anything else (url(), var(), quotes) is refused.
func validColor(c string) bool {
	if c == "" || len(c) > 64 {
		return false
	}
	if c[0] == '#' {
		h := c[1:]
		if n := len(h); n != 3 && n != 4 && n != 6 && n != 8 {
			return false
		}
		for _, r := range h {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	if open := strings.IndexByte(c, '('); open >= 0 {
		switch strings.ToLower(c[:open]) {
		case "rgb", "rgba", "hsl", "hsla":
		default:
			return false
		}
		args, ok := strings.CutSuffix(c[open+1:], ")")
		if !ok {
			return false
		}
		for _, r := range args {
			if !strings.ContainsRune("0123456789.,% /-deg", r) {
				return false
			}
		}
		return true
	}
	for _, r := range c {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func pickColor(c string, i int, what string) (string, error) {
	if c == "" {
		return PaletteColor(i), nil
	}
	if !validColor(c) {
		return "", fmt.Errorf("%s: invalid color %q", what, c)
	}
	return c, nil
}

func size(w, h int, defH int) (int, int, error) {
	if w < 0 || h < 0 {
		return 0, 0, fmt.Errorf("chart size %dx%d must not be negative", w, h)
	}
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = defH
	}
	if w < 120 || h < 60 {
		return 0, 0, fmt.Errorf("chart size %dx%d is too small (minimum 120x60)", w, h)
	}
	return w, h, nil
}

// canvas accumulates SVG markup.
type canvas struct {
	bytes.Buffer
}

func (c *canvas) f(format string, args ...any) {
	fmt.Fprintf(&c.Buffer, format, args...)
}

// open writes the root element with its accessible name and a white background.
func (c *canvas) open(w, h int, title string) {
	name := title
	if name == "" {
		name = "chart"
	}
	c.f(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s" font-family="%s" font-size="%s">`+"\n",
		w, h, w, h, esc(name), fontFamily, num(fontSize))
	c.f("<title>%s</title>\n", esc(name))
	c.f(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", w, h)
	if title != "" {
		c.text(float64(w)/2, 20, "middle", titleFont, textColor, title, `font-weight="bold"`)
	}
}

func (c *canvas) close() { c.WriteString("</svg>\n") }

// text writes a text element; s is escaped. extra is trusted attribute text.
func (c *canvas) text(x, y float64, anchor string, size float64, fill, s, extra string) {
	c.f(`<text x="%s" y="%s"`, num(x), num(y))
	if anchor != "" && anchor != "start" {
		c.f(` text-anchor="%s"`, anchor)
	}
	if size != fontSize {
		c.f(` font-size="%s"`, num(size))
	}
	if fill != "" {
		c.f(` fill="%s"`, fill)
	}
	if extra != "" {
		c.f(" %s", extra)
	}
	c.f(">%s</text>\n", esc(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, stroke string, width float64, extra string) {
	c.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"`, num(x1), num(y1), num(x2), num(y2), stroke)
	if width != 1 {
		c.f(` stroke-width="%s"`, num(width))
	}
	if extra != "" {
		c.f(" %s", extra)
	}
	c.WriteString("/>\n")
}

// clipOpen starts a nested viewport that clips everything drawn inside it to
// the plot area (grown by pad pixels), without needing document-unique ids.
func (c *canvas) clipOpen(p plotArea, pad float64) {
	x, y := p.x0-pad, p.y0-pad
	w, h := p.x1-p.x0+2*pad, p.y1-p.y0+2*pad
	c.f(`<svg x="%s" y="%s" width="%s" height="%s" viewBox="%s %s %s %s" overflow="hidden">`+"\n",
		num(x), num(y), num(w), num(h), num(x), num(y), num(w), num(h))
}

func (c *canvas) clipClose() { c.WriteString("</svg>\n") }

// plotArea is the rectangle of the data area in pixels.
type plotArea struct {
	x0, y0, x1, y1 float64 // left, top, right, bottom
}

// noData renders a small placeholder chart that says there is no data.
func noData(w int, title string) []byte {
	var c canvas
	c.open(w, noDataHeight, title)
	y := 50.0
	if title == "" {
		y = 44
	}
	c.text(float64(w)/2, y, "middle", fontSize, mutedColor, "No data", `font-style="italic"`)
	c.close()
	return c.Bytes()
}

// markerShape draws point i of a series with the series' marker shape; shapes
// cycle so that series stay distinguishable without colour.
func markerShape(c *canvas, shape int, x, y, r float64, color, tip string) {
	var el string
	switch shape % 4 {
	case 0:
		el = "circle"
		c.f(`<circle cx="%s" cy="%s" r="%s" fill="%s"`, num(x), num(y), num(r), color)
	case 1:
		el = "rect"
		c.f(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"`, num(x-r), num(y-r), num(2*r), num(2*r), color)
	case 2:
		el = "path"
		h := r * 1.2
		c.f(`<path d="M%s,%sL%s,%sL%s,%sZ" fill="%s"`, num(x), num(y-h), num(x+h), num(y+h*0.8), num(x-h), num(y+h*0.8), color)
	default:
		el = "path"
		h := r * 1.3
		c.f(`<path d="M%s,%sL%s,%sL%s,%sL%s,%sZ" fill="%s"`, num(x), num(y-h), num(x+h), num(y), num(x), num(y+h), num(x-h), num(y), color)
	}
	if tip == "" {
		c.WriteString("/>\n")
		return
	}
	c.f("><title>%s</title></%s>\n", esc(tip), el)
}

// formatValue formats a data value for tooltips and value labels: up to four
// significant digits, without exponent for everyday magnitudes.
func formatValue(v float64) string {
	if !finite(v) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e15 || a < 1e-6 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	d := 3 - int(math.Floor(math.Log10(a)))
	if d < 0 {
		d = 0
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}
