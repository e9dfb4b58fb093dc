package report

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
)

// The built-in formats come in their order, with what the commands need.
func TestFormats(t *testing.T) {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name+" "+f.Arg())
		if f.Run == nil || f.Sweep == nil || f.Compare == nil {
			t.Errorf("format %s does not write runs, sweeps and comparisons", f.Name)
		}
	}
	if got := strings.Join(names, ", "); got != "html FILE, csv DIR, markdown FILE" {
		t.Errorf("formats %s, want html FILE, csv DIR, markdown FILE", got)
	}
}

// A new format is one Register call: it then comes in Formats, in its
// order, and writes through its functions.
func TestRegisterFormat(t *testing.T) {
	f := Format{Name: "test-text", Order: 15, Help: "write a test text to FILE", Noun: "a test text", Written: "Test text",
		Run: toFile(func(w io.Writer, r *results.Run, _ HTMLOptions) error {
			_, err := io.WriteString(w, r.RunID)
			return err
		})}
	Register(f)
	defer func() {
		formatMu.Lock()
		delete(formats, f.Name)
		formatMu.Unlock()
	}()
	var names []string
	for _, g := range Formats() {
		names = append(names, g.Name)
	}
	if got := strings.Join(names, " "); got != "html test-text csv markdown" {
		t.Errorf("formats %s, want html test-text csv markdown", got)
	}
	path := filepath.Join(t.TempDir(), "run.txt")
	if err := f.Run(path, &results.Run{RunID: "20261127-abc"}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "20261127-abc" {
		t.Errorf("wrote %q", b)
	}
	for _, bad := range []Format{
		f, // twice
		{Name: "x", Help: "h", Noun: "n", Written: "w"},                                      // writes nothing
		{Name: "", Help: "h", Noun: "n", Written: "w", Run: f.Run},                           // no name
		{Name: "y", Help: "h", Noun: "n", Written: "w", Dir: true, Stdout: true, Run: f.Run}, // a directory on stdout
		{Name: "z", Help: "h", Noun: "n", Written: "w", Sweep: toFile(SweepHTML)},            // no help for sweep
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", bad.Name)
				}
			}()
			Register(bad)
		}()
	}
}
