package results

// ServerCPU is where the database server's processes spent their CPU during
// the measured phase (--collect server-cpu), sampled by Linux perf on the
// software cpu-clock event. Unavailable says in one line why there is no
// profile (perf missing or not permitted, a remote server, an engine with
// no server process); the other members are then empty.
type ServerCPU struct {
	// Method is how the profile was taken, e.g. "perf record -a -e
	// cpu-clock -F 199 -g".
	Method string `json:"method,omitempty"`
	// Processes says which processes were profiled, e.g. "PostgreSQL
	// postmaster (pid 2227) and its child processes (6 as sampling
	// started)".
	Processes string `json:"processes,omitempty"`
	// FrequencyHz is the sampling frequency of each CPU.
	FrequencyHz int `json:"frequency_hz,omitempty"`
	// Samples is how many samples fell in the server's processes, and
	// CPUSeconds the CPU time they stand for (the sum of their periods).
	Samples    int64   `json:"samples"`
	CPUSeconds float64 `json:"cpu_s"`
	// Seconds is the length of the measured phase the samples were kept
	// from.
	Seconds float64 `json:"seconds"`
	// PerfCPUSeconds is the CPU perf record itself used (user and system,
	// from the OS; it runs from before the clients connect to the end of
	// the run), and ReadSeconds how long perf script
	// took to read the profile after the run: the collector's own cost.
	PerfCPUSeconds float64 `json:"perf_cpu_s"`
	ReadSeconds    float64 `json:"read_s"`
	// Functions are the functions that used the most CPU themselves (self
	// time, the leaf of each sample), most first; Modules the same by
	// module (the server binary, libc, the kernel).
	Functions []CPUShare `json:"functions"`
	Modules   []CPUShare `json:"modules"`
	// Stacks are the sampled call stacks folded, root first and frames
	// joined by ";" (the flame graph's input), most samples first; stacks
	// below StacksMinPct of the samples are left out.
	Stacks       []FoldedStack `json:"stacks,omitempty"`
	StacksMinPct float64       `json:"stacks_min_pct,omitempty"`
	Unavailable  string        `json:"unavailable,omitempty"`
	// Note says the profile covers only part of the measured phase, and
	// why (perf stopped at its data cap, or ended on its own); Seconds
	// is then the part covered.
	Note string `json:"note,omitempty"`
}

// CPUShare is one function's or module's share of the samples.
type CPUShare struct {
	// Symbol is the function's name, "[unknown]" where the module has no
	// symbol for the address (a static function of a stripped binary);
	// empty in Modules.
	Symbol string `json:"symbol,omitempty"`
	// Module is the binary or library the code lives in, by file name;
	// "[kernel.kallsyms]" is the kernel.
	Module  string  `json:"module"`
	Samples int64   `json:"samples"`
	SelfPct float64 `json:"self_pct"`
}

// FoldedStack is one call stack and how many samples it got.
type FoldedStack struct {
	Frames  string `json:"frames"`
	Samples int64  `json:"samples"`
}
