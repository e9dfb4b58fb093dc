package svg

import (
	"math"
	"regexp"
	"strconv"
	"testing"
)

// A count axis (clients) has no tick at half a client.
func TestCountAxesTickOnWholeNumbers(t *testing.T) {
	half := regexp.MustCompile(`>[0-9]\.5<`)
	render := func(integer bool) []byte {
		ch := LineChart{Series: []Series{{X: []float64{1, 2, 3}, Y: []float64{10, 20, 25}}}, XRange: &Range{Min: 0, Max: 3.45}, XInteger: integer}
		b, err := ch.Render()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !half.Match(render(false)) {
		t.Fatal("the test's axis has no half ticks to begin with")
	}
	if b := render(true); half.Match(b) || !regexp.MustCompile(`>3<`).Match(b) {
		t.Errorf("a count axis has half ticks, or no tick at 3")
	}
}

// A value label never goes left of the plot, over the category labels:
// a negative change whose interval reaches the axis is labelled on the
// other side of zero, or inside its bar.
func TestValueLabelsStayOffTheCategoryLabels(t *testing.T) {
	for _, c := range []struct {
		end, zero float64
		neg       bool
		wantX     float64
		wantA     string
	}{
		{end: 300, zero: 500, neg: true, wantX: 296, wantA: "end"},  // room beyond the bar's end
		{end: 105, zero: 500, neg: true, wantX: 504, wantA: ""},     // the other side of zero
		{end: 105, zero: 580, neg: true, wantX: 576, wantA: "end"},  // no room either side: inside the bar
		{end: 400, zero: 100, neg: false, wantX: 404, wantA: ""},    // a positive bar, as before
		{end: 590, zero: 300, neg: false, wantX: 296, wantA: "end"}, // past the right edge: left of zero
	} {
		x, a := valueLabelAt(c.end, c.zero, c.neg, 40, 100, 600)
		if x != c.wantX || a != c.wantA {
			t.Errorf("end %v zero %v negative %v: at %v %q, want %v %q", c.end, c.zero, c.neg, x, a, c.wantX, c.wantA)
		}
	}
	// Rendered: a -32.5% change with its interval down to -44% on an axis
	// from -45%: the label's anchor is right of the plot's left edge.
	ch := BarChart{Width: 700, Categories: []string{"select_only", "total"}, Horizontal: true, ValueLabels: true,
		ValueFormat: func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" },
		Series:      []BarSeries{{Name: "Δ tps", Values: []float64{-32.5, -32.5}, Low: []float64{-43.9, -43.7}, High: []float64{-19.2, -19.4}}}}
	b, err := ch.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`<text x="([0-9.]+)"[^>]*>-32\.5%<`).FindAllSubmatch(b, -1) {
		if x, _ := strconv.ParseFloat(string(m[1]), 64); x < 150 {
			t.Errorf("a value label at x=%v writes over the category labels", x)
		}
	}
}

// The palette's first five colours (tpcc's five transaction types) can be
// told apart: each pair differs in hue by 30 degrees or more, or in
// lightness by 25 points or more. The palette before this test had
// payment and stock_level in near-identical reds (#BB5566, #EE99AA).
func TestThePaletteColoursAreDistinct(t *testing.T) {
	distinct := func(a, b string) bool {
		h1, l1 := hueLightness(a)
		h2, l2 := hueLightness(b)
		dh := math.Abs(h1 - h2)
		dh = math.Min(dh, 360-dh)
		return dh >= 30 || math.Abs(l1-l2) >= 25
	}
	if distinct("#BB5566", "#EE99AA") {
		t.Fatal("the test cannot tell the old near-identical reds apart from distinct colours")
	}
	for i := 0; i < 5; i++ {
		for j := i + 1; j < 5; j++ {
			if !distinct(PaletteColor(i), PaletteColor(j)) {
				t.Errorf("colours %d %s and %d %s look alike", i, PaletteColor(i), j, PaletteColor(j))
			}
		}
	}
}

// hueLightness is a #RRGGBB colour's HSL hue (degrees) and lightness (%).
func hueLightness(c string) (h, l float64) {
	v, _ := strconv.ParseUint(c[1:], 16, 32)
	r, g, b := float64(v>>16&255)/255, float64(v>>8&255)/255, float64(v&255)/255
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	l = (mx + mn) / 2 * 100
	d := mx - mn
	switch {
	case d == 0:
		h = 0
	case mx == r:
		h = math.Mod((g-b)/d, 6) * 60
	case mx == g:
		h = ((b-r)/d + 2) * 60
	default:
		h = ((r-g)/d + 4) * 60
	}
	if h < 0 {
		h += 360
	}
	return h, l
}
