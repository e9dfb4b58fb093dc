package db

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Engine describes one database engine to the registry: what ParseURL and
// Open need to know of it. Each engine's package registers its Engine in
// init(); internal/db/all imports them all.
type Engine struct {
	Kind Kind
	// Schemes are the URL schemes that select the engine, the first the
	// one named in messages (postgres://).
	Schemes []string
	// Example is a URL of the engine's form, as messages show it:
	// "postgres://user@host:port/db".
	Example string
	// Order places the engine in messages that list the engines (lowest
	// first).
	Order int
	// Check, where set, checks a parsed URL and fills the engine's Target
	// fields (Path for a database file); its error is the sentence the user
	// sees.
	Check func(t *Target) error
	// Open returns a DB for the target without connecting.
	Open func(t *Target) (DB, error)
	// ParseOther, where set, recognises a --db value that is not a URL but
	// names one of the engine's targets all the same (libpq's key=value
	// string): ok is false for a value not of its form. Else u is the URL
	// the value stands for, to tell its host and port (Open reads the value
	// as given), or err the sentence that says what is wrong with it.
	ParseOther func(raw string) (u *url.URL, ok bool, err error)
	// FromEnv, where set, returns the target URL that the engine's own
	// environment variables name (libpq's PGHOST, PGDATABASE, ...) and the
	// names of those set, for when neither --db nor $DBHARNESS_DB is
	// given; raw is "" when none of them is set.
	FromEnv func() (raw, vars string, err error)
}

var (
	registryMu sync.RWMutex
	registry   []*Engine
)

// Register adds an engine. It panics on a kind or scheme registered twice,
// a programming error.
func Register(e Engine) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, r := range registry {
		if r.Kind == e.Kind {
			panic(fmt.Sprintf("db: engine %q registered twice", e.Kind))
		}
		for _, s := range e.Schemes {
			for _, rs := range r.Schemes {
				if strings.EqualFold(s, rs) {
					panic(fmt.Sprintf("db: scheme %q registered twice", s))
				}
			}
		}
	}
	registry = append(registry, &e)
	sort.SliceStable(registry, func(i, j int) bool { return registry[i].Order < registry[j].Order })
}

// engines returns the registered engines in their Order.
func engines() []Engine {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Engine, len(registry))
	for i, e := range registry {
		out[i] = *e
	}
	return out
}

func byKind(k Kind) *Engine {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, e := range registry {
		if e.Kind == k {
			return e
		}
	}
	return nil
}

func bySchemeName(scheme string) *Engine {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, e := range registry {
		for _, s := range e.Schemes {
			if strings.EqualFold(s, scheme) {
				return e
			}
		}
	}
	return nil
}

// orList joins items as "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return "a registered engine's URL (none is registered)"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// schemes lists each engine's first scheme: "postgres://, mysql:// or sqlite://".
func schemes() string {
	var s []string
	for _, e := range engines() {
		s = append(s, e.Schemes[0]+"://")
	}
	return orList(s)
}

// examples lists each engine's example URL.
func examples() string {
	var s []string
	for _, e := range engines() {
		s = append(s, e.Example)
	}
	return orList(s)
}
