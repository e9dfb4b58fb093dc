package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
)

// complete runs cobra's hidden __complete command in-process and returns
// the offered words.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb}
	if code := a.main(append([]string{"__complete"}, args...)); code != ExitOK {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errb.String())
	}
	var words []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(line, ":") { // the directive
			continue
		}
		w, _, _ := strings.Cut(line, "\t")
		words = append(words, w)
	}
	return words
}

func offers(t *testing.T, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("completion does not offer %q; offered %q", w, got)
		}
	}
}

func offersNot(t *testing.T, got []string, not ...string) {
	t.Helper()
	for _, n := range not {
		for _, g := range got {
			if g == n {
				t.Errorf("completion offers %q; offered %q", n, got)
			}
		}
	}
}

func TestCompleteCommandsAndWorkloads(t *testing.T) {
	offers(t, complete(t, ""), "run", "init", "sweep", "report", "completion")
	offers(t, complete(t, "run", ""), "tpcb", "tpcc", "inserts")
	offers(t, complete(t, "run", "tp"), "tpcb", "tpcc", "tpcc-ro")
	offersNot(t, complete(t, "run", "tp"), "inserts")
	// init offers only workloads with data to load.
	offersNot(t, complete(t, "init", ""), "null", "script")
	// After the workload name only flags follow.
	if got := complete(t, "run", "tpcb", ""); len(got) != 0 {
		t.Errorf("after the workload: %q", got)
	}
}

func TestCompleteFlagsOfTheNamedWorkload(t *testing.T) {
	offers(t, complete(t, "run", "tpcb", "--cl"), "--clients")
	offers(t, complete(t, "run", "tpcb", "--m"), "--mix", "--max-tries", "--markdown")
	offers(t, complete(t, "run", "-c", "4", "tpcc", "--"), "--warehouse-affinity", "--mode", "--duration")
	offersNot(t, complete(t, "run", "tpcb", "--"), "--mode", "--scale")
	offers(t, complete(t, "init", "tpcb", "-"), "--scale", "-s", "--loaders")
	offers(t, complete(t, "check", "tpcc", "--"), "--db", "--json")
	offers(t, complete(t, "sweep", "inserts", "--"), "--vary", "--repeat", "--batch", "--duration")
	offers(t, complete(t, "run", "--script", "x.sql", "--"), "--define", "--query-mode")
	// Without a workload, the command's common flags.
	offers(t, complete(t, "run", "--"), "--clients", "--db")
	offers(t, complete(t, "runs", "--"), "--limit", "--json")
	// A flag's value is not a workload.
	offersNot(t, complete(t, "run", "--db", ""), "tpcb")
}

func TestCompleteWorkloadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"shop.yaml", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	got := complete(t, "run", "")
	offers(t, got, "shop.yaml", "tpcb")
	offersNot(t, got, "notes.txt")
	got = complete(t, "profile", "")
	offers(t, got, "shop.yaml")
	offersNot(t, got, "tpcb")
}

func TestCompleteSavedIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	t.Setenv("DBHARNESS_RESULTS", path)
	// No store: nothing offered, and nothing created.
	if got := complete(t, "show", ""); len(got) != 0 {
		t.Errorf("without a store: %q", got)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("completion created the store: %v", err)
	}
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &results.Run{RunID: "r-completion-1", Workload: "tpcb", Status: results.StatusCompleted}
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	s.Close()
	offers(t, complete(t, "show", ""), "r-completion-1")
	offers(t, complete(t, "compare", "r-completion-1", "r-"), "r-completion-1")
	offers(t, complete(t, "report", "--results", path, ""), "r-completion-1")
	offersNot(t, complete(t, "show", "x"), "r-completion-1")
}

func TestCompletionScript(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		var out, errb bytes.Buffer
		a := &app{stdout: &out, stderr: &errb}
		if code := a.main([]string{"completion", shell}); code != ExitOK {
			t.Fatalf("completion %s: exit %d: %s", shell, code, errb.String())
		}
		if !strings.Contains(out.String(), "__complete") || !strings.Contains(out.String(), "dbharness") {
			t.Errorf("completion %s does not print a script:\n%.300s", shell, out.String())
		}
	}
}
