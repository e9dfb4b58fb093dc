package sqlserver

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// physicalSource is the function the physical measurement reads, written
// from its documentation: its modes are dbharness's --physical modes
// (LIMITED reads the levels above the leaves, SAMPLED a 1% sample of the
// leaves of an index of 10,000 pages or more and every leaf below,
// DETAILED every page).
const physicalSource = "sys.dm_db_index_physical_stats"

// sqlServerPage is SQL Server's page size.
const sqlServerPage = 8192

// PreparePhysical implements evidence.PhysicalReader: it checks that the
// server has sys.dm_db_index_physical_stats (it needs VIEW DATABASE STATE
// on the database, or VIEW SERVER STATE). Without it the source is empty
// and the note says why, with the server's error: nothing is measured.
func (d *msDB) PreparePhysical(ctx context.Context, c db.Conn, _ bool) (string, []string, []string) {
	rows, err := c.Query(ctx, "SELECT TOP 0 index_id FROM sys.dm_db_index_physical_stats(DB_ID(), NULL, NULL, NULL, 'LIMITED')")
	if err != nil {
		return "", []string{physicalSource + ": " + shortError(err)}, nil
	}
	rows.Close()
	return physicalSource, []string{"sys.dm_db_index_physical_stats in LIMITED mode reads no leaf page: no leaf density; SAMPLED reads 1% of the leaves of an index of 10,000 pages or more"}, nil
}

// physicalQuery reads the in-row data of table's heap or clustered index
// (the table's rows) and each of its indexes, every level the mode
// returns (LIMITED and SAMPLED the leaves, DETAILED each level), with the
// index's name from sys.indexes. $1 is the table, $2 the mode.
const physicalQuery = `SELECT s.index_id, COALESCE(i.name, N''), CAST(COALESCE(i.is_primary_key, 0) AS int), s.index_level, s.index_depth,
	s.page_count, s.avg_page_space_used_in_percent, s.avg_fragmentation_in_percent
	FROM sys.dm_db_index_physical_stats(DB_ID(), OBJECT_ID($1), NULL, NULL, $2) s
	LEFT JOIN sys.indexes i ON i.object_id = s.object_id AND i.index_id = s.index_id
	WHERE s.alloc_unit_type_desc = 'IN_ROW_DATA'`

// physRow is one row of physicalQuery.
type physRow struct {
	indexID, level, depth, pages int64
	name                         string
	primary                      bool
	density, frag                *float64
}

// Physical implements evidence.PhysicalReader: the table (its heap, or its
// clustered index, which holds its rows) first, then its nonclustered
// indexes by name. Partitions are summed.
func (d *msDB) Physical(ctx context.Context, c db.Conn, table, mode string) ([]evidence.PhysicalItem, error) {
	start := time.Now()
	rows, err := c.Query(ctx, physicalQuery, table, strings.ToUpper(mode))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var got []physRow
	for rows.Next() {
		var r physRow
		var primary int64
		if err := rows.Scan(&r.indexID, &r.name, &primary, &r.level, &r.depth, &r.pages, &r.density, &r.frag); err != nil {
			return nil, err
		}
		r.primary = primary != 0
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return physicalItems(table, mode, got, time.Since(start)), nil
}

// physicalItems turns the rows of one table into its items: per index id,
// the leaf level's pages, density and fragmentation (a page-weighted mean
// over partitions), the depth, and in DETAILED mode the pages of all
// levels, which is what it read.
func physicalItems(table, mode string, got []physRow, took time.Duration) []evidence.PhysicalItem {
	type acc struct {
		name                 string
		primary              bool
		leaf, all, depth     int64
		densW, fragW         float64
		densPages, fragPages int64
	}
	byID := map[int64]*acc{}
	var ids []int64
	for _, r := range got {
		a, ok := byID[r.indexID]
		if !ok {
			a = &acc{name: r.name, primary: r.primary}
			byID[r.indexID] = a
			ids = append(ids, r.indexID)
		}
		a.all += r.pages
		a.depth = max(a.depth, r.depth)
		if r.level != 0 {
			continue
		}
		a.leaf += r.pages
		if r.density != nil {
			a.densW += *r.density * float64(r.pages)
			a.densPages += r.pages
		}
		if r.frag != nil {
			a.fragW += *r.frag * float64(r.pages)
			a.fragPages += r.pages
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		// The heap (0) or clustered index (1) first, then by name.
		if (ids[i] <= 1) != (ids[j] <= 1) {
			return ids[i] <= 1
		}
		return byID[ids[i]].name < byID[ids[j]].name
	})
	method := physicalSource + " " + strings.ToUpper(mode)
	var out []evidence.PhysicalItem
	for _, id := range ids {
		a := byID[id]
		it := evidence.PhysicalItem{Table: table, Method: method, Seconds: evidence.Round3(took.Seconds())}
		if id > 1 || a.primary {
			name := a.name
			it.Index, it.Primary = &name, a.primary
		}
		leaf, depth := a.leaf, a.depth
		it.LeafPages, it.Depth = &leaf, &depth
		if mode == evidence.PhysicalDetailed {
			all, size := a.all, a.all*sqlServerPage
			it.Pages, it.SizeBytes, it.PagesRead = &all, &size, &all
		}
		if a.densPages > 0 {
			v := evidence.Round3(a.densW / float64(a.densPages))
			it.LeafDensityPct = &v
		}
		if a.fragPages > 0 {
			v := evidence.Round3(a.fragW / float64(a.fragPages))
			it.LeafFragmentationPct = &v
		}
		out = append(out, it)
		if id == 1 && a.primary {
			// The clustered primary key holds the table's rows: the table
			// is measured by it, as InnoDB's is by its primary key.
			t := it
			t.Index, t.Primary = nil, false
			out = append([]evidence.PhysicalItem{t}, out...)
		}
	}
	return out
}

var _ evidence.PhysicalReader = (*msDB)(nil)

// TableSize implements db.TableSizer: the rows SQL Server counts in
// sys.partitions (the heap's or clustered index's), counted exactly below
// db.ExactRowsBelow, and the bytes of the table's rows and of its other
// indexes from sys.dm_db_partition_stats (used pages), -1 where the server
// lacks that view (Babelfish).
func (d *msDB) TableSize(ctx context.Context, conn db.Conn, table string) (db.TableSize, error) {
	ts := db.TableSize{Bytes: -1, IndexBytes: -1}
	var est int64
	if _, err := db.QueryRow(ctx, conn, "SELECT CAST(COALESCE(SUM(rows), -1) AS bigint) FROM sys.partitions WHERE object_id = OBJECT_ID($1) AND index_id IN (0, 1)",
		[]any{table}, &est); err != nil {
		return ts, err
	}
	var data, index int64
	if _, err := db.QueryRow(ctx, conn, `SELECT CAST(COALESCE(SUM(CASE WHEN index_id IN (0, 1) THEN used_page_count END), 0) AS bigint) * 8192,
		CAST(COALESCE(SUM(CASE WHEN index_id > 1 THEN used_page_count END), 0) AS bigint) * 8192
		FROM sys.dm_db_partition_stats WHERE object_id = OBJECT_ID($1)`, []any{table}, &data, &index); err == nil {
		ts.Bytes, ts.IndexBytes = data, index
	}
	return ts, db.SizeRows(ctx, conn, table, float64(est), &ts)
}

var _ db.TableSizer = (*msDB)(nil)
