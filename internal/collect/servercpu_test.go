package collect_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/collect"
	"github.com/dbharness/dbharness/internal/db"
	_ "github.com/dbharness/dbharness/internal/db/all" // every engine
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/testdb"
)

// perfScript is `perf script -F comm,pid,tid,period,ip,sym,dso` of three
// samples: two in one PostgreSQL backend (one under the kernel), one in
// another, with periods that differ as perf adjusts them.
const perfScript = `postgres 11785/11785    5000000 
	          4eb6f4 ExecScan (/usr/lib/postgresql/15/bin/postgres)
	          31df61 [unknown] (/usr/lib/postgresql/15/bin/postgres)
	          47d359 PostgresMain (/usr/lib/postgresql/15/bin/postgres)
	          155976 main (/usr/lib/postgresql/15/bin/postgres)

postgres 11785/11785    10000000 
	ffffffff815edbac __handle_mm_fault ([kernel.kallsyms])
	           98109 _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)
	          47d359 PostgresMain (/usr/lib/postgresql/15/bin/postgres)
	          155976 main (/usr/lib/postgresql/15/bin/postgres)

postgres 11790/11790    5000000 
	          4eb6f4 ExecScan (/usr/lib/postgresql/15/bin/postgres)
	          47d359 PostgresMain (/usr/lib/postgresql/15/bin/postgres)
	          155976 main (/usr/lib/postgresql/15/bin/postgres)
`

func TestPerfScriptAddsUpSelfTimeByFunctionModuleAndStack(t *testing.T) {
	p, err := collect.ParsePerfScript(strings.NewReader(perfScript), collect.Window{})
	if err != nil {
		t.Fatal(err)
	}
	var out results.ServerCPU
	p.Fill(&out)
	if out.Samples != 3 || out.CPUSeconds != 0.02 {
		t.Errorf("samples %d, cpu %g s; want 3 and 0.02", out.Samples, out.CPUSeconds)
	}
	// Shares are by period: the kernel's one sample weighs as much as
	// ExecScan's two.
	want := []results.CPUShare{{Symbol: "ExecScan", Module: "postgres", Samples: 2, SelfPct: 50},
		{Symbol: "__handle_mm_fault", Module: "[kernel.kallsyms]", Samples: 1, SelfPct: 50}}
	if len(out.Functions) != 2 || out.Functions[0] != want[0] || out.Functions[1] != want[1] {
		t.Errorf("functions = %+v, want %+v", out.Functions, want)
	}
	if len(out.Modules) != 2 || out.Modules[0].Module != "postgres" || out.Modules[1].Module != "[kernel.kallsyms]" {
		t.Errorf("modules = %+v", out.Modules)
	}
	stacks := map[string]int64{}
	for _, s := range out.Stacks {
		stacks[s.Frames] = s.Samples
	}
	for frames, n := range map[string]int64{
		"main;PostgresMain;[postgres];ExecScan":           1,
		"main;PostgresMain;_int_malloc;__handle_mm_fault": 1,
		"main;PostgresMain;ExecScan":                      1,
	} {
		if stacks[frames] != n {
			t.Errorf("stack %q: %d samples, want %d (stacks %v)", frames, stacks[frames], n, stacks)
		}
	}
}

// A profile of every CPU keeps, for the server, its main process and
// every process it forked, before or during the recording (perf
// synthesizes the forks of the processes that were running), and no other.
func TestPerfScriptKeepsTheServersProcessTree(t *testing.T) {
	in := `swapper     0/0     PERF_RECORD_FORK(1:1):(0:0)
systemd     1/1     PERF_RECORD_FORK(2227:2227):(1:1)
postgres     2227/2227     PERF_RECORD_FORK(2231:2231):(2227:2227)
postgres  2227/2227  PERF_RECORD_FORK(11785:11785):(2227:2227)
postgres 11785/11785    5000000 
	          4eb6f4 ExecScan (/usr/lib/postgresql/15/bin/postgres)

postgres 11785/11785     PERF_RECORD_FORK(11790:11790):(11785:11785)
postgres 11790/11790    5000000 
	          4eb6f4 ExecScan (/usr/lib/postgresql/15/bin/postgres)

postgres 2231/2231    5000000 
	          4eb6f4 XLogBackgroundFlush (/usr/lib/postgresql/15/bin/postgres)

dbharness 3000/3001    5000000 
	          4eb6f4 runtime.mallocgc (/tmp/dbharness)

postgres 999/999    5000000 
	          4eb6f4 ExecScan (/usr/lib/postgresql/16/bin/postgres)

swapper 0/0    5000000 
	ffffffff815edbac default_idle ([kernel.kallsyms])

`
	p, err := collect.ParsePerfScript(strings.NewReader(in), collect.Window{})
	if err != nil {
		t.Fatal(err)
	}
	var all, server results.ServerCPU
	p.Fill(&all)
	p.Under(2227).Fill(&server)
	if all.Samples != 6 || server.Samples != 3 {
		t.Fatalf("%d samples in all, %d in the server; want 6 and 3", all.Samples, server.Samples)
	}
	if len(server.Functions) != 2 || server.Functions[0].Symbol != "ExecScan" || server.Functions[0].Samples != 2 ||
		server.Functions[1].Symbol != "XLogBackgroundFlush" {
		t.Errorf("server functions %+v", server.Functions)
	}
}

// With times (perf script's time field), only the samples inside the
// window count: the measured phase's.
func TestPerfScriptKeepsTheSamplesOfTheWindow(t *testing.T) {
	in := `postgres 7/7 100.000000100:    5000000 
	          4eb6f4 ExecScan (/usr/bin/postgres)

postgres 7/7 101.500000000:    5000000 
	          4eb6f4 XLogFlush (/usr/bin/postgres)

postgres 7/7 103.000000001:    5000000 
	          4eb6f4 ExecScan (/usr/bin/postgres)
`
	for _, c := range []struct {
		w    collect.Window
		want int64
	}{{collect.Window{}, 3}, {collect.Window{From: 100.5, To: 103}, 1}, {collect.Window{From: 100, To: 104}, 3}} {
		p, err := collect.ParsePerfScript(strings.NewReader(in), c.w)
		if err != nil {
			t.Fatal(err)
		}
		var out results.ServerCPU
		p.Fill(&out)
		if out.Samples != c.want {
			t.Errorf("window %+v: %d samples, want %d", c.w, out.Samples, c.want)
		}
	}
}

func TestPerfScriptRefusesWhatItCannotRead(t *testing.T) {
	for _, in := range []string{
		"\t4eb6f4 ExecScan (/usr/bin/postgres)\n",   // a frame before any sample
		"postgres 1/1 many\n\t4eb6f4 x (/bin/y)\n",  // no period
		"postgres 1/1 5\n\t4eb6f4 no module here\n", // no module
	} {
		if _, err := collect.ParsePerfScript(strings.NewReader(in), collect.Window{}); err == nil {
			t.Errorf("%q was read without an error", in)
		}
	}
}

func FuzzParsePerfScript(f *testing.F) {
	f.Add(perfScript)
	f.Add("a b 1\n\tff (x)\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := collect.ParsePerfScript(strings.NewReader(s), collect.Window{From: 1, To: 2})
		if err != nil {
			return
		}
		var out results.ServerCPU
		p.Fill(&out)
		var n int64
		for _, m := range out.Modules {
			n += m.Samples
		}
		if len(out.Modules) < collect.TopModules && n != out.Samples {
			t.Errorf("modules hold %d samples of %d", n, out.Samples)
		}
	})
}

// A perf that may not profile the server (here the real perf run as
// nobody, with perf_event_paranoid above 1) is named in one line.
func TestServerCPUSaysWhyPerfCannotProfile(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Fatal("perf is not installed: apt-get install -y linux-perf (scripts/test.sh installs it)")
	}
	out, _ := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", perf,
		"record", "-e", "cpu-clock", "-p", "1", "-o", "/dev/null").CombinedOutput()
	got := collect.PerfComplaint(string(out))
	if !strings.HasPrefix(got, "perf is not permitted to profile the server's processes") || strings.Contains(got, "\n") {
		t.Errorf("perf as nobody said %q, read as %q", out, got)
	}

	// A server on another host, or an engine without one, is refused
	// before perf is started.
	for _, c := range []struct{ url, want string }{
		{"postgres://postgres@192.0.2.1:5432/x", "is not on this host"},
		{"sqlite://" + t.TempDir() + "/x.db", "SQLite runs inside dbharness"},
	} {
		tg, err := db.ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		d, err := db.Open(tg.Creating())
		if err != nil {
			t.Fatal(err)
		}
		err = (&collect.ServerCPU{DB: d}).Start(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Start = %v, want one line with %q", c.url, err, c.want)
		}
		d.Close()
	}
}

// A run longer than perf's data cap holds is profiled up to the cap: perf
// stops there, and the profile says which part of the measured phase it
// covers, and why, instead of filling the disk or passing for the whole.
func TestServerCPUStopsAtItsDataCapAndSaysWhatItCovers(t *testing.T) {
	d := testdb.Open(t, testdb.Postgres(t, "dbh_collect_perfcap"))
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// perf first writes what it knows of the host's processes, which
	// depends on the host: a cap below that ends perf as it starts, and
	// Start says so. The first cap above it leaves room for a few seconds
	// of samples at most.
	var p *collect.ServerCPU
	for max := int64(16 << 10); ; max *= 2 {
		p = &collect.ServerCPU{DB: d, MaxData: max, Hz: 997}
		err := p.Start(ctx)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "its data file reached its cap of ") || max > 64<<20 {
			t.Fatalf("perf cannot profile the server (scripts/test.sh installs it; the tests run as root): %v", err)
		}
	}
	begin := time.Now()
	p.Begin(begin)
	// Work on the server until perf has stopped, and a second more.
	var stopped time.Time
	for stopped.IsZero() || time.Since(stopped) < time.Second {
		if err := c.Exec(ctx, "SELECT count(*) FROM generate_series(1, 200000)"); err != nil {
			t.Fatal(err)
		}
		if stopped.IsZero() && p.Ended() {
			stopped = time.Now()
		}
		if time.Since(begin) > time.Minute {
			t.Fatal("perf has not stopped at its data cap after a minute")
		}
	}
	out := p.Stop(ctx)
	measured := time.Since(begin).Seconds()
	if out.Unavailable != "" || !strings.Contains(out.Note, "its data file reached its cap of ") || !strings.Contains(out.Note, "the profile covers that part") {
		t.Fatalf("unavailable %q, note %q; want a note that perf stopped at its cap", out.Unavailable, out.Note)
	}
	t.Logf("%s (%d samples)", out.Note, out.Samples)
	if out.Seconds <= 0 || out.Seconds > measured-0.5 {
		t.Errorf("the profile covers %.2f s of a measured phase of %.2f s; want the part before perf stopped", out.Seconds, measured)
	}
}
