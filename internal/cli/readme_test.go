package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// The pgbench-script commands of docs/workloads.md run as written, with
// the scripts that ship under examples/: only the database, the scale and
// the length of the run are this test's own.
func TestTheReadmeScriptCommandsRunWithTheShippedExamples(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../docs/workloads.md")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "\n## pgbench scripts\n")
	if i < 0 {
		t.Fatal("docs/workloads.md has no pgbench scripts section")
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(string(readme)[i:])
	if block == nil {
		t.Fatal("the pgbench scripts section of docs/workloads.md has no sh block")
	}
	url := testdb.Postgres(t, "dbh_readme_scripts")
	home := t.TempDir()
	dbURL := regexp.MustCompile(`--db \S+`)
	var ran int
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		args := strings.Fields(line)
		if len(args) < 2 || args[0] != "dbharness" {
			t.Fatalf("docs/workloads.md line %q is not a dbharness command", line)
		}
		line = dbURL.ReplaceAllString(line, "--db "+url)
		// Scale 10 is a million accounts: the test loads and says scale 1,
		// and runs 20 transactions per client instead of a minute.
		line = strings.NewReplacer("--scale 10", "--scale 1", "-s 10", "-s 1", "-T 60s", "-t 20").Replace(line)
		args = strings.Fields(line)[1:]
		for j, a := range args {
			if p, w, ok := strings.Cut(a, "@"); ok && strings.HasPrefix(p, "examples/") {
				args[j] = filepath.Join(root, p) + "@" + w
			}
		}
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("docs/workloads.md command %v: exit %d\n%s", args, r.code, r.all())
		}
		if args[0] == "run" {
			for _, want := range []string{"tpcb-like", "select", "saved as run"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%v: output lacks %q:\n%s", args, want, r.stdout)
				}
			}
			if !regexp.MustCompile(`(?m)^total\s+160\s+\S+\s+0\s`).MatchString(r.stdout) {
				t.Errorf("%v did not run 8 clients x 20 transactions without errors:\n%s", args, r.all())
			}
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("ran %d commands of docs/workloads.md, want init, run and check", ran)
	}
}
