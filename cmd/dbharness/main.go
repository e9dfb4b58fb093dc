// Command dbharness is a database load-test and performance-investigation
// harness. See README.md.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/dbharness/dbharness/internal/cli"
	_ "github.com/dbharness/dbharness/internal/db/all" // every engine
)

func main() {
	// DBHARNESS_CPUPROFILE=FILE profiles the harness itself, to keep it
	// from being the bottleneck.
	if p := os.Getenv("DBHARNESS_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dbharness: DBHARNESS_CPUPROFILE:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err == nil {
			code := cli.Main(os.Args[1:])
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(cli.Main(os.Args[1:]))
}
