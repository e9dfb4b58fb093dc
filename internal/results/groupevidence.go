package results

import (
	"fmt"
	"strconv"
	"strings"
)

// A group's evidence. Each shard's collectors sampled two kinds of thing:
// its own host (the os collector reads the load generator's /proc, and
// the harness measured its own CPU, its host's idle time and run queue),
// and the database server, which every shard shares (server counters, the
// wait profile, plans, storage, the server's CPU profile). The merged run
// keeps the first per shard host, in its shards[] line (HostEvidence), and
// the second once, from one shard (Group.EvidenceShard).

// HostEvidence is what one shard's own host showed during the run: the
// harness's own cost there and the series of its host's collectors.
type HostEvidence struct {
	// Cores are the host's CPU cores.
	Cores int `json:"cores"`
	// Driver, Loops and LoopCPUs are how the shard's clients ran
	// (config.driver, config.loops and config.loop_cpus of its run).
	Driver   string `json:"driver,omitempty"`
	Loops    int    `json:"loops,omitempty"`
	LoopCPUs []int  `json:"loop_cpus,omitempty"`
	// FollowServer and LoopMoves are config.follow_server and
	// summary.loop_moves of its run.
	FollowServer bool  `json:"follow_server,omitempty"`
	LoopMoves    int64 `json:"loop_moves,omitempty"`
	// The harness's own cost and its host's load over the shard's
	// measured phase, as in a run's summary.
	ClientCPUSeconds float64  `json:"client_cpu_s"`
	ClientCPUUsPerTx float64  `json:"client_cpu_us_per_tx"`
	HostIdlePct      *float64 `json:"host_idle_pct,omitempty"`
	HostRunQueue     *float64 `json:"host_run_queue,omitempty"`
	LoopBusyPct      *float64 `json:"loop_busy_pct,omitempty"`
	HostSaturated    bool     `json:"client_host_saturated,omitempty"`
	// HostCPU is how the shard's host's CPU was shared (the shard's
	// summary.host_cpu): what a saturated host is laid to.
	HostCPU *HostCPU `json:"host_cpu,omitempty"`
	// Collect holds the shard's series of its own host (collect.os), as
	// a run's collect does; enabled lists the collectors the shard ran.
	Collect *Collect `json:"collect,omitempty"`
}

// hostEvidence is shard run r's host evidence, nil when it recorded none
// (a run saved before its end, or without the driver's figures).
func hostEvidence(r *Run) *HostEvidence {
	host := splitCollect(r.Collect, true)
	if r.Config.Driver == "" && host == nil {
		return nil
	}
	e := r.HostCost()
	e.Collect = host
	return &e
}

// HostCost is what run r says of the harness's own cost and its host's
// load: HostEvidence without the series.
func (r *Run) HostCost() HostEvidence {
	s := r.Summary
	return HostEvidence{Cores: r.Host.Cores, Driver: r.Config.Driver, Loops: r.Config.Loops, LoopCPUs: r.Config.LoopCPUs,
		FollowServer: r.Config.FollowServer, LoopMoves: s.LoopMoves,
		ClientCPUSeconds: s.ClientCPUSeconds, ClientCPUUsPerTx: s.ClientCPUUsPerTx, HostIdlePct: s.HostIdlePct,
		HostRunQueue: s.HostRunQueue, LoopBusyPct: s.LoopBusyPct, HostSaturated: s.HostSaturated, HostCPU: s.HostCPU}
}

// splitCollect is c's series of the client host (host true) or of the
// rest, with c's enabled list; nil when there is none of them (and, for
// the rest, no word on the plans either).
func splitCollect(c *Collect, host bool) *Collect {
	if c == nil {
		return nil
	}
	out := &Collect{Enabled: c.Enabled}
	if !host {
		out.PlansNotChecked = c.PlansNotChecked
	}
	for name, s := range c.Series {
		if s.ClientHostSide() == host {
			out.Set(name, s)
		}
	}
	if len(out.Series) == 0 && out.PlansNotChecked == "" {
		return nil
	}
	return out
}

// databaseEvidence sets m's database-side evidence to that of one of the
// shards' runs: the lowest-index completed one, else the lowest-index one
// with any, and says in m.Group which and why.
func databaseEvidence(m *Run, runs []*Run) {
	m.Collect, m.Waits, m.Plans, m.ServerCPU, m.Physical = nil, nil, nil, nil, nil
	var src *Run
	for _, completed := range []bool{true, false} {
		for _, r := range runs {
			has := splitCollect(r.Collect, false) != nil || r.Waits != nil || len(r.Plans) > 0 || r.ServerCPU != nil || r.Physical != nil
			if has && (!completed || r.Status == StatusCompleted) && (src == nil || r.Shard.Index < src.Shard.Index) {
				src = r
			}
		}
		if src != nil {
			break
		}
	}
	if src == nil {
		return
	}
	m.Collect, m.Waits, m.Plans, m.ServerCPU, m.Physical = splitCollect(src.Collect, false), src.Waits, src.Plans, src.ServerCPU, src.Physical
	if m.Collect == nil && src.Collect != nil {
		m.Collect = &Collect{Enabled: src.Collect.Enabled}
	}
	i := src.Shard.Index
	m.Group.EvidenceShard = &i
	var others []string
	for _, r := range runs {
		if r != src {
			others = append(others, strconv.Itoa(r.Shard.Index))
		}
	}
	why := "the lowest-index shard that completed"
	if src.Status != StatusCompleted {
		why = "the lowest-index shard with any, as none completed"
	}
	m.Group.EvidenceNote = fmt.Sprintf("the database's evidence is shard %d's, %s", i, why)
	switch n := len(others); {
	case n == 1:
		m.Group.EvidenceNote += fmt.Sprintf("; shard %s sampled the same server", others[0])
	case n > 1:
		m.Group.EvidenceNote += fmt.Sprintf("; shards %s and %s sampled the same server", strings.Join(others[:n-1], ", "), others[n-1])
	}
}

// groupClientSeconds is the shards' clients' times to finish their fixed
// work in global client order, when every shard of the group has them all
// (client ids are global: shard i's are first_client on); else nil.
func groupClientSeconds(g *Group, runs []*Run) []float64 {
	if len(runs) != g.Shards {
		return nil
	}
	byFirst := map[int]*Run{}
	for _, r := range runs {
		if len(r.ClientSeconds) != r.Config.Clients {
			return nil
		}
		byFirst[r.Shard.FirstClient] = r
	}
	var out []float64
	for len(byFirst) > 0 {
		r := byFirst[len(out)]
		if r == nil || len(r.ClientSeconds) == 0 {
			return nil
		}
		delete(byFirst, len(out))
		out = append(out, r.ClientSeconds...)
	}
	return out
}
