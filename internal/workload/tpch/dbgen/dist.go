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
	// at maps a draw (1..total) to its member when the total is small,
	// which it is for every list but those with negative weights.
	at []uint16
}

func newDist(ms []member) *dist {
	d := &dist{words: make([]string, len(ms)), cum: make([]int64, len(ms))}
	var sum int64
	for i, m := range ms {
		sum += m.weight
		d.words[i], d.cum[i] = m.text, sum
	}
	if sum > 0 && sum <= 1<<16 {
		d.at = make([]uint16, sum+1)
		i := 0
		for j := int64(1); j <= sum; j++ {
			for d.cum[i] < j {
				i++
			}
			d.at[j] = uint16(i)
		}
	}
	return d
}

func (d *dist) pick(s *stream) int {
	j := s.next(1, d.cum[len(d.cum)-1])
	if d.at != nil {
		return int(d.at[j])
	}
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
