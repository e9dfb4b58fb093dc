package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/dbharness/dbharness/internal/testdb"
)

var bin string

// stackTrace matches what Go prints of a panic or a crash ("goroutine 1
// [running]:"), not the words "goroutine driver".
var stackTrace = regexp.MustCompile(`goroutine \d+ \[|panic:|runtime error`)

func TestMain(m *testing.M) {
	flag.Parse()
	// libpq's variables that name a server make a PostgreSQL target when
	// no --db is given: the binary the tests run sees none of the user's,
	// so that a run without --db goes to the embedded database; a test that
	// wants them passes its own. (PGPASSWORD and the like stay: the test
	// servers may need them.)
	for _, k := range []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE", "PGSERVICE"} {
		os.Unsetenv(k)
	}
	if testing.Short() {
		// The unit subset builds no binary: the tests that run it skip
		// (needBinary).
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "dbh-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "dbharness")
	// -pgo=off: the profile beside the main package (default.pgo) changes
	// the binary's speed, not what it does, and a build with it compiles
	// every package again instead of reusing those go test compiled.
	// The test binary's -gcflags are passed on (scripts/test.sh leaves
	// SQLite's engine out of the race detector), so that the binary runs
	// SQLite as the tests' own code does and reuses their compiled packages.
	args := []string{"build", "-race", "-pgo=off", "-o", bin}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-gcflags" {
				args = append(args, "-gcflags="+s.Value)
			}
		}
	}
	out, err := exec.Command("go", append(args, "github.com/dbharness/dbharness/cmd/dbharness")...).CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func (r result) all() string { return r.stdout + r.stderr }

// needBinary skips the test under go test -short, which builds no binary.
func needBinary(t *testing.T) {
	t.Helper()
	testdb.SkipShort(t, "the dbharness binary, which TestMain builds with -race")
}

// dbh runs the binary with a private data directory and results store.
func dbh(t *testing.T, home string, args ...string) result {
	t.Helper()
	return dbhBin(t, bin, home, args...)
}

// dbhBin is dbh with the binary at path.
func dbhBin(t *testing.T, path, home string, args ...string) result {
	t.Helper()
	return dbhEnv(t, path, nil, home, args...)
}

// dbhEnv is dbhBin with env (NAME=VALUE) added to the command's
// environment, overriding the test's: tests that run in parallel cannot
// set their own.
func dbhEnv(t *testing.T, path string, env []string, home string, args ...string) result {
	t.Helper()
	needBinary(t)
	// A command that hangs is stopped with SIGQUIT after 5 minutes, which
	// makes Go print every goroutine's stack for the failure.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(append(os.Environ(), "XDG_DATA_HOME="+home, "DBHARNESS_RESULTS="+filepath.Join(home, "results.db")), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%v did not end within 5 minutes:\n%s", args, r.all())
	}
	if stackTrace.MatchString(r.all()) {
		t.Fatalf("output has a stack trace:\n%s", r.all())
	}
	return r
}

func TestInitsStepsNameWhatTheEngineRuns(t *testing.T) {
	t.Parallel()
	want := map[string]string{"postgres": "vacuum, analyze and keys", "mysql": "analyze", "sqlite": "analyze"}
	for _, e := range testdb.Engines(t, "dbh_init_steps") {
		r := dbh(t, t.TempDir(), "init", "tpcb", "--db", e.URL)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", e.Name, r.code, r.all())
		}
		if !regexp.MustCompile(`(?m)^steps: load \d+\.\d\ds; ` + want[e.Name] + ` \d+\.\d\ds$`).MatchString(r.all()) {
			t.Errorf("%s: init's steps line should name %q:\n%s", e.Name, want[e.Name], r.all())
		}
	}
}

func TestTheReadmeQuickStartWorksOnTheEmbeddedDatabase(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := dbh(t, home, "init", "tpcb")
	if r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.all())
	}
	dbPath := filepath.Join(home, "dbharness", "default.db")
	if !strings.Contains(r.stderr, dbPath) {
		t.Errorf("init does not say where the database is (%s):\n%s", dbPath, r.stderr)
	}
	// Not on a terminal, the bar writes no line that only repeats the one
	// before, and the steps are told apart.
	if n := strings.Count(r.all(), "100.0%"); n != 1 {
		t.Errorf("init's output has %d lines at 100%%, want 1:\n%s", n, r.all())
	}
	if !regexp.MustCompile(`(?m)^steps: load \d+\.\d\ds; analyze \d+\.\d\ds$`).MatchString(r.all()) {
		t.Errorf("init's steps line:\n%s", r.all())
	}
	jsonPath := filepath.Join(home, "run.json")
	r = dbh(t, home, "run", "tpcb", "--duration", "1s", "--clients", "2", "--json", jsonPath)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.all())
	}
	for _, want := range []string{dbPath, "elapsed", "tpcb_like", "p99_ms", "saved as run"} {
		if !strings.Contains(r.all(), want) {
			t.Errorf("run output lacks %q:\n%s", want, r.all())
		}
	}
	var run map[string]any
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	if run["status"] != "completed" || run["summary"].(map[string]any)["tps"].(float64) <= 0 {
		t.Fatalf("run JSON: status %v summary %v", run["status"], run["summary"])
	}
	// The run records the data it ran on.
	ds, _ := run["dataset"].(map[string]any)
	if ds == nil || ds["scale"] != 1.0 || len(ds["tables"].([]any)) != 4 {
		t.Errorf("run JSON dataset: %v", run["dataset"])
	}
	if !strings.Contains(r.stdout, `dataset: pre_run="truncate pgbench_history" scale=1; pgbench_accounts 100000 rows`) {
		t.Errorf("the summary does not show the dataset:\n%s", r.stdout)
	}
	id := run["run_id"].(string)

	t.Run("check passes after the run", func(t *testing.T) {
		if r := dbh(t, home, "check", "tpcb"); r.code != 0 || strings.Count(r.stdout, "PASS") != 3 {
			t.Fatalf("check: exit %d\n%s", r.code, r.all())
		}
	})
	t.Run("runs lists the saved run", func(t *testing.T) {
		r := dbh(t, home, "runs", "--json")
		var rows []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0]["run_id"] != id {
			t.Fatalf("runs --json = %s (%v)", r.stdout, err)
		}
	})
	t.Run("show prints the same JSON as run --json", func(t *testing.T) {
		r := dbh(t, home, "show", id, "--json")
		var shown map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil {
			t.Fatal(err)
		}
		if shown["run_id"] != id || len(shown["intervals"].([]any)) != len(run["intervals"].([]any)) {
			t.Fatalf("show differs from the run's JSON: %v intervals vs %v", len(shown["intervals"].([]any)), len(run["intervals"].([]any)))
		}
	})
	t.Run("workloads lists tpcb, tpcc and tpcc-ro with their flags", func(t *testing.T) {
		r := dbh(t, home, "workloads")
		for _, want := range []string{"tpcb", "--scale", "--mix", "tpcc", "--warehouses", "--warehouse-affinity", "tpcc-ro", "--augmented"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("workloads lacks %q:\n%s", want, r.stdout)
			}
		}
	})
}

func TestACheckThatFailsExitsOneWithTheNumbers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	url := testdb.SQLite(t)
	if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
		t.Fatal(r.all())
	}
	d, err := sql.Open("sqlite", strings.TrimPrefix(url, "sqlite://"))
	if err == nil {
		_, err = d.Exec("UPDATE pgbench_tellers SET tbalance = 7 WHERE tid = 1")
		d.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	r := dbh(t, home, "check", "tpcb", "--db", url)
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stdout, "sum(tbalance)=7") {
		t.Fatalf("exit %d\n%s", r.code, r.all())
	}
}

// silentServer accepts connections and never answers, like a firewall
// that swallows packets.
func silentServer(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return l.Addr().String()
}

func TestBadInputGetsOneClearSentence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	silent := silentServer(t)
	pg := testdb.PostgresBase()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"an unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"an unknown workload", []string{"run", "nosuch"}, 2, "unknown workload \"nosuch\""},
		{"a missing workload", []string{"run"}, 2, "needs a workload name"},
		{"an unknown flag", []string{"run", "tpcb", "--bogus"}, 2, "unknown flag --bogus"},
		{"a bad clients value", []string{"run", "tpcb", "--clients", "0"}, 2, "--clients 0"},
		{"a bad duration", []string{"run", "tpcb", "--duration", "soon"}, 2, "not a duration"},
		{"a zero duration", []string{"run", "tpcb", "-T", "0"}, 2, "--duration 0s: give a positive duration"},
		{"a word for a number", []string{"run", "tpcb", "--clients", "abc"}, 2, `--clients "abc" is not a whole number`},
		{"a progress interval too short", []string{"run", "tpcb", "-P", "1ns"}, 2, "--progress 1ns is shorter than 10ms"},
		{"an unsupported URL scheme", []string{"run", "tpcb", "--db", "oracle://x/y"}, 2, "not supported"},
		{"a refused connection", []string{"run", "tpcb", "--db", "postgres://postgres@127.0.0.1:1/test"}, 1, "connection refused"},
		{"a server that never answers", []string{"run", "tpcb", "--db", "postgres://postgres@" + silent + "/test"}, 1, "no answer within the connect timeout"},
		{"a MySQL server that never answers", []string{"check", "tpcb", "--db", "mysql://root@" + silent + "/test"}, 1, "no answer within the connect timeout"},
		{"an unknown database", []string{"run", "tpcb", "--db", pg + "/no_such_db_dbh"}, 1, "does not exist"},
		{"a wrong MySQL password", []string{"run", "tpcb", "--db", "mysql://root:wrongpass@127.0.0.1:3306/test"}, 1, "authentication failed"},
		{"missing tables", []string{"run", "tpcb", "--db", testdb.SQLite(t)}, 1, "run `dbharness init tpcb"},
		{"a missing run", []string{"show", "nosuchrun"}, 1, "not found"},
		{"keying times without terminals", []string{"run", "tpcc", "--keying-think"}, 2, "--keying-think needs --terminals"},
		{"terminals on a workload without them", []string{"run", "tpcb", "--terminals", "5"}, 2, "--terminals is for workloads with emulated terminals"},
		{"terminals without a home warehouse", []string{"run", "tpcc", "--terminals", "10", "--warehouse-affinity=false"}, 2, "--warehouse-affinity=false cannot be used with --terminals"},
		{"tpcc without its tables", []string{"run", "tpcc", "--db", testdb.SQLite(t)}, 1, "run `dbharness init tpcc"},
		{"a driver that does not exist", []string{"run", "tpcb", "--driver", "fast"}, 2, `--driver "fast" is not a driver`},
		{"the loop driver on an engine without it", []string{"run", "tpcb", "--driver", "loop", "--db", testdb.SQLite(t)}, 2, "the sqlite engine does not have"},
		{"the loop driver on SQL Server", []string{"run", "tpcb", "--driver", "loop", "--db", "sqlserver://sa:sekret@127.0.0.1:1?database=x"}, 2, "--driver loop asks for the event-loop driver, which the sqlserver engine does not have; use --driver goroutine"},
		{"a SQL Server URL with a bad port", []string{"run", "tpcb", "--db", "sqlserver://sa:sekret@127.0.0.1:70000?database=x"}, 2, "port 70000 is out of range"},
		{"a SQL Server URL with a bad encrypt value", []string{"init", "tpcb", "--db", "sqlserver://sa:sekret@127.0.0.1:1433?database=x&encrypt=maybe"}, 2, "has an invalid parameter: invalid encrypt 'maybe'"},
		{"a SQL Server that is not there", []string{"check", "tpcb", "--db", "sqlserver://sa:sekret@127.0.0.1:1?database=x"}, 1, "connection refused"},
		{"a SQL Server host that does not exist", []string{"run", "tpcb", "--db", "sqlserver://sa:sekret@nosuchhost.invalid:1433?database=x"}, 1, "unknown host"},
		// go-mssqldb's login has no deadline of its own and does not
		// watch the context: the engine's dialer bounds it.
		{"a SQL Server that never answers", []string{"run", "tpcb", "--db", "sqlserver://sa:sekret@" + silent + "?database=x"}, 1, "no answer within the connect timeout"},
		{"loops on the goroutine driver", []string{"run", "tpcb", "--driver", "goroutine", "--loops", "2"}, 2, "--loops is for --driver loop"},
		{"the loop driver with terminals", []string{"run", "tpcc", "--driver", "loop", "--terminals", "10"}, 2, "--terminals runs on the goroutine driver"},
	} {
		t.Run(tc.name+" is refused clearly", func(t *testing.T) {
			r := dbh(t, home, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.all())
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "dbharness: ") {
				t.Errorf("last line is not the error sentence: %q", last)
			}
			// The slowest is a server that never answers: the connect
			// timeout (8 s), plus room for a busy machine.
			if r.took > 30*time.Second {
				t.Errorf("took %s; errors must come within the connect timeout", r.took)
			}
			if strings.Contains(r.all(), "wrongpass") || strings.Contains(r.all(), "sekret") {
				t.Errorf("the password is printed:\n%s", r.all())
			}
		})
	}
}

func TestPasswordsNeverReachOutputJSONOrTheStore(t *testing.T) {
	t.Parallel()
	url := testdb.MySQL(t, "dbh_cli_pw")
	base := strings.TrimPrefix(testdb.MySQLBase(), "mysql://")
	user, host, _ := strings.Cut(base, "@")
	admin, err := sql.Open("mysql", user+"@tcp("+host+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	// The database and the user carry $DBHARNESS_TEST_DB_PREFIX, as every
	// test database does, so that two checkouts' runs keep apart.
	dbName, pwUser := url[strings.LastIndex(url, "/")+1:], os.Getenv("DBHARNESS_TEST_DB_PREFIX")+"dbh_pw"
	for _, s := range []string{
		"DROP USER IF EXISTS '" + pwUser + "'@'%'", "DROP USER IF EXISTS '" + pwUser + "'@'localhost'",
		"CREATE USER '" + pwUser + "'@'%' IDENTIFIED BY 'S3cretPw9'", "CREATE USER '" + pwUser + "'@'localhost' IDENTIFIED BY 'S3cretPw9'",
		"GRANT ALL ON " + dbName + ".* TO '" + pwUser + "'@'%'", "GRANT ALL ON " + dbName + ".* TO '" + pwUser + "'@'localhost'",
	} {
		if _, err := admin.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	pwURL := strings.Replace(url, "mysql://"+user+"@", "mysql://"+pwUser+":S3cretPw9@", 1)
	home := t.TempDir()
	jsonPath := filepath.Join(home, "r.json")
	var all string
	for _, args := range [][]string{
		{"init", "tpcb", "--db", pwURL},
		{"run", "tpcb", "--db", pwURL, "-T", "1", "--json", jsonPath},
		{"check", "tpcb", "--db=" + pwURL},
		{"runs"},
	} {
		r := dbh(t, home, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.all())
		}
		all += r.all()
	}
	files := []string{jsonPath}
	m, _ := filepath.Glob(filepath.Join(home, "results.db*"))
	files = append(files, m...)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all += string(b)
	}
	if strings.Contains(all, "S3cretPw9") {
		t.Fatal("the password appears in output, JSON or the results store")
	}
	if !strings.Contains(all, "dbh_pw:xxxxx@") {
		t.Error("the redacted URL is not shown")
	}
}

func TestInterruptStopsCleanlyKeepsTheRunAndExits130(t *testing.T) {
	t.Parallel()
	// SQLite on goroutines, PostgreSQL on the event loop.
	for _, e := range []struct{ name, url string }{
		{"sqlite", testdb.SQLite(t)},
		{"postgres", testdb.Postgres(t, "dbh_cli_interrupt")},
	} {
		t.Run(e.name, func(t *testing.T) {
			home, url := t.TempDir(), e.url
			if r := dbh(t, home, "init", "tpcb", "--db", url); r.code != 0 {
				t.Fatal(r.all())
			}
			cmd := exec.Command(bin, "run", "tpcb", "--db", url, "--duration", "60s", "--clients", "2")
			cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home, "DBHARNESS_RESULTS="+filepath.Join(home, "results.db"))
			var out, errb bytes.Buffer
			cmd.Stderr = &errb
			pipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Interrupt once an interval of the measured phase has
			// transactions, however long the machine takes to get there.
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				out.WriteString(sc.Text() + "\n")
				if f := strings.Fields(sc.Text()); len(f) > 2 && f[1] == "measure" {
					if tps, err := strconv.ParseFloat(f[2], 64); err == nil && tps > 0 {
						break
					}
				}
			}
			start := time.Now()
			_ = cmd.Process.Signal(syscall.SIGINT)
			rest, _ := io.ReadAll(pipe)
			out.Write(rest)
			err = cmd.Wait()
			out.Write(errb.Bytes())
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Fatalf("exit %v, want 130\n%s", err, out.String())
			}
			// The 60 s run stops at the signal; the bound leaves a busy
			// machine room to finish the transactions in flight and save.
			if time.Since(start) > 30*time.Second {
				t.Errorf("took %s to stop", time.Since(start))
			}
			if !strings.Contains(out.String(), "status interrupted") || !strings.Contains(out.String(), "tpcb_like") {
				t.Fatalf("no summary of what was measured:\n%s", out.String())
			}
			r := dbh(t, home, "runs", "--json")
			var rows []map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0]["status"] != "interrupted" || rows[0]["tps"].(float64) <= 0 {
				t.Fatalf("saved runs: %s", r.stdout)
			}
			if r := dbh(t, home, "check", "tpcb", "--db", url); r.code != 0 {
				t.Fatalf("check after the interrupt: %s", r.all())
			}
		})
	}
}

var _ = context.Background

// Every command answers --help with its own usage and flags, on standard
// output, exit 0: never an error, never cobra's generic help after it.
func TestEveryCommandHasHelp(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, args := range [][]string{
		{"init", "tpcb"}, {"run", "tpcb"}, {"check", "tpcb"}, {"sweep", "tpcb"}, {"runs"}, {"sweeps"},
		{"show"}, {"compare"}, {"report"},
	} {
		r := dbh(t, home, append(args, "--help")...)
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: dbharness "+args[0]) ||
			!strings.Contains(r.stdout, "--help") || strings.Contains(r.stdout, "help for") {
			t.Errorf("%v --help: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
		}
	}
}
