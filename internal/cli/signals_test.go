package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbharness/dbharness/internal/testdb"
)

// startRun starts `dbharness run` (through sh when shell is set: its
// text is a prefix such as `trap "" HUP;`) with standard output into a
// pipe, and returns the command, the pipe's reading end and the standard
// error so far; alsoStderr sends standard error into the pipe too.
func startRun(t *testing.T, home, shell string, alsoStderr bool, args ...string) (*exec.Cmd, *os.File, *bytes.Buffer) {
	t.Helper()
	return startBin(t, home, shell, alsoStderr, append([]string{"run"}, args...)...)
}

// startBin is startRun for any command: args start with the command.
func startBin(t *testing.T, home, shell string, alsoStderr bool, args ...string) (*exec.Cmd, *os.File, *bytes.Buffer) {
	t.Helper()
	needBinary(t)
	cmd := exec.Command(bin, args...)
	if shell != "" {
		cmd = exec.Command("sh", append([]string{"-c", shell + ` exec "$0" "$@"`, bin}, args...)...)
	}
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home, "DBHARNESS_RESULTS="+filepath.Join(home, "results.db"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &errb
	if alsoStderr {
		cmd.Stderr = w
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); r.Close() })
	return cmd, r, &errb
}

// waitExit waits for cmd and returns its exit status (-1: killed by a
// signal), failing the test after 30 seconds.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("the run did not end within 2 minutes")
	}
	return 0
}

// savedStatus is the status of the one run saved in home's store.
func savedStatus(t *testing.T, home string) string {
	t.Helper()
	var rows []map[string]any
	r := dbh(t, home, "runs", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("saved runs: %s (%v)", r.stdout, err)
	}
	return rows[0]["status"].(string)
}

// A broken standard output (`dbharness run ... | head`) stops the run as
// Ctrl-C does: it is saved as interrupted and exits 130, also when
// standard error goes into the same pipe and every later write fails.
func TestABrokenStandardOutputStopsTheRunAsInterrupted(t *testing.T) {
	t.Parallel()
	for _, e := range []struct{ name, url string }{
		{"sqlite", testdb.SQLite(t)},
		{"postgres", testdb.Postgres(t, "dbh_cli_sigpipe")},
	} {
		for _, alsoStderr := range []bool{false, true} {
			name := e.name + " | head"
			if alsoStderr {
				name = e.name + " 2>&1 | head"
			}
			t.Run(name, func(t *testing.T) {
				home := t.TempDir()
				cmd, r, errb := startRun(t, home, "", alsoStderr, "null", "--db", e.url, "-T", "60", "-P", "0.1")
				sc := bufio.NewScanner(r)
				for i := 0; i < 3 && sc.Scan(); i++ {
				}
				r.Close() // as head does
				code := waitExit(t, cmd)
				if code != 130 {
					t.Fatalf("exit %d, want 130\n%s", code, errb.String())
				}
				if !alsoStderr && !strings.Contains(errb.String(), "standard output was closed (SIGPIPE); stopping as for Ctrl-C") {
					t.Errorf("no word of why it stopped:\n%s", errb.String())
				}
				if s := savedStatus(t, home); s != "interrupted" {
					t.Errorf("saved as %s, want interrupted", s)
				}
			})
		}
	}
}

// A hangup (the terminal closed) stops the run as Ctrl-C does; under
// nohup, which ignores it, the run goes on.
func TestAHangupStopsTheRunUnlessIgnored(t *testing.T) {
	t.Parallel()
	url := testdb.SQLite(t)
	for _, tc := range []struct {
		name, shell string
		stops       bool
	}{
		{"a hangup stops the run", "", true},
		{"a hangup ignored from the start (nohup) does not", `trap "" HUP;`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			cmd, r, errb := startRun(t, home, tc.shell, false, "null", "--db", url, "-T", "60", "-P", "0.1")
			sc := bufio.NewScanner(r)
			for i := 0; i < 3 && sc.Scan(); i++ {
			}
			go func() { // keep reading, as a terminal would
				for sc.Scan() {
				}
			}()
			if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			if !tc.stops {
				time.Sleep(time.Second)
				if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
					t.Fatalf("the run ended at an ignored hangup\n%s", errb.String())
				}
				cmd.Process.Signal(syscall.SIGINT)
			}
			if code := waitExit(t, cmd); code != 130 {
				t.Fatalf("exit %d, want 130\n%s", code, errb.String())
			}
			if got := strings.Contains(errb.String(), "hangup (SIGHUP)"); got != tc.stops {
				t.Errorf("says it stopped at the hangup: %v\n%s", got, errb.String())
			}
			if s := savedStatus(t, home); s != "interrupted" {
				t.Errorf("saved as %s, want interrupted", s)
			}
		})
	}
}

// A SIGPIPE from a database connection whose server end went away is not
// a broken standard output: the run reconnects and completes.
func TestAConnectionKilledByTheServerDoesNotStopTheRun(t *testing.T) {
	t.Parallel()
	url := testdb.Postgres(t, "dbh_cli_sigpipe_kill")
	home := t.TempDir()
	cmd, r, errb := startRun(t, home, "", false, "null", "--db", url, "-c", "4", "-T", "6", "-P", "0.2")
	var out lockedBuffer
	read := make(chan struct{})
	go func() { io.Copy(&out, r); close(read) }()
	// The kills go to the measured phase, where a client reconnects: a
	// connection lost while the run sets up (slowly, on a busy host) ends it
	// with an error, as it should.
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(out.String(), " measure "); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no measured interval after 2 minutes\n%s%s", out.String(), errb.String())
		}
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testdb.PostgresBase()+"/postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := url[strings.LastIndex(url, "/")+1:]
	for i := 0; i < 5; i++ { // again and again, so that writes meet the closed sockets
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	code := waitExit(t, cmd)
	<-read
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, out.String(), errb.String())
	}
	if s := savedStatus(t, home); s != "completed" {
		t.Errorf("saved as %s, want completed\n%s", s, errb.String())
	}
}
