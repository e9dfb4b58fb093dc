package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/workload"
)

// Shell completion, through cobra's hidden __complete command: the scripts
// of `dbharness completion SHELL` call it with the words typed so far.

// flagSet is the flag set c builds for workload wl, or c's own flags when
// wl is nil or c takes no workload.
func (c command) flagSet(wl workload.Generator) *pflag.FlagSet {
	if c.wlCmd != "" && wl != nil {
		fs, _ := newFlagSet(string(c.wlCmd), wl, c.flags)
		return fs
	}
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.BoolP("help", "h", false, "show this help")
	return fs
}

// namedWorkload is a fresh instance of the workload args name (the
// script workload for --script), or nil.
func (c command) namedWorkload(args []string) workload.Generator {
	wl, err := workloadFor(c.name, args, c.flags)
	if err != nil {
		return nil
	}
	return wl
}

// completeWorkload completes init, run, check, sweep and profile: flags of
// the command for the workload already named, else workload names and
// workload files.
func (c command) completeWorkload(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	wl := c.namedWorkload(args)
	fs := c.flagSet(wl)
	if flagValueWanted(fs, args, toComplete) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	if strings.HasPrefix(toComplete, "-") {
		return flagNames(fs, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	if wl != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp // only flags follow the workload
	}
	if strings.ContainsAny(toComplete, "/.") {
		return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	var out []cobra.Completion
	if c.wlCmd != "profile" { // profile takes workload files only
		for _, name := range workload.Names() {
			w, err := workload.New(name)
			if err == nil && strings.HasPrefix(name, toComplete) && supports(w, c.wlCmd) {
				out = append(out, cobra.CompletionWithDesc(name, oneLine(w.Description())))
			}
		}
	}
	for _, pat := range []string{"*.yaml", "*.yml"} {
		files, _ := filepath.Glob(toComplete + pat)
		out = append(out, files...)
	}
	return out, cobra.ShellCompDirectiveDefault
}

// supports reports whether wl can serve cmd.
func supports(wl workload.Generator, cmd workload.Command) bool {
	var ok bool
	switch cmd {
	case workload.CmdInit:
		_, ok = wl.(workload.Initer)
	case workload.CmdCheck:
		_, ok = wl.(workload.Checker)
	case "profile":
		_, ok = wl.(workload.Profiler)
	default:
		_, ok = wl.(workload.Runner)
	}
	return ok
}

// completeIDs completes show, compare and report: saved run and sweep ids
// from the results store, if it exists.
func (c command) completeIDs(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	fs := c.flagSet(nil)
	if flagValueWanted(fs, args, toComplete) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	if strings.HasPrefix(toComplete, "-") {
		return flagNames(fs, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	fs.ParseErrorsAllowlist.UnknownFlags = true
	_ = fs.Parse(args)
	path := store.DefaultPath()
	if f := fs.Lookup("results"); f != nil && f.Value.String() != "" {
		path = f.Value.String()
	}
	dir := cobra.ShellCompDirectiveNoFileComp
	if c.files {
		dir = cobra.ShellCompDirectiveDefault
	}
	return savedIDs(path, toComplete), dir
}

// savedIDs are the run and sweep ids of the store at path that start with
// prefix, newest first; none if the store cannot be read.
func savedIDs(path, prefix string) []cobra.Completion {
	s, err := store.OpenReadOnly(path)
	if err != nil {
		return nil
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out []cobra.Completion
	if sweeps, err := s.ListSweeps(ctx, 0); err == nil {
		for _, r := range sweeps {
			if strings.HasPrefix(r.ID, prefix) {
				out = append(out, cobra.CompletionWithDesc(r.ID, "sweep "+r.Workload+" "+r.Status))
			}
		}
	}
	if runs, err := s.List(ctx, 0); err == nil {
		for _, r := range runs {
			if strings.HasPrefix(r.ID, prefix) {
				out = append(out, cobra.CompletionWithDesc(r.ID, "run "+r.Workload+" "+r.Engine+" "+r.Status))
			}
		}
	}
	return out
}

// completeNone completes the flags of a command without arguments.
func (c command) completeNone(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.HasPrefix(toComplete, "-") {
		return flagNames(c.flagSet(nil), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// flagValueWanted reports whether the word being completed is a flag's
// value: it follows a flag that takes one, or it is --flag=...
func flagValueWanted(fs *pflag.FlagSet, args []string, toComplete string) bool {
	if strings.HasPrefix(toComplete, "-") && strings.Contains(toComplete, "=") {
		return true
	}
	if len(args) == 0 {
		return false
	}
	last := args[len(args)-1]
	if last == "--" || !strings.HasPrefix(last, "-") || strings.Contains(last, "=") {
		return false
	}
	var f *pflag.Flag
	if strings.HasPrefix(last, "--") {
		f = fs.Lookup(last[2:])
	} else if len(last) == 2 {
		f = fs.ShorthandLookup(last[1:])
	}
	return f != nil && f.NoOptDefVal == ""
}

// flagNames are the flags of fs that complete toComplete, as cobra
// completes the flags it parses: long names, and short ones unless "--"
// is typed.
func flagNames(fs *pflag.FlagSet, toComplete string) []cobra.Completion {
	var out []cobra.Completion
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		usage := oneLine(f.Usage)
		if long := "--" + f.Name; strings.HasPrefix(long, toComplete) {
			out = append(out, cobra.CompletionWithDesc(long, usage))
		}
		if short := "-" + f.Shorthand; f.Shorthand != "" && !strings.HasPrefix(toComplete, "--") && strings.HasPrefix(short, toComplete) {
			out = append(out, cobra.CompletionWithDesc(short, usage))
		}
	})
	return out
}
