package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// The server-CPU profile of a short tpcb run on the shared PostgreSQL
// (scripts/test.sh installs perf; the tests run as root) names
// PostgreSQL's own code; without perf, the run says so in one line and
// completes.
func TestServerCPUProfileNamesPostgresFunctionsOrSaysWhyNot(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_servercpu")
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatalf("init: %s", r.all())
	}
	tmp := t.TempDir()
	// run is dbh with perf's data in tmp and PATH as given ("": the test's).
	run := func(path string, args ...string) result {
		t.Helper()
		env := []string{"TMPDIR=" + tmp}
		if path != "" {
			env = append(env, "PATH="+path)
		}
		return dbhEnv(t, bin, env, home, args...)
	}
	parse := func(r result) *results.ServerCPU {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s", r.code, r.all())
		}
		var run results.Run
		if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
			t.Fatal(err)
		}
		if run.ServerCPU == nil || run.Collect == nil || !slices.Contains(run.Collect.Enabled, "server-cpu") {
			t.Fatalf("no server_cpu in the run: %+v", run.Collect)
		}
		return run.ServerCPU
	}

	t.Run("with perf, PostgreSQL's functions appear, and perf's data is not left behind", func(t *testing.T) {
		r := run("", "run", "tpcb", "--db", url, "-c", "2", "-T", "2", "--collect", "server-cpu", "--json", "-")
		c := parse(r)
		if c.Unavailable != "" || c.Samples == 0 || c.CPUSeconds <= 0 {
			t.Fatalf("no profile: %+v\n%s", c, r.stderr)
		}
		if !slices.ContainsFunc(c.Modules, func(m results.CPUShare) bool { return m.Module == "postgres" && m.Samples > 0 }) {
			t.Errorf("the postgres binary is not among the modules: %+v", c.Modules)
		}
		if !slices.ContainsFunc(c.Functions, func(f results.CPUShare) bool { return f.Module == "postgres" }) {
			t.Errorf("no function of the postgres binary among the top functions: %+v", c.Functions)
		}
		// Every backend's work runs under PostgresMain: the call stacks
		// name it (a known function, not only the module).
		if !slices.ContainsFunc(c.Stacks, func(s results.FoldedStack) bool { return strings.Contains(s.Frames, ";PostgresMain;") }) {
			t.Errorf("no call stack passes through PostgresMain: %d stacks", len(c.Stacks))
		}
		if !strings.Contains(r.stderr, "server cpu: ") || !strings.Contains(r.stderr, "by module: ") || !strings.Contains(r.stderr, "postgres ") {
			t.Errorf("the summary lacks the profile:\n%s", r.stderr)
		}
		if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
			t.Errorf("perf's data was left in %s: %v", tmp, ents)
		}
		if m, _ := filepath.Glob("perf.data*"); len(m) > 0 {
			t.Errorf("perf.data left in the working directory: %v", m)
		}
		html := filepath.Join(t.TempDir(), "r.html")
		var id struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal([]byte(r.stdout), &id)
		if rr := dbh(t, home, "report", id.RunID, "--html", html); rr.code != 0 {
			t.Fatalf("report: %s", rr.all())
		}
		b, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); !strings.Contains(s, `id="server-cpu"`) || !strings.Contains(s, "flame graph") || !strings.Contains(s, "PostgresMain") {
			t.Errorf("the HTML report lacks the server CPU section or its flame graph")
		}

		// A second profiled run compares with the first: the server's
		// CPU per transaction on both sides, and its modules' shares.
		rb := run("", "run", "tpcb", "--db", url, "-c", "1", "-T", "2", "--collect", "server-cpu", "--json", "-")
		parse(rb)
		var idB struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal([]byte(rb.stdout), &idB)
		cr := dbh(t, home, "compare", id.RunID, idB.RunID, "--json")
		if cr.code != 0 {
			t.Fatalf("compare: %s", cr.all())
		}
		var cmp results.Comparison
		if err := json.Unmarshal([]byte(cr.stdout), &cmp); err != nil {
			t.Fatal(err)
		}
		d := cmp.ServerCPUDifferences
		if d == nil || d.CPUPerTxUsA == nil || *d.CPUPerTxUsA <= 0 || d.CPUPerTxUsB == nil || *d.CPUPerTxUsB <= 0 ||
			!slices.ContainsFunc(d.Modules, func(m results.CPUShareDiff) bool { return m.Module == "postgres" && m.DeltaPts != nil }) {
			t.Fatalf("server_cpu_differences = %+v", d)
		}
		if ct := dbh(t, home, "compare", id.RunID, idB.RunID); ct.code != 0 || !strings.Contains(ct.stdout, "server CPU (self time):") ||
			!strings.Contains(ct.stdout, "server CPU per transaction: ") || !strings.Contains(ct.stdout, "module postgres: ") {
			t.Errorf("compare's text lacks the server CPU:\n%s", ct.all())
		}
	})

	t.Run("without perf, one line says so and the run completes", func(t *testing.T) {
		r := run(t.TempDir(), "run", "tpcb", "--db", url, "-c", "1", "-T", "1", "--collect", "server-cpu", "--json", "-", "--no-doctor") // its warnings are counted
		c := parse(r)
		const why = "perf is not installed (Debian package linux-perf)"
		if c.Unavailable != why || c.Samples != 0 {
			t.Errorf("server_cpu = %+v, want unavailable %q", c, why)
		}
		var lines []string
		for _, l := range strings.Split(r.stderr, "\n") {
			if strings.Contains(l, "perf") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 2 || lines[0] != "dbharness: warning: server-cpu: not profiled: "+why || lines[1] != "  server cpu: not profiled ("+why+")" {
			t.Errorf("want one warning and the summary's line about perf, got %q\n%s", lines, r.stderr)
		}
	})

	t.Run("with a perf that may not profile, one line says so and the run completes", func(t *testing.T) {
		// The real perf, run as nobody (its data to /dev/null, which
		// nobody may write): the kernel refuses to sample every CPU for
		// a user without CAP_PERFMON while perf_event_paranoid is above 0.
		b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		if n, _ := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || n <= 0 {
			t.Fatalf("this test needs /proc/sys/kernel/perf_event_paranoid above 0 (it is %q, %v)", b, err)
		}
		perf, err := exec.LookPath("perf")
		if err != nil {
			t.Fatal("perf is not installed: apt-get install -y linux-perf (scripts/test.sh installs it)")
		}
		dir := t.TempDir()
		script := "#!/bin/bash\na=()\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then a+=(-o /dev/null); shift 2; else a+=(\"$1\"); shift; fi; done\n" +
			"exec setpriv --reuid=65534 --regid=65534 --clear-groups " + perf + " \"${a[@]}\"\n"
		if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		r := run(dir+":"+os.Getenv("PATH"), "run", "tpcb", "--db", url, "-c", "1", "-T", "1", "--collect", "server-cpu", "--json", "-")
		c := parse(r)
		const why = "perf is not permitted to profile the server's processes"
		if !strings.HasPrefix(c.Unavailable, why) || strings.Contains(c.Unavailable, "\n") || c.Samples != 0 {
			t.Errorf("server_cpu = %+v, want unavailable %q...", c, why)
		}
		if n := strings.Count(r.stderr, "dbharness: warning: server-cpu: not profiled: "+why); n != 1 {
			t.Errorf("%d warnings about perf, want one:\n%s", n, r.stderr)
		}
	})
}
