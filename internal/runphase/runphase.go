// Package runphase names the phases of a run. The engine stamps each interval
// with one, the results store keeps it and the reports read it; as a leaf,
// it lets a report tell warm-up from measurement without importing the
// engine.
package runphase

// The phases of a run, in order. They are also the values of "phase" in
// the run JSON.
const (
	Warmup  = "warmup"
	Measure = "measure"
)
