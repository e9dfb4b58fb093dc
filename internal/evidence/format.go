package evidence

import "strconv"

// FormatBytes writes a byte count as PostgreSQL's SHOW does: the largest
// unit that divides it exactly ("128MB", "8kB").
func FormatBytes(b int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}} {
		if b != 0 && b%u.size == 0 {
			return strconv.FormatInt(b/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(b, 10) + "B"
}

// Int64Text writes n, or "-" for null.
func Int64Text(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

// PctText writes a percentage to one decimal, or "-" for null.
func PctText(f *float64) string {
	if f == nil {
		return "-"
	}
	return strconv.FormatFloat(*f, 'f', 1, 64) + "%"
}
