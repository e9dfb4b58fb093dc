package results

import "testing"

func TestAPlanCheckThatFailedAfterTheRunIsToldApart(t *testing.T) {
	ok := StatementPlans{Statement: "a"}
	lost := StatementPlans{Statement: "b", Error: AfterRun + "could not connect: refused"}
	before := StatementPlans{Statement: "c", Error: "syntax error"}
	other := StatementPlans{Statement: "d", Error: AfterRun + "timeout"}
	for _, c := range []struct {
		plans []StatementPlans
		want  string
	}{
		{[]StatementPlans{lost, lost, before}, "could not connect: refused"},
		{[]StatementPlans{lost, ok}, ""},
		{[]StatementPlans{lost, other}, ""},
		{[]StatementPlans{before}, ""},
	} {
		if got := PlansAfterFailed(c.plans); got != c.want {
			t.Errorf("%+v: %q, want %q", c.plans, got, c.want)
		}
	}
}
