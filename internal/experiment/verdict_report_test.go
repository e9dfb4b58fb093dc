package experiment

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/report"
	"github.com/dbharness/dbharness/internal/results"
)

// rendered is a sweep's analysis as the user sees it: the text table, the
// JSON and the HTML report's headline and body.
type rendered struct {
	text, json, headline, html, markdown string
}

func render(t *testing.T, sw *results.Sweep) rendered {
	t.Helper()
	var r rendered
	var b bytes.Buffer
	report.SweepTable(&b, sw)
	r.text = b.String()
	j, err := json.MarshalIndent(sw, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	r.json = string(j)
	b.Reset()
	if err := report.SweepHTML(&b, sw, report.HTMLOptions{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	r.html = html.UnescapeString(b.String())
	m := regexp.MustCompile(`(?s)<dl class="headline">(.*?)</dl>`).FindStringSubmatch(r.html)
	if m == nil {
		t.Fatal("the HTML report has no headline")
	}
	r.headline = strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(strings.ReplaceAll(m[1], "</dd>", ";"), " ")), " ")
	b.Reset()
	if err := report.SweepMarkdown(&b, sw); err != nil {
		t.Fatal(err)
	}
	r.markdown = b.String()
	return r
}

func contains(t *testing.T, where, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", where, w, s)
		}
	}
}

func lacks(t *testing.T, where, s string, bad ...*regexp.Regexp) {
	t.Helper()
	for _, b := range bad {
		if m := b.FindString(s); m != "" {
			t.Errorf("%s has %q (%s):\n%s", where, m, b, s)
		}
	}
}

var statedPeak = regexp.MustCompile(`peak [0-9.]+ clients at|tps at [0-9]+ clients|peak [0-9,]+ tps at`)

func TestAPoorFitIsLabelledInTheTextTheJSONAndTheHeadline(t *testing.T) {
	r := render(t, poorSweep(t))
	contains(t, "text", r.text, "USL: poor fit (R^2 0.", "no peak or ceiling stated", "caveats (what this analysis cannot vouch for):", "! USL: poor fit (R² 0.")
	contains(t, "JSON", r.json, `"poor_fit": true`, `"kind": "poor-fit"`)
	contains(t, "HTML headline", r.headline, "USL peak", "not stated: poor fit (R² 0.")
	contains(t, "HTML", r.html, "Warning: USL: poor fit", "(poor fit)", ", poor fit)")
	contains(t, "Markdown", r.markdown, "**poor fit**: no peak stated")
	for where, s := range map[string]string{"text": r.text, "HTML headline": r.headline, "Markdown": r.markdown} {
		lacks(t, where, s, statedPeak)
	}
}

func TestACleanSweepStatesItsPeakAsAFinding(t *testing.T) {
	sw, runs := injectedSweep(cleanRuns())
	Analyze(sw, runs)
	r := render(t, sw)
	contains(t, "text", r.text, "caveats: none")
	lacks(t, "text", r.text, regexp.MustCompile(`poor fit|not stated|!`))
	contains(t, "JSON", r.json, `"poor_fit": false`, `"peak_extrapolated": false`, `"caveats": []`)
	contains(t, "HTML headline", r.headline, "caveats none")
	lacks(t, "HTML", r.html, regexp.MustCompile(`Warning:|not stated|poor fit\)`))
	for where, s := range map[string]string{"text": r.text, "HTML headline": r.headline, "Markdown": r.markdown} {
		if !statedPeak.MatchString(s) {
			t.Errorf("%s states no peak:\n%s", where, s)
		}
	}
	// The poor sweep's headline differs from the clean one's in what it
	// claims, not only in its figures.
	poor := render(t, poorSweep(t))
	if strings.Contains(poor.headline, "caveats none") || !regexp.MustCompile(`caveats [1-9]`).MatchString(poor.headline) {
		t.Errorf("the poor sweep's headline does not count its caveats: %s", poor.headline)
	}
}

func TestAnIntervalClippedAtZeroIsShownAsClipped(t *testing.T) {
	in := []injected{{1, 1, 1000, 10}, {2, 1, 9000, 10}, {1, 2, 9000, 10}, {2, 2, 9100, 10}}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	r := render(t, sw)
	contains(t, "text", r.text, "[≤0, ", "≤0: the interval reached below zero")
	lacks(t, "text", r.text, regexp.MustCompile(`\[0\.0, `))
	contains(t, "JSON", r.json, `"tps_ci_low_clipped": true`)
	contains(t, "HTML", r.html, "<td class=\"n\">≤0 – ", "≤0: the interval reached below zero")
	contains(t, "Markdown", r.markdown, "| ≤0 – ")
	lacks(t, "HTML", r.html, regexp.MustCompile(`>0 – `))
}

func TestTheCaveatsNameTheirPointsAndRunsInEveryOutput(t *testing.T) {
	// A baseline in a slow regime at 1 client (one run of three fast),
	// which makes 2 clients' efficiency above 1.
	in := []injected{{1, 1, 8141, 400}, {2, 1, 17098, 400}, {3, 1, 8823, 400},
		{1, 2, 20000, 600}, {2, 2, 21000, 600}, {3, 2, 20500, 600}}
	sw, runs := injectedSweep(in)
	Analyze(sw, runs)
	r := render(t, sw)
	for where, s := range map[string]string{"text": r.text, "HTML": r.html, "Markdown": r.markdown} {
		contains(t, where, s, "repeats at 1 client disagree beyond their own spread: 17,098 tps (run r2-c1)",
			"efficiency 1.16 at 2 clients", "the 1-client baseline is suspect (runs r1-c1, r2-c1, r3-c1)")
	}
	contains(t, "JSON", r.json, `"kind": "repeats-disagree"`, `"kind": "efficiency-above-1"`)
}
