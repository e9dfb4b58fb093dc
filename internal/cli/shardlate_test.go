package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/testdb"
)

// A shard held back across the group's instant (its process stopped with
// SIGSTOP from before the instant to 300 ms after it) records a first
// transaction at least that late, and the others earlier than it: the
// record tells when the shards began, not that the machine was fast. The
// held shard's summary and the group's report warn, naming it.
func TestAShardHeldBackAcrossTheInstantRecordsItsLatenessAndTheOthersDoNot(t *testing.T) {
	t.Parallel()
	needBinary(t)
	home := t.TempDir()
	store := testdb.Postgres(t, "dbh_cli_shards_late")
	target := testdb.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const held = 1
	outs := make([]bytes.Buffer, 3)
	cmds := make([]*exec.Cmd, 3)
	start := func(i int) {
		cmd := exec.CommandContext(ctx, bin, "run", "null", "--db", target, "-c", "6", "-T", "2s", "-P", "1s", "--collect", "none",
			"--shard", fmt.Sprintf("%d/3", i), "--group", "glate", "--group-timeout", "2m", "--results", store,
			"--json", filepath.Join(home, fmt.Sprintf("shard%d.json", i)))
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	d, err := sql.Open("pgx", store)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	poll := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !done(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within a minute:\n%s\n%s", what, outs[0].String(), outs[held].String())
			}
		}
	}

	// Shards 0 and 1 start; once shard 1 has registered, it is stopped,
	// before the group is complete, so before any instant is set.
	start(0)
	start(held)
	poll("shard 1 registers", func() bool {
		var n int
		_ = d.QueryRow(`SELECT count(*) FROM dbharness.run_group_shards WHERE group_name = 'glate' AND shard = $1`, held).Scan(&n)
		return n == 1
	})
	if err := cmds[held].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = cmds[held].Process.Signal(syscall.SIGCONT)
		}
	}()
	// Shard 2 completes the group; shard 0 or 2 sets its instant, a
	// second ahead by the store server's clock (this host's).
	start(2)
	var instant time.Time
	poll("the group's instant is set", func() bool {
		var s sql.NullString
		if d.QueryRow(`SELECT start FROM dbharness.run_groups WHERE name = 'glate'`).Scan(&s) != nil || !s.Valid {
			return false
		}
		instant, err = time.Parse(time.RFC3339Nano, s.String)
		return err == nil
	})
	if time.Now().After(instant) {
		t.Logf("the test saw the instant %s after it had passed", time.Since(instant))
	}
	// Shard 1 resumes 300 ms after the instant: it can begin nothing
	// before then.
	time.Sleep(time.Until(instant.Add(300 * time.Millisecond)))
	contAt := time.Now()
	if err := cmds[held].Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i].String())
		}
	}

	runs := make([]shardRun, 3)
	for i := range runs {
		b, err := os.ReadFile(filepath.Join(home, fmt.Sprintf("shard%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &runs[i]); err != nil {
			t.Fatal(err)
		}
		if runs[i].Shard == nil || runs[i].Shard.FirstTxLateMs == nil || runs[i].Status != "completed" {
			t.Fatalf("shard %d: status %s, shard %+v, no first transaction's lateness\n%s", i, runs[i].Status, runs[i].Shard, outs[i].String())
		}
	}
	// The time shard 1 was held after the instant, by its own clock.
	sh := runs[held].Shard
	at := sh.GroupStart.Add(time.Duration(sh.ClockOffsetMs * 1e6))
	heldMs := float64(contAt.Sub(at)) / 1e6
	late := *sh.FirstTxLateMs
	t.Logf("shard %d: held %.1f ms after the instant; woke %.1f ms and began its first transaction %.1f ms after it", held, heldMs, sh.StartLateMs, late)
	if heldMs < 250 {
		t.Fatalf("shard %d was held only %.1f ms after the instant; the test meant 300", held, heldMs)
	}
	if late < heldMs {
		t.Errorf("shard %d's first transaction is recorded %.1f ms after the instant; it was held %.1f ms after it", held, late, heldMs)
	}
	for i, r := range runs {
		if i == held {
			continue
		}
		other := *r.Shard.FirstTxLateMs
		t.Logf("shard %d: woke %.1f ms and began its first transaction %.1f ms after the instant", i, r.Shard.StartLateMs, other)
		if other >= late {
			t.Errorf("shard %d's first transaction is recorded %.1f ms after the instant, no earlier than the held shard's %.1f ms", i, other, late)
		}
	}
	// 300 ms of a 1 s first interval is past the warning's 10%.
	if want := "warning: this shard's first transaction began"; !strings.Contains(outs[held].String(), want) {
		t.Errorf("shard %d's summary does not say %q:\n%s", held, want, outs[held].String())
	}

	show := dbh(t, home, "show", "glate", "--json", "--results", store)
	var g shardRun
	if err := json.Unmarshal([]byte(show.stdout), &g); err != nil || show.code != 0 {
		t.Fatalf("show glate: exit %d, %v\n%s", show.code, err, show.all())
	}
	if len(g.Shards) != 3 || g.Group == nil || g.Group.MaxFirstTxLateMs == nil || *g.Group.MaxFirstTxLateMs != late {
		t.Errorf("show glate: %d shards, group %+v; want the latest first transaction %.1f ms\n%s", len(g.Shards), g.Group, late, show.stdout)
	}
	for _, s := range g.Shards {
		if s.FirstTxLateMs == nil || *s.FirstTxLateMs != *runs[s.Index].Shard.FirstTxLateMs {
			t.Errorf("show glate: shard %d's first_tx_late_ms %v, its run's %v", s.Index, s.FirstTxLateMs, *runs[s.Index].Shard.FirstTxLateMs)
		}
	}
	text := dbh(t, home, "show", "glate", "--results", store)
	if want := fmt.Sprintf("warning: shard %d", held); text.code != 0 || !strings.Contains(text.stdout, want) || !strings.Contains(text.stdout, "first_tx_ms") {
		t.Errorf("show glate: exit %d; want the first_tx_ms column and a warning beginning %q\n%s", text.code, want, text.all())
	}
	html := filepath.Join(home, "glate.html")
	if r := dbh(t, home, "report", "glate", "--html", html, "--results", store); r.code != 0 {
		t.Fatalf("report glate: exit %d\n%s", r.code, r.all())
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "first transaction began") {
		t.Errorf("the group's HTML report does not warn of the held shard (%v)", err)
	}
}
