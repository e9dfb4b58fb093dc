package wlfile

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/dbharness/dbharness/internal/datagen"
)

// children holds, for a child table, the cumulative children count per
// parent row and the permutation that scatters children over the table.
type children struct {
	cum   []int64 // cum[p] = children of parents 0..p
	perm  *datagen.Permutation
	total int64
}

// ChildCounts draws each parent's number of children: parent row p's count
// depends only on the seed, the child table and p.
func ChildCounts(t *Table, seed uint64) []int64 {
	rel := t.Parent
	n := rel.Table.Rows
	out := make([]int64, n)
	pcg := rand.NewPCG(0, 0)
	r := rand.New(pcg)
	key := uint64(t.index)<<20 | 0xFFFFF
	for p := int64(0); p < n; p++ {
		datagen.SeedPCG(pcg, seed, key, uint64(p))
		out[p] = rel.Children.intd.Int64(r)
	}
	return out
}

// TableRows is a table's data as numbered batches, each a pure function of
// the seed and the batch number, so that any loader can make any batch.
type TableRows struct {
	Table   *Table
	Columns []string
	Rows    int64
	Batches int
	// Batch appends the rows of batch i (0-based) to dst and returns it.
	Batch func(i int, dst [][]any) [][]any
}

// BatchRows is the number of rows per batch.
const BatchRows = 10_000

// Rows cuts the spec's tables into batches. Child tables get their row
// counts from the parent's children per parent (and Table.Rows is set).
func Rows(spec *Spec, seed uint64) ([]TableRows, error) {
	var out []TableRows
	for _, t := range spec.Tables {
		t := t
		var ch *children
		if t.Parent != nil {
			counts := ChildCounts(t, seed)
			ch = &children{cum: make([]int64, len(counts))}
			var sum int64
			for i, c := range counts {
				sum += c
				ch.cum[i] = sum
			}
			if sum > 1e12 {
				return nil, fmt.Errorf("table %s: the children per parent give %d rows; more than 10^12", t.Name, sum)
			}
			ch.total = sum
			if sum > 0 {
				ch.perm = datagen.NewPermutation(sum, int64(seed^uint64(t.index)))
			}
			t.Rows = sum
		}
		names := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			names[i] = c.Name
		}
		rows := t.Rows
		out = append(out, TableRows{
			Table: t, Columns: names, Rows: rows,
			Batches: int((rows + BatchRows - 1) / BatchRows),
			Batch: func(i int, dst [][]any) [][]any {
				gc := newGenCtx(seed)
				lo := int64(i) * BatchRows
				hi := min(lo+BatchRows, rows)
				for row := lo; row < hi; row++ {
					vals := make([]any, len(t.Columns))
					for ci, c := range t.Columns {
						vals[ci] = cellValue(gc, t, c, ch, row)
					}
					dst = append(dst, vals)
				}
				return dst
			},
		})
	}
	return out, nil
}

// cellValue is the value of column c in row row: a pure function of the
// seed, the column and the row.
func cellValue(gc *genCtx, t *Table, c *Column, ch *children, row int64) any {
	if c.FK != nil {
		slot := ch.perm.Apply(row)
		p := int64(sort.Search(len(ch.cum), func(i int) bool { return ch.cum[i] > slot }))
		ref := c.FK.ref
		datagen.SeedPCG(gc.pcg, gc.seed, ref.Gen.key, uint64(p))
		return ref.Gen.value(gc, gc.r, p)
	}
	datagen.SeedPCG(gc.pcg, gc.seed, c.Gen.key, uint64(row))
	return c.Gen.value(gc, gc.r, row)
}
