package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/dbharness/dbharness/internal/results"
)

// A Format is a report file that run, sweep, compare and report write
// when its flag is given. Each registers itself from its own file
// (Register, in an init function): its flag and help, whether it can go to
// standard output, and what it writes for a run, a sweep and a comparison.
// Nothing else lists the formats: the commands' flags, their checks, the
// writing and the messages follow the registry.
type Format struct {
	// Name is the format's flag, --Name.
	Name string
	// Order places it among the others (in flags, usage lines and
	// writing); lower first.
	Order int
	// Dir says the flag names a directory the format's files go into
	// (DIR), not a file (FILE).
	Dir bool
	// Stdout says the flag takes - for standard output.
	Stdout bool
	// Help is the flag's help on run, compare and report; SweepHelp on
	// sweep, which writes the sweep's report at its end.
	Help, SweepHelp string
	// Noun names what it writes in a command's summary ("an HTML
	// report"); Written begins the line that says where it went ("HTML
	// report", as in "HTML report written to FILE").
	Noun, Written string
	// Run, Sweep and Compare write the format of a run, a sweep or a
	// comparison to path (a file, - or a directory, as Dir says); opt is
	// what does not come from the data. Nil where the format does not
	// apply: the command then has no such flag, and report says so.
	Run     func(path string, r *results.Run, opt HTMLOptions) error
	Sweep   func(path string, sw *results.Sweep, opt HTMLOptions) error
	Compare func(path string, c *results.Comparison, opt HTMLOptions) error
}

var (
	formatMu sync.RWMutex
	formats  = map[string]Format{}
)

// Register adds a report format. It panics on a duplicate name or an
// incomplete format, which are programming errors.
func Register(f Format) {
	formatMu.Lock()
	defer formatMu.Unlock()
	switch {
	case f.Name == "" || strings.HasPrefix(f.Name, "-") || f.Help == "" || f.Noun == "" || f.Written == "":
		panic(fmt.Sprintf("report: format %q needs a name, help, a noun and what it has written", f.Name))
	case f.Run == nil && f.Sweep == nil && f.Compare == nil:
		panic(fmt.Sprintf("report: format %q writes nothing", f.Name))
	case f.Sweep != nil && f.SweepHelp == "":
		panic(fmt.Sprintf("report: format %q writes sweeps but has no help for sweep", f.Name))
	case f.Dir && f.Stdout:
		panic(fmt.Sprintf("report: format %q writes a directory, which cannot be standard output", f.Name))
	}
	if _, dup := formats[f.Name]; dup {
		panic(fmt.Sprintf("report: format %q registered twice", f.Name))
	}
	formats[f.Name] = f
}

// Formats returns the registered report formats in their order.
func Formats() []Format {
	formatMu.RLock()
	defer formatMu.RUnlock()
	out := make([]Format, 0, len(formats))
	for _, f := range formats {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Arg is what the format's flag names: FILE or DIR.
func (f Format) Arg() string {
	if f.Dir {
		return "DIR"
	}
	return "FILE"
}

// toFile makes a format's writer of one file (- for standard output) from
// a function that writes it to an io.Writer.
func toFile[T any](fn func(w io.Writer, v T, opt HTMLOptions) error) func(string, T, HTMLOptions) error {
	return func(path string, v T, opt HTMLOptions) error {
		return WriteFile(path, func(w io.Writer) error { return fn(w, v, opt) })
	}
}
