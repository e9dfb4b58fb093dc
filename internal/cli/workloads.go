package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/workload"
)

func (a *app) cmdWorkloads(args []string) error {
	if len(args) > 0 && args[0] != "--help" && args[0] != "-h" {
		return usagef("`dbharness workloads` takes no arguments")
	}
	for _, name := range workload.Names() {
		wl, _ := workload.New(name)
		var caps []string
		if _, ok := wl.(workload.Initer); ok {
			caps = append(caps, "init")
		}
		if _, ok := wl.(workload.Runner); ok {
			caps = append(caps, "run")
		}
		if _, ok := wl.(workload.Checker); ok {
			caps = append(caps, "check")
		}
		fmt.Fprintf(a.stdout, "%-12s %s [%s]\n", name, wl.Description(), strings.Join(caps, ", "))
		for _, cmd := range []workload.Command{workload.CmdInit, workload.CmdRun, workload.CmdCheck} {
			fs := pflag.NewFlagSet("", pflag.ContinueOnError)
			wl.Flags(cmd, fs)
			if !fs.HasFlags() {
				continue
			}
			fmt.Fprintf(a.stdout, "  %s flags:\n", cmd)
			for _, line := range strings.Split(strings.TrimRight(fs.FlagUsages(), "\n"), "\n") {
				fmt.Fprintf(a.stdout, "    %s\n", strings.TrimSpace(line))
			}
		}
	}
	return nil
}
