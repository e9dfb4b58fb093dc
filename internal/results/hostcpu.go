package results

import (
	"fmt"
	"strings"
)

// OthersWarnPct is the share of the host's CPU, in %, above which the
// processes other than the harness and the server took enough over the
// measured phase to move a run's figures: below it are the host's own
// daemons and the measurement's noise; above it a lock-bound workload can
// lose multiples of its throughput (docs/results.md).
const OthersWarnPct = 5

// HostCPU is how the client host's CPU was shared over the measured phase:
// the harness, the database server when it runs on this host, every other
// process, and idle time, each in % of the host's capacity (all its CPUs).
type HostCPU struct {
	// NotMeasured says why the host could not be accounted for (not Linux,
	// /proc unreadable); the other fields are then empty.
	NotMeasured string `json:"not_measured,omitempty"`
	// CPUs is the host's CPU count: 100% is all of them for the span.
	CPUs int `json:"cpus,omitempty"`
	// Seconds is the span accounted for: the measured phase.
	Seconds float64 `json:"seconds,omitempty"`
	// HarnessPct is the harness process's CPU (getrusage) and its child
	// processes'.
	HarnessPct float64 `json:"harness_pct"`
	// Harness is the harness process's command name, as /proc shows it:
	// the name under which another harness on the host (a shard of the
	// same group) counts it among its other processes.
	Harness string `json:"harness,omitempty"`
	// ServerPct is the server's processes' CPU (PostgreSQL's postmaster
	// and its children, mariadbd); nil when the server is not a process
	// of this host, Server then says why.
	ServerPct *float64 `json:"server_pct,omitempty"`
	// Server says which processes ServerPct covers, or where the server
	// is when there is none: "inside dbharness, in the harness's share"
	// (SQLite), "not counted: " and why (a server on another host).
	Server string `json:"server,omitempty"`
	// OthersPct is the host's busy time less the harness's and the
	// server's: every other process, those that ended meanwhile included.
	OthersPct float64 `json:"others_pct"`
	// IdlePct is the host's idle time (iowait included).
	IdlePct float64 `json:"idle_pct"`
	// TopOthers are the other processes that used the most CPU, by
	// command name, largest first.
	TopOthers []CPUUse `json:"top_others,omitempty"`
	// Warning is set when OthersPct is above OthersWarnPct
	// (OthersWarning).
	Warning string `json:"warning,omitempty"`
	// Intervals are the same shares over time, one per reading.
	Intervals []HostCPUPoint `json:"intervals,omitempty"`
}

// CPUUse is the CPU of the processes of one command name, in % of the
// host.
type CPUUse struct {
	Comm string  `json:"comm"`
	Pct  float64 `json:"pct"`
}

// HostCPUPoint is the host's shares between two readings; T is the
// seconds since the start of the run's clock at the later one, as an
// interval's.
type HostCPUPoint struct {
	T          float64 `json:"t"`
	HarnessPct float64 `json:"harness_pct"`
	ServerPct  float64 `json:"server_pct"`
	OthersPct  float64 `json:"others_pct"`
	IdlePct    float64 `json:"idle_pct"`
}

// Interfered says whether the other processes took more than
// OthersWarnPct of the host.
func (h *HostCPU) Interfered() bool {
	return h != nil && h.NotMeasured == "" && h.OthersPct > OthersWarnPct
}

// OthersWarning is the warning of a run whose other processes took more
// than OthersWarnPct of the host, naming the largest; "" when they did
// not.
func (h *HostCPU) OthersWarning() string {
	if !h.Interfered() {
		return ""
	}
	s := fmt.Sprintf("other processes used %.0f%% of the host's CPU during the measured phase", h.OthersPct)
	if top := h.topText(3); top != "" {
		s += " (" + top + ")"
	}
	return s + ": the figures include their interference"
}

// topText names the n largest other processes with their shares, those
// that round to 0% left out.
func (h *HostCPU) topText(n int) string {
	var parts []string
	for _, u := range h.TopOthers {
		if len(parts) == n || u.Pct < 0.5 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", u.Comm, u.Pct))
	}
	return strings.Join(parts, ", ")
}

// Line says how the host's CPU was shared in one line, e.g. "harness 31%,
// server 52%, others 2% (yes 1%), idle 15% of 2 CPUs".
func (h *HostCPU) Line() string {
	if h == nil {
		return ""
	}
	if h.NotMeasured != "" {
		return "not measured: " + h.NotMeasured
	}
	s := fmt.Sprintf("harness %.0f%%", h.HarnessPct)
	if h.ServerPct != nil {
		s += fmt.Sprintf(", server %.0f%%", *h.ServerPct)
	}
	s += fmt.Sprintf(", others %.0f%%", h.OthersPct)
	if top := h.topText(3); top != "" {
		s += " (" + top + ")"
	}
	cpus := fmt.Sprintf("%d CPUs", h.CPUs)
	if h.CPUs == 1 {
		cpus = "1 CPU"
	}
	s += fmt.Sprintf(", idle %.0f%% of %s", h.IdlePct, cpus)
	if h.ServerPct == nil && h.Server != "" {
		s += "; server: " + h.Server
	}
	return s
}
