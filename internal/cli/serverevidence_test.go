package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// evidenceRun is the part of a run's JSON these tests read.
type evidenceRun struct {
	Status string `json:"status"`
	// Collect holds the series by collector name (and other fields).
	Collect map[string]json.RawMessage `json:"collect"`
	Waits   struct {
		Method      string `json:"method"`
		Unit        string `json:"unit"`
		Side        string `json:"side"`
		Unavailable string `json:"unavailable"`
		Total       float64
	} `json:"waits"`
	Summary struct {
		HostCPU struct {
			Server    string  `json:"server"`
			ServerPct float64 `json:"server_pct"`
		} `json:"host_cpu"`
	} `json:"summary"`
}

func readEvidenceRun(t *testing.T, path string, r result) evidenceRun {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("exit %d, no JSON: %v\n%s", r.code, err, r.all())
	}
	var run evidenceRun
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	return run
}

// evidenceSeries is the part of a series these tests read.
type evidenceSeries struct {
	Source      string   `json:"source"`
	Describes   string   `json:"describes"`
	Side        string   `json:"side"`
	Unavailable []string `json:"unavailable"`
	Intervals   []any    `json:"intervals"`
}

// series is the run's series of collector name (zero if none).
func (r *evidenceRun) series(t *testing.T, name string) evidenceSeries {
	t.Helper()
	var s evidenceSeries
	if raw, ok := r.Collect[name]; ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// A run on a server without SQL Server's DMVs (Babelfish) completes, and
// its "not measured" lines name each source it lacks with the server's
// error.
func TestARunOnBabelfishNamesEachDMVItLacksAndCompletes(t *testing.T) {
	t.Parallel()
	url := testdb.SQLServer(t, "dbh_dmvrun")
	home := t.TempDir()
	out := filepath.Join(home, "run.json")
	r := dbh(t, home, "run", "null", "-c", "1", "-T", "1s", "--db", url, "--no-save", "--collect", "server,waits", "--json", out)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	run := readEvidenceRun(t, out, r)
	if run.Status != "completed" {
		t.Errorf("status %q", run.Status)
	}
	for _, src := range []string{"sys.dm_os_performance_counters", "sys.dm_os_spinlock_stats", "sys.dm_io_virtual_file_stats"} {
		if !strings.Contains(r.stdout, "  server: not measured: "+src+": ") {
			t.Errorf("no not-measured line for %s:\n%s", src, r.all())
		}
	}
	for _, src := range []string{"sys.dm_os_wait_stats: ", "sys.dm_exec_requests: "} {
		if !strings.Contains(run.Waits.Unavailable, src) {
			t.Errorf("waits unavailable %q: want %s named", run.Waits.Unavailable, src)
		}
	}
	if !strings.Contains(r.stdout, "  waits: not measured: sys.dm_os_wait_stats: ") {
		t.Errorf("no not-measured line for the wait profile:\n%s", r.all())
	}
	if s := run.series(t, "server"); len(s.Unavailable) != 3 || s.Side != "" {
		t.Errorf("server series %+v: want its three sources unavailable, read from the target", s)
	}
}

// The plan check on Babelfish, which accepts SET SHOWPLAN_XML ON and then
// runs the statements, explains nothing and says once why the plans are
// not measured; the run completes.
func TestAPlanCheckOnBabelfishSaysWhyPlansAreNotMeasured(t *testing.T) {
	t.Parallel()
	url := testdb.SQLServer(t, "dbh_bfplans")
	home := t.TempDir()
	// The smallest workload whose statement the check can explain, with
	// no table to load: a script with one parameter.
	script := filepath.Join(home, "one.sql")
	if err := os.WriteFile(script, []byte("\\set k random(1, 10)\nSELECT :k AS v;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := dbh(t, home, "run", "--script", script, "-c", "1", "-T", "1s", "--db", url, "--no-save", "--collect", "plans", "--no-doctor")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	want := "  plans: not checked (not measured: the server accepts SET SHOWPLAN_XML ON but does not honour it (SELECT 1 then returned \"1\", not its plan"
	if !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "not explained") {
		t.Errorf("want the one line %q:\n%s", want, r.all())
	}
}

// --server-evidence takes the server's evidence from Babelfish's
// PostgreSQL side with the PostgreSQL engine's collectors, labelled so in
// the JSON, the text and the HTML; its password is never shown.
func TestServerEvidenceIsReadFromBabelfishsPostgreSQLSide(t *testing.T) {
	t.Parallel()
	url := testdb.SQLServer(t, "dbh_pgside")
	pg := testdb.BabelfishPostgresSide(t)
	home := t.TempDir()
	out, html := filepath.Join(home, "run.json"), filepath.Join(home, "run.html")
	// 3 s, not 1: the intervals and the wait samples asserted below must
	// come even when a busy host holds the process back for a second.
	r := dbh(t, home, "run", "null", "-c", "2", "-T", "3s", "--db", url, "--server-evidence", pg, "--collect", "server,waits",
		"--json", out, "--html", html)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	run := readEvidenceRun(t, out, r)
	const side = "Babelfish's PostgreSQL side"
	s := run.series(t, "server")
	if s.Side != side || !strings.Contains(s.Source, "pg_stat_database") || len(s.Intervals) == 0 {
		t.Errorf("server series %+v: want pg_stat_database's intervals, labelled %q\n%s", s, side, r.all())
	}
	if !strings.Contains(s.Describes, ":54990/") {
		t.Errorf("describes %q: want the PostgreSQL side's address", s.Describes)
	}
	if run.Waits.Side != side || !strings.HasPrefix(run.Waits.Method, "pg_stat_activity") || run.Waits.Total == 0 {
		t.Errorf("waits %+v: want the sessions sampled in pg_stat_activity (the TDS sessions' application name), labelled", run.Waits)
	}
	if hc := run.Summary.HostCPU; !strings.Contains(hc.Server, "postmaster") {
		t.Errorf("host CPU's server %q: want Babelfish's postmaster, found through its PostgreSQL side", hc.Server)
	}
	for _, w := range []string{"  server [" + side + "]: ", "  waits [" + side + "] ("} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("text has no %q:\n%s", w, r.stdout)
		}
	}
	h, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "Babelfish&#39;s PostgreSQL side") && !strings.Contains(string(h), side) {
		t.Errorf("the HTML report does not say where the server's evidence was read from")
	}
	j, _ := os.ReadFile(out)
	pass := strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(pg, "postgres://"), "@", 2)[0], strings.SplitN(strings.TrimPrefix(pg, "postgres://"), ":", 2)[0])
	if len(pass) > 1 {
		for where, text := range map[string]string{"output": r.all(), "JSON": string(j), "HTML": string(h)} {
			if strings.Contains(text, pass+"@") {
				t.Errorf("the PostgreSQL side's password is in the %s", where)
			}
		}
	}
}

// A bad --server-evidence URL is refused in one sentence, exit 2, its
// password masked.
func TestABadServerEvidenceURLIsOneSentence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, c := range []struct{ db, side, want string }{
		{"sqlserver://u:pw@127.0.0.1:14330?database=x", "postgres://u:Sekr1t@127.0.0.1:notaport/x", "is not a valid URL"},
		{"sqlserver://u:pw@127.0.0.1:14330?database=x", "mysql://u:Sekr1t@127.0.0.1/x", "is a mysql URL; give the postgres:// URL of Babelfish's PostgreSQL side"},
		{"postgres://u@127.0.0.1/x", "postgres://u:Sekr1t@127.0.0.1/x", "is for a run on SQL Server's protocol"},
	} {
		r := dbh(t, home, "run", "null", "-T", "1s", "--no-save", "--db", c.db, "--server-evidence", c.side)
		msg := strings.TrimSpace(r.stderr)
		if r.code != 2 || !strings.Contains(msg, c.want) || strings.Contains(r.all(), "Sekr1t") || strings.Count(msg, "\n") > 0 {
			t.Errorf("--server-evidence %s: exit %d, %q: want exit 2 and one sentence with %q, the password masked", c.side, r.code, r.all(), c.want)
		}
	}
}
