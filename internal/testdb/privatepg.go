package testdb

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PrivatePG is a PostgreSQL server of the test's own, for the fault tests
// (stop, stall, kill, restart) that must never touch the machine's shared
// server. Its data lives in a temporary directory; it listens on a free
// port of 127.0.0.1 without TLS; it is stopped and removed when the test
// ends.
type PrivatePG struct {
	t    testing.TB
	bin  string // the directory of initdb, pg_ctl and postgres
	dir  string // data directory
	port int
	user string // the OS user the server runs as (not root)
	// frozen is set by Freeze and cleared by Cont.
	frozen atomic.Bool
}

// PrivateOption changes how PrivatePostgres sets its server up.
type PrivateOption func(*privateSetup)

type privateSetup struct {
	listen []string // addresses besides 127.0.0.1
	trust  []string // client networks (CIDR) trusted besides loopback's
	conf   []string // postgresql.conf lines
}

// ListenAlso makes the server listen on addrs (IP addresses of this host)
// besides 127.0.0.1, and trust connections from the networks nets (CIDR:
// "10.1.2.0/24"). The addresses must exist when the server starts.
func ListenAlso(addrs, nets []string) PrivateOption {
	return func(s *privateSetup) {
		s.listen = append(s.listen, addrs...)
		s.trust = append(s.trust, nets...)
	}
}

// ServerConf adds lines to the server's postgresql.conf
// ("log_connections = on").
func ServerConf(lines ...string) PrivateOption {
	return func(s *privateSetup) { s.conf = append(s.conf, lines...) }
}

// PrivatePostgres initialises and starts a private PostgreSQL server. It
// fails the test, with the server's log, when it cannot.
func PrivatePostgres(t testing.TB, opts ...PrivateOption) *PrivatePG {
	t.Helper()
	SkipShort(t, "a private PostgreSQL server")
	var set privateSetup
	for _, o := range opts {
		o(&set)
	}
	bin := pgBinDir(t)
	p := &PrivatePG{t: t, bin: bin}
	// initdb and postgres refuse to run as root: run them as postgres.
	if me, err := user.Current(); err == nil && me.Uid == "0" {
		p.user = "postgres"
	}
	dir, err := os.MkdirTemp("", "dbh-privpg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p.dir = filepath.Join(dir, "data")
	if p.user != "" {
		if err := chownTo(dir, p.user); err != nil {
			t.Fatalf("private PostgreSQL: %v", err)
		}
	}
	if out, err := p.cmd("initdb", "-D", p.dir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb for a private PostgreSQL server: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	conf := fmt.Sprintf("listen_addresses = '%s'\nport = %d\nunix_socket_directories = '%s'\n"+
		"fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nshared_buffers = 32MB\nmax_connections = 60\n"+
		"autovacuum = off\nlogging_collector = off\n", strings.Join(append([]string{"127.0.0.1"}, set.listen...), ","), p.port, dir)
	for _, l := range set.conf {
		conf += l + "\n"
	}
	appendFile(t, filepath.Join(p.dir, "postgresql.conf"), conf)
	if len(set.trust) > 0 {
		var hba string
		for _, n := range set.trust {
			hba += "host all all " + n + " trust\n"
		}
		appendFile(t, filepath.Join(p.dir, "pg_hba.conf"), hba)
	}
	t.Cleanup(func() {
		p.Cont() // a stopped server cannot shut down
		_ = p.cmd("pg_ctl", "-D", p.dir, "-m", "immediate", "-w", "-t", "30", "stop").Run()
	})
	p.Start()
	if t.Failed() {
		t.FailNow()
	}
	return p
}

// URL is the URL of the private server's database postgres.
func (p *PrivatePG) URL() string { return p.URLAt("127.0.0.1", "postgres") }

// URLAt is the URL of the private server's database db at address addr
// (127.0.0.1, or one given to ListenAlso).
func (p *PrivatePG) URLAt(addr, db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", net.JoinHostPort(addr, strconv.Itoa(p.port)), db)
}

// Log is what the server has written to its log so far.
func (p *PrivatePG) Log() string {
	b, _ := os.ReadFile(p.logFile())
	return string(b)
}

func (p *PrivatePG) logFile() string { return filepath.Join(filepath.Dir(p.dir), "server.log") }

// Start starts the server (again, if it is not running) and waits until
// it accepts connections. It may be called from any goroutine: a failure
// fails the test (Errorf) without stopping it.
func (p *PrivatePG) Start() {
	p.t.Helper()
	if p.cmd("pg_ctl", "-D", p.dir, "status").Run() == nil {
		return
	}
	logf := p.logFile()
	if out, err := p.cmd("pg_ctl", "-D", p.dir, "-l", logf, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(logf)
		p.t.Errorf("start the private PostgreSQL server: %v\n%s\n%s", err, out, log)
		return
	}
	deadline := time.Now().Add(setupTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, p.URL())
		if err == nil {
			c.Close(ctx)
			cancel()
			return
		}
		cancel()
		if time.Now().After(deadline) {
			p.t.Errorf("the private PostgreSQL server does not accept connections: %v", err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop shuts the server down at once (pg_ctl stop -m immediate, as in a
// crash): connections are cut and new ones refused until Start. Like
// Start, it may be called from any goroutine.
func (p *PrivatePG) Stop() {
	p.t.Helper()
	p.Cont()
	if out, err := p.cmd("pg_ctl", "-D", p.dir, "-m", "immediate", "-w", "-t", "60", "stop").CombinedOutput(); err != nil {
		p.t.Errorf("stop the private PostgreSQL server: %v\n%s", err, out)
	}
}

// Pids returns the server's processes: the postmaster and its children.
func (p *PrivatePG) Pids() []int {
	b, err := os.ReadFile(filepath.Join(p.dir, "postmaster.pid"))
	if err != nil {
		return nil
	}
	main, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		return nil
	}
	pids := []int{main}
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(main)).Output()
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// Freeze stops every process of the server (SIGSTOP): connections stay
// open and nothing answers, as on a stalled host.
func (p *PrivatePG) Freeze() {
	p.frozen.Store(true)
	p.signal(syscall.SIGSTOP)
}

// Cont resumes a frozen server.
func (p *PrivatePG) Cont() {
	p.signal(syscall.SIGCONT)
	p.frozen.Store(false)
}

// Frozen says whether the server is frozen (Freeze without Cont since).
func (p *PrivatePG) Frozen() bool { return p.frozen.Load() }

func (p *PrivatePG) signal(sig syscall.Signal) {
	for _, pid := range p.Pids() {
		_ = syscall.Kill(pid, sig)
	}
}

// cmd runs one of the server's programs, as the server's user when the
// test runs as root.
func (p *PrivatePG) cmd(prog string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, prog)
	if p.user == "" {
		return exec.Command(path, args...)
	}
	return exec.Command("runuser", append([]string{"-u", p.user, "--", path}, args...)...)
}

// appendFile adds text at the end of the file at path.
func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func chownTo(dir, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("user %s: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// pgBinDir finds the server's programs: pg_config --bindir, else the
// newest /usr/lib/postgresql/*/bin.
func pgBinDir(t testing.TB) string {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		t.Fatal("PostgreSQL's initdb is not installed (Debian package postgresql)")
	}
	return filepath.Dir(m[len(m)-1])
}
