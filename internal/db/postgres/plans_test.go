package postgres_test

import (
	"testing"

	"github.com/dbharness/dbharness/internal/db/postgres"
)

func TestTheNormalizerDropsEstimates(t *testing.T) {
	pg := `[{"Plan": {"Node Type": "Nested Loop", "Join Type": "Inner", "Startup Cost": 0.5, "Total Cost": 16.6, "Plan Rows": 1,
		"Plans": [{"Node Type": "Index Scan", "Parent Relationship": "Outer", "Scan Direction": "Forward", "Index Name": "a_pkey",
		"Relation Name": "a", "Alias": "x", "Index Cond": "(id = 5)", "Plan Rows": 1},
		{"Node Type": "Seq Scan", "Parent Relationship": "Inner", "Relation Name": "b", "Alias": "b", "Filter": "(v = 3)"}]}}]`
	got, err := postgres.NormalizePostgres([]byte(pg))
	if err != nil {
		t.Fatal(err)
	}
	want := "Nested Loop (join Inner) [Index Scan (on a, using a_pkey, Forward, as Outer, alias x); Seq Scan (on b, as Inner)]"
	if got != want {
		t.Errorf("postgres:\n got %s\nwant %s", got, want)
	}
}
