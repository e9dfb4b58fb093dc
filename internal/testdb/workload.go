package testdb

import (
	"io"
	"testing"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/workload"
)

// Workload returns a fresh instance of the registered workload name (or
// workload file) with its flags for cmd parsed from args, as the command
// line would set them. The caller imports the workloads it names.
func Workload(t testing.TB, name string, cmd workload.Command, args ...string) workload.Generator {
	t.Helper()
	wl, err := workload.New(name)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	wl.Flags(cmd, fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%s %s %q: %v", cmd, name, args, err)
	}
	return wl
}
