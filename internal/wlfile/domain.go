package wlfile

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// Domain describes the run-time values of a parameter's generator for the
// plan check: the lowest, median and highest of n draws (NULLs left out)
// and a sampler that draws as the clients do. A sequence gives its start
// without advancing the counter the clients share; the sampler then
// returns the start too. ok is false when every draw was NULL.
func (d *Drawer) Domain(g *Gen, r *rand.Rand, n int) (lo, med, hi any, sample func(*rand.Rand) any, ok bool) {
	if g.Kind == "sequence" && g.dint == nil && g.shape == nil {
		v := g.seqStart
		return v, v, v, func(*rand.Rand) any { return v }, true
	}
	vals := make([]any, 0, n)
	for range n {
		if v := d.Draw(g, r); v != nil {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil, nil, nil, nil, false
	}
	sort.SliceStable(vals, func(i, j int) bool { return less(vals[i], vals[j]) })
	return vals[0], vals[len(vals)/2], vals[len(vals)-1], func(r *rand.Rand) any { return d.Draw(g, r) }, true
}

// less orders two values of one generator: numbers by value, times in
// time order, anything else by its text.
func less(a, b any) bool {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return x < y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x < y
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Before(y)
		}
	case string:
		if y, ok := b.(string); ok {
			return x < y
		}
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}
