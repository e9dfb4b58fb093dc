package results

import (
	"fmt"
	"strings"
)

// PlanDiff is how one statement's plans differ between two runs.
type PlanDiff struct {
	Statement string `json:"statement"`
	// OnlyA and OnlyB are the plans seen in one run only.
	OnlyA []PlanVariant `json:"only_a,omitempty"`
	OnlyB []PlanVariant `json:"only_b,omitempty"`
	// FlagsA and FlagsB are the statement's flags in each run, when they
	// differ.
	FlagsA []string `json:"flags_a"`
	FlagsB []string `json:"flags_b"`
	// GenericA and GenericB are the generic plans, when they differ (in
	// plan or in whether the plan cache chose it).
	GenericA *GenericPlan `json:"generic_a,omitempty"`
	GenericB *GenericPlan `json:"generic_b,omitempty"`
	// Missing is "a" or "b" when the statement was checked in one run only.
	Missing string `json:"missing,omitempty"`
}

// DiffPlans lists the statements whose plans differ between runs a and b
// (plans seen in one run only, different flags, statements checked in one
// run only), in a's statement order then b's. It returns nil when the plans
// are the same or a run has no plans.
func DiffPlans(a, b *Run) []PlanDiff {
	if a == nil || b == nil || len(a.Plans) == 0 || len(b.Plans) == 0 {
		return nil
	}
	byName := func(ps []StatementPlans) map[string]*StatementPlans {
		m := map[string]*StatementPlans{}
		for i := range ps {
			m[ps[i].Statement] = &ps[i]
		}
		return m
	}
	am, bm := byName(a.Plans), byName(b.Plans)
	var names []string
	seen := map[string]bool{}
	for _, ps := range [][]StatementPlans{a.Plans, b.Plans} {
		for _, p := range ps {
			if !seen[p.Statement] {
				seen[p.Statement] = true
				names = append(names, p.Statement)
			}
		}
	}
	var out []PlanDiff
	for _, n := range names {
		pa, pb := am[n], bm[n]
		d := PlanDiff{Statement: n}
		switch {
		case pa == nil:
			d.Missing = "a"
		case pb == nil:
			d.Missing = "b"
		default:
			fps := func(p *StatementPlans) map[string]bool {
				m := map[string]bool{}
				for _, v := range p.Plans {
					m[v.Fingerprint] = true
				}
				return m
			}
			fa, fb := fps(pa), fps(pb)
			for _, v := range pa.Plans {
				if !fb[v.Fingerprint] {
					d.OnlyA = append(d.OnlyA, v)
				}
			}
			for _, v := range pb.Plans {
				if !fa[v.Fingerprint] {
					d.OnlyB = append(d.OnlyB, v)
				}
			}
			if strings.Join(pa.Flags, ",") != strings.Join(pb.Flags, ",") {
				d.FlagsA, d.FlagsB = pa.Flags, pb.Flags
				if d.FlagsA == nil {
					d.FlagsA = []string{}
				}
				if d.FlagsB == nil {
					d.FlagsB = []string{}
				}
			}
			if ga, gb := pa.Generic, pb.Generic; ga != nil && gb != nil && (ga.Fingerprint != gb.Fingerprint || ga.Chosen != gb.Chosen) {
				d.GenericA, d.GenericB = ga, gb
			}
			if len(d.OnlyA) == 0 && len(d.OnlyB) == 0 && d.FlagsA == nil && d.GenericA == nil {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// Lines describes the difference in a few lines of text, for compare.
func (d PlanDiff) Lines() []string {
	switch d.Missing {
	case "a":
		return []string{d.Statement + ": only checked in run B"}
	case "b":
		return []string{d.Statement + ": only checked in run A"}
	}
	var out []string
	for _, v := range d.OnlyA {
		out = append(out, fmt.Sprintf("%s: plan %s only in run A (%d of its draws): %s", d.Statement, v.Fingerprint, v.Count, v.Shape))
	}
	for _, v := range d.OnlyB {
		out = append(out, fmt.Sprintf("%s: plan %s only in run B (%d of its draws): %s", d.Statement, v.Fingerprint, v.Count, v.Shape))
	}
	if d.FlagsA != nil {
		f := func(s []string) string {
			if len(s) == 0 {
				return "none"
			}
			return strings.Join(s, ", ")
		}
		out = append(out, fmt.Sprintf("%s: flags %s in run A, %s in run B", d.Statement, f(d.FlagsA), f(d.FlagsB)))
	}
	if d.GenericA != nil {
		g := func(p *GenericPlan) string {
			if p.Chosen {
				return p.Fingerprint + " (chosen)"
			}
			return p.Fingerprint + " (not chosen)"
		}
		out = append(out, fmt.Sprintf("%s: generic plan %s in run A, %s in run B: %s", d.Statement, g(d.GenericA), g(d.GenericB), d.GenericB.Shape))
	}
	return out
}
