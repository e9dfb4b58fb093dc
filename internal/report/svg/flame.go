package svg

import (
	"fmt"
	"hash/fnv"
	"io"
	"sort"
)

// FlameStack is one sampled call stack, root first, and its weight.
type FlameStack struct {
	Frames []string
	Weight float64
}

// FlameGraph draws sampled call stacks as a flame graph (Brendan Gregg's
// layout): one bar per function in a call path, the root at the bottom,
// each bar as wide as the share of samples that passed through it and the
// callees on top of their caller, sorted by name so that the x axis is not
// time. A bar's tooltip gives its samples and share; bars narrower than
// MinWidth pixels are left out.
type FlameGraph struct {
	Width  int // pixels; DefaultWidth when 0
	Title  string
	Stacks []FlameStack
	// Unit names the weights in tooltips, e.g. "samples".
	Unit string
	// MinWidth is the narrowest bar drawn, 0.5 pixels when 0.
	MinWidth float64
}

const (
	flameRow = 17.0 // a bar's height with its gap
	flameTop = 34.0 // room for the title
	flamePad = 10.0
)

type flameNode struct {
	name     string
	weight   float64
	children map[string]*flameNode
}

func (n *flameNode) child(name string) *flameNode {
	if n.children == nil {
		n.children = map[string]*flameNode{}
	}
	c := n.children[name]
	if c == nil {
		c = &flameNode{name: name}
		n.children[name] = c
	}
	return c
}

// WriteTo implements io.WriterTo.
func (ch FlameGraph) WriteTo(w io.Writer) (int64, error) {
	b, err := ch.Render()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Render returns the <svg> element.
func (ch FlameGraph) Render() ([]byte, error) {
	w, _, err := size(ch.Width, 0, DefaultHeight)
	if err != nil {
		return nil, err
	}
	root := &flameNode{name: "all"}
	for i, s := range ch.Stacks {
		if !finite(s.Weight) || s.Weight < 0 {
			return nil, fmt.Errorf("flame graph: stack %d has weight %v; weights must be finite and not negative", i, s.Weight)
		}
		if s.Weight == 0 || len(s.Frames) == 0 {
			continue
		}
		root.weight += s.Weight
		n := root
		for _, f := range s.Frames {
			n = n.child(f)
			n.weight += s.Weight
		}
	}
	if root.weight == 0 {
		return noData(w, ch.Title), nil
	}
	minW := ch.MinWidth
	if minW <= 0 {
		minW = 0.5
	}
	unit := ch.Unit
	if unit == "" {
		unit = "samples"
	}
	scale := (float64(w) - 2*flamePad) / root.weight
	rows := visibleDepth(root, scale, minW)
	h := int(flameTop + float64(rows)*flameRow + flamePad)
	var c canvas
	c.open(w, h, ch.Title)
	var draw func(n *flameNode, x float64, level int)
	draw = func(n *flameNode, x float64, level int) {
		bw := n.weight * scale
		if bw < minW {
			return
		}
		y := float64(h) - flamePad - float64(level+1)*flameRow
		tip := fmt.Sprintf("%s: %s %s (%s%%)", n.name, formatValue(n.weight), unit, formatValue(100*n.weight/root.weight))
		c.f(`<g><title>%s</title><rect x="%s" y="%s" width="%s" height="%s" rx="2" fill="%s"/>`, esc(tip), num(x), num(y),
			num(max(bw-0.5, 0.1)), num(flameRow-1), flameColor(n.name))
		// About 6.5 pixels a character at the small font.
		if chars := int((bw - 6) / (smallFont * 0.58)); chars >= 3 {
			c.f("\n")
			c.text(x+3, y+flameRow-5, "", smallFont, textColor, shorten(n.name, chars), "")
		} else {
			c.f("\n")
		}
		c.WriteString("</g>\n")
		names := make([]string, 0, len(n.children))
		for k := range n.children {
			names = append(names, k)
		}
		sort.Strings(names)
		cx := x
		for _, k := range names {
			kid := n.children[k]
			draw(kid, cx, level+1)
			cx += kid.weight * scale
		}
	}
	draw(root, flamePad, 0)
	c.close()
	return c.Bytes(), nil
}

// visibleDepth is how many rows of bars are wide enough to draw.
func visibleDepth(n *flameNode, scale, minW float64) int {
	if n.weight*scale < minW {
		return 0
	}
	d := 0
	for _, c := range n.children {
		d = max(d, visibleDepth(c, scale, minW))
	}
	return d + 1
}

// flamePalette are warm colours, the flame graph's convention; a frame's
// colour follows its name, so one function has one colour throughout.
var flamePalette = []string{"#F2A65A", "#EEC170", "#E4804E", "#F7C59F", "#E9A178", "#DDA15E", "#F4D58D", "#E07A5F"}

func flameColor(name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return flamePalette[h.Sum32()%uint32(len(flamePalette))]
}
