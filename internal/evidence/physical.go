package evidence

import (
	"context"

	"github.com/dbharness/dbharness/internal/db"
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

// SampleAbovePages is the index size, in pages, above which sampled mode
// reads a sample of the pages rather than all of them (SQL Server's
// SAMPLED reads every page of an index below 10,000 pages). It is a
// variable so that a test can sample a small index.
var SampleAbovePages int64 = 10_000

// SamplePages is how many pages sampled mode reads of an index of pages
// pages: 1%, but at least 100 and never more than the index.
func SamplePages(pages int64) int64 {
	return min(pages, max(100, pages/100))
}

// PhysicalReader is a db.DB whose engine can say how its tables and
// indexes are stored: the engine's package implements it on its DB, and
// the physical collector finds it by type assertion.
type PhysicalReader interface {
	// PreparePhysical readies conn's database for measuring. It changes
	// the database only when create is true (--create-extensions: the
	// user's consent; PostgreSQL then creates pgstattuple and pageinspect
	// where the user may). It returns what the measurements read (the
	// run's physical.source), a line for each thing the engine cannot give
	// and why (without consent: what it would need), and what it created.
	// An empty source says that the server has nothing to measure with:
	// the notes say why, and nothing is measured.
	PreparePhysical(ctx context.Context, conn db.Conn, create bool) (source string, notes, created []string)
	// Physical measures table and each of its indexes in mode (one of
	// PhysicalModes): the table first, then its indexes by name.
	// Each item records its method, the pages it read and its time; an
	// item that could not be measured carries its Error.
	Physical(ctx context.Context, conn db.Conn, table, mode string) ([]PhysicalItem, error)
}

// PhysicalStatsChanger is a PhysicalReader whose sampled and detailed
// modes change what the optimizer knows (InnoDB's ANALYZE TABLE): auto
// keeps it in limited mode, so that the default evidence does not change
// the experiment. Its limited mode reads statistics only a refresh brings
// up to date: the measurement after the run refreshes them first, since
// by then the experiment is over.
type PhysicalStatsChanger interface {
	// PhysicalChangesStats names what changes the statistics.
	PhysicalChangesStats() string
	// RefreshPhysicalStats brings the statistics limited mode reads of
	// table up to date.
	RefreshPhysicalStats(ctx context.Context, conn db.Conn, table string) error
	// RefreshNote says, in one line, what the refresh after the run does
	// and costs, for the run's notes.
	RefreshNote() string
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
