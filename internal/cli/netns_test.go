package cli_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/testdb"
)

// testHost is where a shard runs: a network namespace of its own that
// reaches this host over a veth pair, or this host's loopback.
type testHost struct {
	ns     string // the namespace; "" on loopback
	addr   string // the shard's address, as the server sees it
	server string // the address it reaches the server at
	net    string // the pair's network (CIDR)
}

// wrap is the command that runs bin with args on the host.
func (h testHost) wrap(bin string, args []string) (string, []string) {
	if h.ns == "" {
		return bin, args
	}
	return "ip", append([]string{"netns", "exec", h.ns, bin}, args...)
}

// String names the host in the test's log.
func (h testHost) String() string {
	if h.ns == "" {
		return "loopback"
	}
	return "namespace " + h.ns + " at " + h.addr
}

// netnsHosts makes n test hosts: each a network namespace joined to this
// one by a veth pair with a /30 of its own in 10.213.0.0/16, its links
// (lo included) up; all removed when the test ends, failed or not. Where
// namespaces are not allowed (ip netns add refused for permission, or
// $DBHARNESS_TEST_NETNS=loopback), the hosts are this host's loopback and
// it says so in one line; any other failure fails the test.
func netnsHosts(t *testing.T, n int) []testHost {
	t.Helper()
	testdb.SkipShort(t, "network namespaces")
	loopback := func(why string) []testHost {
		t.Logf("no network namespaces (%s): the shards run on loopback", why)
		hosts := make([]testHost, n)
		for i := range hosts {
			hosts[i] = testHost{addr: "127.0.0.1", server: "127.0.0.1", net: "127.0.0.1/32"}
		}
		return hosts
	}
	if os.Getenv("DBHARNESS_TEST_NETNS") == "loopback" {
		return loopback("DBHARNESS_TEST_NETNS=loopback")
	}
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	// The pairs' networks: from the pid, so that runs at once (other test
	// binaries) do not share one, and past any this host already has.
	used := map[string]bool{}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, ok := a.(*net.IPNet); ok {
				used[p.IP.String()] = true
			}
		}
	}
	pid := os.Getpid()
	k := pid * n
	var hosts []testHost
	for i := range n {
		var host, peer string
		for {
			k %= 1 << 14
			host = fmt.Sprintf("10.213.%d.%d", k/64, k%64*4+1)
			peer = fmt.Sprintf("10.213.%d.%d", k/64, k%64*4+2)
			k++
			if !used[host] && !used[peer] {
				break
			}
		}
		h := testHost{ns: fmt.Sprintf("dbh%dn%d", pid, i), addr: peer, server: host, net: peer + "/32"}
		if err := ip("netns", "add", h.ns); err != nil {
			if i == 0 && (strings.Contains(err.Error(), "Operation not permitted") || strings.Contains(err.Error(), "Permission denied")) {
				return loopback(err.Error())
			}
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := ip("netns", "del", h.ns); err != nil {
				t.Error(err)
			}
		})
		veth := fmt.Sprintf("dbh%dh%d", pid, i)
		inside := fmt.Sprintf("dbh%dp%d", pid, i)
		if err := ip("link", "add", veth, "type", "veth", "peer", "name", inside, "netns", h.ns); err != nil {
			t.Fatal(err)
		}
		// Removing one end removes the pair.
		t.Cleanup(func() {
			if err := ip("link", "del", veth); err != nil {
				t.Error(err)
			}
		})
		for _, args := range [][]string{
			{"addr", "add", host + "/30", "dev", veth},
			{"link", "set", veth, "up"},
			{"-n", h.ns, "addr", "add", peer + "/30", "dev", inside},
			{"-n", h.ns, "link", "set", inside, "up"},
			{"-n", h.ns, "link", "set", "lo", "up"},
		} {
			if err := ip(args...); err != nil {
				t.Fatal(err)
			}
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// connectionsByAddr reads a PostgreSQL log written with log_connections on
// and returns, by client address, the databases it connected to.
func connectionsByAddr(log string) map[string][]string {
	received := regexp.MustCompile(`\[(\d+)\] LOG:  connection received: host=(\S+)`)
	authorized := regexp.MustCompile(`\[(\d+)\] LOG:  connection authorized: user=\S+ database=(\S+)`)
	from := map[string]string{} // backend pid: client address
	dbs := map[string][]string{}
	for _, line := range strings.Split(log, "\n") {
		if m := received.FindStringSubmatch(line); m != nil {
			from[m[1]] = m[2]
		} else if m := authorized.FindStringSubmatch(line); m != nil {
			if a := from[m[1]]; a != "" && !slices.Contains(dbs[a], m[2]) {
				dbs[a] = append(dbs[a], m[2])
			}
		}
	}
	return dbs
}

func TestThreeShardsInTheirOwnNetworkNamespacesMergeExactlyAndStartTogether(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	hosts := netnsHosts(t, 3)
	var addrs, nets []string
	for _, h := range hosts {
		if h.ns != "" {
			addrs, nets = append(addrs, h.server), append(nets, h.net)
		}
	}
	// A server of the test's own, the target and the results store both,
	// reachable from each namespace only over its veth pair.
	pg := testdb.PrivatePostgres(t, testdb.ListenAlso(addrs, nets), testdb.ServerConf("log_connections = on"))
	const target, store = "dbh_ns_target", "dbh_ns_store"
	d, err := sql.Open("pgx", pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, db := range []string{target, store} {
		if _, err := d.Exec("CREATE DATABASE " + db); err != nil {
			t.Fatal(err)
		}
	}

	// Open loop at a modest rate, for a busy machine: no throughput is
	// asserted, only the merge and the start.
	var args [][]string
	for i, h := range hosts {
		args = append(args, []string{"run", "null", "--db", pg.URLAt(h.server, target), "-c", "6", "--rate", "300", "-T", "3s", "-P", "500ms",
			"--collect", "os", "--shard", fmt.Sprintf("%d/3", i), "--group", "gns", "--group-timeout", "2m", "--results", pg.URLAt(h.server, store)})
	}
	res, runs := runShardsOn(t, home, hosts, args...)
	var first, last time.Time
	for i, r := range res {
		run := runs[i]
		if r.code != 0 || run.Shard == nil {
			t.Fatalf("shard %d: exit %d\n%s", i, r.code, r.all())
		}
		if run.Status != "completed" || run.Summary.Errors != 0 || run.Shard.Index != i || run.Summary.Transactions == 0 {
			t.Errorf("shard %d: status %s, %d transactions, %d errors, shard %+v\n%s", i, run.Status, run.Summary.Transactions,
				run.Summary.Errors, run.Shard, r.all())
		}
		if !run.Shard.GroupStart.Equal(runs[0].Shard.GroupStart) {
			t.Errorf("shard %d starts its group at %s, shard 0 at %s", i, run.Shard.GroupStart, runs[0].Shard.GroupStart)
		}
		if i == 0 || run.StartTime.Before(first) {
			first = run.StartTime
		}
		if i == 0 || run.StartTime.After(last) {
			last = run.StartTime
		}
		// The OS collector ran on the shard's host, and knows the server
		// for another host's where it is.
		if ev := run.Collect.OS; ev == nil || len(ev.Intervals) == 0 || ev.DBLocal == nil || *ev.DBLocal != (hosts[i].ns == "") {
			t.Errorf("shard %d: the OS collector's record %+v", i, ev)
		}
		at := run.Shard.GroupStart.Add(time.Duration(run.Shard.ClockOffsetMs * 1e6))
		// run.StartTime is the instant by construction; when the shard
		// began is its first transaction's lateness, which
		// TestAShardHeldBackAcrossTheInstantRecordsItsLatenessAndTheOthersDoNot
		// checks against a shard held back on purpose.
		if run.Shard.FirstTxLateMs == nil {
			t.Errorf("shard %d recorded no first transaction's lateness", i)
		} else {
			t.Logf("shard %d (%s): %d transactions, clock started %.1f ms after the group's instant, woke %.1f ms and began its first transaction %.1f ms after it (clock offset %.3f ms)",
				i, hosts[i], run.Summary.Transactions, float64(run.StartTime.Sub(at))/1e6, run.Shard.StartLateMs, *run.Shard.FirstTxLateMs, run.Shard.ClockOffsetMs)
		}
	}
	// The shards' measured phases start within 50 ms of each other: at the
	// group's instant by each host's clock, however late a busy machine
	// woke a process (its start_late_ms).
	if spread := last.Sub(first); spread > 50*time.Millisecond {
		t.Errorf("the shards' starts are %s apart, want at most 50ms", spread)
	}
	t.Logf("the shards' starts are %s apart", last.Sub(first))

	show := dbh(t, home, "show", "gns", "--json", "--results", pg.URLAt("127.0.0.1", store))
	var g shardRun
	if err := json.Unmarshal([]byte(show.stdout), &g); err != nil || show.code != 0 {
		t.Fatalf("show gns: exit %d, %v\n%s", show.code, err, show.all())
	}
	if g.Status != "completed" || len(g.Shards) != 3 || g.Group == nil {
		t.Errorf("show gns: status %s, %d shards\n%s", g.Status, len(g.Shards), show.stdout)
	}
	checkGroupMerge(t, g, runs)

	// Each shard reached the target and the store from its own address:
	// over its veth pair, where there are namespaces. Only the shards
	// connect to the target.
	conns := connectionsByAddr(pg.Log())
	for i, h := range hosts {
		for _, db := range []string{target, store} {
			if !slices.Contains(conns[h.addr], db) {
				t.Errorf("shard %d never connected to %s from %s; the server saw %v", i, db, h.addr, conns)
			}
		}
	}
	for a, dbs := range conns {
		if slices.Contains(dbs, target) && !slices.ContainsFunc(hosts, func(h testHost) bool { return h.addr == a }) {
			t.Errorf("%s, not a shard's address, connected to %s", a, target)
		}
	}
}
