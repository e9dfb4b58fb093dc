package k8sjob

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Dockerfile's build step, run here as the image's build stage runs
// it (no Docker on this machine), makes a static binary that works: no
// program interpreter and no shared library, so the distroless static image
// can run it. Its Go is the release go.mod names.
func TestTheDockerfileBuildsAStaticBinary(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	df, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVer := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	from := regexp.MustCompile(`(?m)^FROM golang:([0-9.]+)-\S+ AS build$`).FindSubmatch(df)
	if goVer == nil || from == nil || string(goVer[1]) != string(from[1]) {
		t.Fatalf("the build stage's Go (%q) is not go.mod's (%q)", from, goVer)
	}
	if !strings.Contains(string(df), "COPY --from=build /out/dbharness /dbharness") || !strings.Contains(string(df), `ENTRYPOINT ["/dbharness"]`) {
		t.Fatalf("the image does not run /dbharness as its entrypoint:\n%s", df)
	}
	var build string
	sc := bufio.NewScanner(strings.NewReader(string(df)))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "RUN ") && strings.Contains(l, " go build ") {
			build = strings.TrimPrefix(l, "RUN ")
		}
	}
	out := filepath.Join(t.TempDir(), "dbharness")
	if build == "" || !strings.Contains(build, "-o /out/dbharness") {
		t.Fatalf("no `RUN ... go build ... -o /out/dbharness` step in the Dockerfile")
	}
	build = strings.ReplaceAll(build, "-o /out/dbharness", "-o "+out)
	if testing.Short() {
		t.Skip("needs a full static build of dbharness (minutes on a busy machine); go test -short runs only the tests that need no server")
	}
	cmd := exec.Command("sh", "-c", build)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "VERSION=image-test")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary needs a program interpreter (it is dynamically linked)")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs shared libraries: %v", libs)
	}
	v, err := exec.Command(out, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(v)) != "dbharness image-test" {
		t.Errorf("version: %q, %v", v, err)
	}
}
