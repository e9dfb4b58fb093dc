package cli_test

import (
	"strings"
	"testing"
)

func TestHelpWithoutAWorkloadListsTheCommonFlagsAndTheWorkloads(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, c := range []struct {
		args      []string
		flag, wl  string
		notListed string
	}{
		{[]string{"run", "--help"}, "--duration", "tpcb", ""},
		{[]string{"run", "--db", "sqlite:///tmp/x.db", "-h"}, "--clients", "tpcc", ""},
		{[]string{"init", "--help"}, "--loaders", "tpcb", "null"},
		{[]string{"check", "--help"}, "--json", "tpcc", ""},
	} {
		r := dbh(t, home, c.args...)
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: dbharness "+c.args[0]+" WORKLOAD") {
			t.Errorf("%v: exit %d\n%s", c.args, r.code, r.all())
			continue
		}
		if !strings.Contains(r.stdout, "\nFlags:\n") || !strings.Contains(r.stdout, c.flag) {
			t.Errorf("%v prints no flags (want %s):\n%s", c.args, c.flag, r.stdout)
		}
		if !strings.Contains(r.stdout, "\n  "+c.wl+" ") || !strings.Contains(r.stdout, "FILE.yaml") {
			t.Errorf("%v lists no workloads (want %s):\n%s", c.args, c.wl, r.stdout)
		}
		if c.notListed != "" && strings.Contains(r.stdout, "\n  "+c.notListed+" ") {
			t.Errorf("%v lists %s, which it does not take:\n%s", c.args, c.notListed, r.stdout)
		}
	}
}

func TestUnknownFlagsWorkloadsAndCommandsGetDidYouMean(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "tpcb", "--duraton", "5s"}, "dbharness: unknown flag --duraton (did you mean --duration?)"},
		{[]string{"init", "tpcc", "--warehouse", "2"}, "dbharness: unknown flag --warehouse (did you mean --warehouses?)"},
		{[]string{"sweep", "tpcb", "--clints", "1,2"}, "dbharness: unknown flag --clints (did you mean --clients?)"},
		{[]string{"runs", "--limt", "3"}, "dbharness: unknown flag --limt (did you mean --limit?) (for `runs`)"},
		{[]string{"run", "tpbc"}, "dbharness: unknown workload \"tpbc\" (did you mean tpcb?); `dbharness workloads` lists them"},
		{[]string{"init", "tpccc"}, "dbharness: unknown workload \"tpccc\" (did you mean tpcc?); `dbharness workloads` lists them"},
		{[]string{"rnu"}, "dbharness: unknown command \"rnu\" (did you mean run?); run `dbharness help` for the list"},
		// Nothing near: no guess.
		{[]string{"run", "tpcb", "--bogus"}, "dbharness: unknown flag --bogus (for `run tpcb`; see `dbharness run tpcb --help`)"},
		{[]string{"run", "nosuch"}, "dbharness: unknown workload \"nosuch\"; `dbharness workloads` lists them"},
		{[]string{"frobnicate"}, "dbharness: unknown command \"frobnicate\"; run `dbharness help` for the list"},
	} {
		r := dbh(t, home, c.args...)
		if r.code != 2 || strings.TrimSpace(r.stderr) != c.want || r.stdout != "" {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, r.code, c.want, r.all())
		}
	}
}
