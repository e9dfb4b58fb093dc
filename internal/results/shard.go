package results

import "time"

// Shard is a run's part of its group, as the run records it. A group is a
// run made by several harness processes at once, its shards, which meet
// in the results store (package store) and start at one instant.
type Shard struct {
	Group string `json:"group"`
	// Index is the shard's, from 0; Count the group's shards.
	Index int `json:"index"`
	Count int `json:"count"`
	// FirstClient is the global id (from 0) of the shard's first client;
	// its clients are the run's config.clients from there.
	FirstClient int `json:"first_client"`
	// GroupStart is the instant every shard started at, by the store
	// server's clock.
	GroupStart time.Time `json:"group_start"`
	// ClockOffsetMs is this host's clock minus the store server's, in
	// milliseconds, measured at the start.
	ClockOffsetMs float64 `json:"clock_offset_ms"`
	// StartLateMs is how late this process woke for the group's start,
	// in milliseconds; its intervals start at the group's instant anyway.
	StartLateMs float64 `json:"start_late_ms"`
	// FirstTxLateMs is how long after the group's instant (or, when
	// later, after it was due: an open-loop arrival, a terminal's keying
	// time) this shard's first transaction began, in milliseconds; nil
	// when none began.
	FirstTxLateMs *float64 `json:"first_tx_late_ms,omitempty"`
}

// LateStartShare is the share of the first interval past which a shard's
// first transaction began too late to pass unremarked: the first
// interval's throughput is then low by about that share (the group's by
// that share over the shards), which a run's per-second figures would
// show as a ramp that is not the server's.
const LateStartShare = 0.10

// LateStart says whether a first transaction that began lateMs after the
// instant is a large share (LateStartShare) of a first interval of
// intervalS seconds.
func LateStart(lateMs, intervalS float64) bool {
	return intervalS > 0 && lateMs > LateStartShare*intervalS*1e3
}

// ShardOf is shard index's part of n items (clients, terminals) shared by
// count shards: the first item's index and how many.
func ShardOf(n, index, count int) (first, items int) {
	first = index * n / count
	return first, (index+1)*n/count - first
}
