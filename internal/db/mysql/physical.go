package mysql

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/evidence"
)

// PreparePhysical implements evidence.PhysicalReader. InnoDB has no
// function that reads an index's pages for their order: leaf
// fragmentation and depth are null on this engine.
func (d *myDB) PreparePhysical(ctx context.Context, conn db.Conn, _ bool) (string, []string, []string) {
	return "information_schema.tables, mysql.innodb_index_stats, information_schema.innodb_buffer_page", []string{
		"InnoDB cannot say how far its leaf pages are out of order or how deep its b-trees are: leaf_fragmentation_pct and depth are null",
		"InnoDB's leaf density (detailed mode only) is over the index's pages in the buffer pool, all levels, from information_schema.innodb_buffer_page; pages not cached are not counted",
	}, nil
}

// PhysicalChangesStats implements evidence.PhysicalStatsChanger: sampled
// and detailed modes analyze the table.
func (d *myDB) PhysicalChangesStats() string { return "ANALYZE TABLE" }

// RefreshPhysicalStats implements evidence.PhysicalStatsChanger: ANALYZE
// TABLE recounts the pages of the table's indexes in
// mysql.innodb_index_stats (and the sizes of information_schema.tables).
func (d *myDB) RefreshPhysicalStats(ctx context.Context, conn db.Conn, table string) error {
	// ANALYZE TABLE answers with rows; an error comes as a row too.
	rs, err := conn.Query(ctx, "ANALYZE TABLE "+table)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		var tbl, op, typ, msg string
		if err := rs.Scan(&tbl, &op, &typ, &msg); err != nil {
			return err
		}
		if strings.EqualFold(typ, "error") {
			return fmt.Errorf("ANALYZE TABLE %s: %s", table, msg)
		}
	}
	return rs.Err()
}

// RefreshNote implements evidence.PhysicalStatsChanger.
func (d *myDB) RefreshNote() string {
	return "InnoDB's figures are its persistent statistics: the ones before the run are as InnoDB last computed them (the method says when), " +
		"since refreshing them then would change the statistics the run's plans are made from; after the run each table is refreshed first with ANALYZE TABLE, " +
		"which reads innodb_stats_persistent_sample_pages leaf pages of each index (20 by default) and leaves the new statistics to the next run"
}

// Physical implements evidence.PhysicalReader. The table: its data
// (InnoDB's clustered index, which holds the rows) and free bytes from
// information_schema.tables. Each index: its pages and leaf pages from
// mysql.innodb_index_stats. Limited mode reads them as InnoDB last
// computed them (the method says when); sampled runs ANALYZE TABLE first,
// which recounts the pages and samples innodb_stats_persistent_sample_pages
// leaf pages per index for its cardinality; detailed adds the leaf density
// of the index's pages in the buffer pool. Pages read are null where the
// server does not say how many it read (ANALYZE TABLE).
func (d *myDB) Physical(ctx context.Context, conn db.Conn, table, mode string) ([]evidence.PhysicalItem, error) {
	start := time.Now()
	var pageSize int64
	if _, err := db.QueryRow(ctx, conn, "SELECT CAST(@@innodb_page_size AS SIGNED)", nil, &pageSize); err != nil {
		return nil, err
	}
	method := "information_schema.tables"
	if mode != evidence.PhysicalLimited {
		if err := d.RefreshPhysicalStats(ctx, conn, table); err != nil {
			return nil, err
		}
		method = "ANALYZE TABLE, " + method
	}
	var data, free int64
	found, err := db.QueryRow(ctx, conn, "SELECT CAST(coalesce(data_length, 0) AS SIGNED), CAST(coalesce(data_free, 0) AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1",
		[]any{table}, &data, &free)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("table %s not found", table)
	}
	t := evidence.PhysicalItem{Table: table, SizeBytes: ptr(data), Pages: ptr(data / pageSize), FreeBytes: ptr(free), Method: method}
	if mode == evidence.PhysicalLimited {
		t.PagesRead = ptr(int64(0))
	}
	out := []evidence.PhysicalItem{t}

	type stats struct {
		size, leaves int64
		updated      string
	}
	byIndex := map[string]*stats{}
	var order []string
	rs, err := conn.Query(ctx, `SELECT index_name, stat_name, CAST(stat_value AS SIGNED), CAST(last_update AS CHAR) FROM mysql.innodb_index_stats
		WHERE database_name = DATABASE() AND table_name = $1 AND stat_name IN ('size', 'n_leaf_pages') ORDER BY index_name = 'PRIMARY' DESC, index_name`, table)
	if err != nil {
		return nil, fmt.Errorf("mysql.innodb_index_stats: %w", err)
	}
	for rs.Next() {
		var idx, stat, updated string
		var v int64
		if err := rs.Scan(&idx, &stat, &v, &updated); err != nil {
			rs.Close()
			return nil, err
		}
		s := byIndex[idx]
		if s == nil {
			s = &stats{}
			byIndex[idx] = s
			order = append(order, idx)
		}
		s.updated = updated
		if stat == "size" {
			s.size = v
		} else {
			s.leaves = v
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, err
	}
	dens := map[string]*float64{}
	cached := map[string]int64{}
	if mode == evidence.PhysicalDetailed {
		rs, err := conn.Query(ctx, `SELECT index_name, count(*), CAST(sum(data_size) AS SIGNED) FROM information_schema.innodb_buffer_page
			WHERE table_name = concat('`+"`"+`', DATABASE(), '`+"`.`"+`', $1, '`+"`"+`') AND page_type = 'INDEX' GROUP BY index_name`, table)
		if err != nil {
			return nil, fmt.Errorf("information_schema.innodb_buffer_page: %w", err)
		}
		for rs.Next() {
			var idx string
			var n, bytes int64
			if err := rs.Scan(&idx, &n, &bytes); err != nil {
				rs.Close()
				return nil, err
			}
			if n > 0 {
				dens[idx] = ptr(100 * float64(bytes) / float64(n*pageSize))
				cached[idx] = n
			}
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, err
		}
	}
	for _, idx := range order {
		s := byIndex[idx]
		name := idx
		it := evidence.PhysicalItem{Table: table, Index: &name, Primary: idx == "PRIMARY", SizeBytes: ptr(s.size * pageSize), Pages: ptr(s.size),
			LeafPages: ptr(s.leaves), Method: "mysql.innodb_index_stats as of " + s.updated}
		switch mode {
		case evidence.PhysicalLimited:
			it.PagesRead = ptr(int64(0))
		case evidence.PhysicalDetailed:
			it.LeafDensityPct = dens[idx]
			it.Method += fmt.Sprintf(", innodb_buffer_page (%d of %d pages cached)", cached[idx], s.size)
		}
		out = append(out, it)
	}
	// ANALYZE TABLE and the buffer pool's pages are read for the table
	// as a whole: its time is the table's, its indexes show none of
	// their own.
	out[0].Seconds = time.Since(start).Seconds()
	return out, nil
}

func ptr[T any](v T) *T { return &v }
