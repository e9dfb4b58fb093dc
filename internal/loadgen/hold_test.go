package loadgen

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload"
)

// scriptRunner gives client 0 a script of 3 transactions and every other
// client one of 2 that may start only once client 0's script is done, as
// TPC-H's throughput streams wait for its power test.
type scriptRunner struct {
	mu        sync.Mutex
	firstDone time.Time
	starts    map[int][]time.Time
}

func (r *scriptRunner) Setup(context.Context, *workload.Env, db.Conn) error { return nil }
func (r *scriptRunner) Ops() []string                                       { return []string{"a"} }
func (r *scriptRunner) NewWorker(_ context.Context, _ db.Conn, id int) (workload.Worker, error) {
	n := 2
	if id == 0 {
		n = 3
	}
	return &scriptWorker{r: r, id: id, left: n}, nil
}

type scriptWorker struct {
	r    *scriptRunner
	id   int
	left int
}

func (w *scriptWorker) Hold() (time.Duration, bool) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	if w.left == 0 {
		if w.id == 0 && w.r.firstDone.IsZero() {
			w.r.firstDone = time.Now()
		}
		return 0, true
	}
	if w.id != 0 && w.r.firstDone.IsZero() {
		return 5 * time.Millisecond, false
	}
	return 0, false
}

func (w *scriptWorker) Next() int { return 0 }
func (w *scriptWorker) Do(context.Context, int) error {
	w.r.mu.Lock()
	w.r.starts[w.id] = append(w.r.starts[w.id], time.Now())
	w.r.mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	w.left--
	return nil
}

// A run whose workers are Holders ends when every script is done, however
// many transactions per client the configuration allows, and a client that
// is told to wait starts no transaction until it may.
func TestScriptedWorkersEndTheirClientsAndWaitWhenTold(t *testing.T) {
	cfg := baseConfig()
	cfg.Clients, cfg.Duration, cfg.Transactions = 3, 0, 1000
	r := &scriptRunner{starts: map[int][]time.Time{}}
	res, err := Run(context.Background(), &fakeDB{}, r, cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := total(res.Ops); n != 7 {
		t.Fatalf("%d transactions, want 3 + 2 + 2", n)
	}
	for id := 1; id <= 2; id++ {
		for _, s := range r.starts[id] {
			if s.Before(r.firstDone) {
				t.Errorf("client %d began a transaction before client 0's script was done", id)
			}
		}
	}
}
