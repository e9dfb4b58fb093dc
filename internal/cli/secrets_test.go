package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// No credential-bearing parameter of a PostgreSQL URL (the user's
// password, password=, sslpassword=) reaches the banner, the JSON's target
// and command, the reports, a sweep or the results store.
func TestSecretURLParametersNeverReachOutputReportsOrTheStore(t *testing.T) {
	t.Parallel()
	secrets := []string{"UserPw9x", "QueryPw8x", "SslSecret7x"}
	url := testdb.Postgres(t, "dbh_cli_secrets")
	url = strings.Replace(url, "postgres://postgres@", "postgres://postgres:UserPw9x@", 1) + "?sslmode=disable&password=QueryPw8x&sslpassword=SslSecret7x"
	home, out := t.TempDir(), t.TempDir()
	var all string
	for _, args := range [][]string{
		{"run", "null", "--db", url, "-t", "50", "-P", "0.1", "--json", filepath.Join(out, "r.json"), "--html", filepath.Join(out, "r.html"),
			"--markdown", filepath.Join(out, "r.md"), "--csv", filepath.Join(out, "csv")},
		{"check", "null", "--db=" + url, "--json", "-"},
		{"sweep", "null", "-c", "1", "-t", "50", "--db", url, "--json", filepath.Join(out, "s.json"), "--html", filepath.Join(out, "s.html")},
		{"runs"},
		{"sweeps", "--json"},
	} {
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.all())
		}
		all += r.all()
	}
	if !strings.Contains(all, "postgres:xxxxx@") || !strings.Contains(all, "sslpassword=xxxxx") || !strings.Contains(all, "password=xxxxx") {
		t.Errorf("the masked URL is not shown:\n%s", all)
	}
	r := dbh(t, home, "run", "null", "--db", strings.Replace(url, "sslmode=disable", "sslmode=bogus", 1))
	if r.code != 2 {
		t.Errorf("a bad sslmode: exit %d\n%s", r.code, r.all())
	}
	all += r.all()
	files, _ := filepath.Glob(filepath.Join(home, "results.db*"))
	_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all += string(b)
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("%s appears in the output, the reports or the results store", s)
		}
	}
}
