package tpch

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/db"
)

// Answer is a query's result: its rows, each value as text (dates as
// YYYY-MM-DD, NULL as "NULL", char padding trimmed).
type Answer [][]string

// RunAnswer runs the drawn query on conn and returns its answer.
func RunAnswer(ctx context.Context, conn db.Conn, caps db.Caps, d Draw) (Answer, error) {
	rows, err := runQuery(ctx, conn, caps, d, true)
	return Answer(rows), err
}

// text is a scanned value as text.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strings.TrimRight(x, " ")
	case []byte:
		return strings.TrimRight(string(x), " ")
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(dateFmt)
		}
		return x.Format(time.RFC3339Nano)
	}
	return strings.TrimRight(fmt.Sprint(v), " ")
}

// CompareAnswers says how answer b of query q differs from answer a under
// the rounding rules of clause 2.1.3.5 (nil when it does not): a count or
// a singleton value must be equal (numbers as numbers), a sum within 100,
// an average or a ratio within 1% once rounded to the nearest 1/100.
// Rows must come in the same order, except that rows the query's ORDER BY
// leaves tied may come in any order: the rows are compared again sorted
// when they differ as returned.
func CompareAnswers(q int, a, b Answer) error {
	if len(a) != len(b) {
		return fmt.Errorf("Q%d: %d rows against %d", q, len(a), len(b))
	}
	err := compareRows(q, a, b)
	if err == nil {
		return nil
	}
	sa, sb := sortedAnswer(q, a), sortedAnswer(q, b)
	if compareRows(q, sa, sb) == nil {
		return nil
	}
	return err
}

func compareRows(q int, a, b Answer) error {
	kinds := queries[q].kinds
	for i := range a {
		if len(a[i]) != len(kinds) || len(b[i]) != len(kinds) {
			return fmt.Errorf("Q%d row %d: %d and %d columns, want %d", q, i+1, len(a[i]), len(b[i]), len(kinds))
		}
		for c := range kinds {
			if !sameValue(kinds[c], a[i][c], b[i][c]) {
				return fmt.Errorf("Q%d row %d column %d: %q against %q", q, i+1, c+1, a[i][c], b[i][c])
			}
		}
	}
	return nil
}

// sameValue compares two values of one column by its kind.
func sameValue(kind byte, x, y string) bool {
	fx, ex := strconv.ParseFloat(x, 64)
	fy, ey := strconv.ParseFloat(y, 64)
	if ex != nil || ey != nil {
		return x == y
	}
	switch kind {
	case 's':
		return math.Abs(fx-fy) <= 100
	case 'a':
		rx, ry := math.Round(fx*100)/100, math.Round(fy*100)/100
		return math.Abs(rx-ry) <= 0.01*math.Abs(rx)+1e-9
	}
	// Exact: equal as numbers, allowing for a float's last digit.
	return fx == fy || math.Abs(fx-fy) <= 1e-9*math.Max(math.Abs(fx), math.Abs(fy))
}

// sortedAnswer is a copy of a with its rows in a canonical order: by
// their exact columns (numbers in one form).
func sortedAnswer(q int, a Answer) Answer {
	kinds := queries[q].kinds
	key := func(row []string) []string {
		var k []string
		for c, v := range row {
			if c < len(kinds) && kinds[c] == 'e' {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					v = strconv.FormatFloat(f, 'g', -1, 64)
				}
				k = append(k, v)
			}
		}
		return k
	}
	s := slices.Clone(a)
	slices.SortStableFunc(s, func(x, y []string) int { return slices.Compare(key(x), key(y)) })
	return s
}
