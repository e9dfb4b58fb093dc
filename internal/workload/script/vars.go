package script

import (
	"fmt"
	"slices"
	"strings"
)

// builtins are the variables every client starts with, as in pgbench.
var builtins = []string{"scale", "client_id", "random_seed", "default_seed"}

// assignments is what the scripts of a run set.
type assignments struct {
	// sets are the \set commands of each variable.
	sets map[string][]*Command
	// fetched are the variables \gset and \aset set, by name.
	fetched map[string]bool
	// anyWith are the prefixes of \gset and \aset commands whose columns
	// the text does not name (SELECT *, say): any variable with one of
	// them may be set.
	anyWith []string
}

// assigned collects what the scripts set; a client's variables live from
// one script run to the next, so a variable set in one script may be read
// in another.
func assigned(scripts []*Script) *assignments {
	a := &assignments{sets: map[string][]*Command{}, fetched: map[string]bool{}}
	for _, s := range scripts {
		for _, c := range s.Commands {
			switch {
			case c.kind == cSet:
				a.sets[c.name] = append(a.sets[c.name], c)
			case c.gset || c.aset:
				for _, part := range c.fetchedParts() {
					cols, ok := outputNames(part)
					if !ok {
						a.anyWith = append(a.anyWith, c.prefix)
					}
					for _, col := range cols {
						a.fetched[c.prefix+col] = true
					}
				}
			}
		}
	}
	return a
}

// mayFetch reports whether a \gset or \aset may set name.
func (a *assignments) mayFetch(name string) bool {
	if a.fetched[name] {
		return true
	}
	for _, p := range a.anyWith {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// mayBeSet reports whether a script (\set, \gset, \aset), -D or pgbench's
// built-ins may set name.
func (a *assignments) mayBeSet(name string, defines map[string]string) bool {
	_, defined := defines[name]
	return defined || slices.Contains(builtins, name) || len(a.sets[name]) > 0 || a.mayFetch(name)
}

// checkVariables reports the first variable a script reads that nothing
// sets: pgbench would abort the client (\set, \if, \sleep) or send the
// statement without a value, so every run of the script would fail.
func checkVariables(scripts []*Script, defines map[string]string) error {
	a := assigned(scripts)
	for _, s := range scripts {
		for _, c := range s.Commands {
			for _, u := range c.uses {
				if a.mayBeSet(u.name, defines) {
					continue
				}
				return &ParseError{File: s.File, Line: u.at.line, Col: u.at.col, Msg: fmt.Sprintf(
					"undefined variable :%s: no \\set, \\gset or \\aset of the scripts sets it and no -D %s=VALUE is given "+
						"(built-in: :scale, :client_id, :random_seed, :default_seed)", u.name, u.name)}
			}
		}
	}
	return nil
}
