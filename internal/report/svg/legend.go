package svg

import "math"

const (
	legendRow      = 18.0
	legendSwatch   = 22.0
	legendNameRune = 48
)

type legendKind int

const (
	legendLine legendKind = iota
	legendPoints
	legendLinePoints
	legendBox
)

// legendItem is one entry of a legend.
type legendItem struct {
	name  string
	color string
	kind  legendKind
	dash  string // stroke-dasharray for line swatches
	shape int    // marker shape for point swatches
}

func (it legendItem) width() float64 {
	return legendSwatch + 6 + textWidth(shorten(it.name, legendNameRune), fontSize) + 18
}

// legendPlace returns the position of each item, wrapping rows within avail
// pixels, and the number of rows.
func legendPlace(items []legendItem, avail float64) (xs []float64, rows []int, n int) {
	x, row := 0.0, 0
	for _, it := range items {
		w := it.width()
		if x > 0 && x+w > avail {
			x, row = 0, row+1
		}
		xs = append(xs, x)
		rows = append(rows, row)
		x += w
	}
	if len(items) == 0 {
		return nil, nil, 0
	}
	return xs, rows, row + 1
}

// The legend spans the chart's width, less legendX on either side.
const legendX = 12.0

// legendHeight is the height of the legend of a chart w pixels wide.
func legendHeight(items []legendItem, w int) float64 {
	_, _, n := legendPlace(items, float64(w)-2*legendX)
	return float64(n) * legendRow
}

// drawLegend draws the legend of a chart w pixels wide with its first row's
// centre line at y.
func drawLegend(c *canvas, items []legendItem, y float64, w int) {
	if len(items) == 0 {
		return
	}
	x0 := legendX
	xs, rows, _ := legendPlace(items, math.Max(float64(w)-2*legendX, 1))
	c.WriteString(`<g class="legend">` + "\n")
	for i, it := range items {
		x := x0 + xs[i]
		cy := y + float64(rows[i])*legendRow
		switch it.kind {
		case legendBox:
			c.f(`<rect x="%s" y="%s" width="14" height="10" fill="%s"/>`+"\n", num(x+4), num(cy-5), it.color)
		case legendPoints:
			markerShape(c, it.shape, x+legendSwatch/2, cy, 3.5, it.color, "")
		default:
			extra := ""
			if it.dash != "" {
				extra = `stroke-dasharray="` + it.dash + `"`
			}
			c.line(x, cy, x+legendSwatch, cy, it.color, 2, extra)
			if it.kind == legendLinePoints {
				markerShape(c, it.shape, x+legendSwatch/2, cy, 3, it.color, "")
			}
		}
		name := shorten(it.name, legendNameRune)
		if name != it.name {
			c.f("<g><title>%s</title>", esc(it.name))
			c.text(x+legendSwatch+6, cy+4, "", fontSize, textColor, name, "")
			c.WriteString("</g>\n")
		} else {
			c.text(x+legendSwatch+6, cy+4, "", fontSize, textColor, name, "")
		}
	}
	c.WriteString("</g>\n")
}
