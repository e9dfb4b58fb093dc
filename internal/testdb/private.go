package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"testing"
	"time"
)

// MariaDBWithPerformanceSchema starts a private MariaDB server for the test,
// with performance_schema ON (the machine's server has it OFF, and it can
// only be set when a server starts), its data in the test's temp dir, on a
// free port of 127.0.0.1, and returns the URL of its database test. The
// server is stopped when the test ends. It fails the test, with the
// server's log, when the server cannot be set up.
func MariaDBWithPerformanceSchema(t testing.TB) string {
	t.Helper()
	return PrivateMariaDB(t).URL()
}

// PrivateMaria is a MariaDB server of the test's own (see
// MariaDBWithPerformanceSchema), for the fault tests that must never touch
// the machine's shared server.
type PrivateMaria struct {
	t      testing.TB
	args   []string // the server's command line
	port   int
	logf   string
	cmd    *exec.Cmd
	exited chan error
}

// PrivateMariaDB initialises and starts a private MariaDB server, as
// MariaDBWithPerformanceSchema does.
func PrivateMariaDB(t testing.TB) *PrivateMaria {
	t.Helper()
	SkipShort(t, "a private MariaDB server")
	install := lookPath(t, "mariadb-install-db", "/usr/bin/mariadb-install-db")
	server := lookPath(t, "mariadbd", "/usr/sbin/mariadbd")
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user="+me.Username,
		"--auth-root-authentication-method=normal", "--skip-test-db").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db for a private server with performance_schema: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// Unix socket paths are limited to about 100 bytes: not in dir.
	sock := filepath.Join(os.TempDir(), fmt.Sprintf("dbh-mps-%d.sock", port))
	m := &PrivateMaria{t: t, port: port, logf: filepath.Join(dir, "error.log"),
		args: []string{server, "--no-defaults", "--datadir=" + data, "--user=" + me.Username, "--bind-address=127.0.0.1",
			fmt.Sprintf("--port=%d", port), "--socket=" + sock, "--pid-file=" + filepath.Join(dir, "mariadbd.pid"),
			"--log-error=" + filepath.Join(dir, "error.log"), "--performance-schema=ON", "--innodb-buffer-pool-size=64M", "--skip-log-bin"}}
	t.Cleanup(func() {
		m.Stop()
		os.Remove(sock)
	})
	m.Start()
	d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec("CREATE DATABASE IF NOT EXISTS test"); err != nil {
		t.Fatal(err)
	}
	return m
}

// URL is the URL of the private server's database test.
func (m *PrivateMaria) URL() string { return fmt.Sprintf("mysql://root@127.0.0.1:%d/test", m.port) }

// Start starts the server (again) and waits until it accepts connections.
func (m *PrivateMaria) Start() {
	m.t.Helper()
	m.cmd = exec.Command(m.args[0], m.args[1:]...)
	if err := m.cmd.Start(); err != nil {
		m.t.Fatalf("start a private MariaDB server: %v", err)
	}
	exited := make(chan error, 1)
	m.exited = exited
	go func(c *exec.Cmd) { exited <- c.Wait() }(m.cmd)
	d, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/", m.port))
	if err != nil {
		m.t.Fatal(err)
	}
	defer d.Close()
	deadline := time.Now().Add(setupTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = d.PingContext(ctx)
		cancel()
		if err == nil {
			return
		}
		select {
		case werr := <-exited:
			log, _ := os.ReadFile(m.logf)
			m.t.Fatalf("the private MariaDB server exited (%v) before it accepted connections:\n%s", werr, log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(m.logf)
			m.t.Fatalf("the private MariaDB server did not accept connections within %s: %v\n%s", setupTimeout, err, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Stop kills the server (SIGKILL, as in a crash): connections are cut and
// new ones refused until Start.
func (m *PrivateMaria) Stop() {
	if m.cmd == nil {
		return
	}
	_ = m.cmd.Process.Kill()
	<-m.exited
	m.cmd = nil
}

func lookPath(t testing.TB, name, fallback string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	t.Fatalf("%s is not installed (Debian package mariadb-server)", name)
	return ""
}
