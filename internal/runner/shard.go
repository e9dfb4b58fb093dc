package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
	"github.com/dbharness/dbharness/internal/store"
)

// shareOf sets in cfg the part of a group's run that shard sh makes: its
// share of the clients and terminals, under their global ids, and of the
// open-loop rate (each shard's Poisson stream at rate/N is its own, and
// together they make one at the full rate). It returns the shard as the
// run records it.
func shareOf(sh *results.Shard, cfg *loadgen.Config) *results.Shard {
	out := *sh
	out.FirstClient, cfg.Clients = results.ShardOf(cfg.Clients, sh.Index, sh.Count)
	cfg.ClientBase = out.FirstClient
	if cfg.Terminals > 0 {
		cfg.TerminalBase, cfg.Terminals = results.ShardOf(cfg.Terminals, sh.Index, sh.Count)
	}
	cfg.Rate /= float64(sh.Count)
	// --loops counts this shard's event loops: at most one per client.
	if cfg.Loops > cfg.Clients {
		cfg.Loops = cfg.Clients
	}
	return &out
}

// startShard is the shard's start, once its clients have connected: it
// measures its clock against the store server's, registers under its
// group, waits for the others and returns the group's starting instant by
// this host's clock.
func startShard(ctx context.Context, s *store.Store, sh *results.Shard, run *results.Run, timeout time.Duration, out io.Writer) (time.Time, error) {
	_, offset, err := s.ServerNow(ctx)
	if err != nil {
		return time.Time{}, err
	}
	sh.ClockOffsetMs = math.Round(float64(offset)/1e3) / 1e3
	if err := s.JoinGroup(ctx, sh, run.RunID, run.Host.Hostname); err != nil {
		return time.Time{}, err
	}
	fmt.Fprintf(out, "shard %d/%d of group %s (clients %d to %d): waiting for the other shards, at most %s\n",
		sh.Index, sh.Count, sh.Group, sh.FirstClient, sh.FirstClient+run.Config.Clients-1, timeout)
	start, err := s.StartGroup(ctx, sh, timeout)
	if err != nil {
		return time.Time{}, err
	}
	sh.GroupStart = start
	return start.Add(offset), nil
}
