package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbharness/dbharness/internal/histogram"
)

// StatusPartial is a group some of whose shards never started or did not
// complete: the others' data is kept, the missing named in its error.
const StatusPartial = "partial"

// Group is what a run merged from a group's shards says of the group.
type Group struct {
	Name   string `json:"name"`
	Shards int    `json:"shards"`
	// Start is the instant the shards started at, by the store server's
	// clock; zero when the group never started.
	Start time.Time `json:"start"`
	// MaxClockOffsetMs is the largest of the shards' clock offsets from
	// the store server, in absolute value.
	MaxClockOffsetMs float64 `json:"max_clock_offset_ms"`
	// MaxStartLateMs is the latest a shard woke for the start: the
	// shards' intervals start at the group's instant whatever it is.
	MaxStartLateMs float64 `json:"max_start_late_ms"`
	// MaxFirstTxLateMs is the latest a shard's first transaction began
	// after the start (the shards' first_tx_late_ms); absent when no
	// shard recorded one.
	MaxFirstTxLateMs *float64 `json:"max_first_tx_late_ms,omitempty"`
	// Missing are the shards that never registered.
	Missing []int `json:"missing,omitempty"`
	// EvidenceShard is the shard whose database-side evidence (collect's
	// server series, waits, plans, physical, server_cpu) the group keeps;
	// the others sampled the same server. EvidenceNote says so in words.
	// Each shard's own host's evidence is in its shards[] line.
	EvidenceShard *int   `json:"evidence_shard,omitempty"`
	EvidenceNote  string `json:"evidence_note,omitempty"`
}

// ShardResult is one shard's line in a group's result.
type ShardResult struct {
	Index         int     `json:"index"`
	RunID         string  `json:"run_id"`
	Host          string  `json:"host"`
	Status        string  `json:"status"`
	Clients       int     `json:"clients"`
	FirstClient   int     `json:"first_client"`
	Transactions  int64   `json:"transactions"`
	Errors        int64   `json:"errors"`
	TPS           float64 `json:"tps"`
	LatencyMs     Latency `json:"latency_ms"`
	ClockOffsetMs float64 `json:"clock_offset_ms"`
	StartLateMs   float64 `json:"start_late_ms"`
	// FirstTxLateMs is the shard's Shard.FirstTxLateMs.
	FirstTxLateMs *float64 `json:"first_tx_late_ms,omitempty"`
	// Evidence is what the shard's own host showed (HostEvidence); nil
	// when its run recorded none.
	Evidence *HostEvidence `json:"evidence,omitempty"`
}

// MergeShards merges the runs of a group's shards (each with its
// intervals' per-operation histograms, by seq) into one run of the same
// schema: the intervals, aligned by the common start, summed (counts,
// errors, retries, error classes) with their histograms merged exactly,
// and the summary and operations made from them as a run's are; a
// shards[] line per shard, with its host's evidence, and the database's
// evidence once (databaseEvidence); status partial, naming the shards,
// when one never came or did not complete. It returns the merged
// intervals' per-operation histograms too (by seq, then operation).
func MergeShards(g *Group, runs []*Run, hists []map[int]map[string]string) (*Run, map[int]map[string]string, error) {
	if len(runs) == 0 {
		return nil, nil, fmt.Errorf("group %s: no shard registered", g.Name)
	}
	m := *runs[0]
	m.RunID, m.Shard, m.Error, m.ErrorClasses, m.ErrorSamples = g.Name, nil, "", nil, map[string]string{}
	m.ClientSeconds, m.Warmup, m.Ops = nil, nil, nil
	m.Config.Clients, m.Config.Terminals, m.Config.Rate = 0, 0, 0
	m.Group, m.Shards = g, nil
	if !g.Start.IsZero() {
		m.StartTime = g.Start
	}
	ivs := map[int]*Interval{}
	merged := map[int]map[string]*hdr.Histogram{}
	ps := m.Config.Percentiles
	var problems []string
	var cpu float64 // the harness's CPU on every shard host
	here := map[int]bool{}
	for i, r := range runs {
		sh := r.Shard
		if sh == nil {
			return nil, nil, fmt.Errorf("group %s: run %s is not a shard", g.Name, r.RunID)
		}
		here[sh.Index] = true
		m.Config.Clients += r.Config.Clients
		m.Config.Terminals += r.Config.Terminals
		m.Config.Rate += r.Config.Rate
		g.MaxClockOffsetMs = math.Max(g.MaxClockOffsetMs, math.Abs(sh.ClockOffsetMs))
		g.MaxStartLateMs = math.Max(g.MaxStartLateMs, sh.StartLateMs)
		if v := sh.FirstTxLateMs; v != nil && (g.MaxFirstTxLateMs == nil || *v > *g.MaxFirstTxLateMs) {
			late := *v
			g.MaxFirstTxLateMs = &late
		}
		if r.EndTime.After(m.EndTime) {
			m.EndTime = r.EndTime
		}
		for k, v := range r.ErrorSamples {
			if _, ok := m.ErrorSamples[k]; !ok {
				m.ErrorSamples[k] = v
			}
		}
		m.Shards = append(m.Shards, ShardResult{Index: sh.Index, RunID: r.RunID, Host: r.Host.Hostname, Status: r.Status,
			Clients: r.Config.Clients, FirstClient: sh.FirstClient, Transactions: r.Summary.Transactions, Errors: r.Summary.Errors,
			TPS: r.Summary.TPS, LatencyMs: r.Summary.LatencyMs, ClockOffsetMs: sh.ClockOffsetMs, StartLateMs: sh.StartLateMs, FirstTxLateMs: sh.FirstTxLateMs,
			Evidence: hostEvidence(r)})
		cpu += r.Summary.ClientCPUSeconds
		if r.Status != StatusCompleted {
			problems = append(problems, fmt.Sprintf("shard %d (run %s) %s", sh.Index, r.RunID, r.Status))
		}
		for _, iv := range r.Intervals {
			acc := ivs[iv.Seq]
			if acc == nil {
				acc = &Interval{Seq: iv.Seq, Phase: iv.Phase, ErrorClasses: map[string]int64{}}
				ivs[iv.Seq] = acc
				merged[iv.Seq] = map[string]*hdr.Histogram{}
			}
			acc.T, acc.Seconds = math.Max(acc.T, iv.T), math.Max(acc.Seconds, iv.Seconds)
			acc.Count += iv.Count
			acc.Errors += iv.Errors
			acc.Retries += iv.Retries
			acc.Late += iv.Late
			acc.Reconnects += iv.Reconnects
			acc.Down += iv.Down
			acc.Waiting += iv.Waiting
			for k, v := range iv.ErrorClasses {
				acc.ErrorClasses[k] += v
			}
			for _, o := range iv.Ops {
				j := slicesIndexOp(acc.Ops, o.Name)
				if j < 0 {
					acc.Ops = append(acc.Ops, IntervalOp{Name: o.Name})
					j = len(acc.Ops) - 1
				}
				acc.Ops[j].Count += o.Count
				acc.Ops[j].Errors += o.Errors
				acc.Ops[j].Retries += o.Retries
				h, err := DecodeHist(hists[i][iv.Seq][o.Name])
				if err != nil || h == nil {
					continue
				}
				if merged[iv.Seq][o.Name] == nil {
					merged[iv.Seq][o.Name] = histogram.New()
				}
				merged[iv.Seq][o.Name].Merge(h)
			}
		}
	}
	for i := range g.Shards {
		if !here[i] {
			g.Missing = append(g.Missing, i)
		}
	}
	if len(g.Missing) > 0 {
		var names []string
		for _, i := range g.Missing {
			names = append(names, strconv.Itoa(i))
		}
		problems = append([]string{"shard " + strings.Join(names, ", ") + " never started"}, problems...)
	}
	m.Status = StatusCompleted
	if len(problems) > 0 {
		m.Status, m.Error = StatusPartial, strings.Join(problems, "; ")
	}
	seqs := make([]int, 0, len(ivs))
	for seq := range ivs {
		seqs = append(seqs, seq)
	}
	sort.Ints(seqs)
	m.Intervals = make([]Interval, 0, len(seqs))
	encoded := map[int]map[string]string{}
	var cum int64
	var cumSecs float64
	for _, seq := range seqs {
		iv := ivs[seq]
		all := histogram.New()
		encoded[seq] = map[string]string{}
		for j := range iv.Ops {
			op := &iv.Ops[j]
			h := merged[seq][op.Name]
			if h == nil {
				h = histogram.New()
			}
			all.Merge(h)
			op.LatencyMs = LatencyOf(h, ps)
			encoded[seq][op.Name] = EncodeHist(h)
			if iv.Seconds > 0 {
				op.TPS = round2(float64(op.Count) / iv.Seconds)
			}
		}
		iv.LatencyMs = LatencyOf(all, ps)
		if iv.Seconds > 0 {
			iv.TPS = round2(float64(iv.Count) / iv.Seconds)
		}
		if iv.Phase != "warmup" {
			cum += iv.Count
			cumSecs += iv.Seconds
			if cumSecs > 0 {
				iv.CumulativeTPS = round2(float64(cum) / cumSecs)
			}
		}
		m.Intervals = append(m.Intervals, *iv)
	}
	SummarizeIntervals(&m, encoded)
	databaseEvidence(&m, runs)
	m.ClientSeconds = groupClientSeconds(g, runs)
	// The harness's CPU is the shards' together; each host's idle time,
	// run queue and loops are in its shards[] line.
	m.Summary.ClientCPUSeconds = round3(cpu)
	if m.Summary.Transactions > 0 {
		m.Summary.ClientCPUUsPerTx = round2(cpu * 1e6 / float64(m.Summary.Transactions))
	}
	return &m, encoded, nil
}

// slicesIndexOp is the index of the operation named name in ops, or -1.
func slicesIndexOp(ops []IntervalOp, name string) int {
	for i := range ops {
		if ops[i].Name == name {
			return i
		}
	}
	return -1
}
