package runner

import (
	"testing"

	"github.com/dbharness/dbharness/internal/loadgen"
	"github.com/dbharness/dbharness/internal/results"
)

func TestAShardRunsItsShareOfClientsTerminalsAndRate(t *testing.T) {
	var clients, terminals int
	var rate float64
	for i := range 3 {
		cfg := loadgen.Config{Clients: 8, Terminals: 100, Rate: 900, Loops: 4}
		sh := shareOf(&results.Shard{Group: "g", Index: i, Count: 3}, &cfg)
		if sh.FirstClient != clients || cfg.ClientBase != clients || cfg.TerminalBase != terminals || cfg.Rate != 300 || cfg.Loops > cfg.Clients {
			t.Errorf("shard %d: %+v, config %+v after %d clients and %d terminals", i, sh, cfg, clients, terminals)
		}
		clients += cfg.Clients
		terminals += cfg.Terminals
		rate += cfg.Rate
	}
	if clients != 8 || terminals != 100 || rate != 900 {
		t.Errorf("the shards run %d clients, %d terminals at %g tps in all", clients, terminals, rate)
	}
}
