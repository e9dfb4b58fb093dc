// Package script runs pgbench custom scripts (pgbench -f): SQL commands
// with :variables, and the meta commands \set (pgbench's expression
// language), \sleep, \gset, \aset, \if/\elif/\else/\endif, so that existing
// scripts run unchanged with dbharness's measurement. Several scripts may be
// given, each with a weight (FILE@WEIGHT).
package script

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbharness/dbharness/internal/pgbexpr"
	"github.com/dbharness/dbharness/internal/sqlparams"
)

// cmdKind is a script command's kind.
type cmdKind int

const (
	cSQL cmdKind = iota
	cSet
	cSleep
	cIf
	cElif
	cElse
	cEndif
)

// Command is one step of a script.
type Command struct {
	kind cmdKind
	line int
	// SQL: the text with $n placeholders, the variable of each, and what to
	// do with the first row (\gset) or all rows (\aset).
	sql      string
	orig     string
	vars     []string
	gset     bool
	aset     bool
	prefix   string
	noParams bool
	// \set
	name string
	expr *pgbexpr.Expr
	// \sleep: a constant or a variable, times unit.
	sleepVar string
	sleepN   int64
	unit     time.Duration
	// \if and \elif: the next \elif, \else or \endif, where to go when
	// the condition is false; \elif and \else: past the \endif, where to go
	// when reached from the end of the branch before.
	jump, end int
}

// Script is a parsed pgbench script.
type Script struct {
	Name     string
	Weight   float64
	Commands []*Command
}

// ParseError names the script, line and what is wrong.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse parses a pgbench script. name is used in errors.
func Parse(name, src string) (*Script, error) {
	s := &Script{Name: name, Weight: 1}
	errf := func(line int, f string, a ...any) error {
		return &ParseError{File: name, Line: line, Msg: fmt.Sprintf(f, a...)}
	}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var sqlBuf strings.Builder
	sqlLine := 0
	type ifFrame struct {
		pending []int // commands whose jump goes to the next branch
		ends    []int // commands whose jump goes to \endif
		hasElse bool
		line    int
	}
	var stack []*ifFrame
	flushSQL := func(line int, gset, aset bool, prefix string) error {
		text := strings.TrimSpace(sqlBuf.String())
		sqlBuf.Reset()
		if text == "" {
			if gset || aset {
				return errf(line, "\\gset and \\aset must follow an SQL command")
			}
			return nil
		}
		c := &Command{kind: cSQL, line: sqlLine, orig: text, gset: gset, aset: aset, prefix: prefix}
		c.sql, c.vars = sqlparams.Number(text)
		c.noParams = len(c.vars) == 0
		s.Commands = append(s.Commands, c)
		return nil
	}
	for i := 0; i < len(lines); i++ {
		ln := i + 1
		line := lines[i]
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "\\") {
			// A meta command, continued by a trailing backslash.
			for strings.HasSuffix(trim, "\\") && i+1 < len(lines) {
				i++
				trim = strings.TrimSuffix(trim, "\\") + " " + strings.TrimSpace(lines[i])
			}
			if len(strings.Fields(trim)) == 0 || strings.TrimSpace(trim) == "\\" {
				return nil, errf(ln, "a backslash without a meta command; expected \\set, \\sleep, \\gset, \\if ...")
			}
			if sqlBuf.Len() > 0 && strings.TrimSpace(sqlBuf.String()) != "" {
				word := strings.Fields(trim)[0]
				if word == "\\gset" || word == "\\aset" {
					f := strings.Fields(trim)
					prefix := ""
					if len(f) > 2 {
						return nil, errf(ln, "%s takes at most one argument, a prefix", word)
					}
					if len(f) == 2 {
						prefix = f[1]
					}
					if err := flushSQL(ln, word == "\\gset", word == "\\aset", prefix); err != nil {
						return nil, err
					}
					continue
				}
				return nil, errf(sqlLine, "SQL command not terminated by ';' before the meta command on line %d", ln)
			}
			c, err := parseMeta(trim, ln, errf)
			if err != nil {
				return nil, err
			}
			idx := len(s.Commands)
			switch c.kind {
			case cIf:
				stack = append(stack, &ifFrame{pending: []int{idx}, line: ln})
			case cElif, cElse:
				if len(stack) == 0 {
					return nil, errf(ln, "%s without a matching \\if", strings.Fields(trim)[0])
				}
				f := stack[len(stack)-1]
				if f.hasElse {
					return nil, errf(ln, "%s after \\else", strings.Fields(trim)[0])
				}
				// The previous branch ends by jumping to \endif: this command
				// itself does that jump when reached by falling through.
				f.ends = append(f.ends, idx)
				for _, p := range f.pending {
					s.Commands[p].jump = idx
				}
				f.pending = nil
				if c.kind == cElif {
					f.pending = []int{idx}
				} else {
					f.hasElse = true
				}
			case cEndif:
				if len(stack) == 0 {
					return nil, errf(ln, "\\endif without a matching \\if")
				}
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, p := range f.pending {
					s.Commands[p].jump = idx
				}
				for _, p := range f.ends {
					s.Commands[p].end = idx + 1
				}
			}
			s.Commands = append(s.Commands, c)
			continue
		}
		if trim == "" || strings.HasPrefix(trim, "--") && sqlBuf.Len() == 0 {
			continue
		}
		if sqlBuf.Len() == 0 {
			sqlLine = ln
		}
		if m := gsetRE.FindStringSubmatchIndex(line); m != nil && semicolon(line[:m[0]]) < 0 {
			sqlBuf.WriteString(line[:m[0]])
			word := line[m[2]:m[3]]
			prefix := ""
			if m[4] >= 0 {
				prefix = line[m[4]:m[5]]
			}
			if err := flushSQL(ln, word == "gset", word == "aset", prefix); err != nil {
				return nil, err
			}
			continue
		}
		// SQL ends at a semicolon outside quotes; several may share a line.
		rest := line
		for rest != "" {
			end := semicolon(rest)
			if end < 0 {
				sqlBuf.WriteString(rest)
				sqlBuf.WriteByte('\n')
				break
			}
			sqlBuf.WriteString(rest[:end])
			if err := flushSQL(ln, false, false, ""); err != nil {
				return nil, err
			}
			rest = strings.TrimSpace(rest[end+1:])
			sqlLine = ln
			if strings.HasPrefix(rest, "--") {
				break
			}
		}
	}
	if strings.TrimSpace(sqlBuf.String()) != "" {
		// pgbench accepts a last command without a semicolon.
		if err := flushSQL(len(lines), false, false, ""); err != nil {
			return nil, err
		}
	}
	if len(stack) > 0 {
		return nil, errf(stack[len(stack)-1].line, "\\if without a matching \\endif")
	}
	if len(s.Commands) == 0 {
		return nil, errf(1, "the script has no commands")
	}
	return s, nil
}

// gsetRE finds \gset or \aset (with an optional prefix) ending an SQL line.
var gsetRE = regexp.MustCompile(`\\(gset|aset)(?:\s+([A-Za-z_][A-Za-z0-9_]*))?\s*$`)

// semicolon finds the first ';' outside quotes and comments, or -1.
func semicolon(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"':
			q := s[i]
			i++
			for i < len(s) && s[i] != q {
				i++
			}
		case '-':
			if i+1 < len(s) && s[i+1] == '-' {
				return -1
			}
		case ';':
			return i
		}
	}
	return -1
}

func parseMeta(line string, ln int, errf func(int, string, ...any) error) (*Command, error) {
	f := strings.Fields(line)
	word := strings.ToLower(f[0])
	switch word {
	case "\\set":
		w := fields(line)
		if len(w) < 3 {
			return nil, errf(ln, "\\set needs a variable name and an expression: \\set aid random(1, 100000 * :scale)")
		}
		name := w[1].s
		if !validVar(name) {
			return nil, errf(ln, "\\set: %q is not a valid variable name", name)
		}
		// The expression starts at the third word: the name may also occur
		// in "\set" itself (\set e ..., \set s ...).
		src := strings.TrimSpace(line[w[2].at:])
		e, err := pgbexpr.Parse(src)
		if err != nil {
			return nil, errf(ln, "\\set %s: %v", name, err)
		}
		return &Command{kind: cSet, line: ln, name: name, expr: e}, nil
	case "\\sleep":
		if len(f) < 2 || len(f) > 3 {
			return nil, errf(ln, "\\sleep needs a number or :variable and an optional unit (us, ms, s)")
		}
		c := &Command{kind: cSleep, line: ln, unit: time.Second}
		if strings.HasPrefix(f[1], ":") {
			c.sleepVar = f[1][1:]
			if !validVar(c.sleepVar) {
				return nil, errf(ln, "\\sleep: %q is not a variable", f[1])
			}
		} else {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || n < 0 {
				return nil, errf(ln, "\\sleep: %q is not a non-negative integer", f[1])
			}
			c.sleepN = n
		}
		if len(f) == 3 {
			switch strings.ToLower(f[2]) {
			case "us":
				c.unit = time.Microsecond
			case "ms":
				c.unit = time.Millisecond
			case "s":
				c.unit = time.Second
			default:
				return nil, errf(ln, "\\sleep: unknown unit %q; use us, ms or s", f[2])
			}
		}
		return c, nil
	case "\\if", "\\elif":
		src := strings.TrimSpace(line[len(f[0]):])
		if src == "" {
			return nil, errf(ln, "%s needs an expression", word)
		}
		e, err := pgbexpr.Parse(src)
		if err != nil {
			return nil, errf(ln, "%s: %v", word, err)
		}
		k := cIf
		if word == "\\elif" {
			k = cElif
		}
		return &Command{kind: k, line: ln, expr: e}, nil
	case "\\else", "\\endif":
		if len(f) > 1 {
			return nil, errf(ln, "%s takes no arguments", word)
		}
		if word == "\\else" {
			return &Command{kind: cElse, line: ln}, nil
		}
		return &Command{kind: cEndif, line: ln}, nil
	case "\\gset", "\\aset":
		return nil, errf(ln, "%s must follow an SQL command", word)
	case "\\setshell", "\\shell", "\\startpipeline", "\\endpipeline", "\\syncpipeline":
		return nil, errf(ln, "%s is not supported by dbharness", word)
	}
	return nil, errf(ln, "unknown meta command %q; expected \\set, \\sleep, \\gset, \\aset, \\if, \\elif, \\else or \\endif", f[0])
}

// field is a blank-separated word of a meta command and its byte offset.
type field struct {
	s  string
	at int
}

// fields splits a meta command into words, keeping where each starts.
func fields(line string) []field {
	var out []field
	for i := 0; i < len(line); {
		if isBlank(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && !isBlank(line[j]) {
			j++
		}
		out = append(out, field{line[i:j], i})
		i = j
	}
	return out
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func validVar(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80 || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ParseSpec splits FILE[@WEIGHT], as pgbench -f does at the last '@'.
// What follows the '@' must be a weight, unless it holds a '/' (a directory
// name with an '@') or the whole spec names an existing file.
func ParseSpec(spec string) (path string, weight float64, err error) {
	i := strings.LastIndexByte(spec, '@')
	if i <= 0 || strings.ContainsRune(spec[i+1:], filepath.Separator) || strings.ContainsRune(spec[i+1:], '/') {
		return spec, 1, nil
	}
	w, perr := strconv.ParseFloat(spec[i+1:], 64)
	switch {
	case perr != nil || math.IsNaN(w) || math.IsInf(w, 0):
		if st, serr := os.Stat(spec); serr == nil && !st.IsDir() {
			return spec, 1, nil
		}
		return "", 0, fmt.Errorf("--script %s: the weight %q is not a number; write FILE@WEIGHT, e.g. %s@5", spec, spec[i+1:], spec[:i])
	case w < 0:
		return "", 0, fmt.Errorf("--script %s: the weight must not be negative", spec)
	}
	return spec[:i], w, nil
}
