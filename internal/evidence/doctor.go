package evidence

import (
	"context"
	"fmt"
	"strconv"
)

// The statuses of a Check.
const (
	StatusOK   = "ok"
	StatusWarn = "warn"
	StatusInfo = "info"
)

// The sections of `dbharness doctor`'s checks.
const (
	SectionHost   = "host"
	SectionServer = "server"
)

// Check is one line of a pre-flight check (`dbharness doctor`, and the
// host part recorded with every run): what was looked at, what it showed,
// and, for a warning, what to change, in one sentence.
type Check struct {
	// Section is SectionHost (the client host) or SectionServer.
	Section string `json:"section"`
	Name    string `json:"name"`
	// Status is StatusOK, StatusWarn (something that can move the
	// figures, with Advice) or StatusInfo (a fact, nothing to change).
	Status string `json:"status"`
	Value  string `json:"value"`
	Advice string `json:"advice,omitempty"`
}

// OK makes a server Check that holds.
func OK(name, value string) Check { return Check{SectionServer, name, StatusOK, value, ""} }

// Warn makes a server Check that warns, with its advice.
func Warn(name, value, advice string) Check {
	return Check{SectionServer, name, StatusWarn, value, advice}
}

// Info makes a server Check that states a fact.
func Info(name, value, advice string) Check {
	return Check{SectionServer, name, StatusInfo, value, advice}
}

// Memory is the memory of the host the database server runs on, in bytes,
// as /proc/meminfo shows it.
type Memory struct {
	Total, Available int64
}

// DoctorOptions is what a server's checks are measured against.
type DoctorOptions struct {
	// Clients is the number of clients the run will open (--clients).
	Clients int
	// Memory is the server's host's memory when the server runs on this
	// host; nil when it does not (or that is unknown).
	Memory *Memory
}

// ServerChecker is a db.DB whose engine can check its server's settings
// before a run: durability, memory, connections and background work now.
// Each check is a pure function of the values it reads, so that the
// engine's package can test the warnings without changing the server.
type ServerChecker interface {
	ServerChecks(ctx context.Context, o DoctorOptions) ([]Check, error)
}

// ConnectionsCheck compares the clients a run will open, plus the two
// connections of its set-up and collectors, with what the server leaves
// free: max connections less those reserved (for superusers) and those in
// use now.
func ConnectionsCheck(name string, maxConns, reserved, inUse int64, clients int) Check {
	need := int64(clients) + 2
	free := maxConns - reserved - inUse
	who := fmt.Sprintf("%d clients need", clients)
	if clients == 1 {
		who = "1 client needs"
	}
	v := fmt.Sprintf("%d (%d in use, %d reserved); %s %d", maxConns, inUse, reserved, who, need)
	if need > free {
		return Warn(name, v, fmt.Sprintf("only %d connections are free: raise %s above %d or run fewer clients, or some clients will fail to connect", max(free, 0), name, need+inUse+reserved))
	}
	return OK(name, v)
}

// FitsCheck says whether data bytes fit in the server's cache (cache
// bytes) and, when the OS page cache is a second cache (osCache) and the
// server is on this host, in the cache and the memory the OS has available:
// the rule is data ≤ cache + available memory. Data that does not fit
// makes the run measure the storage too.
func FitsCheck(data, cache int64, cacheName string, mem *Memory, osCache bool) Check {
	const name = "data in memory"
	const advice = "the data does not fit in memory, so the run measures the storage as well as the server: make the data smaller, or the memory or %s larger, unless that is the test"
	v := fmt.Sprintf("data %s, %s %s", SizeText(data), cacheName, SizeText(cache))
	switch {
	case data <= cache:
		return OK(name, v+": fits in "+cacheName)
	case !osCache:
		return Warn(name, v, fmt.Sprintf(advice, cacheName))
	case mem == nil:
		return Info(name, v+"; the server's host is not this one, so its memory is unknown",
			"the data is larger than "+cacheName+"; it fits in memory only if the OS page cache of the server's host holds the rest")
	case data <= cache+mem.Available:
		return OK(name, v+", "+SizeText(mem.Available)+" available: fits in "+cacheName+" and the OS page cache")
	}
	return Warn(name, v+", "+SizeText(mem.Available)+" available", fmt.Sprintf(advice, cacheName))
}

// SizeText writes a size in bytes to two significant figures or so, in
// binary units: "512 B", "1.5 GiB".
func SizeText(b int64) string {
	f := float64(b)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 || u == "TiB" {
			if u == "B" || f >= 100 {
				return strconv.FormatFloat(f, 'f', 0, 64) + " " + u
			}
			return strconv.FormatFloat(f, 'f', 1, 64) + " " + u
		}
		f /= 1024
	}
	return ""
}
