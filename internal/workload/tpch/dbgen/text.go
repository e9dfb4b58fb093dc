package dbgen

import (
	"strings"
	"sync"
	"unsafe"
)

// The text columns (comments) are substrings of one pool of pseudo-English
// sentences built once from a grammar (clause 4.2.2.10): a sentence is a
// noun phrase, a verb phrase, maybe a prepositional phrase or another noun
// phrase, and a terminator; the words come from the weighted lists of
// clause 4.2.2.13. A comment of average length L is the pool's text at a
// random offset, of a random length in [0.4 L, 1.6 L].

// poolSize is the pool's length in bytes (dbgen 2.x: 300 MiB).
const poolSize = 300 * 1024 * 1024

// seedTextPool is the seed of the stream the pool is built from.
const seedTextPool = 933588178

var (
	poolOnce sync.Once
	pool     []byte
)

// textPool returns the pool, building it on first use (a few seconds).
func textPool() []byte {
	poolOnce.Do(func() { pool = buildPool(poolSize) })
	return pool
}

type grammar struct {
	grammar, np, vp                                *dist
	nouns, verbs, adjectives, adverbs, auxiliaries *dist
	articles, prepositions, terminators            *dist
	grammarTok, npTok, vpTok                       [][]string
}

func tokens(d *dist) [][]string {
	out := make([][]string, len(d.words))
	for i, w := range d.words {
		out[i] = strings.Fields(w)
	}
	return out
}

// buildPool builds the pool. It and the functions it calls are left out of
// the race detector's instrumentation (go:norace): they touch only memory of
// their own, and instrumented they take minutes instead of seconds.
//
//go:norace
func buildPool(size int) []byte {
	g := &grammar{
		grammar: getDist("grammar"), np: getDist("np"), vp: getDist("vp"),
		nouns: getDist("nouns"), verbs: getDist("verbs"), adjectives: getDist("adjectives"),
		adverbs: getDist("adverbs"), auxiliaries: getDist("auxillaries"),
		articles: getDist("articles"), prepositions: getDist("prepositions"),
		terminators: getDist("terminators"),
	}
	g.grammarTok, g.npTok, g.vpTok = tokens(g.grammar), tokens(g.np), tokens(g.vp)
	s := stream{seed: seedTextPool}
	out := make([]byte, 0, size)
	var sent []byte
	for len(out) < size {
		sent = g.sentence(sent[:0], &s)
		need := size - len(out)
		if need >= len(sent)+1 {
			out = append(out, sent...)
			out = append(out, ' ')
		} else {
			out = append(out, sent[:need]...)
		}
	}
	return out
}

// phrase appends a noun or verb phrase: each part of speech's word, its
// punctuation if the form has one, and a space.
//
//go:norace
func (g *grammar) phrase(b []byte, s *stream, forms *dist, toks [][]string) []byte {
	for _, t := range toks[forms.pick(s)] {
		var src *dist
		switch t[0] {
		case 'A':
			src = g.articles
		case 'J':
			src = g.adjectives
		case 'D':
			src = g.adverbs
		case 'N':
			src = g.nouns
		case 'V':
			src = g.verbs
		case 'X':
			src = g.auxiliaries
		}
		b = append(b, src.words[src.pick(s)]...)
		if len(t) > 1 {
			b = append(b, t[1])
		}
		b = append(b, ' ')
	}
	return b
}

// sentence appends one sentence, without a trailing space.
//
//go:norace
func (g *grammar) sentence(b []byte, s *stream) []byte {
	for _, t := range g.grammarTok[g.grammar.pick(s)] {
		switch t[0] {
		case 'V':
			b = g.phrase(b, s, g.vp, g.vpTok)
		case 'N':
			b = g.phrase(b, s, g.np, g.npTok)
		case 'P':
			b = append(b, g.prepositions.words[g.prepositions.pick(s)]...)
			b = append(b, " the "...)
			b = g.phrase(b, s, g.np, g.npTok)
		case 'T':
			// The terminator takes the place of the last space.
			b = append(b[:len(b)-1], g.terminators.words[g.terminators.pick(s)]...)
		}
	}
	return b
}

// text draws a comment of length in [lo, hi] from the pool: the offset
// first, then the length, as dbgen does.
func text(s *stream, lo, hi int64) string {
	p := textPool()
	off := s.next(0, poolSize-hi)
	n := s.next(lo, hi)
	// The pool never changes once built, so the comment can share its bytes.
	return unsafe.String(&p[off], int(n))
}
