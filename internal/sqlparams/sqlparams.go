// Package sqlparams turns named parameters in SQL text (:name, as pgbench
// scripts and workload files write them) into numbered placeholders.
package sqlparams

import (
	"strconv"
	"strings"
)

// Ref is one :name parameter in SQL text: the name and the byte offset of
// its colon.
type Ref struct {
	Name string
	Pos  int
}

// Find returns the :name parameters of sql, in order, one per occurrence:
// those outside quotes (dollar quotes too), -- comments and PostgreSQL
// casts (::type). A name starts with a letter, _ or a non-ASCII byte
// (pgbench allows those) and goes on with digits too; a colon right after
// an identifier (as in a:b) is not a parameter.
func Find(sql string) []Ref {
	var refs []Ref
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(sql) && sql[j] != c {
				j++
			}
			i = j
		case c == '$' && (i == 0 || !nameByte(sql[i-1])) && DollarTag(sql[i:]) != "":
			// A dollar-quoted string: $$...$$ or $tag$...$tag$.
			tag := DollarTag(sql[i:])
			j := strings.Index(sql[i+len(tag):], tag)
			if j < 0 {
				return refs
			}
			i += len(tag) + j + len(tag) - 1
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return refs
			}
			i += j
		case c == ':' && i+1 < len(sql) && sql[i+1] == ':':
			i++
		case c == ':' && i+1 < len(sql) && nameStart(sql[i+1]) && (i == 0 || !nameByte(sql[i-1])):
			j := i + 1
			for j < len(sql) && nameByte(sql[j]) {
				j++
			}
			refs = append(refs, Ref{Name: sql[i+1 : j], Pos: i})
			i = j - 1
		}
	}
	return refs
}

// Number replaces the parameters Find finds with $1, $2, ... (one per
// occurrence) and returns their names in order.
func Number(sql string) (string, []string) {
	refs := Find(sql)
	if len(refs) == 0 {
		return sql, nil
	}
	var b strings.Builder
	names := make([]string, len(refs))
	last := 0
	for i, r := range refs {
		b.WriteString(sql[last:r.Pos])
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(i + 1))
		names[i] = r.Name
		last = r.Pos + 1 + len(r.Name)
	}
	b.WriteString(sql[last:])
	return b.String(), names
}

func nameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func nameByte(c byte) bool { return nameStart(c) || c >= '0' && c <= '9' }

// DollarTag returns the $tag$ (or $$) opening a dollar-quoted string at the
// start of s, or "": a tag is an identifier that does not start with a
// digit, so $1 is not one.
func DollarTag(s string) string {
	if s == "" || s[0] != '$' {
		return ""
	}
	for j := 1; j < len(s); j++ {
		switch {
		case s[j] == '$':
			return s[:j+1]
		case !nameStart(s[j]) && !(j > 1 && s[j] >= '0' && s[j] <= '9'):
			return ""
		}
	}
	return ""
}
