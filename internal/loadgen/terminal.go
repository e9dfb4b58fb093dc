package loadgen

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbharness/dbharness/internal/workload"
)

// runTerminals starts cfg.Terminals emulated terminals (goroutines) that
// share the clients' connections through a pool. A terminal picks a
// transaction from the menu, keys it in, waits for a free connection,
// runs it and thinks; its response time runs from the moment it asks for a
// connection, so queueing for one is part of it. It returns, per terminal,
// when it finished (unix ns). Each terminal's first transaction is due at
// start and its first keying time after it.
func runTerminals(ctx context.Context, tr workload.TerminalRunner, cfg *Config, clients []*client, wg *sync.WaitGroup,
	stopping *atomic.Bool, stopC <-chan struct{}, measureStart, start time.Time) []atomic.Int64 {
	pool := make(chan *client, len(clients))
	for _, c := range clients {
		pool <- c
	}
	ends := make([]atomic.Int64, cfg.Terminals)
	for term := 0; term < cfg.Terminals; term++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { ends[term].Store(time.Now().UnixNano()) }()
			id := cfg.TerminalBase + term // the terminal's id among every shard's
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(id)+1<<32))
			nap := &client{stopping: stopping, stopC: stopC}
			var measured int64
			due, begun := start, false
			for !stopping.Load() {
				if cfg.Transactions > 0 && measured >= cfg.Transactions {
					return
				}
				op := tr.PickOp(rng)
				if cfg.ThinkTimes {
					k := tr.Keying(op)
					if !begun {
						due = due.Add(k)
					}
					if !nap.sleep(k) {
						return
					}
				}
				asked := time.Now()
				var c *client
				select {
				case c = <-pool:
				case <-stopC:
					return
				}
				ok := true
				if c.conn == nil {
					ok = c.reconnect(ctx)
				}
				if ok {
					if tw, isTW := c.w.(workload.TerminalWorker); isTW {
						tw.Prepare(id, op)
					} else {
						op = c.w.Next()
					}
					var first *time.Time
					if !begun {
						begun, first = true, &due
					}
					ok = c.execute(ctx, op, asked, first, &measured)
				}
				pool <- c
				if !ok {
					return
				}
				if cfg.ThinkTimes && !nap.sleep(tr.Think(op, rng)) {
					return
				}
			}
		}()
	}
	return ends
}
