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
	"strconv"
	"strings"
	"time"
	"unicode"

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
	// at is where the command starts: its first SQL character or the
	// backslash of a meta command.
	at pos
	// SQL: the text with $n placeholders, the variable of each, and what to
	// do with the first row (\gset) or all rows (\aset).
	sql      string
	orig     string
	vars     []string
	gset     bool
	aset     bool
	prefix   string
	noParams bool
	// parts are the statements of a compound command (joined by \; in
	// the script, sent as one query), or nil.
	parts []string
	// pieces are the text as --query-mode simple writes values into it.
	pieces []piece
	// uses are the variables the command reads, where they stand.
	uses []use
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
	// stmt is an SQL command's number among its script's SQL commands,
	// from 0: its statement clock under -r.
	stmt int
	// The numbers of the variables (Workload.number): slot is \set's,
	// sleepSlot \sleep's, varSlots those of vars; id is an SQL command's
	// number among the run's, its prepared statement's on a client.
	slot, sleepSlot int
	varSlots        []int
	id              int
}

// where names the command's place in script s for errors at run time.
func (c *Command) where(s *Script) string {
	return fmt.Sprintf("%s:%d:%d", s.Name, c.at.line, c.at.col)
}

// Script is a parsed pgbench script.
type Script struct {
	// Name is the transaction type (the file's base name); File is the
	// file as given, for errors.
	Name     string
	File     string
	Weight   float64
	Commands []*Command
}

// ParseError names the script, line and column and what is wrong, as
// FILE:LINE:COLUMN: message (as workload files do).
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// use is a variable read by a command and where it stands.
type use struct {
	name string
	at   pos
}

// pos is a place in a script: line and column, both from 1, the column
// counted in bytes.
type pos struct{ line, col int }

// srcMap maps byte offsets of a text assembled from pieces of lines (an SQL
// command spanning lines, a meta command continued by backslashes) back to
// their places in the script.
type srcMap []seg

type seg struct {
	off int // where the piece starts in the assembled text
	at  pos // where it starts in the script
}

func (m *srcMap) add(off int, at pos) { *m = append(*m, seg{off, at}) }

// at returns the place of the byte at offset off.
func (m srcMap) at(off int) pos {
	i := len(m) - 1
	for i > 0 && m[i].off > off {
		i--
	}
	if i < 0 {
		return pos{1, 1}
	}
	return pos{m[i].at.line, m[i].at.col + off - m[i].off}
}

// parseExpr parses the expression that starts at offset off of a meta
// command's text (m maps the text to the script) and places a syntax error
// at its column. With check, an expression that fails whatever the
// variables hold is an error too.
func parseExpr(text string, off int, m srcMap, errf errFunc, what string, check bool) (*pgbexpr.Expr, error) {
	e, err := pgbexpr.Parse(strings.TrimRightFunc(text[off:], unicode.IsSpace))
	if err == nil && check {
		// What pgbench would fail on every time it evaluates the
		// expression (TRUE + 2, NOT 0.0) is refused now.
		err = e.Check()
	}
	if se, ok := err.(*pgbexpr.SyntaxError); ok {
		return nil, errf(m.at(off+se.Pos), "%s: %s", what, se.Msg)
	}
	if err != nil {
		return nil, errf(m.at(off), "%s: %v", what, err)
	}
	return e, nil
}

// exprUses places the variables of an expression that starts at offset off.
func exprUses(e *pgbexpr.Expr, off int, m srcMap) []use {
	var out []use
	for _, r := range e.Refs() {
		out = append(out, use{r.Name, m.at(off + r.Pos)})
	}
	return out
}

type errFunc func(at pos, f string, a ...any) error

// indent is the length of the blanks starting s, as strings.TrimSpace
// counts them.
func indent(s string) int { return len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace)) }

// Parse parses a pgbench script. name is used in errors.
func Parse(name, src string) (*Script, error) {
	s := &Script{Name: name, File: name, Weight: 1}
	errf := func(at pos, f string, a ...any) error {
		return &ParseError{File: name, Line: at.line, Col: at.col, Msg: fmt.Sprintf(f, a...)}
	}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var sqlBuf strings.Builder
	var sqlMap srcMap
	type ifFrame struct {
		pending []int // commands whose jump goes to the next branch
		ends    []int // commands whose jump goes to \endif
		hasElse bool
		at      pos
	}
	var stack []*ifFrame
	addSQL := func(piece string, at pos) {
		sqlMap.add(sqlBuf.Len(), at)
		sqlBuf.WriteString(piece)
	}
	// sqlStart is where the pending SQL text starts, and its offset.
	sqlStart := func() (pos, int) {
		lead := indent(sqlBuf.String())
		return sqlMap.at(lead), lead
	}
	flushSQL := func(at pos, gset, aset bool, prefix string) error {
		start, lead := sqlStart()
		m := sqlMap
		text := strings.TrimSpace(sqlBuf.String())
		sqlBuf.Reset()
		sqlMap = nil
		if text == "" {
			if gset || aset {
				return errf(at, "\\gset and \\aset must follow an SQL command")
			}
			return nil
		}
		c := &Command{kind: cSQL, at: start, orig: text, gset: gset, aset: aset, prefix: prefix, parts: compoundParts(text)}
		c.sql, c.vars = sqlparams.Number(text)
		c.noParams = len(c.vars) == 0
		refs := sqlparams.Find(text)
		for _, r := range refs {
			c.uses = append(c.uses, use{r.Name, m.at(lead + r.Pos)})
		}
		c.pieces = simplePieces(text, refs)
		s.Commands = append(s.Commands, c)
		if len(stack) > 0 {
			// Inside \if the command may never run: its columns are
			// checked when it does.
			return nil
		}
		return checkFetch(c, at, errf)
	}
	// meta handles the meta command that starts at column col of line i
	// (a backslash outside quotes), continued by trailing backslashes; it
	// returns the last line it read.
	meta := func(i, col int) (int, error) {
		ln := i + 1
		line := lines[i]
		trim := strings.TrimSpace(line[col:])
		m := srcMap{{0, pos{ln, col + indent(line[col:]) + 1}}}
		for strings.HasSuffix(trim, "\\") && i+1 < len(lines) {
			i++
			trim = strings.TrimSuffix(trim, "\\") + " "
			m.add(len(trim), pos{i + 1, indent(lines[i]) + 1})
			trim += strings.TrimSpace(lines[i])
		}
		at := m.at(0)
		f := fields(trim)
		if len(f) == 0 || f[0].s == "\\" {
			return i, errf(at, "a backslash without a meta command; expected \\set, \\sleep, \\gset, \\if ...")
		}
		word := strings.ToLower(f[0].s)
		// SQL text before the backslash is a command (pgbench ends it
		// there too, without a ';').
		pending := strings.TrimSpace(sqlBuf.String()) != ""
		if word == "\\gset" || word == "\\aset" {
			prefix := ""
			if len(f) > 2 {
				return i, errf(m.at(f[2].at), "%s takes at most one argument, a prefix", word)
			}
			if len(f) == 2 {
				prefix = f[1].s
				if !validVar(prefix) {
					return i, errf(m.at(f[1].at), "%s: %q is not a valid variable name prefix", word, prefix)
				}
			}
			if pending {
				return i, flushSQL(at, word == "\\gset", word == "\\aset", prefix)
			}
			// As in pgbench, \gset on its own line applies to the SQL
			// command just before it.
			if n := len(s.Commands); n > 0 && s.Commands[n-1].kind == cSQL && !s.Commands[n-1].gset && !s.Commands[n-1].aset {
				c := s.Commands[n-1]
				c.gset, c.aset, c.prefix = word == "\\gset", word == "\\aset", prefix
				if len(stack) > 0 {
					return i, nil
				}
				return i, checkFetch(c, at, errf)
			}
			return i, errf(at, "%s must follow an SQL command", word)
		}
		if pending {
			if err := flushSQL(at, false, false, ""); err != nil {
				return i, err
			}
		}
		// What runs whatever happens (outside \if blocks; an \if's own
		// condition) is checked for errors pgbench would always meet.
		c, err := parseMeta(trim, m, errf, len(stack) == 0)
		if err != nil {
			return i, err
		}
		idx := len(s.Commands)
		switch c.kind {
		case cIf:
			stack = append(stack, &ifFrame{pending: []int{idx}, at: at})
		case cElif, cElse:
			if len(stack) == 0 {
				return i, errf(at, "%s without a matching \\if", word)
			}
			fr := stack[len(stack)-1]
			if fr.hasElse {
				return i, errf(at, "%s after \\else", word)
			}
			// The previous branch ends by jumping to \endif: this command
			// itself does that jump when reached by falling through.
			fr.ends = append(fr.ends, idx)
			for _, p := range fr.pending {
				s.Commands[p].jump = idx
			}
			fr.pending = nil
			if c.kind == cElif {
				fr.pending = []int{idx}
			} else {
				fr.hasElse = true
			}
		case cEndif:
			if len(stack) == 0 {
				return i, errf(at, "\\endif without a matching \\if")
			}
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range fr.pending {
				s.Commands[p].jump = idx
			}
			for _, p := range fr.ends {
				s.Commands[p].end = idx + 1
			}
		}
		s.Commands = append(s.Commands, c)
		return i, nil
	}
	var z sqlScanner
	for i := 0; i < len(lines); i++ {
		ln := i + 1
		line := lines[i]
		if z.idle() && strings.TrimSpace(sqlBuf.String()) == "" {
			// Blank lines and -- comments between commands are skipped.
			if trim := strings.TrimSpace(line); trim == "" || strings.HasPrefix(trim, "--") {
				continue
			}
		}
		// SQL ends at a ';' outside quotes and comments (several may share
		// a line); "\;" joins statements into one compound command; any
		// other backslash starts a meta command, to the end of the line.
		from := 0
		for {
			end := z.next(line, from)
			if end < 0 {
				rest := line[from:]
				if t := strings.TrimSpace(sqlBuf.String()); t == "" && z.idle() {
					if trim := strings.TrimSpace(rest); trim == "" || strings.HasPrefix(trim, "--") {
						break
					}
				}
				addSQL(rest+"\n", pos{ln, from + 1})
				break
			}
			if line[end] == '\\' && strings.HasPrefix(line[end:], "\\;") {
				addSQL(line[from:end], pos{ln, from + 1})
				addSQL(";", pos{ln, end + 1})
				from = end + 2
				continue
			}
			addSQL(line[from:end], pos{ln, from + 1})
			if line[end] == '\\' {
				last, err := meta(i, end)
				if err != nil {
					return nil, err
				}
				i = last
				break
			}
			if err := flushSQL(pos{ln, end + 1}, false, false, ""); err != nil {
				return nil, err
			}
			from = end + 1
		}
	}
	if strings.TrimSpace(sqlBuf.String()) != "" {
		// pgbench accepts a last command without a semicolon.
		if err := flushSQL(pos{len(lines), 1}, false, false, ""); err != nil {
			return nil, err
		}
	}
	if len(stack) > 0 {
		return nil, errf(stack[len(stack)-1].at, "\\if without a matching \\endif")
	}
	if len(s.Commands) == 0 {
		return nil, errf(pos{1, 1}, "the script has no commands")
	}
	return s, nil
}

// piece is SQL text followed by a variable (name is "" for the last
// piece). A required variable is one that is a parameter in the other
// query modes (outside quotes and comments): it must be set.
type piece struct {
	text, name string
	required   bool
	// slot is name's number among the run's variables (Workload.number).
	slot int
}

// simplePieces splits an SQL command as pgbench -M simple substitutes into
// it (assignVariables): at every :name, inside quotes too, where a
// variable of that name is set; a run of colons (a cast) is left alone, as
// is a :name no variable has. refs are the command's parameters.
func simplePieces(text string, refs []sqlparams.Ref) []piece {
	required := map[int]bool{}
	for _, r := range refs {
		required[r.Pos] = true
	}
	var out []piece
	last := 0
	for i := 0; i < len(text); i++ {
		if text[i] != ':' {
			continue
		}
		if i+1 < len(text) && identStart(text[i+1]) {
			j := i + 1
			for j < len(text) && (identStart(text[j]) || text[j] >= '0' && text[j] <= '9') {
				j++
			}
			out = append(out, piece{text: text[last:i], name: text[i+1 : j], required: required[i]})
			last, i = j, j-1
			continue
		}
		for i+1 < len(text) && text[i+1] == ':' {
			i++
		}
	}
	return append(out, piece{text: text[last:]})
}

// fetchedParts are the statements whose rows set variables: for \gset
// the last statement of a compound command, for \aset every one.
func (c *Command) fetchedParts() []string {
	switch {
	case c.parts == nil:
		return []string{c.orig}
	case c.gset:
		return c.parts[len(c.parts)-1:]
	}
	return c.parts
}

// checkFetch refuses a \gset or \aset whose columns the text names when
// one of them is not a valid variable name (?column?, "bad name!"):
// pgbench fails on it each time the query returns.
func checkFetch(c *Command, at pos, errf errFunc) error {
	if !c.gset && !c.aset {
		return nil
	}
	word := "\\gset"
	if c.aset {
		word = "\\aset"
	}
	for _, part := range c.fetchedParts() {
		names, ok := outputNames(part)
		if !ok {
			continue
		}
		for _, n := range names {
			if !validVar(c.prefix + n) {
				return errf(at, "%s: the column %q would set the variable %q, which is not a valid name; name the column with AS", word, n, c.prefix+n)
			}
		}
	}
	return nil
}

// sqlScanner follows SQL text from line to line: whether it is inside a
// quoted string or identifier, a dollar-quoted string or a block comment,
// where ';' and '\\' are text.
type sqlScanner struct {
	quote byte   // ' or " while inside one
	esc   bool   // inside E'...', where a backslash escapes
	tag   string // the $tag$ of the dollar-quoted string it is inside
	depth int    // nesting of /* */ comments
}

func (z *sqlScanner) idle() bool { return z.quote == 0 && z.tag == "" && z.depth == 0 }

// next returns the offset of the first ';' or backslash at or after from
// that is outside quotes and comments, or -1 when the line ends first (or
// a -- comment ends it).
func (z *sqlScanner) next(line string, from int) int {
	for i := from; i < len(line); i++ {
		c := line[i]
		switch {
		case z.depth > 0:
			if strings.HasPrefix(line[i:], "*/") {
				z.depth--
				i++
			} else if strings.HasPrefix(line[i:], "/*") {
				z.depth++
				i++
			}
		case z.tag != "":
			if strings.HasPrefix(line[i:], z.tag) {
				i += len(z.tag) - 1
				z.tag = ""
			}
		case z.quote != 0:
			if z.esc && c == '\\' {
				i++
			} else if c == z.quote {
				z.quote = 0
			}
		case c == '\'' || c == '"':
			z.quote = c
			z.esc = c == '\'' && i > 0 && (line[i-1] == 'E' || line[i-1] == 'e') && (i == 1 || !identByte(line[i-2]))
		case c == '$' && (i == 0 || !identByte(line[i-1])) && sqlparams.DollarTag(line[i:]) != "":
			z.tag = sqlparams.DollarTag(line[i:])
			i += len(z.tag) - 1
		case strings.HasPrefix(line[i:], "--"):
			return -1
		case strings.HasPrefix(line[i:], "/*"):
			z.depth = 1
			i++
		case c == ';' || c == '\\':
			return i
		}
	}
	return -1
}

func identByte(c byte) bool { return identStart(c) || c >= '0' && c <= '9' || c == '$' }

// compoundParts splits the text of an SQL command into its statements at
// the ';' outside quotes and comments ("\\;" in the script), or returns nil
// for a single statement.
func compoundParts(text string) []string {
	var z sqlScanner
	var parts []string
	from, base := 0, 0
	for _, line := range strings.SplitAfter(text, "\n") {
		for start := 0; ; {
			end := z.next(line, start)
			if end < 0 {
				break
			}
			if line[end] == ';' {
				parts = append(parts, strings.TrimSpace(text[from:base+end]))
				from = base + end + 1
			}
			start = end + 1
		}
		base += len(line)
	}
	if parts == nil {
		return nil
	}
	if last := strings.TrimSpace(text[from:]); last != "" {
		parts = append(parts, last)
	}
	return parts
}

// parseMeta parses the meta command text (joined across continued lines);
// m maps its offsets to places in the script.
func parseMeta(text string, m srcMap, errf errFunc, certain bool) (*Command, error) {
	f := fields(text)
	at := m.at(0)
	word := strings.ToLower(f[0].s)
	// argErr places an error at argument i (or at the command if absent).
	argErr := func(i int, format string, a ...any) error {
		if i < len(f) {
			return errf(m.at(f[i].at), format, a...)
		}
		return errf(at, format, a...)
	}
	switch word {
	case "\\set":
		if len(f) < 3 {
			return nil, argErr(len(f), "\\set needs a variable name and an expression: \\set aid random(1, 100000 * :scale)")
		}
		name := f[1].s
		if !validVar(name) {
			return nil, argErr(1, "\\set: %q is not a valid variable name", name)
		}
		// The expression starts at the third word: the name may also occur
		// in "\set" itself (\set e ..., \set s ...).
		e, err := parseExpr(text, f[2].at, m, errf, "\\set "+name, certain)
		if err != nil {
			return nil, err
		}
		return &Command{kind: cSet, at: at, name: name, expr: e, uses: exprUses(e, f[2].at, m)}, nil
	case "\\sleep":
		if len(f) < 2 || len(f) > 3 {
			return nil, argErr(3, "\\sleep needs a number or :variable and an optional unit (us, ms, s)")
		}
		c := &Command{kind: cSleep, at: at, unit: time.Second}
		if len(f) == 2 && !strings.HasPrefix(f[1].s, ":") {
			// As in pgbench, the unit may follow the number: \sleep 2ms.
			num := strings.TrimLeft(f[1].s, "+-")
			digits := len(num) - len(strings.TrimLeft(num, "0123456789"))
			if digits > 0 && digits < len(num) {
				cut := len(f[1].s) - len(num) + digits
				f = append(f, field{f[1].s[cut:], f[1].at + cut})
				f[1].s = f[1].s[:cut]
			}
		}
		if strings.HasPrefix(f[1].s, ":") {
			c.sleepVar = f[1].s[1:]
			if !validVar(c.sleepVar) {
				return nil, argErr(1, "\\sleep: %q is not a variable", f[1].s)
			}
			c.uses = []use{{c.sleepVar, m.at(f[1].at)}}
		} else {
			n, err := strconv.ParseInt(f[1].s, 10, 64)
			if err != nil {
				return nil, argErr(1, "\\sleep: %q is not an integer", f[1].s)
			}
			c.sleepN = n // as in pgbench, a negative time does not sleep
		}
		if len(f) == 3 {
			switch strings.ToLower(f[2].s) {
			case "us":
				c.unit = time.Microsecond
			case "ms":
				c.unit = time.Millisecond
			case "s":
				c.unit = time.Second
			default:
				return nil, argErr(2, "\\sleep: unknown unit %q; use us, ms or s", f[2].s)
			}
		}
		return c, nil
	case "\\if", "\\elif":
		if len(f) < 2 {
			return nil, errf(at, "%s needs an expression", word)
		}
		e, err := parseExpr(text, f[1].at, m, errf, word, certain && word == "\\if")
		if err != nil {
			return nil, err
		}
		k := cIf
		if word == "\\elif" {
			k = cElif
		}
		return &Command{kind: k, at: at, expr: e, uses: exprUses(e, f[1].at, m)}, nil
	case "\\else", "\\endif":
		if len(f) > 1 {
			return nil, argErr(1, "%s takes no arguments", word)
		}
		if word == "\\else" {
			return &Command{kind: cElse, at: at}, nil
		}
		return &Command{kind: cEndif, at: at}, nil
	case "\\gset", "\\aset":
		return nil, errf(at, "%s must follow an SQL command", word)
	case "\\setshell", "\\shell", "\\startpipeline", "\\endpipeline", "\\syncpipeline":
		return nil, errf(at, "%s is not supported by dbharness", word)
	}
	return nil, errf(at, "unknown meta command %q; expected \\set, \\sleep, \\gset, \\aset, \\if, \\elif, \\else or \\endif", f[0].s)
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
