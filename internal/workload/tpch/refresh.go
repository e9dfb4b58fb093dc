package tpch

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbharness/dbharness/internal/db"
	"github.com/dbharness/dbharness/internal/workload/tpch/dbgen"
)

// The refresh functions of clause 2.5. RF1 inserts an update set's new
// orders with their line items; RF2 deletes an update set's old orders
// with theirs. Each runs as one transaction (clause 2.5.2.3 lets the
// implementation group the set's rows into transactions), its rows sent
// in multi-row statements of refreshBatch rows.

const refreshBatch = 100

// insertSQL is a multi-row INSERT of rows rows into table, with $n
// placeholders.
func insertSQL(table string, cols []string, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// insertRows inserts rows (each its values in cols' order) into table on
// conn, refreshBatch rows a statement.
func insertRows(ctx context.Context, conn db.Conn, table string, cols []string, rows [][]any) error {
	var full db.Stmt
	for len(rows) > 0 {
		n := min(len(rows), refreshBatch)
		var st db.Stmt
		var err error
		if n == refreshBatch && full != nil {
			st = full
		} else if st, err = conn.Prepare(ctx, insertSQL(table, cols, n)); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		if n == refreshBatch {
			full = st
		}
		args := make([]any, 0, n*len(cols))
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := st.Exec(ctx, args...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// rf1 inserts update set k's new orders and their line items.
func (w *worker) rf1(ctx context.Context, k int) error {
	set := w.b.rf1[k]
	var orders, lines [][]any
	for i := range set {
		orders = append(orders, OrderValues(&set[i], w.b.caps))
		for j := range set[i].Lines {
			lines = append(lines, LineItemValues(&set[i].Lines[j], w.b.caps))
		}
	}
	return inTx(ctx, w.conn, w.b.caps, func() error {
		if err := insertRows(ctx, w.conn, "orders", OrderColumns, orders); err != nil {
			return err
		}
		return insertRows(ctx, w.conn, "lineitem", LineItemColumns, lines)
	})
}

// rf2 deletes update set k's old orders and their line items.
func (w *worker) rf2(ctx context.Context, k int) error {
	keys := w.b.rf2[k]
	return inTx(ctx, w.conn, w.b.caps, func() error {
		for len(keys) > 0 {
			n := min(len(keys), refreshBatch)
			list := make([]string, n)
			for i, key := range keys[:n] {
				list[i] = strconv.FormatInt(key, 10)
			}
			in := strings.Join(list, ", ")
			if err := w.conn.Exec(ctx, "DELETE FROM lineitem WHERE l_orderkey IN ("+in+")"); err != nil {
				return fmt.Errorf("delete from lineitem: %w", err)
			}
			if err := w.conn.Exec(ctx, "DELETE FROM orders WHERE o_orderkey IN ("+in+")"); err != nil {
				return fmt.Errorf("delete from orders: %w", err)
			}
			keys = keys[n:]
		}
		return nil
	})
}

// firstUnusedSet finds the first update set that no earlier run on this
// database has used: runs use the sets in order, each RF2 deleting the
// initial orders of its set, so it is the first set whose first old order
// is still there, and whose first new order is not.
func firstUnusedSet(ctx context.Context, conn db.Conn, g *dbgen.Gen) (int, error) {
	exists := func(key int64) (bool, error) {
		n, err := db.QueryInt64(ctx, conn, "SELECT count(*) FROM orders WHERE o_orderkey = "+strconv.FormatInt(key, 10))
		return n > 0, err
	}
	if g.RefreshSize() == 0 {
		return 1, nil // below SF 0.007 dbgen's sets are empty
	}
	maxSets := int(g.RowCount(dbgen.Orders) / g.RefreshSize())
	// The sets whose old orders are gone are a prefix: find its end.
	lo, hi := 1, maxSets+1
	for lo < hi {
		mid := (lo + hi) / 2
		ok, err := exists(g.RF2(mid)[0])
		if err != nil {
			return 0, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	for k := lo; k <= maxSets; k++ {
		set := g.RF1(k, nil)
		ok, err := exists(set[0].OrderKey)
		if err != nil {
			return 0, err
		}
		if !ok {
			return k, nil
		}
	}
	return 0, errNoSets
}
