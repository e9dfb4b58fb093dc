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
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/histogram"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
	"github.com/dbharness/dbharness/internal/testdb"
)

// shardRun is what a shard's --json says of it.
type shardRun struct {
	Status string `json:"status"`
	Config struct {
		Clients int `json:"clients"`
	} `json:"config"`
	StartTime time.Time `json:"start_time"`
	Summary   struct {
		Transactions int64   `json:"transactions"`
		Errors       int64   `json:"errors"`
		TPS          float64 `json:"tps"`
	} `json:"summary"`
	Ops []struct {
		Name      string `json:"name"`
		Histogram string `json:"histogram"`
	} `json:"ops"`
	Collect struct {
		OS *struct {
			Intervals []json.RawMessage `json:"intervals"`
			DBLocal   *bool             `json:"db_local"`
		} `json:"os"`
	} `json:"collect"`
	Error  string                `json:"error"`
	Shard  *results.Shard        `json:"shard"`
	Group  *results.Group        `json:"group"`
	Shards []results.ShardResult `json:"shards"`
}

// runShards runs the binary once per argument list, all at once, each
// with its own --json in home, and returns their results and runs.
func runShards(t *testing.T, home string, args ...[]string) ([]result, []shardRun) {
	t.Helper()
	return runShardsOn(t, home, nil, args...)
}

// runShardsOn is runShards with shard i run on hosts[i] (nil: here).
func runShardsOn(t *testing.T, home string, hosts []testHost, args ...[]string) ([]result, []shardRun) {
	t.Helper()
	res := make([]result, len(args))
	runs := make([]shardRun, len(args))
	var wg sync.WaitGroup
	for i, a := range args {
		wg.Go(func() {
			a = append(a, "--json", filepath.Join(home, fmt.Sprintf("shard%d.json", i)))
			path := bin
			if hosts != nil {
				path, a = hosts[i].wrap(bin, a)
			}
			res[i] = dbhEnv(t, path, nil, home, a...)
		})
	}
	wg.Wait()
	for i := range args {
		if b, err := os.ReadFile(filepath.Join(home, fmt.Sprintf("shard%d.json", i))); err == nil {
			if err := json.Unmarshal(b, &runs[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return res, runs
}

// checkGroupMerge checks a group as show GROUP --json reads it against its
// shards' runs as their own --json wrote them: its transactions are their
// sum, and each operation's histogram, which the store merges from the
// shards' saved intervals, equals the merge of the shards' own histograms
// of the operation, with the same count at every recorded value.
func checkGroupMerge(t *testing.T, g shardRun, runs []shardRun) {
	t.Helper()
	var sum int64
	want := map[string]*hdr.Histogram{}
	var names []string
	for i, run := range runs {
		sum += run.Summary.Transactions
		for _, op := range run.Ops {
			h, err := results.DecodeHist(op.Histogram)
			if err != nil {
				t.Fatalf("shard %d's histogram of %s: %v", i, op.Name, err)
			}
			if want[op.Name] == nil {
				want[op.Name] = histogram.New()
				names = append(names, op.Name)
			}
			want[op.Name].Merge(h)
		}
	}
	if g.Summary.Transactions != sum || sum == 0 {
		t.Errorf("the group has %d transactions, its shards %d in all", g.Summary.Transactions, sum)
	}
	got := map[string]*hdr.Histogram{}
	for _, op := range g.Ops {
		h, err := results.DecodeHist(op.Histogram)
		if err != nil {
			t.Fatalf("the group's histogram of %s: %v", op.Name, err)
		}
		got[op.Name] = h
	}
	if len(got) != len(want) {
		t.Errorf("the group has %d operations, its shards %d (%v)", len(got), len(want), names)
	}
	for _, name := range names {
		if got[name] == nil {
			t.Errorf("the group has no histogram of %s", name)
			continue
		}
		if d := histDiff(got[name], want[name]); d != "" {
			t.Errorf("%s: the group's histogram is not the merge of its shards': %s", name, d)
		}
	}
}

// histDiff says where two histograms' counts first differ, or "".
func histDiff(got, want *hdr.Histogram) string {
	count := func(h *hdr.Histogram) map[int64]int64 {
		m := map[int64]int64{}
		for _, b := range h.Distribution() {
			if b.Count != 0 {
				m[b.To] = b.Count
			}
		}
		return m
	}
	g, w := count(got), count(want)
	for v, n := range w {
		if g[v] != n {
			return fmt.Sprintf("%d at %d µs, want %d (%d recorded in all, want %d)", g[v], v, n, got.TotalCount(), want.TotalCount())
		}
	}
	for v, n := range g {
		if w[v] != n {
			return fmt.Sprintf("%d at %d µs, want none (%d recorded in all, want %d)", n, v, got.TotalCount(), want.TotalCount())
		}
	}
	if got.TotalCount() == 0 {
		return "no value recorded"
	}
	return ""
}

func TestThreeShardsRunTheirShareOfTheClientsUnderGlobalIDsAndStartTogether(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	target := testdb.Postgres(t, "dbh_cli_shards")
	loc := testdb.Postgres(t, "dbh_cli_shards_store")
	if r := dbh(t, home, "init", "inserts", "--db", target, "--key", "partitioned"); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.all())
	}
	// Seven clients in three shards (2, 2 and 3) insert 40 rows each in
	// their own key ranges: a shard whose clients took the ids 0, 1, ...
	// of another would insert the other's keys and fail on them.
	const clients, rows = 7, 40
	var args [][]string
	for i := range 3 {
		args = append(args, []string{"run", "inserts", "--db", target, "-c", fmt.Sprint(clients), "--rows-per-client", fmt.Sprint(rows),
			"-P", "0", "--collect", "none", "--shard", fmt.Sprintf("%d/3", i), "--group", "g1", "--results", loc})
	}
	res, runs := runShards(t, home, args...)
	total := 0
	for i, r := range res {
		run := runs[i]
		if r.code != 0 || run.Shard == nil {
			t.Fatalf("shard %d: exit %d\n%s", i, r.code, r.all())
		}
		wantFirst, wantClients := []int{0, 2, 4}[i], []int{2, 2, 3}[i]
		if run.Status != "completed" || run.Summary.Errors != 0 || run.Config.Clients != wantClients || run.Shard.FirstClient != wantFirst ||
			run.Shard.Index != i || run.Shard.Count != 3 || run.Shard.Group != "g1" {
			t.Errorf("shard %d: status %s, %d errors, clients %d from %d (want %d from %d), shard %+v\n%s", i, run.Status,
				run.Summary.Errors, run.Config.Clients, run.Shard.FirstClient, wantClients, wantFirst, run.Shard, r.all())
		}
		total += run.Config.Clients
		// Every shard starts at the group's instant, not before it.
		if !run.Shard.GroupStart.Equal(runs[0].Shard.GroupStart) {
			t.Errorf("shard %d starts its group at %s, shard 0 at %s", i, run.Shard.GroupStart, runs[0].Shard.GroupStart)
		}
		at := run.Shard.GroupStart.Add(time.Duration(run.Shard.ClockOffsetMs * 1e6))
		if run.StartTime.Before(at.Add(-time.Millisecond)) {
			t.Errorf("shard %d started at %s, before its group's instant %s", i, run.StartTime, at)
		}
		t.Logf("shard %d started %.1f ms after the group's instant (clock offset %.3f ms)", i,
			float64(run.StartTime.Sub(at))/1e6, run.Shard.ClockOffsetMs)
	}
	if total != clients {
		t.Errorf("the shards ran %d clients in all, want %d", total, clients)
	}
	d, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n int
	if err := d.QueryRow("SELECT count(*) FROM inserts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != clients*rows {
		t.Errorf("%d rows inserted, want %d", n, clients*rows)
	}

	// The group reads back as one run: its transactions the shards', its
	// histogram the exact merge of theirs.
	show := dbh(t, home, "show", "g1", "--json", "--results", loc)
	var g shardRun
	if err := json.Unmarshal([]byte(show.stdout), &g); err != nil || show.code != 0 {
		t.Fatalf("show g1: exit %d, %v\n%s", show.code, err, show.all())
	}
	checkGroupMerge(t, g, runs)
	if g.Status != "completed" || len(g.Shards) != 3 || g.Group == nil || g.Config.Clients != clients {
		t.Errorf("show g1: status %s, %d shards, %d clients\n%s", g.Status, len(g.Shards), g.Config.Clients, show.stdout)
	}
	list := dbh(t, home, "runs", "--json", "--results", loc)
	var rowsOut []store.RunRow
	if err := json.Unmarshal([]byte(list.stdout), &rowsOut); err != nil || len(rowsOut) != 1 || rowsOut[0].ID != "g1" || rowsOut[0].Shards != 3 ||
		rowsOut[0].Clients != clients || rowsOut[0].Status != "completed" || rowsOut[0].TPS != g.Summary.TPS {
		t.Errorf("runs lists %+v (%v), want the group g1 as one line\n%s", rowsOut, err, list.all())
	}
	if text := dbh(t, home, "show", "g1", "--results", loc); text.code != 0 || !strings.Contains(text.stdout, "group g1: 3 of 3 shards") {
		t.Errorf("show g1: exit %d\n%s", text.code, text.all())
	}
	for _, args := range [][]string{{"compare", "g1", "g1"}, {"report", "g1", "--html", filepath.Join(home, "g1.html")}} {
		if r := dbh(t, home, append(args, "--results", loc)...); r.code != 0 {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.all())
		}
	}
	// The group's report has its shards: a table and a chart a shard.
	if b, err := os.ReadFile(filepath.Join(home, "g1.html")); err != nil || !strings.Contains(string(b), `id="shards"`) ||
		!strings.Contains(string(b), "Throughput per shard") {
		t.Errorf("the group's HTML report has no shards section (%v)", err)
	}
}

func TestShardsWhoseGroupIsIncompleteTimeOutNamingTheMissingShard(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	store := testdb.Postgres(t, "dbh_cli_shards_missing")
	target := testdb.SQLite(t)
	var args [][]string
	for _, i := range []int{0, 2} {
		args = append(args, []string{"run", "null", "--db", target, "-c", "3", "-T", "1s", "-P", "0", "--collect", "none",
			"--shard", fmt.Sprintf("%d/3", i), "--group", "g2", "--group-timeout", "2s", "--results", store})
	}
	res, runs := runShards(t, home, args...)
	want := "group g2: shard 1 has not come within --group-timeout 2s (2 of 3 shards registered)"
	for i, r := range res {
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || !strings.HasPrefix(lines[len(lines)-1], "dbharness: ") || !strings.Contains(lines[len(lines)-1], want) {
			t.Errorf("shard %d: exit %d, want 1 and the last line saying %q:\n%s", i, r.code, want, r.all())
		}
		if runs[i].Status != "failed" {
			t.Errorf("shard %d's run is %q, want failed", i, runs[i].Status)
		}
	}
	show := dbh(t, home, "show", "g2", "--json", "--results", store)
	var g shardRun
	if err := json.Unmarshal([]byte(show.stdout), &g); err != nil || show.code != 0 {
		t.Fatalf("show g2: exit %d, %v\n%s", show.code, err, show.all())
	}
	if g.Status != "partial" || !strings.HasPrefix(g.Error, "shard 1 never started") || len(g.Shards) != 2 {
		t.Errorf("show g2: status %s, error %q, %d shards", g.Status, g.Error, len(g.Shards))
	}
}

func TestBadShardFlagsGetOneClearSentence(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	target := testdb.SQLite(t)
	base := []string{"run", "null", "--db", target, "-t", "1", "-c", "3"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/3", "--group", "g"}, "--shard 3/3: the index runs from 0 to 2"},
		{[]string{"--shard", "1", "--group", "g"}, `--shard "1": give I/N`},
		{[]string{"--shard", "auto/3", "--group", "g"}, "$JOB_COMPLETION_INDEX, which is not set"},
		{[]string{"--shard", "0/3"}, "--shard needs --group NAME"},
		{[]string{"--shard", "0/3", "--group", "g", "--no-save"}, "--shard needs the results store"},
		{[]string{"--shard", "0/4", "--group", "g"}, "--clients 3 is fewer than the shards"},
		{[]string{"--group", "g"}, "--group and --group-timeout are for a run of shards"},
	} {
		r := dbh(t, home, append(base, c.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: exit %d, want 2 and one sentence saying %q:\n%s", c.args, r.code, c.want, r.all())
		}
	}
	r := dbh(t, home, "sweep", "null", "--clients", "1,2", "-t", "1", "--db", target, "--shard", "0/2", "--group", "g")
	if r.code != 2 || !strings.Contains(r.stderr, "--shard is for `run`") {
		t.Errorf("sweep --shard: exit %d\n%s", r.code, r.all())
	}
}

func TestAShardKilledMidRunLeavesAPartialGroupWithTheOthersComplete(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	store := testdb.Postgres(t, "dbh_cli_shards_killed")
	target := testdb.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	outs := make([]bytes.Buffer, 3)
	for i := range 3 {
		cmd := exec.CommandContext(ctx, bin, "run", "null", "--db", target, "-c", "3", "-T", "3s", "-P", "100ms", "--collect", "none",
			"--shard", fmt.Sprintf("%d/3", i), "--group", "g3", "--results", store)
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+home)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// Shard 2 is killed once it has saved a few measured intervals.
	d, err := sql.Open("pgx", store)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	saved := 0
	for deadline := time.Now().Add(time.Minute); saved < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_ = d.QueryRow(`SELECT count(*) FROM dbharness.intervals i JOIN dbharness.run_group_shards s ON s.run_id = i.run_id
			WHERE s.group_name = 'g3' AND s.shard = 2`).Scan(&saved)
	}
	if saved < 3 {
		t.Fatalf("shard 2 saved %d intervals in a minute:\n%s", saved, outs[2].String())
	}
	if err := cmds[2].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmds[2].Wait()
	for i := range 2 {
		if err := cmds[i].Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i].String())
		}
	}
	show := dbh(t, home, "show", "g3", "--json", "--results", store)
	var g shardRun
	if err := json.Unmarshal([]byte(show.stdout), &g); err != nil || show.code != 0 {
		t.Fatalf("show g3: exit %d, %v\n%s", show.code, err, show.all())
	}
	var sum int64
	for _, sh := range g.Shards {
		sum += sh.Transactions
		if want := map[bool]string{true: "failed", false: "completed"}[sh.Index == 2]; sh.Status != want {
			t.Errorf("shard %d is %s, want %s", sh.Index, sh.Status, want)
		}
	}
	if g.Status != "partial" || !strings.Contains(g.Error, "shard 2 (run ") || !strings.Contains(g.Error, ") failed") || len(g.Shards) != 3 ||
		g.Summary.Transactions != sum || g.Shards[2].Transactions == 0 {
		t.Errorf("show g3: status %s, error %q, %d shards, %d transactions (the shards' %d)\n%s", g.Status, g.Error, len(g.Shards),
			g.Summary.Transactions, sum, show.stdout)
	}
}
