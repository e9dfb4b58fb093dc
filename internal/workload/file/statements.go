package file

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/dbharness/dbharness/internal/datagen"
	"github.com/dbharness/dbharness/internal/wlfile"
	"github.com/dbharness/dbharness/internal/workload"
)

// domainDraws is how many values of a parameter's generator the plan check
// draws to find its lowest, median and highest value.
const domainDraws = 2001

// Statements implements workload.Statementer: every statement whose
// parameters all come from generators (the transaction's or the file's),
// named TRANSACTION.N (N counts the transaction's statements from 1), with
// each parameter's lowest, median and highest value among 2,001 draws and
// random draws made as the clients make them. A statement that uses a
// value returned by an earlier statement is left out, since its values
// exist only inside a running transaction; so is a parameter that is NULL
// in every draw. A parameter used twice in one statement has one value.
func (w *Workload) Statements() []workload.Statement {
	dr := wlfile.NewDrawer(w.dataSeed)
	rng := datagen.NewRand(w.seed, 1<<41, 0)
	type domain struct {
		lo, med, hi any
		sample      func(*rand.Rand) any
		ok          bool
	}
	domains := map[*wlfile.Param]*domain{}
	domainOf := func(p *wlfile.Param) *domain {
		if d, ok := domains[p]; ok {
			return d
		}
		d := &domain{}
		d.lo, d.med, d.hi, d.sample, d.ok = dr.Domain(p.Gen, rng, domainDraws)
		domains[p] = d
		return d
	}
	var out []workload.Statement
	for _, x := range w.spec.Transactions {
		byName := map[string]*wlfile.Param{}
		for _, p := range w.spec.Params {
			byName[strings.ToLower(p.Name)] = p
		}
		for _, p := range x.Params {
			byName[strings.ToLower(p.Name)] = p
		}
	stmts:
		for si, s := range x.Statements {
			st := workload.Statement{Name: fmt.Sprintf("%s.%d", x.Name, si+1), SQL: s.Text}
			first := map[string]int{}
			for ai, a := range s.Args {
				key := strings.ToLower(a)
				if j, ok := first[key]; ok {
					st.Params = append(st.Params, workload.ParamDomain{Name: a, Derive: func(e []any) any { return e[j] }})
					continue
				}
				p := byName[key]
				if p == nil {
					continue stmts // a value from an earlier statement
				}
				d := domainOf(p)
				if !d.ok {
					continue stmts
				}
				first[key] = ai
				st.Params = append(st.Params, workload.ParamDomain{Name: a, Min: d.lo, Median: d.med, Max: d.hi, Sample: d.sample})
			}
			out = append(out, st)
		}
	}
	return out
}
