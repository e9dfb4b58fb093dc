package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// TestInsertsFixedWorkThroughTheCommandLine: --rows-per-client becomes
// transactions per client, each client's time is printed and saved, the
// figures reach the JSON, check passes; bad combinations get one sentence.
func TestInsertsFixedWorkThroughTheCommandLine(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.SQLite(t)
	if r := dbh(t, home, "init", "inserts", "--db", url, "--key", "uuid-ordered", "--prefill", "500"); r.code != 0 {
		t.Fatal(r.all())
	}
	js := filepath.Join(home, "run.json")
	r := dbh(t, home, "run", "inserts", "--db", url, "-c", "3", "--batch", "5", "--rows-per-statement", "2",
		"--rows-per-client", "100", "-P", "0", "--json", js)
	if r.code != 0 {
		t.Fatal(r.all())
	}
	for _, want := range []string{"20 transactions per client", "fixed work: 3 clients finished", "client seconds: ", "rows_per_s: ", "commits_per_s: ", "client_spread_s: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Config struct {
			Transactions int64 `json:"transactions_per_client"`
		} `json:"config"`
		Summary       map[string]any `json:"summary"`
		ClientSeconds []float64      `json:"client_seconds"`
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if run.Config.Transactions != 20 || len(run.ClientSeconds) != 3 || run.Summary["rows_committed"] != 300.0 || run.Summary["transactions"] != 60.0 {
		t.Errorf("JSON: %d transactions per client, client seconds %v, summary %v", run.Config.Transactions, run.ClientSeconds, run.Summary)
	}
	if r := dbh(t, home, "check", "inserts", "--db", url); r.code != 0 || strings.Count(r.stdout, "PASS") != 2 {
		t.Fatalf("check: exit %d\n%s", r.code, r.all())
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--rows-per-client", "10", "--duration", "5"}, 2, "without --duration"},
		{[]string{"--rows-per-client", "10", "--batch", "3"}, 2, "not a multiple of --batch 3"},
		{[]string{"--batch", "2", "--rows-per-statement", "4"}, 2, "cannot span commits"},
		{[]string{"--key", "serial"}, 1, "created with --key uuid-ordered"},
	} {
		r := dbh(t, home, append([]string{"run", "inserts", "--db", url, "-T", "0.2"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s", tc.args, r.code, tc.code, tc.want, r.all())
		}
	}
}
