package wlfile

import (
	"fmt"
	"github.com/dbharness/dbharness/internal/sqlparams"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Spec is a parsed workload file.
type Spec struct {
	Name         string
	Tables       []*Table
	Transactions []*Txn
	// Params are the transaction parameters shared by all transactions.
	Params []*Param
}

// Table is one table of the file.
type Table struct {
	Name       string
	Columns    []*Column
	PrimaryKey []string
	Indexes    []Index
	// Rows is the row count; for a child table it follows from Parent.
	Rows   int64
	Parent *Parent
	index  int
}

// Column is one column and its generator.
type Column struct {
	Name string
	// Type is the portable type as written; SQLType gives the engine's.
	Type  string
	class class
	Gen   *Gen
	// FK is set on the child's foreign key column.
	FK *Parent
	// src is the mapping the column was read from, lim its type's limits.
	src *object
	lim typeLimits
}

// Index is a secondary index.
type Index struct {
	Name    string
	Columns []string
	Unique  bool
}

// Parent is a relationship: the child's column references the parent's
// column, and each parent has a number of children drawn from Children.
type Parent struct {
	Table      *Table
	Column     string // in the child
	References string // in the parent
	Children   *Gen
	ref        *Column
}

// Param is a transaction parameter drawn from a generator.
type Param struct {
	Name string
	Gen  *Gen
}

// Txn is a transaction type.
type Txn struct {
	Name       string
	Weight     float64
	ReadOnly   bool
	Think      time.Duration
	Params     []*Param
	Statements []*Statement
}

// Statement is one SQL statement with :name parameters.
type Statement struct {
	SQL string
	// Text is SQL with $1..$n in place of the parameters, Args the
	// parameter name of each placeholder.
	Text string
	Args []string
	// Returns are the names of the columns the statement appears to return
	// (a SELECT list or RETURNING, "*" for any), guessed from its text.
	Returns []string
	// Line is the statement's line in the file.
	Line int
}

// MayReturn reports whether the statement appears to return a column
// named name.
func (s *Statement) MayReturn(name string) bool {
	for _, c := range s.Returns {
		if c == "*" || strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse parses a workload file's contents. scale is the value of scale in
// expressions. Errors name the file, line and column.
func Parse(name string, data []byte, scale int64) (*Spec, error) {
	p := &parser{file: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(name, data, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, p.errf(nil, "the file is empty; expected a mapping with tables: and transactions:")
	}
	if err := p.duplicateKey(&doc); err != nil {
		return nil, err
	}
	root, err := p.obj(doc.Content[0], "the workload file", "name", "description", "tables", "params", "transactions")
	if err != nil {
		return nil, err
	}
	s := &Spec{}
	if s.Name, err = p.str(root, "name", "the workload file", false); err != nil {
		return nil, err
	}
	tn, ok := root.fields["tables"]
	if !ok {
		return nil, p.errf(root.node, "the workload file needs tables: (a list of tables)")
	}
	if tn.Kind != yaml.SequenceNode || len(tn.Content) == 0 {
		return nil, p.errf(tn, "tables must be a non-empty list of tables (- name: ...)")
	}
	byName := map[string]*Table{}
	for i, n := range tn.Content {
		t, err := p.table(n, i, byName, scale)
		if err != nil {
			return nil, err
		}
		byName[strings.ToLower(t.Name)] = t
		s.Tables = append(s.Tables, t)
	}
	p.tables = byName
	if pn, ok := root.fields["params"]; ok {
		if s.Params, err = p.params(pn, "params", scale, 1000); err != nil {
			return nil, err
		}
	}
	if xn, ok := root.fields["transactions"]; ok {
		if xn.Kind != yaml.SequenceNode {
			return nil, p.errf(xn, "transactions must be a list (- name: ...)")
		}
		seen := map[string]bool{}
		for i, n := range xn.Content {
			x, err := p.txn(n, i, s.Params, scale)
			if err != nil {
				return nil, err
			}
			if seen[x.Name] {
				return nil, p.errf(n, "transaction %q is defined twice", x.Name)
			}
			seen[x.Name] = true
			s.Transactions = append(s.Transactions, x)
		}
		if len(s.Transactions) > 0 && !slices.ContainsFunc(s.Transactions, func(x *Txn) bool { return x.Weight > 0 }) {
			return nil, p.errf(xn, "every transaction has weight 0; expected at least one above 0")
		}
	}
	if err := p.resolveLatest(s); err != nil {
		return nil, err
	}
	return s, nil
}

var typeRE = regexp.MustCompile(`^(?i)(smallint|int|integer|bigint|int4|int8|float|double|double precision|real|boolean|bool|text|timestamp|date|uuid|(varchar|char|character varying|character)\s*\(\s*(\d+)\s*\)|(numeric|decimal)\s*\(\s*(\d+)\s*(,\s*(\d+)\s*)?\))$`)

const typeList = "smallint, int, bigint, float (double), numeric(P,S), varchar(N), char(N), text, timestamp, date, uuid, boolean"

func typeClass(t string) (class, bool) {
	if !typeRE.MatchString(strings.TrimSpace(t)) {
		return 0, false
	}
	l := strings.ToLower(strings.TrimSpace(t))
	switch {
	case l == "smallint" || l == "int" || l == "integer" || l == "bigint" || l == "int4" || l == "int8":
		return cInt, true
	case l == "float" || l == "double" || l == "double precision" || l == "real" || strings.HasPrefix(l, "numeric") || strings.HasPrefix(l, "decimal"):
		return cFloat, true
	case l == "boolean" || l == "bool":
		return cBool, true
	case l == "timestamp" || l == "date":
		return cTime, true
	case l == "uuid":
		return cUUID, true
	}
	return cString, true
}

// Types are an engine's names for the portable types that differ.
type Types struct {
	Float, Timestamp, UUID string
}

// SQLType is the column's type on an engine.
func (c *Column) SQLType(caps Types) string {
	l := strings.ToLower(strings.TrimSpace(c.Type))
	switch l {
	case "int4", "integer":
		return "int"
	case "int8":
		return "bigint"
	case "float", "double", "double precision", "real":
		return caps.Float
	case "bool":
		return "boolean"
	case "timestamp":
		return caps.Timestamp
	case "uuid":
		return caps.UUID
	}
	return l
}

func (p *parser) table(n *yaml.Node, idx int, byName map[string]*Table, scale int64) (*Table, error) {
	what := fmt.Sprintf("table %d", idx+1)
	o, err := p.obj(n, what, "name", "rows", "columns", "primary_key", "indexes", "parent")
	if err != nil {
		return nil, err
	}
	t := &Table{index: idx}
	if t.Name, err = p.str(o, "name", what, true); err != nil {
		return nil, err
	}
	if err := p.sqlName(o.fields["name"], "", "table", t.Name); err != nil {
		return nil, err
	}
	if byName[strings.ToLower(t.Name)] != nil {
		return nil, p.errf(o.fields["name"], "table %s is defined twice", t.Name)
	}
	what = "table " + t.Name
	cn, ok := o.fields["columns"]
	if !ok || cn.Kind != yaml.SequenceNode || len(cn.Content) == 0 {
		return nil, p.errf(o.node, "%s needs columns: a non-empty list of columns (- name: id ...)", what)
	}
	cols := map[string]*Column{}
	var fkNode *yaml.Node
	if pn, ok := o.fields["parent"]; ok {
		po, err := p.obj(pn, what+": parent", "table", "column", "references", "children")
		if err != nil {
			return nil, err
		}
		pt, err := p.str(po, "table", what+": parent", true)
		if err != nil {
			return nil, err
		}
		parent := byName[strings.ToLower(pt)]
		if parent == nil {
			return nil, p.errf(po.fields["table"], "%s: parent table %q is not defined above this table", what, pt)
		}
		rel := &Parent{Table: parent}
		if rel.Column, err = p.str(po, "column", what+": parent", true); err != nil {
			return nil, err
		}
		fkNode = po.fields["column"]
		if rel.References, err = p.str(po, "references", what+": parent", false); err != nil {
			return nil, err
		}
		if rel.References == "" {
			if len(parent.PrimaryKey) != 1 {
				return nil, p.errf(pn, "%s: parent %s has no single-column primary key; name the referenced column with references:", what, parent.Name)
			}
			rel.References = parent.PrimaryKey[0]
		}
		for _, c := range parent.Columns {
			if strings.EqualFold(c.Name, rel.References) {
				rel.ref = c
			}
		}
		if rel.ref == nil {
			return nil, p.errf(pn, "%s: parent %s has no column %q", what, parent.Name, rel.References)
		}
		if rel.ref.Gen == nil {
			return nil, p.errf(pn, "%s: referenced column %s.%s has no generator of its own", what, parent.Name, rel.References)
		}
		if rel.ref.Gen.Null > 0 {
			return nil, p.errf(pn, "%s: referenced column %s.%s has NULLs", what, parent.Name, rel.References)
		}
		chn, ok := po.fields["children"]
		if !ok {
			return nil, p.errf(pn, "%s: parent needs children: the children-per-parent distribution, e.g. {gen: zipf, min: 0, max: 100, exponent: 1.1}", what)
		}
		if rel.Children, err = p.intSub(chn, what+": children", scale); err != nil {
			return nil, err
		}
		if rel.Children.intd.Min() < 0 {
			return nil, p.errf(chn, "%s: children per parent cannot be negative", what)
		}
		t.Parent = rel
		if o.has("rows") {
			return nil, p.errf(o.keys["rows"], "%s: a child table's rows follow from its parent's children per parent; remove rows", what)
		}
	} else {
		r, ok, err := p.number(o, "rows", what, scale)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, p.errf(o.node, "%s needs rows: a number or an expression of scale such as 1000 * scale", what)
		}
		if r < 0 || r > 1e12 || r != math.Trunc(r) {
			return nil, p.errf(o.fields["rows"], "%s: rows must be a whole number between 0 and 10^12, not %v", what, r)
		}
		t.Rows = int64(r)
	}
	for ci, c := range cn.Content {
		col, err := p.column(c, what, t, ci, scale)
		if err != nil {
			return nil, err
		}
		if cols[strings.ToLower(col.Name)] != nil {
			return nil, p.errf(c, "%s: column %s is defined twice", what, col.Name)
		}
		cols[strings.ToLower(col.Name)] = col
		t.Columns = append(t.Columns, col)
	}
	if t.Parent != nil {
		fk := cols[strings.ToLower(t.Parent.Column)]
		if fk == nil {
			return nil, p.errf(fkNode, "%s: parent column %q is not among the columns; add it with a type and no gen", what, t.Parent.Column)
		}
		if fk.Gen != nil {
			return nil, p.errf(fkNode, "%s: column %s takes its values from the parent; remove its gen", what, fk.Name)
		}
		fk.FK = t.Parent
		if err := p.referenceFits(fk, t.Parent, t.Name+"."+fk.Name, scale); err != nil {
			return nil, err
		}
	}
	for _, c := range t.Columns {
		if c.Gen == nil && c.FK == nil {
			return nil, p.errf(cn, "%s: column %s needs gen:", what, c.Name)
		}
	}
	if pk, pkn, err := p.strList(o, "primary_key", what); err != nil {
		return nil, err
	} else {
		for _, k := range pk {
			if cols[strings.ToLower(k)] == nil {
				return nil, p.errf(pkn, "%s: primary key column %q is not a column of the table", what, k)
			}
		}
		t.PrimaryKey = pk
	}
	if in, ok := o.fields["indexes"]; ok {
		if in.Kind != yaml.SequenceNode {
			return nil, p.errf(in, "%s: indexes must be a list; each item a list of columns or {columns: [...], unique: true}", what)
		}
		for i, x := range in.Content {
			ix := Index{Name: fmt.Sprintf("%s_ix%d", t.Name, i+1)}
			var list []string
			var ln *yaml.Node
			if x.Kind == yaml.MappingNode {
				xo, err := p.obj(x, what+": index", "columns", "unique", "name")
				if err != nil {
					return nil, err
				}
				if list, ln, err = p.strList(xo, "columns", what+": index"); err != nil {
					return nil, err
				}
				if ix.Unique, err = p.boolean(xo, "unique", what+": index"); err != nil {
					return nil, err
				}
				if nm, _ := p.str(xo, "name", what+": index", false); nm != "" {
					if err := p.sqlName(xo.fields["name"], what+": ", "index", nm); err != nil {
						return nil, err
					}
					ix.Name = nm
				}
			} else {
				wrap := &object{node: x, fields: map[string]*yaml.Node{"columns": x}}
				if list, ln, err = p.strList(wrap, "columns", what+": index"); err != nil {
					return nil, err
				}
			}
			if len(list) == 0 {
				return nil, p.errf(x, "%s: an index needs at least one column", what)
			}
			for _, k := range list {
				if cols[strings.ToLower(k)] == nil {
					return nil, p.errf(ln, "%s: index column %q is not a column of the table", what, k)
				}
			}
			ix.Columns = list
			t.Indexes = append(t.Indexes, ix)
		}
	}
	return t, nil
}

func (p *parser) column(n *yaml.Node, what string, t *Table, ci int, scale int64) (*Column, error) {
	cw := fmt.Sprintf("%s: column %d", what, ci+1)
	o, err := p.obj(n, cw, append([]string{"name", "type"}, genFields...)...)
	if err != nil {
		return nil, err
	}
	c := &Column{}
	if c.Name, err = p.str(o, "name", cw, true); err != nil {
		return nil, err
	}
	if err := p.sqlName(o.fields["name"], cw+": ", "column", c.Name); err != nil {
		return nil, err
	}
	cw = fmt.Sprintf("%s.%s", t.Name, c.Name)
	if c.Type, err = p.str(o, "type", cw, true); err != nil {
		return nil, err
	}
	cl, ok := typeClass(c.Type)
	if !ok {
		return nil, p.errf(o.fields["type"], "%s: unknown type %q; expected one of: %s", cw, c.Type, typeList)
	}
	c.class = cl
	if c.lim, err = limitsOf(c.Type); err != nil {
		return nil, p.errf(o.fields["type"], "%s: %v", cw, err)
	}
	c.src = o
	if !o.has("gen") {
		for k := range o.fields {
			if k != "name" && k != "type" {
				return nil, p.errf(o.keys[k], "%s: %s given without gen", cw, k)
			}
		}
		return c, nil
	}
	key := uint64(t.index)<<20 | uint64(ci) + 1
	if c.Gen, err = p.parseGen(o, cw, cl, scale, key); err != nil {
		return nil, err
	}
	if c.Gen.seqAfter {
		return nil, p.errf(o.keys["after"], "%s: after goes with a sequence parameter, which counts on at run time; a column's sequence numbers its rows", cw)
	}
	if c.Gen.kind.runOnly {
		return nil, p.errf(o.fields["gen"], "%s: gen %s draws while the transactions run; a column cannot take it, a parameter can", cw, c.Gen.Kind)
	}
	c.Gen.setDecimals(c.Type)
	rows := t.Rows
	if t.Parent != nil {
		rows = -1
	}
	if err := p.fits(c.Gen, o, c.lim, cw, scale, rows); err != nil {
		return nil, err
	}
	return c, nil
}

// params reads a mapping of parameter name to generator.
func (p *parser) params(n *yaml.Node, what string, scale int64, keyBase uint64) ([]*Param, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "%s must be a mapping of parameter name to generator", what)
	}
	var out []*Param
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !identRE.MatchString(k.Value) {
			return nil, p.errf(k, "%s: parameter name %q must be a plain identifier", what, k.Value)
		}
		pw := what + ": " + k.Value
		o, err := p.obj(v, pw, append([]string{"type", "like"}, genFields...)...)
		if err != nil {
			return nil, err
		}
		if ln, ok := o.fields["like"]; ok {
			if len(o.fields) != 1 {
				return nil, p.errf(ln, "%s: like: TABLE.COLUMN takes no other fields", pw)
			}
			g, err := p.likeColumn(ln, pw)
			if err != nil {
				return nil, err
			}
			out = append(out, &Param{Name: k.Value, Gen: g})
			continue
		}
		cl := cInt
		ty, _ := p.str(o, "type", pw, false)
		if ty != "" {
			var ok bool
			if cl, ok = typeClass(ty); !ok {
				return nil, p.errf(o.fields["type"], "%s: unknown type %q; expected one of: %s", pw, ty, typeList)
			}
		} else if gk, _ := p.str(o, "gen", pw, false); gk != "" {
			if k := genKindByName[strings.ToLower(gk)]; k != nil && k.param != nil {
				cl = k.param(o)
			}
		}
		g, err := p.parseGen(o, pw, cl, scale, keyBase+uint64(i))
		if err != nil {
			return nil, err
		}
		g.setDecimals(ty)
		if an, ok := o.fields["after"]; ok {
			t, c, err := p.tableColumn(an, pw, "after")
			if err != nil {
				return nil, err
			}
			if c.class != cInt {
				return nil, p.errf(an, "%s: after: %s.%s holds %s; a sequence continues after an integer column", pw, t.Name, c.Name, c.class)
			}
			if g.seqStep <= 0 {
				return nil, p.errf(an, "%s: after: the sequence continues after the largest value, so its step must be above 0, not %d", pw, g.seqStep)
			}
			g.After = &After{Table: t.Name, Column: c.Name}
		}
		out = append(out, &Param{Name: k.Value, Gen: g})
	}
	return out, nil
}

// likeColumn finds the generator of TABLE.COLUMN, for a parameter that
// draws like a column (with distinct: N, from the same N values).
func (p *parser) likeColumn(n *yaml.Node, what string) (*Gen, error) {
	t, c, err := p.tableColumn(n, what, "like")
	if err != nil {
		return nil, err
	}
	if c.Gen == nil {
		return nil, p.errf(n, "%s: like: %s.%s takes its values from its parent; use like: on the parent's column", what, t.Name, c.Name)
	}
	return c.Gen, nil
}

// tableColumn finds the column TABLE.COLUMN written at n, the value of
// field.
func (p *parser) tableColumn(n *yaml.Node, what, field string) (*Table, *Column, error) {
	tn, cn, ok := strings.Cut(n.Value, ".")
	if n.Kind != yaml.ScalarNode || !ok {
		return nil, nil, p.errf(n, "%s: %s must be TABLE.COLUMN", what, field)
	}
	t := p.tables[strings.ToLower(tn)]
	if t == nil {
		return nil, nil, p.errf(n, "%s: %s: no table %q", what, field, tn)
	}
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, cn) {
			return t, c, nil
		}
	}
	return nil, nil, p.errf(n, "%s: %s: table %s has no column %q", what, field, tn, cn)
}

func (p *parser) txn(n *yaml.Node, idx int, shared []*Param, scale int64) (*Txn, error) {
	what := fmt.Sprintf("transaction %d", idx+1)
	o, err := p.obj(n, what, "name", "weight", "read_only", "think", "params", "statements")
	if err != nil {
		return nil, err
	}
	x := &Txn{Weight: 1}
	if x.Name, err = p.str(o, "name", what, true); err != nil {
		return nil, err
	}
	if !identRE.MatchString(x.Name) {
		return nil, p.errf(o.fields["name"], "%s: name %q must be a plain identifier", what, x.Name)
	}
	what = "transaction " + x.Name
	if w, ok, err := p.number(o, "weight", what, scale); err != nil {
		return nil, err
	} else if ok {
		if w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return nil, p.errf(o.fields["weight"], "%s: weight must be a non-negative number", what)
		}
		x.Weight = w
	}
	if x.ReadOnly, err = p.boolean(o, "read_only", what); err != nil {
		return nil, err
	}
	if x.Think, err = p.duration(o, "think", what); err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, s := range shared {
		known[s.Name] = true
	}
	if pn, ok := o.fields["params"]; ok {
		if x.Params, err = p.params(pn, what+": params", scale, uint64(idx+2)*1000); err != nil {
			return nil, err
		}
		for _, s := range x.Params {
			known[s.Name] = true
		}
	}
	// After a SELECT * any name may be a returned column: it is checked at
	// run time.
	anyColumn := false
	sn, ok := o.fields["statements"]
	if !ok || sn.Kind != yaml.SequenceNode || len(sn.Content) == 0 {
		return nil, p.errf(o.node, "%s needs statements: a list of SQL statements", what)
	}
	for _, s := range sn.Content {
		var sqlNode *yaml.Node
		switch s.Kind {
		case yaml.ScalarNode:
			sqlNode = s
		case yaml.MappingNode:
			so, err := p.obj(s, what+": statement", "sql")
			if err != nil {
				return nil, err
			}
			if _, err := p.str(so, "sql", what+": statement", true); err != nil {
				return nil, err
			}
			sqlNode = so.fields["sql"]
		default:
			return nil, p.errf(s, "%s: a statement is SQL text (or {sql: ...}), not %s", what, kindName(s))
		}
		st := &Statement{SQL: strings.TrimSpace(sqlNode.Value), Line: sqlNode.Line}
		if st.SQL == "" {
			return nil, p.errf(sqlNode, "%s: empty statement", what)
		}
		st.Text, st.Args = sqlparams.Number(st.SQL)
		for _, a := range st.Args {
			if !known[a] && !known[strings.ToLower(a)] && !anyColumn {
				return nil, p.errf(sqlNode, "%s: parameter :%s is neither in params nor a column returned by an earlier statement", what, a)
			}
		}
		x.Statements = append(x.Statements, st)
		// Columns this statement may return become known; they are
		// checked at run time (the names come from the database).
		st.Returns = selectColumns(st.SQL)
		for _, c := range st.Returns {
			if c == "*" {
				anyColumn = true
			}
			known[c] = true
		}
	}
	return x, nil
}

var asRE = regexp.MustCompile(`(?i)\bas\s+([A-Za-z_][A-Za-z0-9_]*)`)

// selectColumns guesses the column names a statement returns, so that
// later statements may use them: the output names of a SELECT list or of
// RETURNING. Anything it misses is still available at run time.
func selectColumns(sql string) []string {
	l := strings.ToLower(sql)
	var list string
	if i := strings.Index(l, "returning"); i >= 0 {
		list = sql[i+len("returning"):]
	} else if strings.HasPrefix(strings.TrimSpace(l), "select") || strings.HasPrefix(strings.TrimSpace(l), "with") {
		s := strings.Index(l, "select")
		e := strings.Index(l[s:], " from ")
		if e < 0 {
			list = sql[s+6:]
		} else {
			list = sql[s+6 : s+e]
		}
	} else {
		return nil
	}
	var out []string
	depth, start := 0, 0
	items := []string{}
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, list[start:i])
				start = i + 1
			}
		}
	}
	items = append(items, list[start:])
	for _, it := range items {
		it = strings.TrimSpace(it)
		if m := asRE.FindAllStringSubmatch(it, -1); m != nil {
			out = append(out, m[len(m)-1][1])
			continue
		}
		if it == "*" || strings.HasSuffix(it, ".*") {
			out = append(out, "*")
			continue
		}
		f := strings.Fields(it)
		if len(f) == 0 {
			continue
		}
		last := f[len(f)-1]
		if k := strings.LastIndexByte(last, '.'); k >= 0 {
			last = last[k+1:]
		}
		if identRE.MatchString(last) {
			out = append(out, strings.ToLower(last))
		}
	}
	return out
}
