package all_test

import (
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
	"github.com/dbharness/dbharness/internal/workload"
	_ "github.com/dbharness/dbharness/internal/workload/all"
)

// kvFile is a workload file: its --scale is validated too.
const kvFile = "../../../examples/kv.yaml"

// parsed returns a fresh workload with its flags for cmd parsed from args.
func parsed(t *testing.T, name string, cmd workload.Command, args ...string) workload.Validator {
	t.Helper()
	wl := testdb.Workload(t, name, cmd, args...)
	v, ok := wl.(workload.Validator)
	if !ok {
		t.Fatalf("workload %s does not validate its flags", name)
	}
	return v
}

func TestEveryBuiltInWorkloadAcceptsItsDefaults(t *testing.T) {
	for _, name := range []string{"tpcb", "tpcc", "tpcc-ro", "ch", "inserts", "transtats", "null", kvFile} {
		for _, cmd := range []workload.Command{workload.CmdInit, workload.CmdRun, workload.CmdCheck} {
			if err := parsed(t, name, cmd).Validate(cmd); err != nil {
				t.Errorf("%s %s with its defaults: %v", cmd, name, err)
			}
		}
	}
}

func TestBadWorkloadFlagValuesAreRefusedNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		workload string
		cmd      workload.Command
		args     []string
		want     string
	}{
		{"tpcb", workload.CmdInit, []string{"--scale", "0"}, "--scale 0 is out of range"},
		{"tpcb", workload.CmdInit, []string{"-s", "20001"}, "--scale 20001 is out of range"},
		{"tpcb", workload.CmdRun, []string{"--mix", "bogus"}, `--mix "bogus" is not a tpcb mix`},
		{"tpcc", workload.CmdInit, []string{"--warehouses", "0"}, "--warehouses 0 is out of range"},
		{"tpcc-ro", workload.CmdInit, []string{"-w", "100001"}, "--warehouses 100001 is out of range"},
		{"inserts", workload.CmdInit, []string{"--key", "nosuch"}, `--key "nosuch" is not a key strategy`},
		{"inserts", workload.CmdInit, []string{"--pad", "8001"}, "--pad 8001 is out of range"},
		{"inserts", workload.CmdInit, []string{"--prefill", "-1"}, "--prefill -1 is negative"},
		{"inserts", workload.CmdRun, []string{"--key", "nosuch"}, `--key "nosuch" is not a key strategy`},
		{"inserts", workload.CmdRun, []string{"--batch", "0"}, "--batch 0 is out of range"},
		{"inserts", workload.CmdRun, []string{"--batch", "2", "--rows-per-statement", "3"}, "--rows-per-statement 3 is more than --batch 2"},
		{"inserts", workload.CmdRun, []string{"--batch", "4", "--rows-per-client", "10"}, "--rows-per-client 10 is not a multiple of --batch 4"},
		{"ch", workload.CmdInit, []string{"-w", "0"}, "--warehouses 0 is out of range"},
		{"ch", workload.CmdRun, []string{"--query-streams", "-1"}, "--query-streams -1 is negative"},
		{"ch", workload.CmdRun, []string{"--acThreads", "-2"}, "--query-streams -2 is negative"},
		{"ch", workload.CmdRun, []string{"--mode", "proc"}, `--mode "proc" is not a mode`},
		{"transtats", workload.CmdInit, []string{"--rows", "0"}, "--rows 0 is out of range"},
		{"transtats", workload.CmdRun, []string{"--query", "nosuch"}, `--query "nosuch" is not a transtats query`},
		{"transtats", workload.CmdRun, []string{"--parallel", "1025"}, "--parallel 1025 is out of range"},
		{"null", workload.CmdRun, []string{"--mix", "both"}, `--mix "both" is not a null mix`},
		{kvFile, workload.CmdInit, []string{"--scale", "0"}, "--scale 0 is invalid"},
		{kvFile, workload.CmdRun, []string{"-s", "-1"}, "--scale -1 is negative"},
	} {
		t.Run(string(tc.cmd)+" "+tc.workload+" "+strings.Join(tc.args, " ")+" is refused", func(t *testing.T) {
			err := parsed(t, tc.workload, tc.cmd, tc.args...).Validate(tc.cmd)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want an error starting %q", err, tc.want)
			}
		})
	}
}
