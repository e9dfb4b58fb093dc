package loadgen_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evloop"
	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/testdb"
)

// placedDB's loop connections say their server runs on each of cpus in
// turn, two looks on each, whatever the truth: a following client moves
// at every other look.
type placedDB struct {
	db.DB
	cpus  []int
	mu    *sync.Mutex
	conns *[]*placedConn
}

func (d placedDB) ConnectLoop(ctx context.Context) (db.LoopConn, error) {
	c, err := d.DB.(db.LoopDB).ConnectLoop(ctx)
	if err != nil {
		return nil, err
	}
	pc := &placedConn{LoopConn: c, cpus: d.cpus, loops: map[*evloop.Loop]bool{}}
	d.mu.Lock()
	*d.conns = append(*d.conns, pc)
	d.mu.Unlock()
	return pc, nil
}

// placedConn also notes the loops it was attached to, and how often.
type placedConn struct {
	db.LoopConn
	cpus     []int
	looks    int
	attaches int
	loops    map[*evloop.Loop]bool
}

func (c *placedConn) Attach(t *evloop.Task) error {
	c.attaches++
	c.loops[t.Loop()] = true
	return c.LoopConn.Attach(t)
}

func (c *placedConn) ServerCPU() int {
	c.looks++
	return c.cpus[(c.looks/2)%len(c.cpus)]
}

// Clients that move from loop to loop between transactions (here after
// every other transaction, thousands of moves) still run exactly their
// transactions, each counted once in the latency and lag histograms; each
// move attaches the connection on the other loop, and the run counts the
// moves. With following off, or with the loops left unpinned, no client
// moves.
func TestClientsThatFollowTheirServerAcrossLoopsCountEveryTransaction(t *testing.T) {
	cpus := evloop.AllowedCPUs()
	if len(cpus) < 2 {
		t.Fatalf("this test needs two CPUs (a pinned loop on each); the process may use %v", cpus)
	}
	defer loadgen.SetFollowTimes(0, 0)()
	url := testdb.Postgres(t, "dbh_engine_follow") + "?sslmode=disable"
	var mu sync.Mutex
	var conns []*placedConn
	d := placedDB{DB: testdb.Open(t, url), cpus: cpus, mu: &mu, conns: &conns}
	run := func(follow, pin bool) *loadgen.Result {
		t.Helper()
		conns = nil
		cfg := loopConfig(8, 400)
		cfg.Loops, cfg.Rate, cfg.PinLoops, cfg.FollowServer = len(cpus), 20000, pin, follow
		res, err := loadgen.Run(context.Background(), d, &probe{failEvery: 4}, cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		echo, fail := res.Ops[0], res.Ops[1]
		if n := echo.Hist.TotalCount(); n != 8*300 || fail.Errors != 8*100 || echo.Errors != 0 {
			t.Errorf("follow %v, pinned %v: echo %d succeeded and %d failed, fail %d failed; want 2400, 0 and 800",
				follow, pin, n, echo.Errors, fail.Errors)
		}
		if res.Lag == nil || res.Lag.TotalCount() != 8*400 {
			t.Errorf("follow %v, pinned %v: the lag histogram counts %v transactions; want 3200", follow, pin, res.Lag)
		}
		var attaches int64
		for _, c := range conns {
			attaches += int64(c.attaches - 1)
			if moved := len(c.loops) > 1; moved != (res.LoopMoves > 0) {
				t.Errorf("follow %v, pinned %v: a connection was attached on %d loops in a run of %d moves", follow, pin, len(c.loops), res.LoopMoves)
			}
		}
		if len(conns) != 8 || attaches != res.LoopMoves {
			t.Errorf("follow %v, pinned %v: %d connections attached again %d times in all; want 8, and once a move (%d)",
				follow, pin, len(conns), attaches, res.LoopMoves)
		}
		return res
	}
	res := run(true, true)
	if !res.FollowServer || res.LoopMoves < 100 {
		t.Errorf("following clients told to move at every other transaction: FollowServer %v, %d moves; want true and hundreds",
			res.FollowServer, res.LoopMoves)
	}
	if res := run(false, true); res.FollowServer || res.LoopMoves != 0 {
		t.Errorf("with following off: FollowServer %v, %d moves; want false and none", res.FollowServer, res.LoopMoves)
	}
	if res := run(true, false); res.FollowServer || res.LoopMoves != 0 {
		t.Errorf("with the loops unpinned: FollowServer %v, %d moves; want false and none", res.FollowServer, res.LoopMoves)
	}
}

// A loop connection names the CPU its backend runs on, over TCP (where
// the reply came in) and over the Unix socket (from the backend's PID):
// with the backend kept on one CPU, both name that CPU.
func TestALoopConnectionNamesItsBackendsCPU(t *testing.T) {
	cpus := evloop.AllowedCPUs()
	if len(cpus) < 2 {
		t.Fatalf("this test needs two CPUs; the process may use %v", cpus)
	}
	base := testdb.Postgres(t, "dbh_engine_servercpu")
	host := strings.TrimPrefix(testdb.PostgresBase(), "postgres://")
	user, _, _ := strings.Cut(host, "@")
	name := base[strings.LastIndex(base, "/")+1:]
	for _, tc := range []struct{ name, url string }{
		{"over TCP", base + "?sslmode=disable"},
		{"over the Unix socket", "postgres://" + user + "@/" + name + "?host=/var/run/postgresql"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			lc, err := testdb.Open(t, tc.url).(db.LoopDB).ConnectLoop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer lc.Close()
			rows, err := lc.Query(ctx, "SELECT pg_backend_pid()")
			if err != nil {
				t.Fatal(err)
			}
			var pid int32
			if !rows.Next() || rows.Scan(&pid) != nil {
				t.Fatal("no backend PID")
			}
			rows.Close()
			for _, cpu := range []int{cpus[0], cpus[len(cpus)-1]} {
				// The test runs as the server's owner or as root, which
				// may set a backend's affinity (this host's server).
				var set unix.CPUSet
				set.Set(cpu)
				if err := unix.SchedSetaffinity(int(pid), &set); err != nil {
					t.Fatalf("keep backend %d on CPU %d: %v", pid, cpu, err)
				}
				if err := lc.Exec(ctx, "SELECT 1"); err != nil {
					t.Fatal(err)
				}
				if got := lc.ServerCPU(); got != cpu {
					t.Errorf("the backend kept on CPU %d: ServerCPU = %d", cpu, got)
				}
			}
			var all unix.CPUSet
			for i := range runtime.NumCPU() {
				all.Set(i)
			}
			_ = unix.SchedSetaffinity(int(pid), &all)
		})
	}
}
