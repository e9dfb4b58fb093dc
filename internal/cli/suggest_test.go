package cli

import "testing"

func TestSuggestAName(t *testing.T) {
	names := []string{"db", "duration", "tpcb", "tpcc", "clients", "limit"}
	for _, c := range []struct{ typed, want string }{
		{"duraton", "duration"}, {"tpbc", "tpcb"}, {"tpccc", "tpcc"}, {"limt", "limit"},
		{"dura", "duration"}, {"dur", "duration"}, {"tpc", ""}, {"nosuch", ""}, {"d", ""}, {"db", ""}, {"x", ""},
	} {
		if got := suggest(c.typed, names); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
	if d := editDistance("dur", "db"); d != 2 {
		t.Errorf("editDistance(dur, db) = %d", d)
	}
}
