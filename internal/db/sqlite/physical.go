package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// PreparePhysical implements evidence.PhysicalReader: dbstat is built into
// the driver; it cannot read a sample of a b-tree, so sampled reads every
// page as detailed does.
func (d *liteDB) PreparePhysical(context.Context, db.Conn, bool) (string, []string, []string) {
	return "dbstat", []string{"SQLite's dbstat walks a b-tree from its root and cannot read a sample: sampled reads every page, as detailed does; limited reads only the pages from the root to the first leaf (the depth)"}, nil
}

// Physical implements evidence.PhysicalReader from dbstat, one row per
// page (aggregate = FALSE) in the b-tree's key order. The table's b-tree
// comes first: it is ordered by the primary key where that is the rowid
// (INTEGER PRIMARY KEY) or the table is WITHOUT ROWID, and is then marked
// primary. Limited mode reads the pages from the root down to the first
// leaf, which give the depth and nothing else; sampled and detailed read
// every page: leaf density is the leaves' bytes in use (page size less
// dbstat's unused bytes) over their size, and fragmentation the share of
// leaves whose next leaf in key order has a lower page number.
func (d *liteDB) Physical(ctx context.Context, conn db.Conn, table, mode string) ([]evidence.PhysicalItem, error) {
	n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1", table)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("table %s not found", table)
	}
	// The primary key's own index, where it has one (a rowid table with
	// another primary key); else the table's b-tree is the primary key's.
	pkIndex, err := db.QueryString(ctx, conn, `SELECT coalesce((SELECT l.name FROM pragma_index_list($1) l JOIN sqlite_master m ON m.name = l.name AND m.type = 'index' WHERE l.origin = 'pk'), '')`, table)
	if err != nil {
		return nil, err
	}
	pkCols, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM pragma_table_info($1) WHERE pk > 0", table)
	if err != nil {
		return nil, err
	}
	names, err := db.QueryStrings(ctx, conn, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = $1 AND rootpage > 0 ORDER BY name", table)
	if err != nil {
		return nil, err
	}
	t := evidence.PhysicalItem{Table: table, Primary: pkIndex == "" && pkCols > 0}
	liteBtree(ctx, conn, &t, table, mode)
	out := []evidence.PhysicalItem{t}
	for _, name := range names {
		it := evidence.PhysicalItem{Table: table, Index: &name, Primary: name == pkIndex}
		liteBtree(ctx, conn, &it, name, mode)
		out = append(out, it)
	}
	return out, nil
}

// liteBtree measures the b-tree name (a table or an index) into it.
func liteBtree(ctx context.Context, conn db.Conn, it *evidence.PhysicalItem, name, mode string) {
	start := time.Now()
	defer func() { it.Seconds = time.Since(start).Seconds() }()
	it.Method = "dbstat"
	rs, err := conn.Query(ctx, "SELECT path, pageno, pagetype, pgsize, unused FROM dbstat WHERE name = $1 AND aggregate = FALSE", name)
	if err != nil {
		it.Error = oneLine(err.Error())
		return
	}
	defer rs.Close()
	var read, pages, bytes, leaves, leafBytes, leafUnused, frag, depth int64
	prevLeaf := int64(-1)
	for rs.Next() {
		var path, typ string
		var pageno, size, unused int64
		if err := rs.Scan(&path, &pageno, &typ, &size, &unused); err != nil {
			it.Error = oneLine(err.Error())
			return
		}
		read++
		pages++
		bytes += size
		if typ == "overflow" {
			continue
		}
		depth = max(depth, int64(strings.Count(path, "/")))
		if typ != "leaf" {
			continue
		}
		if mode == evidence.PhysicalLimited {
			// The path to the first leaf gives the depth; the rest of
			// the tree is not read.
			it.Method += " (root to the first leaf)"
			it.Depth, it.PagesRead = &depth, &read
			return
		}
		leaves++
		leafBytes += size
		leafUnused += unused
		if prevLeaf >= 0 && pageno < prevLeaf {
			frag++
		}
		prevLeaf = pageno
	}
	if err := rs.Err(); err != nil {
		it.Error = oneLine(err.Error())
		return
	}
	it.PagesRead = &read
	if mode == evidence.PhysicalLimited {
		return
	}
	it.SizeBytes, it.Pages, it.LeafPages, it.Depth = &bytes, &pages, &leaves, &depth
	if leaves > 0 {
		dens := 100 * float64(leafBytes-leafUnused) / float64(leafBytes)
		fr := 100 * float64(frag) / float64(leaves)
		it.LeafDensityPct, it.LeafFragmentationPct = &dens, &fr
	}
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
