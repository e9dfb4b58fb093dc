package postgres

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// physicalExtensions are the extensions the physical measurement reads
// with, and what is missing without each.
var physicalExtensions = []struct{ name, without string }{
	{"pgstattuple", "the indexes' leaf pages, leaf density and fragmentation and the tables' free space are null, and dead rows are pg_stat_user_tables' estimate"},
	{"pageinspect", "limited mode cannot read the b-trees' depth, and sampled reads every leaf page rather than a sample"},
}

// PreparePhysical implements evidence.PhysicalReader. It reads with the
// pgstattuple extension (pgstatindex, pgstattuple, pgstattuple_approx) and
// pageinspect (bt_metap, bt_page_stats: the depth without reading a leaf,
// and the sample of sampled mode) where the database has them. It creates
// those it lacks only when create is true (--create-extensions), where
// the user may, and returns them; without it, one line says what is
// missing and what would create it.
func (d *pgDB) PreparePhysical(ctx context.Context, conn db.Conn, create bool) (string, []string, []string) {
	var notes, have, created, missing, without []string
	installed, err := db.QueryStrings(ctx, conn, "SELECT extname::text FROM pg_extension")
	if err != nil {
		return "pg_class", []string{"the database's extensions could not be read: " + oneLine(err.Error())}, nil
	}
	for _, ext := range physicalExtensions {
		switch {
		case slices.Contains(installed, ext.name):
			have = append(have, ext.name)
		case !create:
			missing, without = append(missing, ext.name), append(without, ext.without)
		default:
			if err := createExtension(ctx, conn, ext.name); err != nil {
				notes = append(notes, fmt.Sprintf("the %s extension could not be created (%s): %s; a superuser can run CREATE EXTENSION %s in this database",
					ext.name, oneLine(err.Error()), ext.without, ext.name))
				continue
			}
			have, created = append(have, ext.name), append(created, ext.name)
		}
	}
	if len(missing) > 0 {
		stmts := make([]string, len(missing))
		for i, m := range missing {
			stmts[i] = "CREATE EXTENSION " + m
		}
		notes = append(notes, fmt.Sprintf("this database has no %s, so %s; --create-extensions creates %s, or run %s",
			strings.Join(missing, " or "), strings.Join(without, ", and "), pluralIt(len(missing)), strings.Join(stmts, "; ")))
	}
	return strings.Join(append([]string{"pg_class"}, have...), ", "), notes, created
}

// pluralIt is "it" or "them".
func pluralIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// createExtension creates ext; a second session creating it at the same
// moment is not an error.
func createExtension(ctx context.Context, conn db.Conn, ext string) error {
	err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+ext)
	if err != nil && strings.Contains(err.Error(), "duplicate key") {
		return nil
	}
	return err
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Physical implements evidence.PhysicalReader. The table (its main fork):
// limited reads pg_class and the dead rows of pg_stat_user_tables,
// sampled pgstattuple_approx (which skips the pages the visibility map
// shows all-visible), detailed pgstattuple (every page). Each b-tree
// index: limited reads the metapage (bt_metap: the depth) and no other
// page; detailed runs pgstatindex, which reads every page; sampled runs
// pgstatindex on an index of at most evidence.SampleAbovePages pages and
// above that reads evidence.SamplePages of its pages spread evenly through
// the file with bt_page_stats, from whose leaves it estimates the leaf
// pages, density and fragmentation. Other index types give their size.
func (d *pgDB) Physical(ctx context.Context, conn db.Conn, table, mode string) ([]evidence.PhysicalItem, error) {
	var oid, size, bs int64
	found, err := db.QueryRow(ctx, conn, "SELECT oid::bigint, pg_relation_size(oid), current_setting('block_size')::bigint FROM pg_class WHERE relname = $1 AND relkind IN ('r', 'p', 'm') AND pg_table_is_visible(oid)",
		[]any{strings.ToLower(table)}, &oid, &size, &bs)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("table %s not found", table)
	}
	names, err := db.QueryStrings(ctx, conn, "SELECT extname::text FROM pg_extension WHERE extname IN ('pgstattuple', 'pageinspect')")
	if err != nil {
		return nil, err
	}
	exts := map[string]bool{}
	for _, e := range names {
		exts[e] = true
	}
	out := []evidence.PhysicalItem{pgTable(ctx, conn, table, oid, size, bs, mode, exts["pgstattuple"])}
	type index struct {
		name    string
		oid     int64
		primary bool
		am      string
		size    int64
	}
	var idx []index
	rs, err := conn.Query(ctx, `SELECT ic.relname::text, ic.oid::bigint, i.indisprimary, am.amname::text, pg_relation_size(ic.oid)
		FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
		WHERE i.indrelid = $1 ORDER BY ic.relname`, oid)
	if err != nil {
		return nil, err
	}
	for rs.Next() {
		var x index
		if err := rs.Scan(&x.name, &x.oid, &x.primary, &x.am, &x.size); err != nil {
			rs.Close()
			return nil, err
		}
		idx = append(idx, x)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, err
	}
	for _, x := range idx {
		it := evidence.PhysicalItem{Table: table, Index: &x.name, Primary: x.primary, SizeBytes: ptr(x.size), Pages: ptr(x.size / bs), Method: "pg_relation_size"}
		start := time.Now()
		if x.am == "btree" {
			pgBtree(ctx, conn, &it, x.oid, x.size/bs, bs, mode, exts)
		} else {
			it.PagesRead = ptr[int64](0)
		}
		it.Seconds = time.Since(start).Seconds()
		out = append(out, it)
	}
	return out, nil
}

// pgTable measures the table's heap.
func pgTable(ctx context.Context, conn db.Conn, table string, oid, size, bs int64, mode string, stattuple bool) evidence.PhysicalItem {
	it := evidence.PhysicalItem{Table: table, SizeBytes: ptr(size), Pages: ptr(size / bs)}
	start := time.Now()
	defer func() { it.Seconds = time.Since(start).Seconds() }()
	if mode == evidence.PhysicalLimited || !stattuple {
		it.Method, it.PagesRead = "pg_class, pg_stat_user_tables", ptr[int64](0)
		var dead *int64
		if _, err := db.QueryRow(ctx, conn, "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = $1", []any{oid}, &dead); err != nil {
			it.Error = oneLine(err.Error())
		}
		it.DeadRows = dead
		it.Seconds = time.Since(start).Seconds()
		return it
	}
	var dead, free int64
	if mode == evidence.PhysicalSampled {
		var scanned float64
		it.Method = "pgstattuple_approx"
		if _, err := db.QueryRow(ctx, conn, "SELECT dead_tuple_count, approx_free_space, scanned_percent FROM pgstattuple_approx($1::oid::regclass)", []any{oid}, &dead, &free, &scanned); err != nil {
			it.Error = oneLine(err.Error())
			return it
		}
		it.PagesRead = ptr(int64(math.Round(scanned / 100 * float64(size/bs))))
	} else {
		it.Method = "pgstattuple"
		if _, err := db.QueryRow(ctx, conn, "SELECT dead_tuple_count, free_space FROM pgstattuple($1::oid::regclass)", []any{oid}, &dead, &free); err != nil {
			it.Error = oneLine(err.Error())
			return it
		}
		it.PagesRead = ptr(size / bs)
	}
	it.DeadRows, it.FreeBytes = &dead, &free
	it.Seconds = time.Since(start).Seconds()
	return it
}

// pgBtree measures a b-tree index of pages pages of bs bytes (the
// metapage included).
func pgBtree(ctx context.Context, conn db.Conn, it *evidence.PhysicalItem, oid, pages, bs int64, mode string, exts map[string]bool) {
	full := mode == evidence.PhysicalDetailed || (mode == evidence.PhysicalSampled && (pages <= evidence.SampleAbovePages || !exts["pageinspect"]))
	if full && exts["pgstattuple"] {
		var level, leaves int64
		var density, frag float64
		if _, err := db.QueryRow(ctx, conn, "SELECT tree_level::bigint, leaf_pages, avg_leaf_density, leaf_fragmentation FROM pgstatindex($1::oid::regclass)", []any{oid},
			&level, &leaves, &density, &frag); err != nil {
			it.Error = oneLine(err.Error())
			return
		}
		it.Method, it.PagesRead = "pgstatindex", ptr(pages)
		it.Depth, it.LeafPages = ptr(level+1), ptr(leaves)
		it.LeafDensityPct, it.LeafFragmentationPct = finite(density), finite(frag)
		return
	}
	if !exts["pageinspect"] {
		it.PagesRead = ptr[int64](0)
		return
	}
	var level int64
	if _, err := db.QueryRow(ctx, conn, "SELECT level::bigint FROM bt_metap($1::oid::regclass::text)", []any{oid}, &level); err != nil {
		it.Error = oneLine(err.Error())
		return
	}
	it.Method, it.PagesRead, it.Depth = "bt_metap", ptr[int64](1), ptr(level+1)
	if mode == evidence.PhysicalLimited || pages <= 1 {
		return
	}
	// The sample: every stride-th block after the metapage. bt_page_stats'
	// free_size is the page's free space as pgstatindex counts it, and a
	// leaf's usable space is the block less its header (24 bytes) and
	// b-tree special space (16 bytes), as pgstatindex's density has it.
	n := evidence.SamplePages(pages)
	stride := max(1, (pages-1+n-1)/n) // at most n pages
	var sampled, leaves, free, frag int64
	if _, err := db.QueryRow(ctx, conn, `SELECT count(*), count(*) FILTER (WHERE s.type = 'l'),
		coalesce(sum(s.free_size) FILTER (WHERE s.type = 'l'), 0),
		count(*) FILTER (WHERE s.type = 'l' AND s.btpo_next <> 0 AND s.btpo_next < b)
		FROM generate_series(1::bigint, $2::bigint - 1, $3::bigint) b, LATERAL bt_page_stats($1::oid::regclass::text, b) s`,
		[]any{oid, pages, stride}, &sampled, &leaves, &free, &frag); err != nil {
		it.Error = oneLine(err.Error())
		return
	}
	it.Method = fmt.Sprintf("bt_metap, bt_page_stats on %d of %d pages", sampled, pages)
	it.PagesRead = ptr(sampled + 1)
	if sampled == 0 || leaves == 0 {
		return
	}
	usable := bs - 24 - 16
	it.LeafPages = ptr(int64(math.Round(float64(leaves) / float64(sampled) * float64(pages-1))))
	it.LeafDensityPct = finite(100 - 100*float64(free)/float64(leaves*usable))
	it.LeafFragmentationPct = finite(100 * float64(frag) / float64(leaves))
}

func ptr[T any](v T) *T { return &v }

// finite is f, or nil for NaN (pgstatindex's density of an index with no
// leaf page).
func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}
