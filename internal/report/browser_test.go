package report

import (
	"bytes"
	"context"
	"fmt"
	"github.com/dbharness/dbharness/internal/results"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPath finds headless Chromium: $CHROMIUM, then chromium on PATH.
// A missing browser fails the test: scripts/test.sh installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs headless Chromium; go test -short runs only the tests that need no server")
	}
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: `apt-get install -y chromium` (scripts/test.sh installs it when run as root), or set $CHROMIUM")
	return ""
}

// browse opens file in a fresh headless Chromium with the given extra
// flags and returns its standard output and its log (standard error).
func browse(t *testing.T, file string, extra ...string) (stdout, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	args = append(args, extra...)
	args = append(args, "file://"+file)
	cmd := exec.CommandContext(ctx, chromiumPath(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(extra, " "), err, tail(errb.String(), 2000))
	}
	return out.String(), errb.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// consoleLines are the page's console messages in Chromium's log: any
// script error, blocked resource or policy violation shows up there.
var consoleRE = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

func consoleLines(log string) []string { return consoleRE.FindAllString(log, -1) }

func TestConsoleDetectionCatchesAnError(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bad.html")
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body><p>x</p><script>console.error("boom")</script></body></html>`
	if err := os.WriteFile(f, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	_, log := browse(t, f, "--dump-dom")
	if lines := consoleLines(log); len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "boom") {
		t.Fatalf("a console error went unnoticed; the check of the reports would be blind. Chromium's log:\n%s", tail(log, 3000))
	}
}

// TestReportsInChromium opens rendered run, sweep and comparison reports
// in headless Chromium: no console message (no script error, no blocked
// external resource under the page's strict content security policy), every
// section in the parsed DOM, hostile text shown as text, and a screenshot
// that is not blank.
func TestReportsInChromium(t *testing.T) {
	dir := t.TempDir()
	if *keepOut != "" {
		dir = *keepOut
	}
	cases := []struct {
		name     string
		html     func(t *testing.T) []byte
		sections []string
		charts   int
		text     string // escaped hostile text that must appear as text
	}{
		{"run", func(t *testing.T) []byte { return render(t, withEvidence(syntheticRun(300, 30))) },
			[]string{"header", "summary", "errors", "throughput", "latency", "spectrum", "os", "server", "waits", "plans", "config"}, 11,
			"&lt;script&gt;alert('x')&lt;/script&gt;"},
		{"sweep", func(t *testing.T) []byte { return renderSweep(t, true) },
			[]string{"header", "scaling", "latency", "inflation", "config"}, 3, ""},
		{"compare", func(t *testing.T) []byte { return renderCompare(t) },
			[]string{"header", "verdicts", "differences", "sides"}, 4, "&lt;script&gt;x&lt;/script&gt;"},
		// A tpcc-like run: transaction types at rates 40 times apart, each
		// on an axis of its own.
		{"tpcc", func(t *testing.T) []byte { return render(t, tpccLikeRun()) },
			[]string{"header", "summary", "throughput", "latency", "spectrum", "config"}, 6, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, "chromium-"+c.name+"-report.html")
			if err := os.WriteFile(f, c.html(t), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, log := browse(t, f, "--dump-dom")
			if lines := consoleLines(log); len(lines) > 0 {
				t.Errorf("console messages while loading the report:\n%s", strings.Join(lines, "\n"))
			}
			for _, id := range c.sections {
				if !strings.Contains(dom, fmt.Sprintf(`id="%s"`, id)) {
					t.Errorf("the DOM lacks the section %q", id)
				}
			}
			if n := strings.Count(dom, "<svg "); n < c.charts {
				t.Errorf("the DOM holds %d <svg> elements, want at least %d charts", n, c.charts)
			}
			if strings.Contains(strings.ToLower(dom), "<script") {
				t.Error("the DOM holds a script element: text from the data was parsed as markup")
			}
			if c.text != "" && !strings.Contains(dom, c.text) {
				t.Errorf("the DOM does not show %q as text", c.text)
			}
			shot := filepath.Join(dir, "chromium-"+c.name+"-report.png")
			_, log = browse(t, f, "--screenshot="+shot, "--window-size=1100,3200")
			if lines := consoleLines(log); len(lines) > 0 {
				t.Errorf("console messages while taking the screenshot:\n%s", strings.Join(lines, "\n"))
			}
			checkNotBlank(t, shot)
		})
	}
}

// checkNotBlank decodes a PNG and requires real content: a spread of
// luminance and a share of non-white pixels that a blank or error page
// does not have.
func checkNotBlank(t *testing.T, path string) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", path, err)
	}
	b := img.Bounds()
	var n, dark float64
	var sum, sum2 float64
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			l := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 65535
			sum += l
			sum2 += l * l
			n++
			if l < 0.9 {
				dark++
			}
		}
	}
	mean := sum / n
	sd := math.Sqrt(math.Max(sum2/n-mean*mean, 0))
	t.Logf("screenshot %dx%d: luminance mean %.3f, sd %.3f, %.1f%% non-white", b.Dx(), b.Dy(), mean, sd, 100*dark/n)
	if b.Dx() < 800 || b.Dy() < 1000 {
		t.Errorf("screenshot is only %dx%d", b.Dx(), b.Dy())
	}
	if sd < 0.05 || dark/n < 0.01 {
		t.Errorf("screenshot looks blank: luminance sd %.3f, %.2f%% non-white pixels", sd, 100*dark/n)
	}
}

// tpccLikeRun is the synthetic run with tpcc's names for its two types, the
// second at a fortieth of the first's rate.
func tpccLikeRun() *results.Run {
	r := syntheticRun(120, 10)
	r.Workload = "tpcc"
	names := map[string]string{"tpcb_like": "new_order", "select_only": "stock_level"}
	for i := range r.Ops {
		r.Ops[i].Name = names[r.Ops[i].Name]
	}
	for i := range r.Intervals {
		for j := range r.Intervals[i].Ops {
			o := &r.Intervals[i].Ops[j]
			o.Name = names[o.Name]
			if o.Name == "stock_level" {
				o.TPS /= 40
			}
		}
	}
	return r
}
