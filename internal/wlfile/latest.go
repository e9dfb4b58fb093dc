package wlfile

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"

	"gopkg.in/yaml.v3"

	"github.com/dbharness/dbharness/internal/datagen"
)

// seqState is a sequence parameter's run-time counter, one for all the
// clients of a run (of one process), and, when a latest parameter follows
// it, which of the values it gave have been used: value i (start +
// step·i) counts once the transaction that drew it has ended.
type seqState struct {
	next atomic.Int64 // values given so far
	// tracked is set when a latest parameter follows the sequence; Done
	// does nothing otherwise.
	tracked bool
	// ended is the number of values 0..ended-1 whose transactions have
	// all ended; ahead holds the ended values above it.
	ended atomic.Int64
	mu    sync.Mutex
	ahead map[int64]bool
}

// done marks value i's transaction ended.
func (s *seqState) done(i int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.ended.Load()
	if i < e {
		return
	}
	if i > e {
		if s.ahead == nil {
			s.ahead = map[int64]bool{}
		}
		s.ahead[i] = true
		return
	}
	for e++; s.ahead[e]; e++ {
		delete(s.ahead, e)
	}
	s.ended.Store(e)
}

// latestState is a latest parameter: values of a sequence parameter,
// the most recent most often.
type latestState struct {
	ref     string     // the sequence parameter: NAME or TRANSACTION.NAME
	refNode *yaml.Node // where ref is written
	what    string
	of      *Gen // the sequence, once resolved
	min     int64
	exp     float64
	// z is the Zipf distribution of ranks over the values there were at
	// the last draw; replaced when their number grows.
	z atomic.Pointer[datagen.Zipf]
}

// latest: zipf over recency of the values a sequence parameter has given.

func parseLatest(a *genArgs) error {
	g, o := a.g, a.o
	if err := a.only(); err != nil {
		return err
	}
	if err := a.makes("integers", cInt); err != nil {
		return err
	}
	if o.has("distinct") {
		return a.p.errf(o.keys["distinct"], "%s: gen latest takes no distinct; its values are the sequence's", a.what)
	}
	if err := a.need("sequence"); err != nil {
		return err
	}
	ref, err := a.p.str(o, "sequence", a.what, true)
	if err != nil {
		return err
	}
	l := &latestState{ref: ref, refNode: o.fields["sequence"], what: a.what}
	if l.min, err = a.integer("min", 1); err != nil {
		return err
	}
	if l.exp, err = a.p.bounded(o, "exponent", a.what, a.scale, 1, positive); err != nil {
		return err
	}
	g.latest = l
	g.Desc = fmt.Sprintf("latest of %s from %d, zipf over recency, exponent %g", ref, l.min, l.exp)
	a.p.latests = append(a.p.latests, l)
	return nil
}

// resolveLatest finds the sequence parameter each latest parameter
// follows: a top-level parameter by its name, a transaction's as
// TRANSACTION.NAME.
func (p *parser) resolveLatest(s *Spec) error {
	for _, l := range p.latests {
		var params []*Param
		name := l.ref
		where := "the top-level params"
		if tn, pn, ok := strings.Cut(l.ref, "."); ok {
			name = pn
			where = "transaction " + tn + "'s params"
			found := false
			for _, x := range s.Transactions {
				if x.Name == tn {
					params, found = x.Params, true
				}
			}
			if !found {
				return p.errf(l.refNode, "%s: sequence %s: there is no transaction %q", l.what, l.ref, tn)
			}
		} else {
			params = s.Params
		}
		var of *Gen
		for _, q := range params {
			if q.Name == name {
				of = q.Gen
			}
		}
		switch {
		case of == nil:
			return p.errf(l.refNode, "%s: sequence %s: there is no parameter %q in %s; write NAME for a top-level parameter, TRANSACTION.NAME for a transaction's", l.what, l.ref, name, where)
		case of.seq == nil:
			return p.errf(l.refNode, "%s: sequence %s is gen %s; expected a parameter with gen: sequence", l.what, l.ref, of.Kind)
		case of.seqStep <= 0:
			return p.errf(l.refNode, "%s: sequence %s counts down (step %d); latest follows a sequence with a step above 0", l.what, l.ref, of.seqStep)
		case of.After == nil && l.min > of.seqStart-of.seqStep:
			return p.errf(l.refNode, "%s: min %d is above the last value before the run (%s's start - step = %d); expected min at most %d", l.what, l.min, l.ref, of.seqStart-of.seqStep, of.seqStart-of.seqStep)
		}
		of.seq.tracked = true
		l.of = of
	}
	return nil
}

// drawLatest draws one of the values min, ..., top of the sequence, top
// its latest value whose transaction has ended (before any, start - step,
// with after: the column's largest value when the run started): rank k = 1, 2, ... (top, top - step, ...) with probability
// proportional to 1/k^exponent.
func drawLatest(g *Gen, _ *genCtx, r *rand.Rand, _ int64) any {
	l, s := g.latest, g.latest.of
	top := s.seqStart + s.seqStep*(s.seq.ended.Load()-1)
	if top < l.min { // nothing yet (an empty table before a sequence with after:)
		return top
	}
	n := (top-l.min)/s.seqStep + 1
	z := l.z.Load()
	if z == nil || z.Max() != n {
		var err error
		if z, err = datagen.NewZipf(1, n, l.exp); err != nil {
			return top
		}
		l.z.Store(z)
	}
	return top - s.seqStep*(z.Int64(r)-1)
}
