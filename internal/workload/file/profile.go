package file

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/wlfile"
)

// Profile is the data and statistics profile of a loaded workload file:
// what the data really is (measured with SQL), what the engine's
// statistics believe, and where the two differ by more than FlagRatio.
type Profile struct {
	Workload string         `json:"workload"`
	Target   string         `json:"target"`
	Tables   []TableProfile `json:"tables"`
	// Flags lists every column whose statistics are off, one sentence each.
	Flags []string `json:"flags"`
}

// FlagRatio is how far the engine's belief may be off from the truth
// before a column is flagged.
const FlagRatio = 2.0

// TableProfile is one table.
type TableProfile struct {
	Name string `json:"name"`
	// Rows is count(*); SpecRows what the file asked for (for a child
	// table, what its children per parent gave at load).
	Rows int64 `json:"rows"`
	// Storage: the engine's figures (Source says where from); zero where
	// not available.
	Source      string          `json:"storage_source"`
	EstRows     float64         `json:"estimated_rows"`
	AvgRowBytes float64         `json:"avg_row_bytes"`
	Pages       int64           `json:"pages"`
	PageBytes   int64           `json:"page_bytes"`
	RowsPerPage float64         `json:"rows_per_page"`
	Note        string          `json:"note,omitempty"`
	Columns     []ColumnProfile `json:"columns"`
	// Children is the measured children-per-parent distribution, for a
	// child table.
	Children *ChildrenProfile `json:"children,omitempty"`
}

// ColumnProfile is one column: the truth and the engine's belief.
type ColumnProfile struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Spec string `json:"spec"`
	// Measured.
	Distinct int64   `json:"distinct"`
	NullFrac float64 `json:"null_frac"`
	// TopShare is the share of all rows holding the most common value;
	// Top10Share of the ten most common.
	TopShare   float64 `json:"top_share"`
	Top10Share float64 `json:"top10_share"`
	AvgWidth   float64 `json:"avg_width"`
	// Engine is what the engine's statistics say; nil where it has none.
	Engine *EngineStats `json:"engine,omitempty"`
	Flags  []string     `json:"flags,omitempty"`
}

// EngineStats is the optimizer's belief about a column.
type EngineStats = db.ColumnStats

// ChildrenProfile describes children per parent as loaded.
type ChildrenProfile struct {
	Parent  string  `json:"parent"`
	Spec    string  `json:"spec"`
	Parents int64   `json:"parents"`
	Mean    float64 `json:"mean"`
	Max     int64   `json:"max"`
	// ZeroShare is the share of parents without children; Top1Share the
	// share of children owned by the top 1% of parents.
	ZeroShare float64 `json:"zero_share"`
	Top1Share float64 `json:"top1pct_share"`
	// Histogram maps a children count to the number of parents with it
	// (counts above 20 are grouped in powers of two).
	Histogram []Bucket `json:"histogram"`
}

// Bucket is a range of children counts and how many parents fall in it.
type Bucket struct {
	Lo      int64 `json:"lo"`
	Hi      int64 `json:"hi"`
	Parents int64 `json:"parents"`
}

// Profile measures the loaded tables on conn.
func (w *Workload) Profile(ctx context.Context, d db.DB, conn db.Conn) (*Profile, error) {
	if err := requireAll(ctx, d, conn, w); err != nil {
		return nil, err
	}
	if s, err := w.loadedScale(ctx, d, conn); err == nil && s > 0 {
		w.Scale = s
	}
	spec, err := w.Spec()
	if err != nil {
		return nil, err
	}
	cat, _ := d.(db.Cataloger)
	pr := &Profile{Workload: w.Path, Target: d.Target().String(), Flags: []string{}}
	for _, t := range spec.Tables {
		tp := TableProfile{Name: t.Name}
		if tp.Rows, err = db.QueryInt64(ctx, conn, "SELECT count(*) FROM "+t.Name); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		if err := storage(ctx, cat, conn, &tp); err != nil {
			tp.Note = "storage figures unavailable: " + oneLine(err.Error())
		}
		for _, c := range t.Columns {
			cp := ColumnProfile{Name: c.Name, Type: c.Type}
			if c.Gen != nil {
				cp.Spec = c.Gen.Desc
			} else if c.FK != nil {
				cp.Spec = fmt.Sprintf("references %s.%s, children per parent: %s", c.FK.Table.Name, c.FK.References, c.FK.Children.Desc)
			}
			if err := measure(ctx, d.Caps(), conn, t.Name, c.Name, tp.Rows, &cp); err != nil {
				return nil, fmt.Errorf("measure %s.%s: %w", t.Name, c.Name, err)
			}
			es, err := engineStats(ctx, cat, conn, t.Name, c.Name, tp.Rows)
			if err == nil && es != nil {
				cp.Engine = es
				cp.Flags = compare(&cp, es)
				for _, f := range cp.Flags {
					pr.Flags = append(pr.Flags, fmt.Sprintf("%s.%s: %s", t.Name, c.Name, f))
				}
			}
			tp.Columns = append(tp.Columns, cp)
		}
		if t.Parent != nil {
			ch, err := childrenProfile(ctx, conn, t)
			if err != nil {
				return nil, fmt.Errorf("children of %s: %w", t.Parent.Table.Name, err)
			}
			tp.Children = ch
		}
		pr.Tables = append(pr.Tables, tp)
	}
	return pr, nil
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func requireAll(ctx context.Context, d db.DB, conn db.Conn, w *Workload) error {
	for _, t := range w.Tables() {
		ok, err := d.TableExists(ctx, conn, t)
		if err != nil {
			return err
		}
		if !ok {
			flag := ""
			if !d.Target().Default {
				flag = " --db " + d.Target().String()
			}
			return fmt.Errorf("table %s does not exist in %s; run `dbharness init %s%s` first", t, d.Target(), w.Path, flag)
		}
	}
	return nil
}

// measure reads the truth about one column with SQL.
func measure(ctx context.Context, caps db.Caps, conn db.Conn, table, col string, rows int64, cp *ColumnProfile) error {
	var err error
	if cp.Distinct, err = db.QueryInt64(ctx, conn, fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s", col, table)); err != nil {
		return err
	}
	nulls, err := db.QueryInt64(ctx, conn, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", table, col))
	if err != nil {
		return err
	}
	if rows == 0 {
		return nil
	}
	cp.NullFrac = float64(nulls) / float64(rows)
	rs, err := conn.Query(ctx, fmt.Sprintf("SELECT count(*) AS n FROM %s WHERE %s IS NOT NULL GROUP BY %s ORDER BY n DESC", table, col, col)+caps.LimitClause(10))
	if err != nil {
		return err
	}
	var top []int64
	for rs.Next() {
		var n int64
		if err := rs.Scan(&n); err != nil {
			rs.Close()
			return err
		}
		top = append(top, n)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return err
	}
	var sum int64
	for i, n := range top {
		if i == 0 {
			cp.TopShare = float64(n) / float64(rows)
		}
		sum += n
	}
	cp.Top10Share = float64(sum) / float64(rows)
	// The average length of the value as text (char(N) casts work on every
	// engine; PostgreSQL's length ignores char's padding).
	chars, err := db.QueryInt64(ctx, conn, fmt.Sprintf("SELECT sum(length(CAST(%s AS char(4000)))) FROM %s", col, table))
	if err != nil {
		return err
	}
	if nonNull := rows - nulls; nonNull > 0 {
		cp.AvgWidth = float64(chars) / float64(nonNull)
	}
	return nil
}

// storage reads the engine's size figures for a table (db.Cataloger).
func storage(ctx context.Context, cat db.Cataloger, conn db.Conn, tp *TableProfile) error {
	if cat == nil {
		return fmt.Errorf("the engine reports no table sizes")
	}
	ts, err := cat.TableStorage(ctx, conn, tp.Name)
	tp.Source, tp.Pages, tp.PageBytes = ts.Source, ts.Pages, ts.PageBytes
	tp.EstRows, tp.AvgRowBytes, tp.RowsPerPage = ts.EstRows, ts.AvgRowBytes, ts.RowsPerPage
	return err
}

// engineStats reads what the optimizer believes about a column
// (db.Cataloger); nil where the engine keeps or tells nothing.
func engineStats(ctx context.Context, cat db.Cataloger, conn db.Conn, table, col string, rows int64) (*EngineStats, error) {
	if cat == nil {
		return nil, nil
	}
	return cat.ColumnStats(ctx, conn, table, col, rows)
}

// compare flags where the engine's belief is off by more than FlagRatio.
func compare(cp *ColumnProfile, es *EngineStats) []string {
	var flags []string
	off := func(a, b float64) float64 {
		if a <= 0 || b <= 0 {
			return math.Inf(1)
		}
		return math.Max(a/b, b/a)
	}
	if cp.Distinct > 0 && es.Distinct > 0 {
		if r := off(es.Distinct, float64(cp.Distinct)); r > FlagRatio {
			flags = append(flags, fmt.Sprintf("distinct values: engine believes %.0f, true %d (%.1fx off)", es.Distinct, cp.Distinct, r))
		}
	}
	if es.NullFrac != nil && (cp.NullFrac >= 0.01 || *es.NullFrac >= 0.01) {
		if r := off(*es.NullFrac, cp.NullFrac); r > FlagRatio {
			flags = append(flags, fmt.Sprintf("null fraction: engine believes %.3f, true %.3f", *es.NullFrac, cp.NullFrac))
		}
	}
	// The most common value matters where it is common: compare when
	// either side says at least 1% of the rows. A TopShare of nil is
	// unknown (no most-common-values list) and is not compared.
	if es.TopShare != nil && (cp.TopShare >= 0.01 || *es.TopShare >= 0.01) {
		if r := off(*es.TopShare, cp.TopShare); r > FlagRatio {
			flags = append(flags, fmt.Sprintf("most common value: engine believes %.2f%% of rows, true %.2f%%", 100**es.TopShare, 100*cp.TopShare))
		}
	}
	return flags
}

// childrenProfile measures children per parent with SQL.
func childrenProfile(ctx context.Context, conn db.Conn, t *wlfile.Table) (*ChildrenProfile, error) {
	rel := t.Parent
	q := fmt.Sprintf(`SELECT n, count(*) FROM (SELECT p.%s AS k, count(c.%s) AS n FROM %s p LEFT JOIN %s c ON c.%s = p.%s GROUP BY p.%s) x GROUP BY n ORDER BY n`,
		rel.References, rel.Column, rel.Table.Name, t.Name, rel.Column, rel.References, rel.References)
	rs, err := conn.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	type nc struct{ n, c int64 }
	var hist []nc
	for rs.Next() {
		var h nc
		if err := rs.Scan(&h.n, &h.c); err != nil {
			return nil, err
		}
		hist = append(hist, h)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	cp := &ChildrenProfile{Parent: rel.Table.Name, Spec: rel.Children.Desc}
	var total int64
	for _, h := range hist {
		cp.Parents += h.c
		total += h.n * h.c
		if h.n > cp.Max {
			cp.Max = h.n
		}
		if h.n == 0 {
			cp.ZeroShare += float64(h.c)
		}
	}
	if cp.Parents == 0 {
		return cp, nil
	}
	cp.ZeroShare /= float64(cp.Parents)
	cp.Mean = float64(total) / float64(cp.Parents)
	// Top 1% of parents by children.
	top := int64(math.Ceil(float64(cp.Parents) / 100))
	var owned int64
	for i := len(hist) - 1; i >= 0 && top > 0; i-- {
		take := min(top, hist[i].c)
		owned += take * hist[i].n
		top -= take
	}
	if total > 0 {
		cp.Top1Share = float64(owned) / float64(total)
	}
	m := map[int64]int64{}
	for _, h := range hist {
		m[h.n] += h.c
	}
	cp.Histogram = buckets(m)
	return cp, nil
}

// buckets groups counts: one bucket per value up to 20, then powers of two.
func buckets(m map[int64]int64) []Bucket {
	var keys []int64
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var out []Bucket
	for _, k := range keys {
		lo, hi := k, k
		if k > 20 {
			lo, hi = 21, 40
			for k > hi {
				lo, hi = hi+1, hi*2
			}
		}
		if n := len(out); n > 0 && out[n-1].Lo == lo {
			out[n-1].Parents += m[k]
			continue
		}
		out = append(out, Bucket{Lo: lo, Hi: hi, Parents: m[k]})
	}
	return out
}
