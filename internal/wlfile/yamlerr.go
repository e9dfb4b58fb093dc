package wlfile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The YAML library reports a syntax error as "yaml: line N: problem",
// where N is the line where the enclosing construct began (or nothing at
// all), in its own words and without a column. syntaxError finds the line
// the problem is on, a column, and says what was expected in plain words.

var yamlLineRE = regexp.MustCompile(`^line (\d+): `)

// maxProbes bounds the prefixes of the file parsed to find the line of a
// syntax error.
const maxProbes = 2000

func syntaxError(file string, src []byte, err error) error {
	problem := strings.TrimPrefix(err.Error(), "yaml: ")
	hint := 1
	if m := yamlLineRE.FindStringSubmatch(problem); m != nil {
		hint, _ = strconv.Atoi(m[1])
		problem = problem[len(m[0]):]
	}
	lines := strings.Split(string(src), "\n")
	line := failingLine(lines, hint, problem)
	s := scanSyntax(lines)
	is := s.explain(problem, line, lines[line-1])
	if is == nil {
		is = &issue{line, col(lines[line-1], firstNonSpace(lines[line-1])), "invalid YAML: " + problem}
	}
	return &posError{file: file, line: is.line, column: is.col, msg: is.msg}
}

// failingLine is the first line whose prefix of the file fails with the
// same problem: the library stops at the first error, so that is where
// the problem is. The library's own line is where the enclosing construct
// began, never after the problem.
func failingLine(lines []string, hint int, problem string) int {
	hint = min(max(hint, 1), len(lines))
	for k := hint; k <= len(lines) && k < hint+maxProbes; k++ {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(strings.Join(lines[:k], "\n")+"\n"), &n)
		if err != nil && strings.HasSuffix(err.Error(), problem) {
			return k
		}
	}
	return hint
}

// issue is a syntax problem at a position, in plain words.
type issue struct {
	line, col int
	msg       string
}

// syntaxScan is what a rough lexical pass over the file finds: the first
// tab that indents a line, the first flow bracket that is not closed or
// closes the wrong thing, the first quoted string that is not closed, the
// first text after a closed quoted string.
type syntaxScan struct {
	tab, flow, quote, trail *issue
}

// opener is an open flow collection or quoted string.
type opener struct {
	c         byte
	line, col int
}

// scanSyntax follows YAML's lexical structure closely enough to find
// brackets and quotes: block scalars, comments and plain scalars (which
// may contain brackets and quotes) are skipped.
func scanSyntax(lines []string) *syntaxScan {
	s := &syntaxScan{}
	var (
		stack       []opener
		quote       *opener // an open multi-line quoted string
		blockIndent = -1    // indentation of the line that opened a block scalar
	)
	for li, text := range lines {
		text = strings.TrimSuffix(text, "\r")
		indent := len(text) - len(strings.TrimLeft(text, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(text) == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		i, valueStart := 0, true
		if quote != nil {
			if i = closeQuote(text, 0, quote.c); i < 0 {
				continue
			}
			s.trailing(text, i, li+1, quote.c, len(stack) > 0)
			quote, valueStart = nil, false
		} else if len(stack) == 0 {
			ws := len(text) - len(strings.TrimLeft(text, " \t"))
			if t := strings.IndexByte(text[:ws], '\t'); t >= 0 && s.tab == nil {
				s.tab = &issue{li + 1, col(text, t), "tabs cannot indent YAML; indent with spaces"}
			}
			i = ws
		}
		for i < len(text) {
			c := text[i]
			switch {
			case c == ' ' || c == '\t':
				i++
				continue
			case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t'):
				i = len(text)
				continue
			case c == '[' || c == '{':
				if len(stack) > 0 || valueStart {
					stack = append(stack, opener{c, li + 1, col(text, i)})
					valueStart = true
					i++
					continue
				}
			case c == ']' || c == '}':
				if len(stack) > 0 || valueStart {
					if s.flow == nil {
						s.flow = closeFlow(&stack, c, li+1, col(text, i))
					} else if len(stack) > 0 {
						stack = stack[:len(stack)-1]
					}
					valueStart = true
					i++
					continue
				}
			case c == ',' && len(stack) > 0:
				valueStart = true
				i++
				continue
			case c == ':' && (len(stack) > 0 || i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t'):
				valueStart = true
				i++
				continue
			case (c == '\'' || c == '"') && valueStart:
				q := opener{c, li + 1, col(text, i)}
				if i = closeQuote(text, i+1, c); i < 0 {
					quote = &q
					i = len(text)
				}
				s.trailing(text, i, li+1, c, len(stack) > 0)
				valueStart = false
				continue
			case (c == '|' || c == '>') && valueStart && len(stack) == 0:
				blockIndent = indent
				i = len(text)
				continue
			case (c == '-' || c == '?') && valueStart && len(stack) == 0 && (i+1 == len(text) || text[i+1] == ' '):
				i++
				continue
			}
			// A plain scalar, an anchor, a tag or an alias: up to the next
			// indicator.
			valueStart = c == '&' || c == '!'
			from := i
			for i < len(text) && text[i] != ' ' && text[i] != '\t' && !(text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ')) &&
				!(len(stack) > 0 && strings.IndexByte(",[]{}:", text[i]) >= 0) {
				i++
			}
			if i == from {
				i++
			}
		}
	}
	if s.flow == nil && len(stack) > 0 {
		o := stack[len(stack)-1]
		s.flow = &issue{o.line, o.col, fmt.Sprintf("the %s opened here is not closed; expected %s (and %s between its entries)", tick(o.c), tick(closer(o.c)), tick(','))}
	}
	if quote != nil {
		s.quote = &issue{quote.line, quote.col, fmt.Sprintf("the %s opened here is not closed; expected a closing %s", tick(quote.c), tick(quote.c))}
	}
	return s
}

// trailing records text after a quoted string that closed before
// text[i]: only a `:`, a comment or, in a flow collection, a `,` or a
// closing bracket may follow.
func (s *syntaxScan) trailing(text string, i, line int, q byte, flow bool) {
	j := i + firstNonSpace(text[i:])
	if s.trail != nil || j == len(text) || text[j] == ':' || j > i && text[j] == '#' || flow && strings.IndexByte(",]}", text[j]) >= 0 {
		return
	}
	s.trail = &issue{line, col(text, j), fmt.Sprintf("nothing may follow the closing %s of a quoted value; expected the end of the line, or the whole value in quotes", tick(q))}
}

// closeFlow pops the innermost open collection for closing bracket c; a
// bracket that closes nothing or the wrong thing is an issue.
func closeFlow(stack *[]opener, c byte, line, column int) *issue {
	if len(*stack) == 0 {
		return &issue{line, column, fmt.Sprintf("this %s closes nothing; remove it or add the %s it should close", tick(c), tick(opening(c)))}
	}
	o := (*stack)[len(*stack)-1]
	*stack = (*stack)[:len(*stack)-1]
	if closer(o.c) != c {
		return &issue{line, column, fmt.Sprintf("expected %s to close the %s opened at line %d column %d, not %s", tick(closer(o.c)), tick(o.c), o.line, o.col, tick(c))}
	}
	return nil
}

// closeQuote returns the index after the quote closing a string that
// continues at text[i:], or -1 if it does not close on this line.
func closeQuote(text string, i int, q byte) int {
	for ; i < len(text); i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++
		case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++
		case text[i] == q:
			return i + 1
		}
	}
	return -1
}

func closer(c byte) byte {
	if c == '[' {
		return ']'
	}
	return '}'
}

func opening(c byte) byte {
	if c == ']' {
		return '['
	}
	return '{'
}

func tick(c byte) string {
	if c == '`' {
		return "a backtick"
	}
	return "`" + string(c) + "`"
}

// col is the 1-based column (in characters) of byte offset i of text.
func col(text string, i int) int { return utf8.RuneCountInString(text[:min(i, len(text))]) + 1 }

func firstNonSpace(text string) int { return len(text) - len(strings.TrimLeft(text, " \t")) }

var badEscapeRE = regexp.MustCompile(`^[^"]*"(?:[^"\\]|\\[0abtnvfre "/\\N_LPxuU\t])*\\[^0abtnvfre "/\\N_LPxuU\t]`)

var anchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// explain turns the library's problem on a line into an issue.
func (s *syntaxScan) explain(problem string, line int, text string) *issue {
	text = strings.TrimSuffix(text, "\r")
	at := func(i int, format string, args ...any) *issue {
		return &issue{line, col(text, i), fmt.Sprintf(format, args...)}
	}
	start := firstNonSpace(text)
	switch {
	case strings.Contains(problem, "tab character") || strings.Contains(problem, "cannot start any token") && s.tab != nil && s.tab.line <= line:
		return s.tab
	case strings.Contains(problem, "unexpected end of stream") && s.quote != nil:
		return s.quote
	case strings.HasPrefix(problem, "did not find expected") && (before(s.flow, line) || before(s.trail, line)):
		if before(s.flow, line) && (!before(s.trail, line) || s.flow.line <= s.trail.line) {
			return s.flow
		}
		return s.trail
	case strings.Contains(problem, "cannot start any token"):
		if i := strings.IndexAny(text[start:], "@`"); i >= 0 {
			return at(start+i, "a value cannot start with %s; put the value in quotes", tick(text[start+i]))
		}
	case problem == "mapping values are not allowed in this context":
		colons := valueColons(text)
		if len(colons) > 1 {
			return at(colons[1], "a value that contains `: ` must be put in quotes")
		}
		return at(start, "this line is indented more than the key above it, which has a value already; expected it lined up with the keys above")
	case problem == "did not find expected key":
		if strings.HasPrefix(text[start:], "- ") || text[start:] == "-" {
			return at(start, "a list item cannot stand among `key: value` lines; expected a key here, or the list indented under its key")
		}
		return at(start, "this line is not lined up with the keys above it; expected a `key: value` at their indentation")
	case problem == "did not find expected '-' indicator":
		return at(start, "this line is not lined up with the list above it; expected a `- ` item at the list's indentation, or a key lined up with the item's keys")
	case problem == "could not find expected ':'":
		return at(start, "expected `key: value` here; the line has no `:` after its key")
	case problem == "block sequence entries are not allowed in this context":
		if i := strings.Index(text[start:], "- "); i >= 0 {
			return at(start+i, "a list cannot start on the line of its key; put each `- ` item on a line of its own, indented under the key")
		}
	case problem == "found unknown escape character":
		if m := badEscapeRE.FindStringIndex(text); m != nil {
			b := strings.LastIndexByte(text[:m[1]], '\\')
			return at(b, "%s is not an escape in a double-quoted string; write \\\\ for a backslash, or use single quotes", "`"+text[b:m[1]]+"`")
		}
	case strings.Contains(problem, "UTF-8"):
		for i, r := range text {
			if r == utf8.RuneError {
				return at(i, "the file must be UTF-8 text, and this byte is not")
			}
		}
	case problem == "control characters are not allowed":
		for i, r := range text {
			if r < ' ' && r != '\t' || r == 0x7f {
				return at(i, "control characters are not allowed; remove the one here (byte %#02x)", r)
			}
		}
	case anchorRE.MatchString(problem):
		name := anchorRE.FindStringSubmatch(problem)[1]
		if i := strings.Index(text, "*"+name); i >= 0 {
			return at(i, "the alias *%s refers to no anchor; expected &%s on a value above it", name, name)
		}
	}
	return nil
}

func before(is *issue, line int) bool { return is != nil && is.line <= line }

// valueColons are the offsets of the `:` that end keys on a line.
func valueColons(text string) []int {
	var out []int
	for i := 0; i < len(text); i++ {
		if text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ') {
			out = append(out, i)
		}
	}
	return out
}
