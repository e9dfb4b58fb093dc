package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dbharness/dbharness/internal/workload"
)

// suggest is the one name of names that typed is probably a typo of, or
// "": the nearest by edit distance (letters added, dropped, changed or
// swapped with their neighbour), when it is within 1 for names of 2 to 4
// letters and 2 for longer ones, and no other name is as near (or, among
// those as near, only it has typed's letters, as a swap keeps them); else
// the one name that typed, of 3 letters or more, begins.
func suggest(typed string, names []string) string {
	if typed == "" {
		return ""
	}
	limit := 2
	if len([]rune(typed)) <= 4 {
		limit = min(1, len([]rune(typed))-1)
	}
	var nearest []string
	bestD := limit
	for _, n := range names {
		if n == typed {
			return ""
		}
		switch d := editDistance(typed, n); {
		case d < bestD || d == bestD && nearest == nil:
			nearest, bestD = []string{n}, d
		case d == bestD:
			nearest = append(nearest, n)
		}
	}
	if len(nearest) > 1 {
		var same []string
		for _, n := range nearest {
			if sortedLetters(n) == sortedLetters(typed) {
				same = append(same, n)
			}
		}
		nearest = same
	}
	if len(nearest) == 1 {
		return nearest[0]
	}
	if len(typed) < 3 {
		return ""
	}
	prefixed := ""
	for _, n := range names {
		if strings.HasPrefix(n, typed) {
			if prefixed != "" {
				return ""
			}
			prefixed = n
		}
	}
	return prefixed
}

// sortedLetters is s with its letters in order.
func sortedLetters(s string) string {
	r := []rune(s)
	slices.Sort(r)
	return string(r)
}

// editDistance is the number of letters to add, drop or change, or pairs
// of neighbours to swap, that turn a into b (the optimal string alignment
// distance).
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}

// didYouMean is " (did you mean X?)" when typed is probably a typo of X
// in names, else "".
func didYouMean(typed, prefix string, names []string) string {
	if s := suggest(typed, names); s != "" {
		return " (did you mean " + prefix + s + "?)"
	}
	return ""
}

// flagSuggestion is, for pflag's error about an unknown long flag of fs,
// the flag the user probably meant, as didYouMean says it.
func flagSuggestion(err error, fs *pflag.FlagSet) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok || fs == nil {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return didYouMean(name, "--", names)
}

// commandSuggestion is the command that an unknown one is probably a
// typo of, as didYouMean says it.
func commandSuggestion(name string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return didYouMean(name, "", names)
}

// unknownWorkload adds to workload.New's error about a name it does not
// know the registered workload the user probably meant.
func unknownWorkload(name string, err error) error {
	if !errors.Is(err, workload.ErrUnknown) {
		return usageError{err.Error()}
	}
	if s := didYouMean(name, "", workload.Names()); s != "" {
		return usagef("unknown workload %q%s; `dbharness workloads` lists them", name, s)
	}
	return usageError{err.Error()}
}
