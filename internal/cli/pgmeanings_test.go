package cli_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbharness/dbharness/internal/testdb"
)

// runConfig is the part of a run's JSON these tests read.
type runConfig struct {
	Target string `json:"target"`
	Engine struct {
		Name string `json:"name"`
	} `json:"engine"`
	Config struct {
		LatencyLimitMs float64 `json:"latency_limit_ms"`
		Driver         string  `json:"driver"`
		Loops          int     `json:"loops"`
	} `json:"config"`
}

func readRunConfig(t *testing.T, path string) runConfig {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rc runConfig
	if err := json.Unmarshal(b, &rc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rc
}

// pgbench's letters mean what they mean in pgbench: -L without a unit is
// milliseconds, a unit is kept, and -j N is --loops N.
func TestPgbenchLettersLatencyLimitInMillisecondsAndJIsLoops(t *testing.T) {
	t.Parallel()
	pg := testdb.Postgres(t, "dbh_cli_pgletters")
	home := t.TempDir()
	for _, tc := range []struct {
		args  []string
		limit float64
		loops int
	}{
		{[]string{"-L", "10", "-j", "2", "-c", "2"}, 10, 2},
		{[]string{"--latency-limit", "1.5s", "-j1"}, 1500, 1},
		{[]string{"-L", "2.5", "--loops", "1"}, 2.5, 1},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		args := append([]string{"run", "null", "--db", pg, "-t", "50", "--driver", "loop", "--no-save", "--collect", "none", "--json", out}, tc.args...)
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, r.code, r.all())
		}
		rc := readRunConfig(t, out)
		if rc.Config.LatencyLimitMs != tc.limit {
			t.Errorf("%v: latency_limit_ms %v, want %v", tc.args, rc.Config.LatencyLimitMs, tc.limit)
		}
		if rc.Config.Loops != tc.loops {
			t.Errorf("%v: loops %d, want %d", tc.args, rc.Config.Loops, tc.loops)
		}
	}
}

// libpq's environment variables name the PostgreSQL target when neither
// --db nor $DBHARNESS_DB does, and the run says so; the embedded SQLite
// database is not used.
func TestPGEnvironmentVariablesNameThePostgreSQLTarget(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(testdb.Postgres(t, "dbh_cli_pgenv"))
	if err != nil {
		t.Fatal(err)
	}
	home, out := t.TempDir(), filepath.Join(t.TempDir(), "r.json")
	env := []string{"DBHARNESS_DB=", "PGHOST=" + u.Hostname(), "PGPORT=" + u.Port(), "PGUSER=" + u.User.Username(),
		"PGDATABASE=" + strings.TrimPrefix(u.Path, "/"), "PGPASSWORD=EnvPw6x", "PGSSLMODE=disable"}
	r := dbhEnv(t, bin, env, home, "run", "null", "-t", "50", "--collect", "none", "--json", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
	want := "target from PGHOST/PGPORT/PGUSER/PGDATABASE (no --db given): postgres://" + u.User.Username() + "@" + u.Host + u.Path
	if !strings.Contains(r.stderr, want+"\n") {
		t.Errorf("the run does not say %q:\n%s", want, r.stderr)
	}
	if strings.Contains(r.all(), "embedded SQLite") {
		t.Errorf("the run went to the embedded database:\n%s", r.all())
	}
	rc := readRunConfig(t, out)
	if rc.Target != "postgres://"+u.User.Username()+"@"+u.Host+u.Path {
		t.Errorf("target %q", rc.Target)
	}
	if !strings.Contains(rc.Engine.Name, "postgres") {
		t.Errorf("engine %q, want PostgreSQL", rc.Engine.Name)
	}
	secretNowhere(t, "EnvPw6x", r.all(), out, home)

	// $DBHARNESS_DB still comes first.
	r = dbhEnv(t, bin, append(env, "DBHARNESS_DB=sqlite://"+filepath.Join(home, "x.db")), home, "run", "null", "-T", "0.1", "--no-save", "--collect", "none")
	if r.code == 0 || strings.Contains(r.stderr, "target from") || !strings.Contains(r.stderr, "x.db") {
		t.Errorf("$DBHARNESS_DB was not the target: exit %d\n%s", r.code, r.all())
	}
	// A variable pgx refuses is one sentence and exit 2.
	r = dbhEnv(t, bin, append(env, "PGPORT=notaport"), home, "run", "null", "-T", "0.1", "--no-save")
	refusedBeforeAnything(t, r, "the PostgreSQL environment variables (PGHOST/PGPORT/PGUSER/PGDATABASE) name no valid target")
}

// A libpq key=value connection string is a PostgreSQL target; its password
// is masked wherever the target is shown or kept, and a bad string is one
// sentence and exit 2.
func TestKeywordValueConnectionStringIsAPostgreSQLTarget(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(testdb.Postgres(t, "dbh_cli_pgkv"))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "KvSecret5x"
	kv := "host=" + u.Hostname() + " port=" + u.Port() + " user=" + u.User.Username() + " password=" + secret +
		" dbname=" + strings.TrimPrefix(u.Path, "/") + " sslmode=disable"
	home, dir := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "r.json")
	var all string
	for _, args := range [][]string{
		{"run", "null", "--db", kv, "-t", "50", "--collect", "none", "--json", out, "--html", filepath.Join(dir, "r.html")},
		{"check", "null", "--db=" + kv},
		{"runs"},
	} {
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args[:2], r.code, r.all())
		}
		all += r.all()
	}
	if !strings.Contains(all, "password=xxxxx") {
		t.Errorf("the masked string is not shown:\n%s", all)
	}
	if rc := readRunConfig(t, out); !strings.Contains(rc.Engine.Name, "postgres") || !strings.Contains(rc.Target, "password=xxxxx") {
		t.Errorf("engine %q, target %q", rc.Engine.Name, rc.Target)
	}
	for _, bad := range []struct{ db, want string }{
		{"host=127.0.0.1 port=notaport password=" + secret, "invalid port"},
		{"host=127.0.0.1 garbage password=" + secret, `missing "=" after "garbage"`},
		{"host=127.0.0.1 sslmode=bogus password=" + secret, "sslmode is invalid"},
	} {
		r := dbh(t, home, "run", "null", "--db", bad.db, "-T", "0.1")
		refusedBeforeAnything(t, r, `--db "`+strings.Replace(bad.db, secret, "xxxxx", 1)+`" is not a valid PostgreSQL connection string`)
		if !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%q: the reason %q is not given:\n%s", bad.db, bad.want, r.stderr)
		}
		all += r.all()
	}
	secretNowhere(t, secret, all, dir, home)
}

// secretNowhere fails the test when secret is in out or in a file under
// the directories (the results store, the reports).
func secretNowhere(t *testing.T, secret, out string, dirs ...string) {
	t.Helper()
	if strings.Contains(out, secret) {
		t.Errorf("the password was printed:\n%s", out)
	}
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
					t.Errorf("the password is in %s", p)
				}
			}
			return nil
		})
	}
}
