package cli_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// initSweep is what these tests read of a sweep's JSON.
type initSweep struct {
	Status   string   `json:"status"`
	InitArgs []string `json:"init_args"`
	Plan     []struct {
		Clients int               `json:"clients"`
		Vary    map[string]string `json:"vary"`
		RunID   string            `json:"run_id"`
		Status  string            `json:"status"`
		Init    bool              `json:"init"`
	} `json:"plan"`
}

// checkKeysOfRuns checks that every planned run completed with the key
// strategy of its point: the run's recorded --key is the point's, and the
// run started at all only because its table had that strategy (inserts
// refuses a --key the table was not created with).
func checkKeysOfRuns(t *testing.T, home string, sw initSweep) {
	t.Helper()
	for i, p := range sw.Plan {
		if p.Status != "completed" {
			t.Errorf("plan entry %d (%+v) is not completed", i, p)
			continue
		}
		var run struct {
			Config struct {
				WorkloadFlags map[string]string `json:"workload_flags"`
			} `json:"config"`
		}
		jsonOf(t, dbh(t, home, "show", p.RunID, "--json").stdout, &run)
		if got := run.Config.WorkloadFlags["key"]; got != p.Vary["key"] {
			t.Errorf("run %s of point %v ran with --key %q", p.RunID, p.Vary, got)
		}
	}
}

func TestASweepOfTheInsertsKeyInitializesThePointsThatNeedIt(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_sw_key")
	jsonPath := filepath.Join(home, "sweep.json")
	r := dbh(t, home, "sweep", "inserts", "--db", url, "-c", "1,2", "--duration", "0.5s", "--vary", "key=serial,uuid-random",
		"--pad", "200", "--order-seed", "5", "--json", jsonPath)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	var sw initSweep
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	jsonOf(t, string(b), &sw)
	if sw.Status != "completed" || len(sw.Plan) != 4 {
		t.Fatalf("sweep %s with %d runs, want completed with 4:\n%s", sw.Status, len(sw.Plan), r.all())
	}
	if !reflect.DeepEqual(sw.InitArgs, []string{"--pad=200"}) {
		t.Errorf("init_args = %q, want the --pad given to the sweep", sw.InitArgs)
	}
	checkKeysOfRuns(t, home, sw)
	// Init runs exactly when the key differs from the one loaded last.
	inits := 0
	for i, p := range sw.Plan {
		want := i == 0 || p.Vary["key"] != sw.Plan[i-1].Vary["key"]
		if p.Init != want {
			t.Errorf("plan entry %d (%v after %v): init %v, want %v", i, p.Vary, sw.Plan[max(i-1, 0)].Vary, p.Init, want)
		}
		if want {
			inits++
		}
	}
	if n := strings.Count(r.stdout, "init inserts --pad=200 --key="); n != inits {
		t.Errorf("%d init lines, want %d:\n%s", n, inits, r.stdout)
	}
	if strings.Contains(r.stderr, "loading [") || strings.Contains(r.all(), "steps:") {
		t.Errorf("an init drew its progress bar:\n%s", r.stderr)
	}
	// The table left behind is the last point's.
	last := sw.Plan[len(sw.Plan)-1].Vary["key"]
	wantType := map[string]string{"serial": "bigint", "uuid-random": "uuid"}[last]
	if pgCount(t, url, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'inserts' AND column_name = 'c1' AND data_type = '"+wantType+"'") != 1 {
		t.Errorf("inserts.c1 is not %s after a last point with --key %s", wantType, last)
	}
	if pgCount(t, url, "SELECT count(*) FROM inserts_meta WHERE event = 'init' AND key_strategy = '"+last+"' AND pad = 200") != 1 {
		t.Errorf("inserts_meta does not record the last point's init (--key %s --pad 200)", last)
	}
}

func TestAResumedSweepInitializesItsFirstPointAgain(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.Postgres(t, "dbh_sw_resume")
	out, errb, code := interruptedSweep(t, home, "inserts", "--db", url, "-c", "1", "--repeat", "2", "--duration", "1s",
		"--vary", "key=serial,uuid-random", "--order-seed", "11")
	if code != 130 {
		t.Fatalf("exit %d, want 130\n%s%s", code, out, errb)
	}
	id := sweepIDRe.FindString(out)
	if id == "" {
		t.Fatalf("no sweep id:\n%s", out)
	}
	r := dbh(t, home, "sweep", "--resume", id, "--json", "-")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.all())
	}
	// The table may hold any key after the interrupt: the resumed session
	// loads its first point before running it.
	text := r.stderr // the table and the lines, with --json -
	initAt, runAt := strings.Index(text, "init inserts --key="), strings.Index(text, "/4] round")
	if initAt < 0 || runAt < 0 || initAt > runAt {
		t.Errorf("the resumed sweep ran before loading its first point:\n%s", text)
	}
	var sw initSweep
	jsonOf(t, r.stdout, &sw)
	if sw.Status != "completed" {
		t.Fatalf("resumed sweep is %s", sw.Status)
	}
	checkKeysOfRuns(t, home, sw)
}
