package script

import (
	"strings"

	"github.com/dbharness/dbharness/internal/sqlparams"
)

// sqlTok is a token of SQL text, as outputNames needs it.
type sqlTok struct {
	text   string // an unquoted identifier folded to lower case, as PostgreSQL folds it
	ident  bool   // an identifier or keyword, quoted or not
	quoted bool
	// depth counts the parentheses and brackets around the token; an
	// opening or closing one has the depth outside it.
	depth int
}

// kw reports whether t is the unquoted keyword k.
func (t sqlTok) kw(k string) bool { return t.ident && !t.quoted && t.text == k }

// sqlTokens splits SQL into identifiers, strings, numbers and punctuation,
// skipping comments.
func sqlTokens(sql string) []sqlTok {
	var out []sqlTok
	depth := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case isBlank(c):
			i++
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return out
			}
			i += j
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 4
		case c == '\'':
			// E'...' strings escape with a backslash.
			esc := len(out) > 0 && out[len(out)-1].kw("e") && i > 0 && !isBlank(sql[i-1])
			j := i + 1
			for j < len(sql) {
				if esc && sql[j] == '\\' {
					j += 2
					continue
				}
				if sql[j] == '\'' {
					if j+1 < len(sql) && sql[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(sql))
			out = append(out, sqlTok{text: sql[i:j], depth: depth})
			i = j
		case c == '"':
			j := i + 1
			for j < len(sql) && (sql[j] != '"' || j+1 < len(sql) && sql[j+1] == '"') {
				if sql[j] == '"' {
					j++
				}
				j++
			}
			name := strings.ReplaceAll(sql[i+1:min(j, len(sql))], `""`, `"`)
			out = append(out, sqlTok{text: name, ident: true, quoted: true, depth: depth})
			i = min(j+1, len(sql))
		case c == '$' && sqlparams.DollarTag(sql[i:]) != "":
			tag := sqlparams.DollarTag(sql[i:])
			j := strings.Index(sql[i+len(tag):], tag)
			end := len(sql)
			if j >= 0 {
				end = i + len(tag) + j + len(tag)
			}
			out = append(out, sqlTok{text: sql[i:end], depth: depth})
			i = end
		case identStart(c):
			j := i + 1
			for j < len(sql) && (identStart(sql[j]) || sql[j] >= '0' && sql[j] <= '9' || sql[j] == '$') {
				j++
			}
			out = append(out, sqlTok{text: strings.ToLower(sql[i:j]), ident: true, depth: depth})
			i = j
		case c == '(' || c == '[':
			out = append(out, sqlTok{text: string(c), depth: depth})
			depth++
			i++
		case c == ')' || c == ']':
			depth = max(depth-1, 0)
			out = append(out, sqlTok{text: string(c), depth: depth})
			i++
		case c == ':' && i+1 < len(sql) && sql[i+1] == ':':
			out = append(out, sqlTok{text: "::", depth: depth})
			i += 2
		case c == ':' && i+1 < len(sql) && identStart(sql[i+1]):
			// A script variable: a value.
			j := i + 1
			for j < len(sql) && (identStart(sql[j]) || sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			out = append(out, sqlTok{text: sql[i:j], depth: depth})
			i = j
		default:
			out = append(out, sqlTok{text: string(c), depth: depth})
			i++
		}
	}
	return out
}

func identStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// listEnd are the keywords that end a SELECT list.
var listEnd = map[string]bool{"from": true, "into": true, "where": true, "group": true, "having": true, "window": true,
	"order": true, "limit": true, "offset": true, "fetch": true, "for": true, "union": true, "intersect": true, "except": true}

// outputNames returns the names of the columns an SQL command returns, as
// PostgreSQL names them, for the variables \gset and \aset set. ok is false
// when the text does not say them plainly: SELECT *, an expression without
// an alias, a statement that is not a SELECT, SHOW or ...RETURNING.
// Statements that return no rows (INSERT, UPDATE, DELETE without
// RETURNING) have no names and ok is true.
func outputNames(sql string) (names []string, ok bool) {
	toks := sqlTokens(sql)
	if len(toks) == 0 {
		return nil, false
	}
	for i, t := range toks {
		if t.depth == 0 && t.kw("returning") {
			return listNames(toks[i+1:])
		}
	}
	switch first := toks[0]; {
	case first.kw("show"):
		if len(toks) == 2 && toks[1].ident && !toks[1].kw("all") {
			return []string{toks[1].text}, true
		}
		return nil, false
	case first.kw("insert") || first.kw("update") || first.kw("delete"):
		return nil, true
	}
	for i, t := range toks {
		if t.depth != 0 || !t.kw("select") {
			continue
		}
		rest := toks[i+1:]
		switch {
		case len(rest) > 0 && rest[0].kw("all"):
			rest = rest[1:]
		case len(rest) > 0 && rest[0].kw("distinct"):
			rest = rest[1:]
			if len(rest) > 1 && rest[0].kw("on") && rest[1].text == "(" {
				j := 2
				for j < len(rest) && (rest[j].depth > 0 || rest[j].text != ")") {
					j++
				}
				rest = rest[min(j+1, len(rest)):]
			}
		}
		end := 0
		for end < len(rest) && !(rest[end].depth == 0 && rest[end].ident && !rest[end].quoted && listEnd[rest[end].text]) {
			end++
		}
		return listNames(rest[:end])
	}
	return nil, false
}

// listNames names the items of a SELECT or RETURNING list.
func listNames(toks []sqlTok) ([]string, bool) {
	var names []string
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && (toks[i].depth != 0 || toks[i].text != ",") {
			continue
		}
		name, ok := itemName(toks[start:i])
		if !ok {
			return nil, false
		}
		names = append(names, name)
		start = i + 1
	}
	return names, true
}

// itemName names one item of a select list: its alias, or the column or
// function it is. Other expressions (PostgreSQL calls them ?column?, or
// names a cast by its type) are not named.
func itemName(item []sqlTok) (string, bool) {
	n := len(item)
	switch {
	case n == 1 && !item[0].ident && item[0].text != "" && strings.IndexByte("0123456789.':", item[0].text[0]) >= 0 && item[0].text != "::":
		// A constant or a variable's value alone.
		return "?column?", true
	case n >= 3 && item[n-2].kw("as") && item[n-1].ident:
		return item[n-1].text, true
	case n >= 2 && item[n-1].ident:
		// expr alias, without AS
		if _, ok := plainName(item[:n-1]); ok && !item[n-1].kw("as") {
			return item[n-1].text, true
		}
	}
	return plainName(item)
}

// notNames are keywords that stand alone as values rather than columns.
var notNames = map[string]bool{"null": true, "true": true, "false": true, "user": true, "case": true, "not": true,
	"distinct": true, "all": true, "default": true, "interval": true, "array": true, "row": true, "exists": true}

// renamed are functions PostgreSQL does not name the column after: a cast is
// named after its argument, TRIM after btrim, ltrim or rtrim.
var renamed = map[string]bool{"cast": true, "trim": true, "treat": true}

// plainName names a column reference (a, t.a) or a function call (f(...),
// s.f(...)).
func plainName(item []sqlTok) (string, bool) {
	// An identifier chain: a.b.c.
	i := 0
	for i < len(item) && item[i].ident {
		if i+1 < len(item) && item[i+1].text == "." {
			i += 2
			continue
		}
		i++
		break
	}
	if i == 0 || !item[i-1].ident {
		return "", false
	}
	last := item[i-1]
	if !last.quoted && notNames[last.text] {
		return "", false
	}
	switch {
	case i == len(item):
		return last.text, true
	case item[i].text == "(" && item[len(item)-1].text == ")" && item[len(item)-1].depth == 0 && !renamed[last.text]:
		// The call's parentheses must close at the end of the item.
		for _, t := range item[i+1 : len(item)-1] {
			if t.depth == 0 {
				return "", false
			}
		}
		return last.text, true
	}
	return "", false
}
