package cli_test

import (
	"strings"
	"testing"
)

// closedPG is a database URL on a port nothing listens on: a command that
// tried to connect would fail with "connection refused", not with the
// flag's message.
const closedPG = "postgres://postgres@127.0.0.1:1/dbh_sw_none"

func TestBadWorkloadFlagValuesAreUsageErrorsBeforeAnyConnection(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a tpcb mix", []string{"run", "tpcb", "--mix", "everything"}, `--mix "everything" is not a tpcb mix`},
		{"a tpcb scale", []string{"init", "tpcb", "--scale", "0"}, "--scale 0 is out of range"},
		{"a tpcc warehouse count", []string{"init", "tpcc", "-w", "0"}, "--warehouses 0 is out of range"},
		{"a tpcc mode", []string{"run", "tpcc", "--mode", "proc"}, `--mode "proc" is not a mode`},
		{"a tpcc-ro mode", []string{"run", "tpcc-ro", "--mode", "Server"}, `--mode "Server" is not a mode`},
		{"a swept tpcc mode", []string{"sweep", "tpcc", "-c", "1", "--duration", "1s", "--vary", "mode=server,stored"}, `--mode "stored" is not a mode`},
		{"an inserts key at init", []string{"init", "inserts", "--key", "sequential"}, `--key "sequential" is not a key strategy`},
		{"an inserts key at run", []string{"run", "inserts", "--key", "sequential"}, `--key "sequential" is not a key strategy`},
		{"inserts rows per statement above the batch", []string{"run", "inserts", "--batch", "2", "--rows-per-statement", "3"}, "--rows-per-statement 3 is more than --batch 2"},
		{"a transtats query", []string{"run", "transtats", "--query", "snowflake"}, `--query "snowflake" is not a transtats query`},
		{"a transtats parallelism", []string{"run", "transtats", "--parallel=-1"}, "--parallel -1 is out of range"},
		{"a transtats row count", []string{"init", "transtats", "--rows", "0"}, "--rows 0 is out of range"},
		{"a tpch scale of 0", []string{"init", "tpch", "--scale", "0"}, "--scale 0: the scale factor must be above 0"},
		{"a negative tpch scale", []string{"init", "tpch", "--scale", "-1"}, "--scale -1: the scale factor must be above 0"},
		{"a tpch scale that is no number", []string{"init", "tpch", "--scale", "ten"}, `--scale "ten" is not a number`},
		{"a tpch scale between whole numbers above 1", []string{"init", "tpch", "--scale", "1.5"}, "--scale 1.5: a scale factor of 1 or more must be a whole number"},
		{"a tpch warm-up", []string{"run", "tpch", "--warmup", "5s"}, "tpch runs each stream's script once, whole: a warm-up would take"},
		{"a tpch rate", []string{"run", "tpch", "--streams", "2", "--rate", "10"}, "tpch runs each stream's script once, whole: a stream runs each query"},
		{"a tpch shard", []string{"run", "tpch", "--shard", "0/2", "--group", "g"}, "tpch runs each stream's script once, whole: its streams make one test"},
		{"answers for check tpch that are not there", []string{"check", "tpch", "--answers", "/nonexistent/answers"}, "--answers /nonexistent/answers: no such directory"},
		{"a null mix", []string{"run", "null", "--mix", "both"}, `--mix "both" is not a null mix`},
		{"a swept tpcb mix", []string{"sweep", "tpcb", "-c", "1", "--duration", "1s", "--vary", "mix=select-only,bogus"}, `--mix "bogus" is not a tpcb mix`},
		{"a swept inserts key", []string{"sweep", "inserts", "-c", "1", "--duration", "1s", "--vary", "key=serial,sequential"}, `--key "sequential" is not a key strategy`},
		{"a swept inserts pad (an init flag only)", []string{"sweep", "inserts", "-c", "1", "--duration", "1s", "--vary", "pad=100,9000"}, "--pad 9000 is out of range"},
		{"a swept inserts batch", []string{"sweep", "inserts", "-c", "1,2", "--duration", "1s", "--vary", "batch=10,0"}, "--batch 0 is out of range"},
	} {
		t.Run(tc.name+" is refused before connecting", func(t *testing.T) {
			refusedBeforeAnything(t, dbh(t, home, append(tc.args, "--db", closedPG)...), tc.want)
		})
	}
}

// refusedBeforeAnything checks that r is a usage error (exit 2) whose
// stderr is the one sentence starting with want, and that nothing started.
func refusedBeforeAnything(t *testing.T, r result, want string) {
	t.Helper()
	if r.code != 2 {
		t.Errorf("exit %d, want 2 (a usage error)\n%s", r.code, r.all())
	}
	if got := strings.TrimSpace(r.stderr); strings.Contains(got, "\n") || !strings.HasPrefix(got, "dbharness: "+want) {
		t.Errorf("stderr is not the one sentence %q:\n%s", want, r.stderr)
	}
	// No progress bar, no sweep header, no run: nothing happened.
	if r.stdout != "" {
		t.Errorf("something started before the refusal:\n%s", r.stdout)
	}
}
