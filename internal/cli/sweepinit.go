package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/workload"
)

// sweepInit loads the data of a sweep's points when the sweep varies flags
// of the workload's init (inserts --key, tpcb --scale): before a point's
// run it runs init with the point's values, unless they are the values it
// loaded last. A nil *sweepInit (no init flag swept) does nothing.
type sweepInit struct {
	// workload is the name (or file) init takes.
	workload string
	// args are the sweep's other init flags, as --name=value.
	args []string
	// varied are the swept flags init takes, in --vary order; initOnly
	// are those that run does not take (they go to init alone).
	varied   []string
	initOnly map[string]bool
	// loaded are the init arguments loaded last; "" when unknown: at the
	// start of each session (so a resumed sweep loads its first point
	// again) and after a failed init.
	loaded string
}

// newSweepInit returns how to initialize the points of a sweep that varies
// vary, or nil when none of the flags belongs to the workload's init.
func newSweepInit(wl workload.Generator, vary []results.VaryFlag) *sweepInit {
	if _, ok := wl.(workload.Initer); !ok {
		return nil
	}
	initFS, runFS := ownFlags(wl, workload.CmdInit), ownFlags(wl, workload.CmdRun)
	si := &sweepInit{workload: wl.Name(), initOnly: map[string]bool{}}
	for _, v := range vary {
		if initFS.Lookup(v.Flag) == nil {
			continue
		}
		si.varied = append(si.varied, v.Flag)
		if runFS.Lookup(v.Flag) == nil {
			si.initOnly[v.Flag] = true
		}
	}
	if len(si.varied) == 0 {
		return nil
	}
	return si
}

// takeArgs takes the workload's init flags out of a new sweep's run
// arguments and returns the run arguments: an init flag stays in them only
// when run takes it too (inserts --key). si keeps the flags that are not
// swept for every init. Without an init flag swept (si nil), a flag only
// init takes is refused: nothing would use it.
func (si *sweepInit) takeArgs(wl workload.Generator, rest []string) ([]string, error) {
	initFS, runFS := ownFlags(wl, workload.CmdInit), ownFlags(wl, workload.CmdRun)
	var runArgs []string
	for i := 0; i < len(rest); i++ {
		if rest[i] == "--" {
			runArgs = append(runArgs, rest[i:]...)
			break
		}
		f, val, n := initFlagAt(initFS, rest, i)
		if f == nil {
			runArgs = append(runArgs, rest[i])
			continue
		}
		both := runFS.Lookup(f.Name) != nil
		if both {
			runArgs = append(runArgs, rest[i:i+n]...)
		}
		i += n - 1
		switch {
		case si == nil && !both:
			return nil, usagef("--%s is a flag of `init %s`, which this sweep does not run (it runs init only when it varies an init flag, e.g. --vary %s=V1,V2); load the data first with `dbharness init %s --%s %s`",
				f.Name, wl.Name(), f.Name, wl.Name(), f.Name, val)
		case si != nil && !slices.Contains(si.varied, f.Name):
			si.args = append(si.args, "--"+f.Name+"="+val)
		}
	}
	return runArgs, nil
}

// initFlagAt reads the argument at i when it is a flag of fs (--name,
// --name=V, -s, -sV, -s=V): the flag, its value and how many arguments it
// spans. f is nil when the argument is not one of fs's flags.
func initFlagAt(fs *pflag.FlagSet, args []string, i int) (f *pflag.Flag, val string, n int) {
	a := args[i]
	hasVal := false
	switch {
	case strings.HasPrefix(a, "--"):
		var name string
		name, val, hasVal = strings.Cut(a[2:], "=")
		f = fs.Lookup(name)
	case len(a) > 1 && a[0] == '-':
		f = fs.ShorthandLookup(a[1:2])
		if len(a) > 2 {
			val, hasVal = strings.TrimPrefix(a[2:], "="), true
		}
	}
	switch {
	case f == nil:
		return nil, "", 1
	case hasVal:
		return f, val, 1
	case f.NoOptDefVal != "":
		return f, f.NoOptDefVal, 1
	case i+1 < len(args):
		return f, args[i+1], 2
	}
	return f, "", 1 // no value: init's parse says so
}

// runVary are the swept flags that go to each run: all but those only init
// takes.
func (si *sweepInit) runVary(vary []results.VaryFlag) []results.VaryFlag {
	if si == nil {
		return vary
	}
	var out []results.VaryFlag
	for _, v := range vary {
		if !si.initOnly[v.Flag] {
			out = append(out, v)
		}
	}
	return out
}

// argsFor is the init command line of a point (without "init" and --db).
func (si *sweepInit) argsFor(pr results.SweepRun) []string {
	args := append([]string{si.workload}, si.args...)
	for _, f := range si.varied {
		args = append(args, "--"+f+"="+pr.Vary[f])
	}
	return args
}

// note describes when the sweep runs init, for the sweep's notes.
func (si *sweepInit) note() string {
	return fmt.Sprintf("init %s runs before each run whose %s differs from what the sweep loaded last, and before the first run of each session (--resume included)",
		si.workload, strings.Join(si.varied, ", "))
}
