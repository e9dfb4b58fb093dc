package results

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDiffPlansListsPlansSeenInOneRunOnly(t *testing.T) {
	v := func(fp string) PlanVariant {
		return PlanVariant{Fingerprint: fp, Shape: "shape " + fp, Count: 1}
	}
	a := &Run{Plans: []StatementPlans{
		{Statement: "s1", Plans: []PlanVariant{v("aa")}},
		{Statement: "s2", Plans: []PlanVariant{v("cc")}},
		{Statement: "s3", Plans: []PlanVariant{v("dd")}},
	}}
	b := &Run{Plans: []StatementPlans{
		{Statement: "s1", Plans: []PlanVariant{v("aa"), v("bb")}, Flags: []string{"parameter-sensitive"}},
		{Statement: "s2", Plans: []PlanVariant{v("cc")}},
	}}
	ds := DiffPlans(a, b)
	if len(ds) != 2 || ds[0].Statement != "s1" || ds[1].Statement != "s3" || ds[1].Missing != "b" {
		t.Fatalf("diffs: %+v", ds)
	}
	if len(ds[0].OnlyA) != 0 || len(ds[0].OnlyB) != 1 || ds[0].OnlyB[0].Fingerprint != "bb" || len(ds[0].FlagsB) != 1 {
		t.Fatalf("s1: %+v", ds[0])
	}
	text := strings.Join(ds[0].Lines(), "\n")
	if !strings.Contains(text, "plan bb only in run B") || !strings.Contains(text, "flags none in run A, parameter-sensitive in run B") {
		t.Errorf("lines: %s", text)
	}
	if DiffPlans(a, a) != nil {
		t.Errorf("a run differs from itself")
	}
	// The same plans, but the plan cache chose the generic plan in B only.
	a.Plans[1].Generic = &GenericPlan{Fingerprint: "gg", Shape: "generic"}
	b.Plans[1].Generic = &GenericPlan{Fingerprint: "gg", Shape: "generic", Chosen: true}
	ds = DiffPlans(a, b)
	if len(ds) != 3 || ds[1].Statement != "s2" || ds[1].GenericB == nil {
		t.Fatalf("diffs: %+v", ds)
	}
	if text := strings.Join(ds[1].Lines(), "\n"); !strings.Contains(text, "generic plan gg (not chosen) in run A, gg (chosen) in run B") {
		t.Errorf("lines: %s", text)
	}
	// Read back from JSON (a compare --json file), the lines are the same.
	js, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	var back []PlanDiff
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	for i := range ds {
		if got, want := strings.Join(back[i].Lines(), "\n"), strings.Join(ds[i].Lines(), "\n"); got != want {
			t.Errorf("after JSON:\n%s\nwant\n%s", got, want)
		}
	}
}
