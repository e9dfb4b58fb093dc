package results

// FigureDiff is one workload figure (a key of Summary.Metrics: nopm,
// power_at_size, qphh_at_size, ...) on both sides of a comparison. For two
// sweeps there is one per point both share (Clients and Vary say which),
// each side's value the median over that point's completed runs.
type FigureDiff struct {
	Name    string            `json:"name"`
	Label   string            `json:"label,omitempty"`
	Clients int               `json:"clients,omitempty"`
	Vary    map[string]string `json:"vary,omitempty"`
	// A and B are null on a side none of whose runs has the figure.
	A *float64 `json:"a"`
	B *float64 `json:"b"`
	// DeltaPct is (B-A)/A in percent, null unless both are known and A is
	// not 0.
	DeltaPct *float64 `json:"delta_pct"`
	// Headline marks the workload's own result (Summary.HeadlineMetric).
	Headline bool `json:"headline,omitempty"`
	// Runs are how many runs each side's value is the median of.
	RunsA int `json:"runs_a"`
	RunsB int `json:"runs_b"`
}
