package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/testdb"
)

// A run picks the event-loop driver where the engine has it, records which
// driver ran and what the harness itself cost.
func TestARunRecordsItsDriverAndItsOwnCost(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	defLoops := min(runtime.GOMAXPROCS(0), 2)
	// pinnedTo is where n loops go: one to each CPU this process may use,
	// when n is 2 or more and there are n of them.
	pinnedTo := func(n int) []int {
		cpus := evloop.AllowedCPUs()
		if n < 2 || n != len(cpus) {
			return nil
		}
		return cpus
	}
	for _, tc := range []struct {
		name, url string
		args      []string
		want      string
		loops     int
		cpus      []int
		// follow: the connections follow their server processes
		// (pinned loops and --follow-server, on by default).
		follow bool
	}{
		// The server is on this host: a loop per processor, up to one per
		// client (the child has the test's GOMAXPROCS), each loop pinned
		// to a CPU of its own when there are two or more.
		{"postgres by default", testdb.Postgres(t, "dbh_cli_driver"), nil, "loop", defLoops, pinnedTo(defLoops), pinnedTo(defLoops) != nil},
		{"postgres with its loops left free", testdb.Postgres(t, "dbh_cli_driver_free"), []string{"--pin-loops=false"}, "loop", defLoops, nil, false},
		{"postgres not following its server", testdb.Postgres(t, "dbh_cli_driver_stay"), []string{"--follow-server=false"}, "loop", defLoops, pinnedTo(defLoops), false},
		{"postgres on goroutines when asked", testdb.Postgres(t, "dbh_cli_driver_g"), []string{"--driver", "goroutine"}, "goroutine", 0, nil, false},
		{"postgres on one loop when asked", testdb.Postgres(t, "dbh_cli_driver_1"), []string{"--loops", "1"}, "loop", 1, nil, false},
		{"sqlite", testdb.SQLite(t), nil, "goroutine", 0, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := dbh(t, home, "init", "tpcb", "--db", tc.url); r.code != 0 {
				t.Fatalf("init: exit %d\n%s", r.code, r.all())
			}
			jsonPath := filepath.Join(home, tc.want+".json")
			// --verbose: the loops' CPUs and moves are in the summary's
			// harness line only then.
			args := append([]string{"run", "tpcb", "--db", tc.url, "-c", "2", "-t", "30", "--collect", "none", "--verbose", "--json", jsonPath}, tc.args...)
			r := dbh(t, home, args...)
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s", r.code, r.all())
			}
			if !strings.Contains(r.stdout, "harness: "+tc.want+" driver") {
				t.Errorf("the summary does not say the %s driver ran:\n%s", tc.want, r.stdout)
			}
			b, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			var run struct {
				Config struct {
					Driver   string `json:"driver"`
					Loops    int    `json:"loops"`
					LoopCPUs []int  `json:"loop_cpus"`
					Follow   bool   `json:"follow_server"`
				} `json:"config"`
				Summary map[string]any `json:"summary"`
			}
			if err := json.Unmarshal(b, &run); err != nil {
				t.Fatal(err)
			}
			if run.Config.Driver != tc.want {
				t.Errorf("config.driver %q, want %q", run.Config.Driver, tc.want)
			}
			if run.Config.Loops != tc.loops {
				t.Errorf("config.loops %d, want %d", run.Config.Loops, tc.loops)
			}
			if !slices.Equal(run.Config.LoopCPUs, tc.cpus) {
				t.Errorf("config.loop_cpus %v, want %v", run.Config.LoopCPUs, tc.cpus)
			}
			if pinned := strings.Contains(r.stdout, "pinned to CPUs"); pinned != (tc.cpus != nil) {
				t.Errorf("the summary says the loops were pinned: %v, want %v:\n%s", pinned, tc.cpus != nil, r.stdout)
			}
			if run.Config.Follow != tc.follow {
				t.Errorf("config.follow_server %v, want %v", run.Config.Follow, tc.follow)
			}
			if says := strings.Contains(r.stdout, "to the server's CPU"); says != tc.follow {
				t.Errorf("the summary counts moves to the server's CPU: %v, want %v:\n%s", says, tc.follow, r.stdout)
			}
			if cpu, _ := run.Summary["client_cpu_us_per_tx"].(float64); cpu <= 0 {
				t.Errorf("summary.client_cpu_us_per_tx is %v; the harness's own CPU must be measured", run.Summary["client_cpu_us_per_tx"])
			}
			_, busy := run.Summary["loop_busy_pct"]
			if busy != (tc.want == "loop") {
				t.Errorf("summary.loop_busy_pct present: %v, on the %s driver", busy, tc.want)
			}
		})
	}
}
