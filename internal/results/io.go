package results

// mib is 2^20 bytes, the unit of the storage bandwidths.
const mib = 1 << 20

// IO is the storage side of a run made by `dbharness io` (one run per
// pattern) or `dbharness scan`: what was measured, where, and its figures
// step by step. Each step is also one of the run's ops, so `show`,
// `compare` and `report` read these runs as any other.
type IO struct {
	// Pattern is seqwrite, seqread, randread, logwrite or scan.
	Pattern string `json:"pattern"`
	// Dir is the directory measured, Filesystem its type (ext4, xfs,
	// tmpfs, overlay, ...), Device the block device behind it as
	// /proc/diskstats names it (empty when none).
	Dir        string `json:"dir,omitempty"`
	Filesystem string `json:"filesystem,omitempty"`
	Device     string `json:"device,omitempty"`
	// SizeBytes is the working set (--size); Mode extend or overwrite for
	// the write patterns; CRC whether each block was sealed with its
	// CRC32C; Direct whether O_DIRECT was in use.
	SizeBytes int64  `json:"size_bytes,omitempty"`
	Mode      string `json:"mode,omitempty"`
	CRC       bool   `json:"crc32c,omitempty"`
	Direct    bool   `json:"direct"`
	// Verify says reads checked every sector they read (--verify); else
	// each checked its first and last sector.
	Verify bool `json:"verify,omitempty"`
	// Notes say what the place measured means for the figures (tmpfs,
	// overlay, O_DIRECT refused, a scan's plan).
	Notes []string `json:"notes,omitempty"`
	Steps []IOStep `json:"steps"`
	// CommitCeiling is logwrite's single-stream bound on commits per
	// second (1 / median fdatasync time of the first one-stream step), and
	// TPCB the single-client tpcb run it is set beside, when the store
	// has one whose database lives on the same device.
	CommitCeiling float64   `json:"commit_ceiling_per_s,omitempty"`
	TPCB          *TPCBPeer `json:"tpcb,omitempty"`
}

// IOStep is one measured configuration: a queue depth, a log write size
// and stream count, a scan's parallel degree and cache state.
type IOStep struct {
	Name       string  `json:"name"`
	Threads    int     `json:"threads"`
	BlockBytes int     `json:"block_bytes,omitempty"`
	Bytes      int64   `json:"bytes"`
	IOs        int64   `json:"ios,omitempty"`
	Rows       int64   `json:"rows,omitempty"`
	Seconds    float64 `json:"seconds"`
	MiBPerS    float64 `json:"mib_per_s"`
	// MiBPerSPerThread is MiBPerS over Threads; MiBPerCPUSecond the MiB
	// moved per second of the process's CPU time (user + system,
	// getrusage): what one core of the harness sustains.
	MiBPerSPerThread float64 `json:"mib_per_s_per_thread"`
	CPUSeconds       float64 `json:"cpu_s,omitempty"`
	MiBPerCPUSecond  float64 `json:"mib_per_cpu_s,omitempty"`
	IOPS             float64 `json:"iops,omitempty"`
	RowsPerS         float64 `json:"rows_per_s,omitempty"`
	LatencyMs        Latency `json:"latency_ms,omitempty"`
	// SyncMs is the fdatasync times of a log write step (and the final
	// one of a sequential write).
	SyncMs Latency   `json:"sync_ms,omitempty"`
	Disk   *DiskView `json:"disk,omitempty"`
	// Cache is a scan's state: warm (the table read once before) or cold.
	Cache string `json:"cache,omitempty"`
}

// DiskView is iostat's view of the device over a step, from
// /proc/diskstats.
type DiskView struct {
	Device       string  `json:"device"`
	ReadIOs      uint64  `json:"read_ios"`
	WriteIOs     uint64  `json:"write_ios"`
	Flushes      uint64  `json:"flushes,omitempty"`
	ReadBytes    uint64  `json:"read_bytes"`
	WriteBytes   uint64  `json:"write_bytes"`
	AvgRequestKB float64 `json:"avg_request_kb"`
	AvgQueue     float64 `json:"avg_queue"`
	AwaitMs      float64 `json:"await_ms"`
	UtilPct      float64 `json:"util_pct"`
}

// TPCBPeer is a saved single-client tpcb run: its commit rate next to the
// storage's bound.
type TPCBPeer struct {
	RunID string  `json:"run_id"`
	TPS   float64 `json:"tps"`
	// OfCeilingPct is TPS as a share of the commit ceiling.
	OfCeilingPct float64 `json:"of_ceiling_pct"`
	DataDir      string  `json:"data_dir"`
}

// SetRates fills the bandwidth, CPU and rate figures of s from its bytes,
// I/Os, rows, threads, seconds and CPU time.
func (s *IOStep) SetRates() {
	if s.Seconds > 0 {
		s.MiBPerS = round2(float64(s.Bytes) / mib / s.Seconds)
		if s.IOs > 0 {
			s.IOPS = round2(float64(s.IOs) / s.Seconds)
		}
		if s.Rows > 0 {
			s.RowsPerS = round2(float64(s.Rows) / s.Seconds)
		}
	}
	if s.Threads > 0 {
		s.MiBPerSPerThread = round2(s.MiBPerS / float64(s.Threads))
	}
	if s.CPUSeconds > 0 {
		s.MiBPerCPUSecond = round2(float64(s.Bytes) / mib / s.CPUSeconds)
	}
}
