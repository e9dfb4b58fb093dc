package results

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbharness/dbharness/internal/evidence"
)

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
	// CreatedExtensions are the extensions the run created in the target
	// database to measure with (PostgreSQL's pgstattuple, pageinspect).
	// Only --create-extensions lets a run create any.
	CreatedExtensions []string `json:"created_extensions,omitempty"`
	// Unavailable says why nothing was measured; Before and After are then
	// empty.
	Unavailable string                  `json:"unavailable,omitempty"`
	Before      []evidence.PhysicalItem `json:"before"`
	After       []evidence.PhysicalItem `json:"after"`
	// AfterError says why the measurement after the run is missing.
	AfterError string `json:"after_error,omitempty"`
}

// CreatedLine says which extensions the run created, for the run's note
// and its summary; "" when none.
func (p *Physical) CreatedLine() string {
	if p == nil || len(p.CreatedExtensions) == 0 {
		return ""
	}
	what, it := "the extension ", "it"
	if len(p.CreatedExtensions) > 1 {
		what, it = "the extensions ", "them"
	}
	return fmt.Sprintf("created %s%s in the target database to measure its tables, as --create-extensions allows (DROP EXTENSION removes %s)",
		what, strings.Join(p.CreatedExtensions, " and "), it)
}

// PhysicalFind returns the item with key k of list l, or nil.
func PhysicalFind(l []evidence.PhysicalItem, k string) *evidence.PhysicalItem {
	for i := range l {
		if l[i].Key() == k {
			return &l[i]
		}
	}
	return nil
}

// Latest is the measurement after the run where there is one, else the
// one before.
func (p *Physical) Latest() []evidence.PhysicalItem {
	if p == nil {
		return nil
	}
	if len(p.After) > 0 {
		return p.After
	}
	return p.Before
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
	Key  string                 `json:"key"`
	Kind string                 `json:"kind"`
	A    *evidence.PhysicalItem `json:"a"`
	B    *evidence.PhysicalItem `json:"b"`
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
	sa, da, fa := PhysicalCompared(d.A)
	sb, db, fb := PhysicalCompared(d.B)
	return []string{fmt.Sprintf("%s (%s): size %s → %s, leaf density %s → %s, leaf fragmentation %s → %s", d.Key, d.Kind, sa, sb, da, db, fa, fb)}
}

// PhysicalCompared writes the figures compare shows of item it: its size,
// leaf density and leaf fragmentation, each "absent" for a nil item (a run
// without it).
func PhysicalCompared(it *evidence.PhysicalItem) (size, density, frag string) {
	if it == nil {
		return "absent", "absent", "absent"
	}
	return BytesText(it.SizeBytes), evidence.PctText(it.LeafDensityPct), evidence.PctText(it.LeafFragmentationPct)
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

// What makes a table's or index's change over a run notable, for the text
// summary, which shows only those (all of them with --verbose, and in the
// HTML report): its size moved by PhysicalNotablePct of the smaller size
// and by at least PhysicalNotableBytes (a page or two of a small table is
// not), its free space by as much of its size, its b-tree depth changed,
// or its leaf density or leaf fragmentation moved by PhysicalNotablePoints
// percentage points. Dead rows alone are not: what they cost shows in the
// size and free space. An item measured once only, or with an error, is
// notable too.
const (
	PhysicalNotablePct    = 10
	PhysicalNotableBytes  = 64 << 10
	PhysicalNotablePoints = 5
)

// PhysicalNotable says whether an item changed notably between its
// measurement before the run (b) and after it (a); either may be nil.
func PhysicalNotable(b, a *evidence.PhysicalItem) bool {
	if b == nil || a == nil || b.Error != "" || a.Error != "" {
		return true
	}
	bytes := func(x, y *int64, of int64) bool {
		if x == nil || y == nil {
			return x != y
		}
		d := *y - *x
		if d < 0 {
			d = -d
		}
		return d >= PhysicalNotableBytes && float64(d)*100 >= PhysicalNotablePct*float64(of)
	}
	points := func(x, y *float64) bool {
		if x == nil || y == nil {
			return (x == nil) != (y == nil)
		}
		return math.Abs(*y-*x) >= PhysicalNotablePoints
	}
	size := int64(-1)
	for _, s := range []*int64{b.SizeBytes, a.SizeBytes} {
		if s != nil && (size < 0 || *s < size) {
			size = *s
		}
	}
	size = max(size, 0)
	depth := (b.Depth == nil) != (a.Depth == nil) || b.Depth != nil && a.Depth != nil && *b.Depth != *a.Depth
	return bytes(b.SizeBytes, a.SizeBytes, size) || bytes(b.FreeBytes, a.FreeBytes, size) || depth ||
		points(b.LeafDensityPct, a.LeafDensityPct) || points(b.LeafFragmentationPct, a.LeafFragmentationPct)
}

// Notable lists the keys of the items that changed notably over the run
// (PhysicalNotable), in the order of the measurement before it, then
// those measured after it only. It is nil when there is no measurement
// after the run to compare with.
func (p *Physical) Notable() []string {
	if p == nil || len(p.After) == 0 {
		return nil
	}
	var out []string
	for i := range p.Before {
		k := p.Before[i].Key()
		if PhysicalNotable(&p.Before[i], PhysicalFind(p.After, k)) {
			out = append(out, k)
		}
	}
	for i := range p.After {
		if k := p.After[i].Key(); PhysicalFind(p.Before, k) == nil {
			out = append(out, k)
		}
	}
	return out
}

// Items counts the tables and indexes measured, before or after the run.
func (p *Physical) Items() int {
	n := len(p.Before)
	for i := range p.After {
		if PhysicalFind(p.Before, p.After[i].Key()) == nil {
			n++
		}
	}
	return n
}
