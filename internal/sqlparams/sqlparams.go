// Package sqlparams turns named parameters in SQL text (:name, as pgbench
// scripts and workload files write them) into numbered placeholders.
package sqlparams

import (
	"strconv"
	"strings"
)

// Number replaces :name parameters outside quotes, -- comments and
// PostgreSQL casts (::type) with $1, $2, ... (one per occurrence) and
// returns the names in order. A name starts with a letter, _ or a non-ASCII
// byte (pgbench allows those) and goes on with digits too; a colon right
// after an identifier (as in a:b) is left alone.
func Number(sql string) (string, []string) {
	var b strings.Builder
	var names []string
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(sql) && sql[j] != c {
				j++
			}
			if j >= len(sql) {
				j = len(sql) - 1
			}
			b.WriteString(sql[i : j+1])
			i = j
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i - 1
			}
			b.WriteString(sql[i : i+j+1])
			i += j
		case c == ':' && i+1 < len(sql) && sql[i+1] == ':':
			b.WriteString("::")
			i++
		case c == ':' && i+1 < len(sql) && nameStart(sql[i+1]) && (i == 0 || !nameByte(sql[i-1])):
			j := i + 1
			for j < len(sql) && nameByte(sql[j]) {
				j++
			}
			names = append(names, sql[i+1:j])
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(len(names)))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), names
}

func nameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func nameByte(c byte) bool { return nameStart(c) || c >= '0' && c <= '9' }
