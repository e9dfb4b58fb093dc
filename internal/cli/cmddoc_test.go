package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/commands.md")

func TestCommandsDoc(t *testing.T) {
	t.Parallel()
	got := commandsDoc()
	path := filepath.Join("..", "..", "docs", "commands.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("docs/commands.md is stale: a command, a flag or a workload changed; run `go test ./internal/cli -run TestCommandsDoc -update` and commit docs/commands.md")
	}
}
