package svg

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestFlameGraphDrawsEachFunctionAsWideAsItsSamples(t *testing.T) {
	ch := FlameGraph{Width: 420, Title: "cpu", Stacks: []FlameStack{
		{Frames: []string{"main", "PostgresMain", "ExecScan"}, Weight: 3},
		{Frames: []string{"main", "PostgresMain", "<script>"}, Weight: 1},
		{Frames: []string{"main", "tiny"}, Weight: 0.001},
	}}
	b, err := ch.Render()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := ch.Render(); !bytes.Equal(b, again) {
		t.Error("two renders differ")
	}
	if err := xml.Unmarshal(b, new(struct{})); err != nil || bytes.Contains(b, []byte("<script>")) {
		t.Fatalf("not well-formed, escaped XML: %v", err)
	}
	// Each drawn frame's tooltip and width: ExecScan three times as wide
	// as the other leaf; "tiny" is under half a pixel and left out.
	re := regexp.MustCompile(`<title>([^<]*?): [0-9.]+ samples \(([0-9.]+)%\)</title><rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"`)
	width := map[string]float64{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		w, _ := strconv.ParseFloat(m[3], 64)
		width[m[1]] = w
	}
	if _, ok := width["tiny"]; ok {
		t.Error("a frame under MinWidth was drawn")
	}
	for _, f := range []string{"all", "main", "PostgresMain", "ExecScan", "&lt;script&gt;"} {
		if width[f] == 0 {
			t.Errorf("frame %s not drawn: %v", f, width)
		}
	}
	if r := (width["ExecScan"] + 0.5) / (width["&lt;script&gt;"] + 0.5); r < 2.9 || r > 3.1 {
		t.Errorf("ExecScan is %.2f times as wide as the other leaf, want 3: %v", r, width)
	}
	if !strings.Contains(string(b), ">cpu</text>") {
		t.Error("no title")
	}
}

func TestFlameGraphWithoutSamplesSaysNoDataAndRefusesBadWeights(t *testing.T) {
	b, err := FlameGraph{}.Render()
	if err != nil || !bytes.Contains(b, []byte("No data")) {
		t.Errorf("empty flame graph: %v %s", err, b)
	}
	if _, err := (FlameGraph{Stacks: []FlameStack{{Frames: []string{"a"}, Weight: -1}}}).Render(); err == nil {
		t.Error("a negative weight was drawn")
	}
}
