package results

import (
	"fmt"
	"strconv"
)

// Physical measurement modes (--physical), as SQL Server's
// sys.dm_db_index_physical_stats has them: limited reads no leaf page,
// sampled reads a sample of them above a size threshold, detailed reads
// them all. What each means on an engine is said by its PhysicalReader and
// in docs/results-json.md.
const (
	PhysicalLimited  = "limited"
	PhysicalSampled  = "sampled"
	PhysicalDetailed = "detailed"
)

// PhysicalModes lists the modes, cheapest first.
var PhysicalModes = []string{PhysicalLimited, PhysicalSampled, PhysicalDetailed}

// Physical is the storage of the workload's tables and indexes before and
// after the measured phase (--collect physical): how big, how deep, how full
// and how far out of order their pages are.
type Physical struct {
	// Mode is the mode the measurements used; ModeReason says why when the
	// harness chose it (--physical auto).
	Mode       string `json:"mode"`
	ModeReason string `json:"mode_reason,omitempty"`
	// Source names what the engine was asked (pgstattuple, dbstat, ...).
	Source string `json:"source,omitempty"`
	// Notes say what the engine could not give and why, one line each
	// (an extension that could not be created, say).
	Notes []string `json:"notes,omitempty"`
	// Unavailable says why nothing was measured; Before and After are then
	// empty.
	Unavailable string         `json:"unavailable,omitempty"`
	Before      []PhysicalItem `json:"before"`
	After       []PhysicalItem `json:"after"`
	// AfterError says why the measurement after the run is missing.
	AfterError string `json:"after_error,omitempty"`
}

// PhysicalItem is one table (Index nil) or index, as measured once.
// Pointers are null where the engine or the mode cannot say.
type PhysicalItem struct {
	Table string  `json:"table"`
	Index *string `json:"index"`
	// Primary marks the primary key's index (on InnoDB, the table's
	// clustered index, which holds its rows).
	Primary   bool   `json:"primary,omitempty"`
	SizeBytes *int64 `json:"size_bytes"`
	Pages     *int64 `json:"pages"`
	LeafPages *int64 `json:"leaf_pages"`
	// Depth is the levels of the b-tree, leaves included (1: the root is
	// a leaf).
	Depth *int64 `json:"depth"`
	// LeafDensityPct is how full the leaf pages are on average;
	// LeafFragmentationPct the share of leaf pages whose next page in key
	// order lies before them in the file.
	LeafDensityPct       *float64 `json:"leaf_density_pct"`
	LeafFragmentationPct *float64 `json:"leaf_fragmentation_pct"`
	// DeadRows and FreeBytes are a table's dead rows and free space (its
	// bloat), where the engine has them.
	DeadRows  *int64 `json:"dead_rows"`
	FreeBytes *int64 `json:"free_bytes"`
	// Method says how the figures were read ("pgstatindex"); PagesRead
	// how many pages of the relation that read (null where unknown) and
	// Seconds how long it took.
	Method    string  `json:"method"`
	PagesRead *int64  `json:"pages_read"`
	Seconds   float64 `json:"seconds"`
	// Error says why this item could not be measured.
	Error string `json:"error,omitempty"`
}

// Name is the item as people read it: the index's name, or the table's.
func (it *PhysicalItem) Name() string {
	if it.Index != nil {
		return *it.Index
	}
	return it.Table
}

// Key identifies the item within a run (table and index).
func (it *PhysicalItem) Key() string {
	if it.Index != nil {
		return it.Table + "." + *it.Index
	}
	return it.Table
}

// Kind says "table", "primary key" or "index".
func (it *PhysicalItem) Kind() string {
	switch {
	case it.Index == nil:
		return "table"
	case it.Primary:
		return "primary key"
	default:
		return "index"
	}
}

// PhysicalFind returns the item with key k of list l, or nil.
func PhysicalFind(l []PhysicalItem, k string) *PhysicalItem {
	for i := range l {
		if l[i].Key() == k {
			return &l[i]
		}
	}
	return nil
}

// Latest is the measurement after the run where there is one, else the
// one before.
func (p *Physical) Latest() []PhysicalItem {
	if p == nil {
		return nil
	}
	if len(p.After) > 0 {
		return p.After
	}
	return p.Before
}

// Int64Text writes n, or "-" for null.
func Int64Text(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

// PctText writes a percentage to one decimal, or "-" for null.
func PctText(f *float64) string {
	if f == nil {
		return "-"
	}
	return strconv.FormatFloat(*f, 'f', 1, 64) + "%"
}

// BytesText writes a size for people, or "-" for null.
func BytesText(n *int64) string {
	if n == nil {
		return "-"
	}
	return HumanBytes(*n)
}

// SecondsText writes a measurement's time: milliseconds below a second.
func SecondsText(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.1f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

// PhysicalDiff is one item's change between two runs, for compare.
type PhysicalDiff struct {
	Key  string        `json:"key"`
	Kind string        `json:"kind"`
	A    *PhysicalItem `json:"a"`
	B    *PhysicalItem `json:"b"`
}

// PhysicalDiffs pairs the items of two runs by table and index, from the
// measurement after each run (else before), in a's order then b's extras.
// It returns nil when neither run measured anything.
func PhysicalDiffs(a, b *Physical) []PhysicalDiff {
	la, lb := a.Latest(), b.Latest()
	if len(la) == 0 && len(lb) == 0 {
		return nil
	}
	var out []PhysicalDiff
	seen := map[string]bool{}
	for i := range la {
		k := la[i].Key()
		seen[k] = true
		out = append(out, PhysicalDiff{Key: k, Kind: la[i].Kind(), A: &la[i], B: PhysicalFind(lb, k)})
	}
	for i := range lb {
		if k := lb[i].Key(); !seen[k] {
			out = append(out, PhysicalDiff{Key: k, Kind: lb[i].Kind(), B: &lb[i]})
		}
	}
	return out
}

// Lines writes the difference as one line for people: the item, then its
// size, leaf density and fragmentation in A and in B.
func (d PhysicalDiff) Lines() []string {
	sa, da, fa := d.A.Compared()
	sb, db, fb := d.B.Compared()
	return []string{fmt.Sprintf("%s (%s): size %s → %s, leaf density %s → %s, leaf fragmentation %s → %s", d.Key, d.Kind, sa, sb, da, db, fa, fb)}
}

// Compared writes the figures compare shows of an item: its size, leaf
// density and leaf fragmentation, each "absent" for a nil item (a run
// without it).
func (it *PhysicalItem) Compared() (size, density, frag string) {
	if it == nil {
		return "absent", "absent", "absent"
	}
	return BytesText(it.SizeBytes), PctText(it.LeafDensityPct), PctText(it.LeafFragmentationPct)
}

// SweepPhysical is one index (or a table whose b-tree is its primary
// key's) at one sweep point: the medians over the point's runs of its
// figures after each run, null where no run had one.
type SweepPhysical struct {
	Key                  string   `json:"key"`
	Kind                 string   `json:"kind"`
	SizeBytes            *int64   `json:"size_bytes"`
	LeafDensityPct       *float64 `json:"leaf_density_pct"`
	LeafFragmentationPct *float64 `json:"leaf_fragmentation_pct"`
}
