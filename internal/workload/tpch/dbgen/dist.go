package dbgen

import "sync"

// member is one entry of a distribution: a word and its weight.
type member struct {
	text   string
	weight int64
}

// dist is a distribution with its cumulative weights, from which pick
// draws as dbgen's pick_str does: a number in 1..total, and the first
// member whose cumulative weight reaches it.
type dist struct {
	words []string
	cum   []int64
}

func newDist(ms []member) *dist {
	d := &dist{words: make([]string, len(ms)), cum: make([]int64, len(ms))}
	var sum int64
	for i, m := range ms {
		sum += m.weight
		d.words[i], d.cum[i] = m.text, sum
	}
	return d
}

func (d *dist) pick(s *stream) int {
	j := s.next(1, d.cum[len(d.cum)-1])
	i := 0
	for d.cum[i] < j {
		i++
	}
	return i
}

var (
	distOnce sync.Once
	dists    map[string]*dist
)

func getDist(name string) *dist {
	distOnce.Do(func() {
		dists = make(map[string]*dist, len(distData))
		for n, ms := range distData {
			dists[n] = newDist(ms)
		}
	})
	return dists[name]
}

// Distribution returns a copy of the named distribution of clause 4.2.2.13
// (dbgen's dists.dss): its members in order and their weights as listed
// (not cumulative). For "nations" the weights are the differences between
// successive nations' region keys, as dbgen stores them. ok is false for an
// unknown name. Query substitution parameters draw from these lists.
func Distribution(name string) (words []string, weights []int64, ok bool) {
	ms, ok := distData[name]
	if !ok {
		return nil, nil, false
	}
	for _, m := range ms {
		words = append(words, m.text)
		weights = append(weights, m.weight)
	}
	return words, weights, true
}
