package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/workload"
)

// commandsDoc is docs/commands.md: every command's usage, summary and
// flags, from the flag sets the commands parse with. (cobra/doc cannot see
// them: cobra does not parse the commands' flags.)
func commandsDoc() string {
	var b strings.Builder
	b.WriteString("# dbharness commands\n\n")
	b.WriteString("Generated from the code by `go test ./internal/cli -run TestCommandsDoc -update`; do not edit.\n")
	b.WriteString("`dbharness COMMAND --help` prints the same flags, and `dbharness run WORKLOAD --help` those of one workload. The results store (an SQLite file, or a postgres:// URL for a store shared by several harnesses) is $DBHARNESS_RESULTS, else results.db in $XDG_DATA_HOME/dbharness, by default ~/.local/share/dbharness.\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "\n## %s\n\n```\ndbharness %s\n```\n\n%s.\n", c.name, c.usage, upperFirst(c.summary))
		if c.flags == nil {
			continue
		}
		fs := c.flagSet(nil)
		if c.name == "sweep" {
			b.WriteString("\nThe sweep's own flags come first; every other flag, the workload's too, is given to each run.\n")
		}
		b.WriteString("\nFlags:\n\n")
		writeFlags(&b, fs)
		if c.wlCmd == "" {
			continue
		}
		for _, name := range workload.Names() {
			wl, err := workload.New(name)
			if err != nil || !supports(wl, c.wlCmd) {
				continue
			}
			own := pflag.NewFlagSet(name, pflag.ContinueOnError)
			own.SortFlags = false
			wl.Flags(c.wlCmd, own)
			if !own.HasFlags() {
				continue
			}
			fmt.Fprintf(&b, "\nFlags of workload %s:\n\n", name)
			writeFlags(&b, own)
		}
	}
	b.WriteString("\n## completion\n\n```\ndbharness completion bash|zsh|fish|powershell\n```\n\n" +
		"Print the shell's completion script: commands, workload names and files, each command's flags for the workload named, and saved run and sweep ids. " +
		"For example `source <(dbharness completion bash)`; `dbharness completion bash --help` says how to install it for good.\n")
	return b.String()
}

// writeFlags writes the flags of fs as --help prints them, without what
// depends on the machine: the results store's path and the CPU count.
func writeFlags(b *strings.Builder, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "loaders" {
			f.DefValue = "max(2, CPUs)"
		}
	})
	u := strings.ReplaceAll(fs.FlagUsages(), store.DefaultPath(), "~/.local/share/dbharness/results.db")
	b.WriteString("```\n" + u + "```\n")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
