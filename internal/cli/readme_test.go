package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/dbharness/dbharness/internal/testdb"
)

// The pgbench-script commands of docs/workloads.md run as written, with
// the scripts that ship under examples/: only the database, the scale and
// the length of the run are this test's own.
func TestTheReadmeScriptCommandsRunWithTheShippedExamples(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../docs/workloads.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "\n## pgbench scripts\n")
	if i < 0 {
		t.Fatal("docs/workloads.md has no pgbench scripts section")
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(string(readme)[i:])
	if block == nil {
		t.Fatal("the pgbench scripts section of docs/workloads.md has no sh block")
	}
	url := testdb.Postgres(t, "dbh_readme_scripts")
	home := t.TempDir()
	dbURL := regexp.MustCompile(`--db \S+`)
	var ran int
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		args := strings.Fields(line)
		if len(args) < 2 || args[0] != "dbharness" {
			t.Fatalf("docs/workloads.md line %q is not a dbharness command", line)
		}
		line = dbURL.ReplaceAllString(line, "--db "+url)
		// Scale 10 is a million accounts: the test loads and says scale 1,
		// and runs 20 transactions per client instead of a minute.
		line = strings.NewReplacer("--scale 10", "--scale 1", "-s 10", "-s 1", "-T 60s", "-t 20").Replace(line)
		args = strings.Fields(line)[1:]
		for j, a := range args {
			if p, w, ok := strings.Cut(a, "@"); ok && strings.HasPrefix(p, "examples/") {
				args[j] = filepath.Join(root, p) + "@" + w
			}
		}
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("docs/workloads.md command %v: exit %d\n%s", args, r.code, r.all())
		}
		if args[0] == "run" {
			for _, want := range []string{"tpcb-like", "select", "saved as run"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%v: output lacks %q:\n%s", args, want, r.stdout)
				}
			}
			if !regexp.MustCompile(`(?m)^total\s+160\s+\S+\s+0\s`).MatchString(r.stdout) {
				t.Errorf("%v did not run 8 clients x 20 transactions without errors:\n%s", args, r.all())
			}
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("ran %d commands of docs/workloads.md, want init, run and check", ran)
	}
}

// The README is a front page, not a manual: the rest lives under docs/.
func TestTheReadmeIsAFrontPage(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, at most 300: move the detail to docs/", n)
	}
}

// Every relative link of the project's documentation names a file that
// exists and, for an #anchor into a Markdown file, one of its headings.
func TestTheDocsLinksResolve(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, pattern := range []string{"README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "bench/README.md", "bench/results/*.md", "docs/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) == 0 && !strings.Contains(pattern, "*") {
			t.Errorf("%s is missing", pattern)
		}
		files = append(files, m...)
	}
	for _, bad := range brokenLinks(t, root, files) {
		t.Error(bad)
	}
}

// brokenLinks returns a line for each relative link in files that does
// not resolve.
func brokenLinks(t *testing.T, root string, files []string) []string {
	t.Helper()
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := markdownAnchors(string(text))
		anchors[path] = a
		return a
	}
	var bad []string
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range markdownLinks(string(text)) {
			target, frag, _ := strings.Cut(l.url, "#")
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					bad = append(bad, fmt.Sprintf("%s:%d: link %s: %s does not exist", rel, l.line, l.url, target))
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !anchorsOf(path)[frag] {
				bad = append(bad, fmt.Sprintf("%s:%d: link %s: no heading has the anchor #%s", rel, l.line, l.url, frag))
			}
		}
	}
	return bad
}

type mdLink struct {
	url  string
	line int
}

var (
	mdFence     = regexp.MustCompile("^\\s*(```|~~~)")
	mdCodeSpan  = regexp.MustCompile("`+[^`]*`+")
	mdInline    = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdHeading   = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLinkText  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdURLScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// markdownLinks returns the relative inline links of a Markdown text,
// outside code blocks and code spans.
func markdownLinks(text string) []mdLink {
	var links []mdLink
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if mdFence.MatchString(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdInline.FindAllStringSubmatch(mdCodeSpan.ReplaceAllString(line, ""), -1) {
			if url := m[1]; !mdURLScheme.MatchString(url) {
				links = append(links, mdLink{url: url, line: i + 1})
			}
		}
	}
	return links
}

// markdownAnchors returns the anchors GitHub gives a Markdown text's
// headings: the heading's text without its markup, lower-cased, with
// every character but letters, digits, spaces, hyphens and underscores
// dropped and spaces made hyphens; a repeated anchor gets -1, -2, ...
func markdownAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if mdFence.MatchString(line) {
			fenced = !fenced
			continue
		}
		m := mdHeading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		h := mdLinkText.ReplaceAllString(m[1], "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
