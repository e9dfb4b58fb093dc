package pgbexpr

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SyntaxError is a parse error with the byte offset where it was found.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("at column %d: %s", e.Pos+1, e.Msg) }

type tokKind int

const (
	tEOF tokKind = iota
	tInt
	tDouble
	tVar
	tIdent
	tOp
	tLParen
	tRParen
	tComma
)

type token struct {
	kind tokKind
	text string // operator or identifier (lower-cased for keywords)
	i    int64
	f    float64
	pos  int
	// minInt: the literal 9223372036854775808, valid only after a minus.
	minInt bool
}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			isFloat := false
			for j < len(src) && (src[j] >= '0' && src[j] <= '9') {
				j++
			}
			if j < len(src) && src[j] == '.' {
				isFloat = true
				j++
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					isFloat = true
					for k < len(src) && src[k] >= '0' && src[k] <= '9' {
						k++
					}
					j = k
				}
			}
			text := src[i:j]
			if isFloat {
				f, err := strconv.ParseFloat(text, 64)
				if err != nil {
					return nil, &SyntaxError{i, fmt.Sprintf("invalid number %q", text)}
				}
				toks = append(toks, token{kind: tDouble, f: f, pos: i})
			} else {
				n, err := strconv.ParseInt(text, 10, 64)
				switch {
				case err == nil:
					toks = append(toks, token{kind: tInt, i: n, pos: i})
				case strings.TrimLeft(text, "0") == "9223372036854775808":
					// Only as -9223372036854775808: the parser checks.
					toks = append(toks, token{kind: tInt, i: math.MinInt64, minInt: true, pos: i})
				default:
					return nil, &SyntaxError{i, fmt.Sprintf("bigint constant overflow (%s); integers are 64-bit", text)}
				}
			}
			i = j
		case c == ':':
			j := i + 1
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			if j == i+1 {
				return nil, &SyntaxError{i, "expected a variable name after ':'"}
			}
			toks = append(toks, token{kind: tVar, text: src[i+1 : j], pos: i})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: strings.ToLower(src[i:j]), pos: i})
			i = j
		case c == '(':
			toks = append(toks, token{kind: tLParen, pos: i})
			i++
		case c == ')':
			toks = append(toks, token{kind: tRParen, pos: i})
			i++
		case c == ',':
			toks = append(toks, token{kind: tComma, pos: i})
			i++
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch two {
			case "<=", ">=", "<>", "!=", "<<", ">>":
				toks = append(toks, token{kind: tOp, text: two, pos: i})
				i += 2
				continue
			}
			if strings.IndexByte("+-*/%<>=&|#~", c) >= 0 {
				toks = append(toks, token{kind: tOp, text: string(c), pos: i})
				i++
				continue
			}
			return nil, &SyntaxError{i, fmt.Sprintf("unexpected character %q", c)}
		}
	}
	toks = append(toks, token{kind: tEOF, pos: len(src)})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// Expr is a parsed expression.
type Expr struct {
	root node
	src  string
}

// String returns the source text.
func (e *Expr) String() string { return e.src }

// Vars lists the variables the expression reads, each once.
func (e *Expr) Vars() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range e.Refs() {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	return out
}

// Ref is a variable read by an expression: its name and the byte offset of
// its colon in the source.
type Ref struct {
	Name string
	Pos  int
}

// Refs lists every variable the expression reads, in source order.
func (e *Expr) Refs() []Ref {
	var out []Ref
	walk(e.root, func(n node) {
		if x, ok := n.(*varNode); ok {
			out = append(out, Ref{x.name, x.pos})
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out
}

// Bind numbers the expression's variables for an Env that is a Slotter:
// slot gives a name its number, or -1 to leave it read by name. An
// expression is bound once, before it is evaluated, and not while another
// goroutine evaluates it.
func (e *Expr) Bind(slot func(name string) int) {
	walk(e.root, func(n node) {
		if x, ok := n.(*varNode); ok {
			x.slot = slot(x.name)
		}
	})
}

// randomFuncs are the functions that draw random numbers.
var randomFuncs = map[string]bool{"random": true, "random_exponential": true, "random_gaussian": true, "random_zipfian": true}

// Draws reports whether evaluating the expression draws random numbers.
func (e *Expr) Draws() bool {
	draws := false
	walk(e.root, func(n node) {
		if x, ok := n.(*callNode); ok && randomFuncs[x.name] {
			draws = true
		}
	})
	return draws
}

// RandomCall returns, for an expression that is a single call of random,
// random_exponential, random_gaussian or random_zipfian whose arguments
// draw nothing, the function's name and its arguments (bounds, then the
// parameter).
func (e *Expr) RandomCall() (fn string, args []*Expr, ok bool) {
	x, isCall := e.root.(*callNode)
	if !isCall || !randomFuncs[x.name] {
		return "", nil, false
	}
	for _, a := range x.args {
		arg := &Expr{root: a}
		if arg.Draws() {
			return "", nil, false
		}
		args = append(args, arg)
	}
	return x.name, args, true
}

// walk calls f on n and every node below it.
func walk(n node, f func(node)) {
	f(n)
	switch x := n.(type) {
	case *unaryNode:
		walk(x.x, f)
	case *binNode:
		walk(x.l, f)
		walk(x.r, f)
	case *callNode:
		for _, a := range x.args {
			walk(a, f)
		}
	case *caseNode:
		for i := range x.conds {
			walk(x.conds[i], f)
			walk(x.vals[i], f)
		}
		if x.els != nil {
			walk(x.els, f)
		}
	}
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 200

type parser struct {
	toks  []token
	p     int
	depth int
}

// Parse parses one pgbench expression.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	ps := &parser{toks: toks}
	n, err := ps.expr(0)
	if err != nil {
		return nil, err
	}
	if t := ps.peek(); t.kind != tEOF {
		return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected %s after the expression", describe(t))}
	}
	return &Expr{root: n, src: src}, nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tInt:
		return strconv.FormatInt(t.i, 10)
	case tDouble:
		return strconv.FormatFloat(t.f, 'g', -1, 64)
	case tVar:
		return ":" + t.text
	case tLParen:
		return "'('"
	case tRParen:
		return "')'"
	case tComma:
		return "','"
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) peek() token { return p.toks[p.p] }
func (p *parser) next() token { t := p.toks[p.p]; p.p++; return t }

// Binding powers follow pgbench's exprparse.y.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

func binPrec(t token) (int, string) {
	switch t.kind {
	case tOp:
		switch t.text {
		case "<", ">", "=", "<=", ">=", "<>", "!=":
			return precCmp, t.text
		case "|", "#", "&", "<<", ">>":
			return precBit, t.text
		case "+", "-":
			return precAdd, t.text
		case "*", "/", "%":
			return precMul, t.text
		}
	case tIdent:
		switch t.text {
		case "or":
			return precOr, "or"
		case "and":
			return precAnd, "and"
		case "is", "isnull", "notnull":
			return precIs, t.text
		}
	}
	return 0, ""
}

func (p *parser) expr(minPrec int) (node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &SyntaxError{p.peek().pos, "expression nested too deeply"}
	}
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec, op := binPrec(t)
		if prec == 0 || prec < minPrec {
			return left, nil
		}
		p.next()
		switch op {
		case "isnull":
			left = &unaryNode{op: "isnull", x: left, pos: t.pos}
			continue
		case "notnull":
			left = &unaryNode{op: "notnull", x: left, pos: t.pos}
			continue
		case "is":
			neg := false
			if n := p.peek(); n.kind == tIdent && n.text == "not" {
				p.next()
				neg = true
			}
			w := p.next()
			if w.kind != tIdent || (w.text != "null" && w.text != "true" && w.text != "false") {
				return nil, &SyntaxError{w.pos, "expected NULL, TRUE or FALSE after IS"}
			}
			var n node = &unaryNode{op: "is" + w.text, x: left, pos: t.pos}
			if neg {
				n = &unaryNode{op: "not", x: n, pos: t.pos}
			}
			left = n
			continue
		}
		// Comparison operators do not associate; the others associate left.
		next := prec + 1
		right, err := p.expr(next)
		if err != nil {
			return nil, err
		}
		left = &binNode{op: op, l: left, r: right, pos: t.pos}
		if prec == precCmp {
			if p2, _ := binPrec(p.peek()); p2 == precCmp {
				return nil, &SyntaxError{p.peek().pos, "comparison operators do not associate; add parentheses"}
			}
		}
	}
}

func (p *parser) unary() (node, error) {
	t := p.peek()
	switch {
	case t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~"):
		p.next()
		if n := p.peek(); t.text == "-" && n.kind == tInt && n.minInt {
			p.next()
			return &litNode{v: IntValue(math.MinInt64), pos: t.pos}, nil
		}
		x, err := p.exprAt(precUnary)
		if err != nil {
			return nil, err
		}
		if t.text == "+" {
			return x, nil
		}
		// Fold a negative double literal.
		if l, ok := x.(*litNode); ok && t.text == "-" && l.v.Kind == Double {
			return &litNode{v: DoubleValue(-l.v.F), pos: t.pos}, nil
		}
		return &unaryNode{op: t.text, x: x, pos: t.pos}, nil
	case t.kind == tIdent && t.text == "not":
		p.next()
		x, err := p.exprAt(precNot)
		if err != nil {
			return nil, err
		}
		return &unaryNode{op: "not", x: x, pos: t.pos}, nil
	}
	return p.primary()
}

// exprAt parses an operand that binds at least as tightly as prec.
func (p *parser) exprAt(prec int) (node, error) {
	if prec >= precUnary {
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, &SyntaxError{p.peek().pos, "expression nested too deeply"}
		}
		return p.unary()
	}
	return p.expr(prec)
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		if t.minInt {
			return nil, &SyntaxError{t.pos, "bigint constant overflow (9223372036854775808); integers are 64-bit"}
		}
		return &litNode{v: IntValue(t.i), pos: t.pos}, nil
	case tDouble:
		return &litNode{v: DoubleValue(t.f), pos: t.pos}, nil
	case tVar:
		return &varNode{name: t.text, pos: t.pos, slot: -1}, nil
	case tLParen:
		n, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, &SyntaxError{c.pos, fmt.Sprintf("expected ')' but found %s", describe(c))}
		}
		return n, nil
	case tIdent:
		switch t.text {
		case "true":
			return &litNode{v: BoolValue(true), pos: t.pos}, nil
		case "false":
			return &litNode{v: BoolValue(false), pos: t.pos}, nil
		case "null":
			return &litNode{pos: t.pos}, nil
		case "case":
			return p.caseExpr(t)
		}
		if p.peek().kind != tLParen {
			return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected word %q; variables are written :%s", t.text, t.text)}
		}
		fn, ok := functions[t.text]
		if !ok {
			return nil, &SyntaxError{t.pos, fmt.Sprintf("unknown function %q", t.text)}
		}
		p.next()
		var args []node
		if p.peek().kind == tRParen {
			p.next()
		} else {
			for {
				a, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				c := p.next()
				if c.kind == tRParen {
					break
				}
				if c.kind != tComma {
					return nil, &SyntaxError{c.pos, fmt.Sprintf("expected ',' or ')' in the arguments of %s but found %s", t.text, describe(c))}
				}
			}
		}
		if fn.max == MaxArgs && len(args) > MaxArgs {
			return nil, &SyntaxError{t.pos, fmt.Sprintf("function %s takes at most %d arguments, as in pgbench, not %d", t.text, MaxArgs, len(args))}
		}
		if len(args) < fn.min || (fn.max >= 0 && len(args) > fn.max) {
			return nil, &SyntaxError{t.pos, fmt.Sprintf("function %s takes %s, not %d", t.text, fn.arity(), len(args))}
		}
		return &callNode{name: t.text, fn: fn, args: args, pos: t.pos}, nil
	case tEOF:
		return nil, &SyntaxError{t.pos, "unexpected end of expression"}
	}
	return nil, &SyntaxError{t.pos, fmt.Sprintf("unexpected %s", describe(t))}
}

func (p *parser) caseExpr(start token) (node, error) {
	c := &caseNode{pos: start.pos}
	for {
		w := p.next()
		if w.kind != tIdent {
			return nil, &SyntaxError{w.pos, "expected WHEN, ELSE or END in CASE"}
		}
		switch w.text {
		case "when":
			cond, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if th := p.next(); th.kind != tIdent || th.text != "then" {
				return nil, &SyntaxError{th.pos, "expected THEN after WHEN condition"}
			}
			val, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			c.conds = append(c.conds, cond)
			c.vals = append(c.vals, val)
			continue
		case "else":
			if len(c.conds) == 0 {
				return nil, &SyntaxError{w.pos, "CASE needs at least one WHEN"}
			}
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			c.els = e
			if end := p.next(); end.kind != tIdent || end.text != "end" {
				return nil, &SyntaxError{end.pos, "expected END after ELSE"}
			}
			return c, nil
		case "end":
			if len(c.conds) == 0 {
				return nil, &SyntaxError{w.pos, "CASE needs at least one WHEN"}
			}
			return c, nil
		}
		return nil, &SyntaxError{w.pos, "expected WHEN, ELSE or END in CASE"}
	}
}
