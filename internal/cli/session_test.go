package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/testdb"
)

// runOfSet is what a run's JSON says of its --set settings.
type runOfSet struct {
	Config struct {
		Driver string            `json:"driver"`
		Set    map[string]string `json:"set"`
	} `json:"config"`
	Engine struct {
		Settings map[string]string `json:"settings"`
	} `json:"engine"`
}

// seenValues are the values the script's sessions wrote into table seen.
func seenValues(t *testing.T, url string) map[string]int64 {
	t.Helper()
	_, c := testdb.Connect(t, url)
	counts, err := db.QueryCounts(context.Background(), c, "SELECT v, count(*) FROM seen GROUP BY v")
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// Every connection of the run, on both drivers and both server engines,
// has the --set setting: each transaction writes what its session sees.
// The run records the setting as asked and as the server reports it.
func TestSetReachesEveryConnectionOfBothDriversAndIsRecorded(t *testing.T) {
	t.Parallel()
	engines := []struct {
		name, url, insert, set, want string
	}{
		{"postgres", testdb.Postgres(t, "dbh_set_pg"), "INSERT INTO seen VALUES (current_setting('synchronous_commit'));\n",
			"synchronous_commit=off", "off"},
		{"mysql", testdb.MySQL(t, "dbh_set_my"), "INSERT INTO seen SELECT @@SESSION.sort_buffer_size;\n",
			"sort_buffer_size=1048576", "1048576"},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			_, c := testdb.Connect(t, e.url)
			if err := c.Exec(context.Background(), "CREATE TABLE seen (v varchar(64))"); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			script := writeScript(t, home, "seen.sql", e.insert)
			name := strings.SplitN(e.set, "=", 2)[0]
			for _, driver := range []string{"loop", "goroutine"} {
				js := filepath.Join(home, driver+".json")
				r := dbh(t, home, "run", "-f", script, "--db", e.url, "-c", "2", "-t", "3", "--driver", driver, "--set", e.set,
					"--collect", "none", "--no-doctor", "--json", js)
				if r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", driver, r.code, r.all())
				}
				b, err := os.ReadFile(js)
				if err != nil {
					t.Fatal(err)
				}
				var run runOfSet
				jsonOf(t, string(b), &run)
				if run.Config.Driver != driver || run.Config.Set[name] != strings.SplitN(e.set, "=", 2)[1] {
					t.Errorf("%s: config %+v, want driver %s and set %s", driver, run.Config, driver, e.set)
				}
				if got := run.Engine.Settings[name]; got != e.want {
					t.Errorf("%s: engine.settings.%s = %q, want the sessions' %q", driver, name, got, e.want)
				}
			}
			if got := seenValues(t, e.url); len(got) != 1 || got[e.want] != 12 {
				t.Errorf("the sessions saw %v; want %s in all 12 transactions", got, e.want)
			}
		})
	}
}

// A setting the server does not know, or cannot set on a session, is
// refused with one sentence and exit 2 before any run starts; so is --set
// on SQLite, which has no session settings.
func TestSetRefusesUnknownAndServerOnlySettingsBeforeAnyRun(t *testing.T) {
	t.Parallel()
	pg, my := testdb.Postgres(t, "dbh_set_refuse_pg"), testdb.MySQL(t, "dbh_set_refuse_my")
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "null", "--db", pg, "--set", "no_such_setting=1"}, "--set no_such_setting=1: PostgreSQL has no such setting"},
		{[]string{"run", "null", "--db", pg, "--set", "shared_buffers=1GB"}, "--set shared_buffers=1GB: it cannot be set per session: it is set when the server starts and needs a server restart"},
		{[]string{"run", "null", "--db", pg, "--set", "synchronous_commit=maybe"}, `the server refused it: invalid value for parameter "synchronous_commit"`},
		{[]string{"run", "null", "--db", my, "--set", "no_such_variable=1"}, "--set no_such_variable=1: the server has no such variable"},
		{[]string{"run", "null", "--db", my, "--set", "innodb_buffer_pool_size=1"}, "--set innodb_buffer_pool_size=1: it is a global variable"},
		{[]string{"run", "null", "--db", "sqlite://" + filepath.Join(home, "x.db"), "--set", "synchronous=off"}, "the sqlite engine has no session settings"},
		{[]string{"sweep", "null", "--db", pg, "-c", "2", "--vary", "set.shared_buffers=128MB,1GB"}, "it cannot be set per session: it is set when the server starts"},
		{[]string{"sweep", "null", "--db", pg, "-c", "2", "--set", "wal_level=minimal"}, "--set wal_level=minimal: it cannot be set per session"},
		{[]string{"run", "null", "--db", pg, "--set", "synchronous_commit"}, "give NAME=VALUE"},
		{[]string{"sweep", "null", "--db", pg, "--vary", "set.bad-name=1,2"}, "give set.NAME=V1,V2"},
	} {
		if strings.HasPrefix(c.args[3], "sqlite://") {
			if r := dbh(t, home, "init", "inserts", "--db", c.args[3]); r.code != 0 {
				t.Fatal(r.all())
			}
		}
		args := append(c.args, "-t", "1", "--collect", "none", "--no-doctor")
		r := dbh(t, home, args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
			t.Errorf("%s: exit %d, want 2 and one sentence with %q\n%s", strings.Join(c.args, " "), r.code, c.want, r.all())
		}
		if strings.Contains(r.stdout, "completed") || strings.Contains(r.stdout, "saved as") {
			t.Errorf("%s: a run started:\n%s", strings.Join(c.args, " "), r.stdout)
		}
	}
}

// A sweep over a setting runs its values interleaved in each round, each
// run with the setting it was planned with, gives compare's verdict
// between the two series at the client count, and adds no 1-client point
// with --no-single-stream.
func TestASweepOverASettingInterleavesAndComparesItsSeries(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_set_sweep")
	if r := dbh(t, home, "init", "inserts", "--db", url); r.code != 0 {
		t.Fatal(r.all())
	}
	html := filepath.Join(home, "sweep.html")
	r := dbh(t, home, "sweep", "inserts", "--db", url, "-c", "2", "--no-single-stream", "--repeat", "2", "-t", "20",
		"--vary", "set.synchronous_commit=on,off", "--collect", "none", "--no-doctor", "--json", "-", "--html", html)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	var sw struct {
		Clients []int    `json:"clients"`
		Notes   []string `json:"notes"`
		Plan    []struct {
			Round   int               `json:"round"`
			Clients int               `json:"clients"`
			Vary    map[string]string `json:"vary"`
			RunID   string            `json:"run_id"`
		} `json:"plan"`
		Series []struct {
			Clients int               `json:"clients"`
			Flag    string            `json:"flag"`
			A       map[string]string `json:"a"`
			B       map[string]string `json:"b"`
			Method  string            `json:"method"`
			Ops     []struct {
				Name    string   `json:"name"`
				TPSA    float64  `json:"tps_a"`
				TPSB    float64  `json:"tps_b"`
				Delta   *float64 `json:"tps_delta_pct"`
				Verdict string   `json:"verdict"`
			} `json:"ops"`
		} `json:"series_comparisons"`
	}
	jsonOf(t, r.stdout, &sw)
	if len(sw.Clients) != 1 || sw.Clients[0] != 2 || len(sw.Notes) > 0 && strings.Contains(strings.Join(sw.Notes, " "), "1 client added") {
		t.Errorf("clients %v, notes %v; want [2] and no 1-client point", sw.Clients, sw.Notes)
	}
	if len(sw.Plan) != 4 {
		t.Fatalf("plan has %d runs, want 4", len(sw.Plan))
	}
	perRound := map[int]map[string]bool{}
	for _, p := range sw.Plan {
		if p.Clients != 2 {
			t.Errorf("a run at %d clients", p.Clients)
		}
		if perRound[p.Round] == nil {
			perRound[p.Round] = map[string]bool{}
		}
		v := p.Vary["set.synchronous_commit"]
		perRound[p.Round][v] = true
		// Each run had the value it was planned with.
		s := dbh(t, home, "show", p.RunID, "--json")
		var run runOfSet
		jsonOf(t, s.stdout, &run)
		if run.Config.Set["synchronous_commit"] != v || run.Engine.Settings["synchronous_commit"] != v {
			t.Errorf("run %s planned with %s ran with set %v, server said %q", p.RunID, v, run.Config.Set, run.Engine.Settings["synchronous_commit"])
		}
	}
	for round, vals := range perRound {
		if !vals["on"] || !vals["off"] {
			t.Errorf("round %d ran %v: both values belong in every round", round, vals)
		}
	}
	if len(sw.Series) != 1 {
		t.Fatalf("series_comparisons: %+v; want one", sw.Series)
	}
	c := sw.Series[0]
	verdicts := map[string]bool{"faster": true, "slower": true, "no significant difference": true}
	total := c.Ops[len(c.Ops)-1]
	if c.Clients != 2 || c.Flag != "set.synchronous_commit" || c.A["set.synchronous_commit"] != "on" || c.B["set.synchronous_commit"] != "off" ||
		c.Method != "repeats-t" || total.Name != "total" || !verdicts[total.Verdict] || total.TPSA <= 0 || total.TPSB <= 0 || total.Delta == nil {
		t.Errorf("series comparison: %+v", c)
	}
	for _, want := range []string{"series side by side", "set.synchronous_commit=on set.synchronous_commit=off", total.Verdict} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the sweep's table lacks %q:\n%s", want, r.stderr)
		}
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "Series side by side") {
		t.Errorf("the HTML report (%v) has no series section", err)
	}
}

// run inserts --delayed-durability where the commit would not be delayed
// (an engine without it, Babelfish) is one sentence and exit 2 before any
// run starts.
func TestDelayedDurabilityIsRefusedWithTheUsageStatus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bf := testdb.SQLServer(t, "dbh_dd_refuse")
	for _, c := range []struct{ url, want string }{
		{testdb.SQLite(t), "--delayed-durability is SQL Server's COMMIT ... WITH (DELAYED_DURABILITY = ON), which the sqlite engine does not have (PostgreSQL's like is --set synchronous_commit=off)"},
		// Babelfish has none; a SQL Server's new database has it DISABLED.
		{bf, "--delayed-durability: "},
	} {
		r := dbh(t, home, "run", "inserts", "--delayed-durability", "--db", c.url, "-t", "1", "--collect", "none", "--no-doctor")
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
			t.Errorf("exit %d, want 2 and one sentence with %q\n%s", r.code, c.want, r.all())
		}
		if strings.Contains(r.stdout, "completed") || strings.Contains(r.stdout, "saved as") {
			t.Errorf("a run started:\n%s", r.stdout)
		}
	}
}
