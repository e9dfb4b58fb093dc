package results

import "sort"

// SortedClasses returns the error classes of m (a run's or an interval's
// ErrorClasses) by descending count, ties by name.
func SortedClasses(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
